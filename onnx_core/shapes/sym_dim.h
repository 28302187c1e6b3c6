#pragma once
// SymDim: one tensor dimension, known exactly, symbolically, or not at all.
//
// A known dimension is an integer polynomial over atoms, kept in a canonical form so
// that equal expressions compare equal: `2*a+b` and `b+a+a` are the same SymDim.
// Atoms are named symbols (`batch`) and the operations a polynomial cannot absorb:
// exact division, floor division and modulo, each kept symbolic when it cannot be
// simplified (`a//2`, `(a+1)%4`). Their operands are SymDims in canonical form, so atoms
// compare structurally too.
//
// An unknown dimension is unknown: it equals nothing, not even another unknown, and
// every operation involving it gives unknown. Inference must never guess.
//
// Text form (ToString / Parse): integers, symbol names ([A-Za-z_][A-Za-z0-9_]*),
// `+ - * // %`, exact division `/`, parentheses, `?` for unknown. Examples: "2*seq+1",
// "batch", "(a+1)//2", "a*b/c". Precedence and associativity are Python's (unary minus
// binds tighter than `* / // %`: "-a//2" is (-a)//2). A symbol whose name is not an
// identifier prints between backquotes, a backquote in it doubled: "`seq len`+1".
// ToString is canonical: equal SymDims print the same text, and Parse(ToString()) gives
// back an equal SymDim.

#include <compare>
#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace onnxopt::core::shapes {

class SymDim {
 public:
  // Unknown.
  SymDim();
  // A known integer.
  SymDim(std::int64_t value);  // NOLINT(google-explicit-constructor): dims are numbers
  static SymDim Unknown() { return SymDim(); }
  static SymDim Symbol(std::string_view name);
  // Parses the text form; throws onnxopt::Error on bad syntax.
  static SymDim Parse(std::string_view text);

  bool IsUnknown() const;
  bool IsKnown() const { return !IsUnknown(); }
  // An integer (no symbol).
  bool IsConstant() const;
  std::optional<std::int64_t> Constant() const;
  // Names of the symbols the expression depends on.
  std::vector<std::string> Symbols() const;
  // Value for the given symbol values; nullopt when unknown, a symbol has no value, or a
  // division is not exact / divides by zero.
  std::optional<std::int64_t> Evaluate(const std::map<std::string, std::int64_t, std::less<>>& values) const;

  // Arithmetic. Division by an expression that does not divide exactly stays symbolic;
  // floor division and modulo follow Python's (and ONNX's Div on integers does not: the
  // shape functions pick the operation matching the operator). Overflow gives unknown,
  // and so does division by the constant 0.
  // ExactDiv asserts exactness: 12/4 = 3, (2*a+b)/2 = a+b/2, a*b/a = b, but 7/2 and
  // (2*a+1)/2, which can never be exact, are unknown. A symbolic ExactDiv evaluates to
  // nullopt where it is not exact.
  // CeilDiv by a positive constant c is (a+c-1)//c, so "(a+1)//2" is ceil(a/2).
  friend SymDim operator+(const SymDim& a, const SymDim& b);
  friend SymDim operator-(const SymDim& a, const SymDim& b);
  friend SymDim operator*(const SymDim& a, const SymDim& b);
  friend SymDim operator-(const SymDim& a);
  static SymDim ExactDiv(const SymDim& a, const SymDim& b);
  static SymDim FloorDiv(const SymDim& a, const SymDim& b);
  static SymDim CeilDiv(const SymDim& a, const SymDim& b);  // -((-a)//b)
  static SymDim Mod(const SymDim& a, const SymDim& b);
  // Known only when decidable for every integer value of the symbols (nothing is assumed
  // about signs): both constant, a-b constant, or an int64 bound (Min(a, INT64_MAX) = a).
  // Max(seq, 0) is unknown.
  static SymDim Min(const SymDim& a, const SymDim& b);
  static SymDim Max(const SymDim& a, const SymDim& b);

  // Structural equality of canonical forms. Unknown == anything is false (including
  // Unknown == Unknown): use IsUnknown() to test for unknown.
  friend bool operator==(const SymDim& a, const SymDim& b);
  friend bool operator!=(const SymDim& a, const SymDim& b) { return !(a == b); }
  // Whether the two are provably different (e.g. two different constants, a+1 vs a).
  static bool ProvablyDifferent(const SymDim& a, const SymDim& b);
  // A total order on canonical forms (unknown first), for use as a map key.
  static bool Less(const SymDim& a, const SymDim& b);

  std::string ToString() const;

  // Implementation detail, public so that the canonicalizer's helpers can use it.
  struct Expr;

 private:
  explicit SymDim(std::shared_ptr<const Expr> expr);
  std::shared_ptr<const Expr> expr_;  // null for unknown; shared, immutable
};

// Hands out fresh symbols for values only known at run time (NonZero's count, the
// output of a custom op): "unk__0", "unk__1", ... never clashing with the model's names.
class SymbolGenerator {
 public:
  explicit SymbolGenerator(std::string prefix = "unk__") : prefix_(std::move(prefix)) {}
  SymDim Fresh();

 private:
  std::string prefix_;
  std::uint64_t next_ = 0;
};

}  // namespace onnxopt::core::shapes
