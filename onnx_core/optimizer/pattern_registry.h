#pragma once
// Pattern registration and selection.
//
// onnx_core owns the registry; pattern libraries fill it by explicit calls
// (onnx_patterns::RegisterPatterns() for the built-in ones), so that linking a static
// archive never silently drops a pattern, and an application that links only onnx_core
// can register its own. Names are the stable identifiers users select patterns by.
//
// Three levels, merged by name, the most local winning:
//   global (RegisterPattern) < one GraphBuilder (RegisterPattern(builder, ...))
//                            < one GraphGraph (patterns given to its constructor)

#include <functional>
#include <memory>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "onnx_core/optimizer/pattern.h"

namespace onnxopt::core::builder {

class GraphBuilder;

using PatternFactory = std::function<std::unique_ptr<PatternOptimization>()>;

struct RegisteredPattern {
  std::string name;
  PatternFactory factory;
  std::string family;  // e.g. "canonicalization"; empty for application patterns
  NumericalClass numerics = NumericalClass::kExact;
  // Left out of "default" though it keeps results: a pass that only pays off under an
  // execution model the user asks for (copy elimination plans in-place memory).
  bool opt_in = false;
  // What the pattern matches, what it writes, where it is not valid (`onnxopt patterns
  // NAME`, the Python class's __doc__). Built-in patterns get the `///` comment above
  // their class (DocumentPattern); empty when nobody documented the pattern.
  std::string doc{};
};

// Name -> factory, in registration order.
class PatternRegistry {
 public:
  // Adds `name`. Registering the same plain function again is a no-op; any other
  // factory under an existing name throws BuilderError (behaviour must not change
  // silently).
  void Register(RegisteredPattern entry);
  // Adds the entry, or replaces the one of its name (keeping its place in the order).
  void Replace(RegisteredPattern entry);
  // Sets the doc of the entry `name`, if there is one.
  void SetDoc(std::string_view name, const std::string& doc);
  bool Contains(std::string_view name) const;
  std::vector<std::string> Names() const;
  const std::vector<RegisteredPattern>& Entries() const { return entries_; }

 private:
  std::vector<RegisteredPattern> entries_;
};

// --- The global registry ----------------------------------------------------------------
// An application's pattern declares its numerical class here (exact unless said otherwise:
// the application vouches for it).
void RegisterPattern(const std::string& name, PatternFactory factory, std::string family = "",
                     NumericalClass numerics = NumericalClass::kExact);
void RegisterPattern(RegisteredPattern entry);
void ReplacePattern(const std::string& name, PatternFactory factory, std::string family = "",
                    NumericalClass numerics = NumericalClass::kExact);
std::vector<std::string> RegisteredPatternNames();
// Every global entry (names, factories, families, docs), in registration order.
std::vector<RegisteredPattern> RegisteredPatterns();
// Sets the documentation of the global entry `name`, whether it is registered already or
// later (a registration that brings its own doc keeps it). The docs of the built-in
// patterns are generated from their headers (onnx_extensions/patterns/pattern_docs.h).
void DocumentPattern(const std::string& name, std::string doc);
// One new instance of every globally registered pattern, in registration order.
std::vector<std::unique_ptr<PatternOptimization>> CreateRegisteredPatterns();

// Registers T under T::kName, with T::kNumerics, with a plain factory function, so that
// registering it twice (e.g. from two entry points) is accepted.
template <class T>
std::unique_ptr<PatternOptimization> CreatePattern() {
  return std::make_unique<T>();
}
// T::kOptIn, when T declares it, makes the pattern opt-in (RegisteredPattern::opt_in).
template <class T>
void RegisterPattern(std::string family = "") {
  constexpr bool opt_in = [] {
    if constexpr (requires { T::kOptIn; })
      return T::kOptIn;
    else
      return false;
  }();
  RegisterPattern(RegisteredPattern{std::string(T::kName), &CreatePattern<T>, std::move(family), T::kNumerics, opt_in});
}

// The names among `available` that look like `name` (a typo, another case, a missing
// "Pattern" suffix, a part of the name), closest first, at most `limit`: the suggestions of
// "unknown pattern" messages.
std::vector<std::string> ClosePatternNames(std::string_view name, const std::vector<RegisteredPattern>& available,
                                           std::size_t limit = 5);

// --- One builder's registry -------------------------------------------------------------
// Registers (or replaces) a pattern for the optimizers of `builder` only.
void RegisterPattern(GraphBuilder& builder, const std::string& name, PatternFactory factory,
                     NumericalClass numerics = NumericalClass::kExact);

// --- Selection --------------------------------------------------------------------------
// Which registered patterns an optimizer uses. Text form, as on the command line:
//   "default"            every registered pattern that keeps results (NumericalClass
//                        exact or rounding) and is not opt-in: the approximate and
//                        opt-in ones are left out
//   "all"                every registered pattern, the approximate ones included
//   "none"               no registered pattern
//   "A,B"                exactly A and B (approximate or not: naming one selects it)
//   "F" (a family name)  every pattern and pass of family F, wherever a name may stand:
//                        "default,-transpose", "transpose", "none,+fusion"
//   "default,-A" or "-A" every default pattern but A;  "none,+A" only A;  "+A" alone
//                        adds A to default)
class PatternSelection {
 public:
  static PatternSelection Default() { return PatternSelection(Base::kDefault); }
  static PatternSelection All() { return PatternSelection(Base::kAll); }
  static PatternSelection None() { return PatternSelection(Base::kNone); }
  // Throws onnxopt::Error on a malformed list ("+" without a name, empty items).
  static PatternSelection Parse(std::string_view text);

  PatternSelection& Include(std::string name);
  PatternSelection& Exclude(std::string name);

  // Applies the selection to the patterns available (in their order) and returns the
  // names it keeps. Throws onnxopt::Error naming any selected or excluded name that is
  // not available.
  std::vector<std::string> Resolve(const std::vector<RegisteredPattern>& available) const;
  std::string ToString() const;
  // "none" with no edit: Resolve returns nothing whatever is available.
  bool SelectsNothing() const { return base_ == Base::kNone && edits_.empty(); }

 private:
  enum class Base { kNone, kDefault, kAll };
  explicit PatternSelection(Base base) : base_(base) {}
  Base base_;
  std::vector<std::pair<bool, std::string>> edits_;  // (include?, name), in order
};

// The merged registry for `builder` (global < builder), restricted to `selection`, as
// new pattern instances in registry order.
std::vector<std::unique_ptr<PatternOptimization>> CreateSelectedPatterns(const GraphBuilder& builder,
                                                                         const PatternSelection& selection);

}  // namespace onnxopt::core::builder
