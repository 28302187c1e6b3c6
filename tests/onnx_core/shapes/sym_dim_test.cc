#include "onnx_core/shapes/sym_dim.h"

#include <gtest/gtest.h>

#include <cstdint>
#include <limits>
#include <map>
#include <memory>
#include <optional>
#include <ostream>
#include <random>
#include <string>
#include <vector>

#include "onnx_core/common/error.h"

namespace onnxopt::core::shapes {

void PrintTo(const SymDim& d, std::ostream* os) { *os << d.ToString(); }

namespace {

using Values = std::map<std::string, std::int64_t, std::less<>>;

SymDim S(std::string_view name) { return SymDim::Symbol(name); }

constexpr std::int64_t kMax = std::numeric_limits<std::int64_t>::max();
constexpr std::int64_t kMin = std::numeric_limits<std::int64_t>::min();

// ---- canonical form ----

TEST(SymDim, CanonicalizesSums) {
  SymDim a = S("a"), b = S("b");
  EXPECT_EQ(2 * a + b, b + a + a);
  EXPECT_EQ((b + a + a).ToString(), "2*a+b");
  EXPECT_EQ((2 * S("seq") + 1).ToString(), "2*seq+1");
  EXPECT_EQ(a - a, SymDim(0));
  EXPECT_TRUE((a - a).IsConstant());
  EXPECT_EQ((a - 2 * b).ToString(), "a-2*b");
  EXPECT_EQ((1 - a).ToString(), "-a+1");
}

TEST(SymDim, CanonicalizesProducts) {
  SymDim a = S("a"), b = S("b");
  EXPECT_EQ((a + b) * (a - b), a * a - b * b);
  EXPECT_EQ((a + b) * (a - b), (b + a) * (-b + a));
  EXPECT_EQ((b * a).ToString(), "a*b");
  EXPECT_EQ((a * a - b * b).ToString(), "a*a-b*b");
  EXPECT_EQ(a * 0, SymDim(0));
  EXPECT_EQ((a * b * 3 + a).ToString(), "3*a*b+a");
}

TEST(SymDim, SimplifiesExactDivision) {
  SymDim a = S("a"), b = S("b"), c = S("c");
  EXPECT_EQ(SymDim::ExactDiv(a * 2, 2), a);
  EXPECT_EQ(SymDim::ExactDiv(6 * a + 4 * b, 2), 3 * a + 2 * b);
  EXPECT_EQ(SymDim::ExactDiv(a * b * c, a * c), b);
  EXPECT_EQ(SymDim::ExactDiv(a * a - b * b, a + b), a - b);
  EXPECT_EQ(SymDim::ExactDiv(a * 64, -8), -8 * a);
  EXPECT_EQ(SymDim::ExactDiv(12, 4), SymDim(3));
  EXPECT_EQ(SymDim::ExactDiv(-12, 4), SymDim(-3));
  // Splits off the divisible part: (2a+b)/2 = a + b/2 wherever it is exact.
  EXPECT_EQ(SymDim::ExactDiv(2 * a + b, 2), a + SymDim::ExactDiv(b, 2));
}

TEST(SymDim, KeepsInexactDivisionSymbolic) {
  SymDim a = S("a"), b = S("b"), c = S("c");
  SymDim d = SymDim::ExactDiv(a * b, c);
  EXPECT_TRUE(d.IsKnown());
  EXPECT_EQ(d.ToString(), "a*b/c");
  EXPECT_EQ(d, SymDim::ExactDiv(b * a, c));
  EXPECT_EQ(SymDim::ExactDiv(a + 1, 2).ToString(), "(a+1)/2");
  // Common factors cancel: (2ab)/(4ac) = b/(2c).
  EXPECT_EQ(SymDim::ExactDiv(2 * a * b, 4 * a * c), SymDim::ExactDiv(b, 2 * c));
  // Sign of the divisor normalized.
  EXPECT_EQ(SymDim::ExactDiv(a, -b), SymDim::ExactDiv(-a, b));
}

TEST(SymDim, ExactDivisionOfInexactConstantsIsUnknown) {
  EXPECT_TRUE(SymDim::ExactDiv(7, 2).IsUnknown());
  EXPECT_TRUE(SymDim::ExactDiv(2 * S("a") + 1, 2).IsUnknown());
  EXPECT_TRUE(SymDim::ExactDiv(S("a"), 0).IsUnknown());
}

TEST(SymDim, SimplifiesFloorDivisionAndModulo) {
  SymDim a = S("a"), b = S("b");
  EXPECT_EQ(SymDim::FloorDiv(2 * a + 4, 2), a + 2);
  EXPECT_EQ(SymDim::FloorDiv(2 * a + 5, 2), a + 2);
  EXPECT_EQ(SymDim::FloorDiv(3 * a + 1, 2), a + SymDim::FloorDiv(a + 1, 2));
  EXPECT_EQ(SymDim::Mod(2 * a, 2), SymDim(0));
  EXPECT_EQ(SymDim::Mod(2 * a + 5, 2), SymDim(1));
  EXPECT_EQ(SymDim::Mod(3 * a + 1, 2), SymDim::Mod(a + 1, 2));
  EXPECT_EQ(SymDim::Mod(2 * a + 2, 4), 2 * SymDim::Mod(a + 1, 2));
  EXPECT_EQ(SymDim::FloorDiv(a * b, a), b);
  EXPECT_EQ(SymDim::Mod(a * b, b), SymDim(0));
  EXPECT_EQ(SymDim::FloorDiv(a, 1), a);
  EXPECT_EQ(SymDim::FloorDiv(a, -1), -a);
  EXPECT_EQ(SymDim::Mod(a, 1), SymDim(0));
  EXPECT_TRUE(SymDim::FloorDiv(a, 0).IsUnknown());
  EXPECT_TRUE(SymDim::Mod(a, 0).IsUnknown());
}

TEST(SymDim, FoldsConstantsWithPythonSemantics) {
  EXPECT_EQ(SymDim::FloorDiv(7, 2), SymDim(3));
  EXPECT_EQ(SymDim::FloorDiv(-7, 2), SymDim(-4));
  EXPECT_EQ(SymDim::FloorDiv(7, -2), SymDim(-4));
  EXPECT_EQ(SymDim::FloorDiv(-7, -2), SymDim(3));
  EXPECT_EQ(SymDim::Mod(7, 2), SymDim(1));
  EXPECT_EQ(SymDim::Mod(-7, 2), SymDim(1));
  EXPECT_EQ(SymDim::Mod(7, -2), SymDim(-1));
  EXPECT_EQ(SymDim::Mod(-7, -2), SymDim(-1));
  EXPECT_EQ(SymDim::CeilDiv(7, 2), SymDim(4));
  EXPECT_EQ(SymDim::CeilDiv(-7, 2), SymDim(-3));
  EXPECT_EQ(SymDim::CeilDiv(8, 2), SymDim(4));
}

TEST(SymDim, KeepsAtomsSymbolicAndComparesThemStructurally) {
  SymDim a = S("a");
  SymDim half = SymDim::FloorDiv(a + 1, 2);
  EXPECT_EQ(half.ToString(), "(a+1)//2");
  EXPECT_EQ(half, SymDim::FloorDiv(1 + a, 2));
  EXPECT_EQ(SymDim::Mod(a + 1, 4).ToString(), "(a+1)%4");
  EXPECT_EQ(SymDim::CeilDiv(a, 2), SymDim::FloorDiv(a + 1, 2));
  EXPECT_EQ(2 * half - half, half);
  EXPECT_EQ((half * half).ToString(), "((a+1)//2)*((a+1)//2)");
  EXPECT_EQ(SymDim::CeilDiv(a, S("b")), -SymDim::FloorDiv(-a, S("b")));
  EXPECT_NE(SymDim::FloorDiv(a, 2), SymDim::ExactDiv(a, 2));
  EXPECT_NE(SymDim::FloorDiv(a, 2), SymDim::Mod(a, 2));
  EXPECT_EQ(SymDim::FloorDiv(a, 2).Symbols(), std::vector<std::string>{"a"});
}

TEST(SymDim, PropagatesUnknown) {
  SymDim u, a = S("a");
  EXPECT_TRUE(u.IsUnknown());
  EXPECT_FALSE(u == u);
  EXPECT_FALSE(SymDim::Unknown() == SymDim::Unknown());
  EXPECT_TRUE(u != u);
  EXPECT_FALSE(u == SymDim(1));
  EXPECT_TRUE((u + a).IsUnknown());
  EXPECT_TRUE((u - u).IsUnknown());
  EXPECT_TRUE((u * 0).IsUnknown());
  EXPECT_TRUE((-u).IsUnknown());
  EXPECT_TRUE(SymDim::ExactDiv(u, 1).IsUnknown());
  EXPECT_TRUE(SymDim::FloorDiv(a, u).IsUnknown());
  EXPECT_TRUE(SymDim::Mod(u, a).IsUnknown());
  EXPECT_TRUE(SymDim::Min(u, a).IsUnknown());
  EXPECT_TRUE(SymDim::Max(1, u).IsUnknown());
  EXPECT_FALSE(SymDim::ProvablyDifferent(u, 1));
  EXPECT_FALSE(SymDim::ProvablyDifferent(u, u));
  EXPECT_EQ(u.ToString(), "?");
  EXPECT_FALSE(u.Evaluate({}).has_value());
  EXPECT_FALSE(u.Constant().has_value());
  EXPECT_TRUE(u.Symbols().empty());
}

TEST(SymDim, OverflowGivesUnknown) {
  SymDim a = S("a");
  EXPECT_TRUE((SymDim(kMax) + 1).IsUnknown());
  EXPECT_TRUE((SymDim(kMin) - 1).IsUnknown());
  EXPECT_TRUE((SymDim(kMax) * 2).IsUnknown());
  EXPECT_TRUE((-SymDim(kMin)).IsUnknown());
  EXPECT_TRUE((kMax * a + a).IsUnknown());
  EXPECT_TRUE((a * (kMax / 2 + 1) * 2).IsUnknown());
  EXPECT_TRUE(SymDim::FloorDiv(kMin, -1).IsUnknown());
  EXPECT_TRUE(SymDim::ExactDiv(kMin, -1).IsUnknown());
  EXPECT_EQ(SymDim::Mod(kMin, -1), SymDim(0));
  EXPECT_EQ(SymDim(kMin).Constant(), kMin);
  EXPECT_EQ(SymDim(kMax) + SymDim(kMin), SymDim(-1));
  // Evaluation overflow: nullopt, not a wrapped value.
  EXPECT_FALSE((a * a).Evaluate({{"a", std::int64_t{1} << 32}}).has_value());
}

// Constants are added, subtracted and multiplied directly: the results equal the canonical
// forms the polynomial path gives, and a difference that fits is exact even when the
// negated operand would not (the polynomial path negates, and -kMin overflows).
TEST(SymDim, ComputesConstantsDirectly) {
  SymDim a = S("a");
  EXPECT_EQ(SymDim(3) + SymDim(4), (a + 3) - a + 4);
  EXPECT_EQ((SymDim(3) * SymDim(-4)).ToString(), "-12");
  EXPECT_EQ(SymDim(3) * SymDim(-4), (a * 3 - a * 3) - 12);
  EXPECT_EQ((SymDim(5) - SymDim(5)).ToString(), "0");
  EXPECT_EQ(SymDim(5) - SymDim(5), a - a);
  EXPECT_EQ(SymDim(-1) - SymDim(kMin), SymDim(kMax));
  EXPECT_TRUE((SymDim(0) - SymDim(kMin)).IsUnknown());
  EXPECT_TRUE((SymDim(kMin) * SymDim(-1)).IsUnknown());
}

TEST(SymDim, GivesUnknownBeyondSizeLimits) {
  SymDim a = S("a");
  SymDim power(1);
  for (int i = 0; i < 64; ++i) power = power * a;
  EXPECT_TRUE(power.IsKnown());
  EXPECT_TRUE((power * a).IsUnknown());  // degree 65
  SymDim sum(0);
  for (int i = 0; i < 300; ++i) sum = sum + S("s" + std::to_string(i));
  EXPECT_TRUE(sum.IsUnknown());  // more than 256 terms
  // Dividing a high power by a+1 gives up instead of expanding without bound.
  EXPECT_TRUE(SymDim::FloorDiv(power, a + 1).IsKnown());
  SymDim power62(1);
  for (int i = 0; i < 62; ++i) power62 = power62 * a;
  EXPECT_EQ(SymDim::ExactDiv(power, a * a), power62);
}

TEST(SymDim, DecidesMinMaxOnlyWhenTheDifferenceIsConstant) {
  SymDim a = S("a"), b = S("b");
  EXPECT_EQ(SymDim::Min(3, 5), SymDim(3));
  EXPECT_EQ(SymDim::Max(3, 5), SymDim(5));
  EXPECT_EQ(SymDim::Min(a + 1, a), a);
  EXPECT_EQ(SymDim::Max(a + 1, a), a + 1);
  EXPECT_EQ(SymDim::Min(a, a), a);
  EXPECT_TRUE(SymDim::Min(a, b).IsUnknown());
  EXPECT_TRUE(SymDim::Max(a, 1).IsUnknown());
  EXPECT_TRUE(SymDim::Max(a, 0).IsUnknown());  // nothing assumed about signs
  // The int64 bounds are decidable.
  EXPECT_EQ(SymDim::Min(a, kMax), a);
  EXPECT_EQ(SymDim::Min(kMax, a), a);
  EXPECT_EQ(SymDim::Min(a, kMin), SymDim(kMin));
  EXPECT_EQ(SymDim::Max(a, kMin), a);
  EXPECT_EQ(SymDim::Max(kMax, b), SymDim(kMax));
  EXPECT_EQ(SymDim::Max(kMin, b), b);
}

TEST(SymDim, ProvesDifference) {
  SymDim a = S("a"), b = S("b");
  EXPECT_TRUE(SymDim::ProvablyDifferent(1, 2));
  EXPECT_TRUE(SymDim::ProvablyDifferent(a + 1, a));
  EXPECT_FALSE(SymDim::ProvablyDifferent(a, a));
  EXPECT_FALSE(SymDim::ProvablyDifferent(a, b));
  EXPECT_FALSE(SymDim::ProvablyDifferent(a, 2 * a));
}

TEST(SymDim, OrdersTotally) {
  SymDim u, a = S("a"), b = S("b");
  EXPECT_TRUE(SymDim::Less(u, SymDim(-5)));
  EXPECT_FALSE(SymDim::Less(SymDim(-5), u));
  EXPECT_FALSE(SymDim::Less(u, u));
  EXPECT_TRUE(SymDim::Less(SymDim(2), SymDim(10)));
  EXPECT_TRUE(SymDim::Less(SymDim(10), a));
  EXPECT_TRUE(SymDim::Less(a, b));
  EXPECT_FALSE(SymDim::Less(b, a));
  EXPECT_FALSE(SymDim::Less(a + b, b + a));
  EXPECT_FALSE(SymDim::Less(b + a, a + b));
}

TEST(SymDim, ReportsConstantsAndSymbols) {
  SymDim a = S("a");
  EXPECT_TRUE(SymDim(4).IsConstant());
  EXPECT_EQ(SymDim(4).Constant(), 4);
  EXPECT_EQ(SymDim(0).Constant(), 0);
  EXPECT_FALSE(a.IsConstant());
  EXPECT_FALSE(a.Constant().has_value());
  EXPECT_EQ((S("z") * S("b") + SymDim::FloorDiv(S("y"), S("b"))).Symbols(),
            (std::vector<std::string>{"b", "y", "z"}));
}

TEST(SymDim, EvaluatesWithPythonSemantics) {
  SymDim a = S("a"), b = S("b");
  Values v{{"a", -7}, {"b", 2}};
  EXPECT_EQ((2 * a + b).Evaluate(v), -12);
  EXPECT_EQ(SymDim::FloorDiv(a, b).Evaluate(v), -4);
  EXPECT_EQ(SymDim::Mod(a, b).Evaluate(v), 1);
  EXPECT_EQ(SymDim::FloorDiv(b, a).Evaluate(v), -1);
  EXPECT_EQ(SymDim::Mod(b, a).Evaluate(v), -5);
  EXPECT_EQ(SymDim::CeilDiv(a, b).Evaluate(v), -3);
  EXPECT_FALSE(SymDim::ExactDiv(a, b).Evaluate(v).has_value());  // -7/2 is not exact
  EXPECT_EQ(SymDim::ExactDiv(a + 1, b).Evaluate(v), -3);
  EXPECT_FALSE(SymDim::FloorDiv(a, b - 2).Evaluate(v).has_value());  // division by zero
  EXPECT_FALSE((a + S("c")).Evaluate(v).has_value());                // c has no value
  EXPECT_EQ(SymDim(5).Evaluate({}), 5);
}

// ---- text ----

TEST(SymDim, PrintsCanonicalText) {
  SymDim a = S("a"), b = S("b"), c = S("c");
  EXPECT_EQ(S("batch").ToString(), "batch");
  EXPECT_EQ(SymDim(-3).ToString(), "-3");
  EXPECT_EQ(SymDim(0).ToString(), "0");
  EXPECT_EQ((-a).ToString(), "-a");
  EXPECT_EQ((-SymDim::FloorDiv(a, 2)).ToString(), "-(a//2)");
  EXPECT_EQ((b - SymDim::FloorDiv(a, 2)).ToString(), "b-a//2");
  EXPECT_EQ((3 * SymDim::FloorDiv(a, 2)).ToString(), "3*(a//2)");
  EXPECT_EQ(SymDim::FloorDiv(a, b * c).ToString(), "a//(b*c)");
  EXPECT_EQ(SymDim::FloorDiv(a - b, c).ToString(), "(a-b)//c");
  EXPECT_EQ(SymDim::FloorDiv(-a, b).ToString(), "-a//b");
  EXPECT_EQ(SymDim::FloorDiv(SymDim::FloorDiv(a, 2), 3).ToString(), "a//2//3");
  EXPECT_EQ(S("x y").ToString(), "`x y`");
  EXPECT_EQ(S("a`b").ToString(), "`a``b`");
  EXPECT_EQ(S("s0").ToString(), "s0");
}

TEST(SymDim, ParsesText) {
  SymDim a = S("a"), b = S("b");
  EXPECT_EQ(SymDim::Parse("2*seq+1"), 2 * S("seq") + 1);
  EXPECT_EQ(SymDim::Parse(" b + a + a "), 2 * a + b);
  EXPECT_EQ(SymDim::Parse("-a//2"), SymDim::FloorDiv(-a, 2));
  EXPECT_EQ(SymDim::Parse("-(a//2)"), -SymDim::FloorDiv(a, 2));
  EXPECT_EQ(SymDim::Parse("a - b - 1"), a - b - 1);
  EXPECT_EQ(SymDim::Parse("a*b/2*3"), 3 * SymDim::ExactDiv(a * b, 2));
  EXPECT_EQ(SymDim::Parse("7 % 3 * 2"), SymDim(2));
  EXPECT_EQ(SymDim::Parse("-7//2"), SymDim(-4));
  EXPECT_EQ(SymDim::Parse("`x y`+1"), S("x y") + 1);
  EXPECT_EQ(SymDim::Parse("`a``b`"), S("a`b"));
  EXPECT_EQ(SymDim::Parse("-9223372036854775808"), SymDim(kMin));
  EXPECT_EQ(SymDim::Parse("9223372036854775807"), SymDim(kMax));
  EXPECT_TRUE(SymDim::Parse("?").IsUnknown());
  EXPECT_TRUE(SymDim::Parse("a+?").IsUnknown());
  EXPECT_TRUE(SymDim::Parse("a/0").IsUnknown());
  for (const char* bad : {"", "a+", "(a", "a)", "2a", "9223372036854775808", "a ** 2", "``", "`a", "$", "a b"}) {
    EXPECT_THROW(SymDim::Parse(bad), Error) << bad;
  }
  EXPECT_THROW(SymDim::Parse(std::string(100000, '(')), Error);
  EXPECT_THROW(SymDim::Parse(std::string(100000, '-') + "1"), Error);
}

TEST(SymDim, RoundTripsText) {
  SymDim a = S("a"), b = S("b"), q = S("x.y");
  std::vector<SymDim> dims = {
      SymDim(0), SymDim(-1), SymDim(kMin), SymDim(kMax), a, -a, q * 2 - 1,
      a * a * b - 3 * b + 7, SymDim::FloorDiv(a + 1, 2), SymDim::ExactDiv(a * b, S("c")),
      SymDim::Mod(3 * a + 2, 4), -SymDim::FloorDiv(a, b), b - SymDim::Mod(a, b) * 2,
      SymDim::FloorDiv(a, -b), SymDim::FloorDiv(SymDim::Mod(a, 3), b + 1) * SymDim::ExactDiv(a, b),
      a + SymDim(kMin), a * kMin + b, SymDim::FloorDiv(kMin, a), SymDim::FloorDiv(a, kMin + 1),
  };
  for (const SymDim& d : dims) {
    ASSERT_TRUE(d.IsKnown());
    SymDim back = SymDim::Parse(d.ToString());
    EXPECT_EQ(back, d) << d.ToString() << " -> " << back.ToString();
    EXPECT_EQ(back.ToString(), d.ToString());
  }
}

TEST(SymDim, NormalizesDivisorsThatBecomeConstant) {
  SymDim a = S("a"), n = S("n");
  EXPECT_EQ(SymDim::FloorDiv(a * n, -3 * n), SymDim::FloorDiv(-a, 3));
  EXPECT_EQ(SymDim::FloorDiv(a * n, -3 * n), SymDim::FloorDiv(2 * a, 3) - a);
  EXPECT_EQ(SymDim::Mod(a * n, 3 * n), n * SymDim::Mod(a, 3));
  EXPECT_EQ(SymDim::ExactDiv(4 * a * n, 2 * n), 2 * a);
}

TEST(SymDim, RejectsEmptySymbolName) { EXPECT_THROW(SymDim::Symbol(""), BuilderError); }

TEST(SymDim, SymbolGeneratorHandsOutFreshSymbols) {
  SymbolGenerator gen;
  SymDim x = gen.Fresh(), y = gen.Fresh();
  EXPECT_EQ(x.ToString(), "unk__0");
  EXPECT_EQ(y.ToString(), "unk__1");
  EXPECT_NE(x, y);
  EXPECT_FALSE(SymDim::ProvablyDifferent(x, y));
  SymbolGenerator other("nz_");
  EXPECT_EQ(other.Fresh().ToString(), "nz_0");
}

// ---- property test ----

// A random expression tree, evaluated directly (reference) and through SymDim.
struct Tree {
  enum class Kind { kConst, kSym, kAdd, kSub, kMul, kNeg, kExactDiv, kFloorDiv, kMod, kCeilDiv };
  Kind kind;
  std::int64_t value = 0;
  std::string name;
  std::shared_ptr<Tree> lhs, rhs;
};
using TreePtr = std::shared_ptr<Tree>;

const char* const kSymbols[] = {"a", "b", "c", "n"};

TreePtr RandomTree(std::mt19937& rng, int depth) {
  auto t = std::make_shared<Tree>();
  std::uniform_int_distribution<int> pick(0, 99);
  if (depth == 0 || pick(rng) < 25) {
    if (pick(rng) < 40) {
      t->kind = Tree::Kind::kConst;
      t->value = std::uniform_int_distribution<int>(-6, 6)(rng);
    } else {
      t->kind = Tree::Kind::kSym;
      t->name = kSymbols[std::uniform_int_distribution<int>(0, 3)(rng)];
    }
    return t;
  }
  int r = pick(rng);
  t->kind = r < 22   ? Tree::Kind::kAdd
            : r < 38 ? Tree::Kind::kSub
            : r < 58 ? Tree::Kind::kMul
            : r < 63 ? Tree::Kind::kNeg
            : r < 73 ? Tree::Kind::kExactDiv
            : r < 85 ? Tree::Kind::kFloorDiv
            : r < 95 ? Tree::Kind::kMod
                     : Tree::Kind::kCeilDiv;
  t->lhs = RandomTree(rng, depth - 1);
  if (t->kind != Tree::Kind::kNeg) {
    // Divisors: mostly small constants, sometimes expressions.
    bool division = t->kind >= Tree::Kind::kExactDiv;
    if (division && pick(rng) < 60) {
      t->rhs = std::make_shared<Tree>();
      t->rhs->kind = Tree::Kind::kConst;
      t->rhs->value = std::uniform_int_distribution<int>(-4, 6)(rng);
    } else {
      t->rhs = RandomTree(rng, depth - 1);
    }
  }
  return t;
}

SymDim Build(const Tree& t) {
  switch (t.kind) {
    case Tree::Kind::kConst: return SymDim(t.value);
    case Tree::Kind::kSym: return SymDim::Symbol(t.name);
    case Tree::Kind::kAdd: return Build(*t.lhs) + Build(*t.rhs);
    case Tree::Kind::kSub: return Build(*t.lhs) - Build(*t.rhs);
    case Tree::Kind::kMul: return Build(*t.lhs) * Build(*t.rhs);
    case Tree::Kind::kNeg: return -Build(*t.lhs);
    case Tree::Kind::kExactDiv: return SymDim::ExactDiv(Build(*t.lhs), Build(*t.rhs));
    case Tree::Kind::kFloorDiv: return SymDim::FloorDiv(Build(*t.lhs), Build(*t.rhs));
    case Tree::Kind::kMod: return SymDim::Mod(Build(*t.lhs), Build(*t.rhs));
    case Tree::Kind::kCeilDiv: return SymDim::CeilDiv(Build(*t.lhs), Build(*t.rhs));
  }
  return SymDim();
}


// The tree printed naively (fully parenthesized), for Parse.
std::string Print(const Tree& t) {
  auto bin = [&](const char* op) { return "(" + Print(*t.lhs) + ")" + op + "(" + Print(*t.rhs) + ")"; };
  switch (t.kind) {
    case Tree::Kind::kConst: return std::to_string(t.value);
    case Tree::Kind::kSym: return t.name;
    case Tree::Kind::kAdd: return bin("+");
    case Tree::Kind::kSub: return bin("-");
    case Tree::Kind::kMul: return bin("*");
    case Tree::Kind::kNeg: return "-(" + Print(*t.lhs) + ")";
    case Tree::Kind::kExactDiv: return bin("/");
    case Tree::Kind::kFloorDiv: return bin("//");
    case Tree::Kind::kMod: return bin("%");
    case Tree::Kind::kCeilDiv:
      // The text form has no ceiling: write it the way CeilDiv builds it.
      if (auto c = Build(*t.rhs).Constant(); c && *c > 0)
        return "((" + Print(*t.lhs) + ")+" + std::to_string(*c - 1) + ")//(" + Print(*t.rhs) + ")";
      return "-((-(" + Print(*t.lhs) + "))//(" + Print(*t.rhs) + "))";
  }
  return "";
}

// Reference evaluation in 128-bit integers; nullopt when undefined (division by zero,
// inexact exact division) or out of the int64 range.
std::optional<__int128> Eval(const Tree& t, const Values& v) {
  constexpr __int128 kLimit = static_cast<__int128>(1) << 62;
  auto floordiv = [](__int128 a, __int128 b) {
    __int128 q = a / b;
    if (a % b != 0 && ((a < 0) != (b < 0))) --q;
    return q;
  };
  std::optional<__int128> r;
  if (t.kind == Tree::Kind::kConst) return t.value;
  if (t.kind == Tree::Kind::kSym) return v.at(t.name);
  auto l = Eval(*t.lhs, v);
  if (!l) return std::nullopt;
  if (t.kind == Tree::Kind::kNeg) return -*l;
  auto rr = Eval(*t.rhs, v);
  if (!rr) return std::nullopt;
  __int128 a = *l, b = *rr;
  switch (t.kind) {
    case Tree::Kind::kAdd: r = a + b; break;
    case Tree::Kind::kSub: r = a - b; break;
    case Tree::Kind::kMul: r = a * b; break;
    case Tree::Kind::kExactDiv:
      if (b == 0 || a % b != 0) return std::nullopt;
      r = a / b;
      break;
    case Tree::Kind::kFloorDiv:
      if (b == 0) return std::nullopt;
      r = floordiv(a, b);
      break;
    case Tree::Kind::kMod:
      if (b == 0) return std::nullopt;
      r = a - b * floordiv(a, b);
      break;
    case Tree::Kind::kCeilDiv:
      if (b == 0) return std::nullopt;
      r = -floordiv(-a, b);
      break;
    default: return std::nullopt;
  }
  if (*r > kLimit || *r < -kLimit) return std::nullopt;
  return r;
}

// Swaps the operands of every commutative node and rewrites a-b as a+(-b): an
// algebraically equal tree.
TreePtr Commute(const TreePtr& t) {
  if (!t->lhs) return t;
  auto c = std::make_shared<Tree>(*t);
  c->lhs = Commute(t->lhs);
  if (t->rhs) c->rhs = Commute(t->rhs);
  if (c->kind == Tree::Kind::kAdd || c->kind == Tree::Kind::kMul) {
    std::swap(c->lhs, c->rhs);
  } else if (c->kind == Tree::Kind::kSub) {
    auto neg = std::make_shared<Tree>();
    neg->kind = Tree::Kind::kNeg;
    neg->lhs = c->rhs;
    c->kind = Tree::Kind::kAdd;
    c->rhs = c->lhs;
    c->lhs = neg;
  }
  return c;
}

TEST(SymDimProperty, AgreesWithDirectEvaluationAtRandomPoints) {
  std::mt19937 rng(20240611);
  std::uniform_int_distribution<int> value(1, 50);
  int known = 0, compared = 0, evaluated = 0;
  for (int iter = 0; iter < 4000; ++iter) {
    TreePtr tree = RandomTree(rng, 1 + iter % 5);
    SymDim built = Build(*tree);
    SymDim parsed = SymDim::Parse(Print(*tree));
    SymDim commuted = Build(*Commute(tree));
    // Same construction, same canonical form.
    ASSERT_EQ(built.IsUnknown(), parsed.IsUnknown()) << Print(*tree);
    ASSERT_EQ(built.IsUnknown(), commuted.IsUnknown()) << Print(*tree);
    if (built.IsUnknown()) continue;
    ++known;
    ASSERT_EQ(built, parsed) << Print(*tree) << ": " << built.ToString() << " vs " << parsed.ToString();
    ASSERT_EQ(built, commuted) << Print(*tree) << ": " << built.ToString() << " vs " << commuted.ToString();
    SymDim reparsed = SymDim::Parse(built.ToString());
    ASSERT_EQ(built, reparsed) << Print(*tree) << ": " << built.ToString() << " vs " << reparsed.ToString();
    for (int point = 0; point < 8; ++point) {
      Values v;
      for (const char* s : kSymbols) v[s] = value(rng);
      // Also negative values, where floor and truncation differ.
      if (point % 2 == 1) {
        v["c"] = -v["c"];
        v["a"] = -v["a"];
      }
      auto expected = Eval(*tree, v);
      auto got = built.Evaluate(v);
      if (got) ++evaluated;
      if (!expected) continue;
      ++compared;
      ASSERT_TRUE(got.has_value()) << Print(*tree) << " = " << built.ToString() << " undefined at a="
                                   << v["a"] << " b=" << v["b"] << " c=" << v["c"] << " n=" << v["n"];
      ASSERT_EQ(static_cast<__int128>(*got), *expected)
          << Print(*tree) << " = " << built.ToString() << " at a=" << v["a"] << " b=" << v["b"] << " c=" << v["c"]
          << " n=" << v["n"];
    }
  }
  // The generator must exercise the comparison, not skip everything.
  EXPECT_GT(known, 2500);
  EXPECT_GT(compared, 10000);
  EXPECT_GT(evaluated, compared / 2);
}

TEST(SymDimProperty, CanonicalFormIgnoresOperandOrderInSums) {
  std::mt19937 rng(7);
  for (int iter = 0; iter < 2000; ++iter) {
    std::vector<TreePtr> parts;
    int n = 2 + iter % 4;
    for (int i = 0; i < n; ++i) parts.push_back(RandomTree(rng, 3));
    SymDim forward(0), backward(0);
    for (int i = 0; i < n; ++i) forward = forward + Build(*parts[i]);
    for (int i = n - 1; i >= 0; --i) backward = backward + Build(*parts[i]);
    if (forward.IsUnknown() || backward.IsUnknown()) {
      ASSERT_EQ(forward.IsUnknown(), backward.IsUnknown());
      continue;
    }
    ASSERT_EQ(forward, backward) << forward.ToString() << " vs " << backward.ToString();
    ASSERT_FALSE(SymDim::Less(forward, backward));
  }
}

}  // namespace
}  // namespace onnxopt::core::shapes
