#include "onnx_core/shapes/sym_dim.h"

#include <algorithm>
#include <array>
#include <atomic>
#include <cstddef>
#include <limits>
#include <numeric>
#include <set>
#include <utility>

#include "onnx_core/common/error.h"

// Canonical form. A known SymDim is a polynomial with integer coefficients over atoms:
//   Expr  = terms sorted by decreasing monomial (graded lexicographic order), each with a
//           non-zero coefficient; the zero polynomial has no term.
//   Term  = coefficient * Monomial; Monomial = atoms (sorted, unique) with exponents > 0.
//   Atom  = a symbol, or an operation the polynomial cannot absorb (ExactDiv, FloorDiv,
//           Mod) whose operands are canonical SymDims, normalized so that building the
//           same operation again from its operands gives the same atom.
// The text form is canonical too (one text per canonical form), so equality and order
// compare the cached text.
//
// Every simplification is an identity over the integers, valid wherever the original
// expression is defined (divisors non-zero, exact divisions exact). Nothing assumes the
// symbols are non-negative. Whenever a coefficient or an exponent would overflow, or the
// expression would grow past fixed limits, the result is Unknown.

namespace onnxopt::core::shapes {
namespace {

constexpr std::int64_t kMin = std::numeric_limits<std::int64_t>::min();
constexpr std::int64_t kMaxInt = std::numeric_limits<std::int64_t>::max();
constexpr std::size_t kMaxTerms = 256;
constexpr std::int64_t kMaxDegree = 64;
constexpr std::size_t kMaxTextLength = 4096;
constexpr int kMaxDivisionSteps = 1024;

enum class Op { kSymbol, kExactDiv, kFloorDiv, kMod };

struct Atom {
  Op op = Op::kSymbol;
  std::string name;  // kSymbol
  SymDim lhs, rhs;   // operations
  std::string text;  // the atom alone, as ToString prints it
};
using AtomPtr = std::shared_ptr<const Atom>;

struct Factor {
  AtomPtr atom;
  std::int64_t exp;
};
using Monomial = std::vector<Factor>;  // sorted by CompareAtoms, unique atoms

struct Term {
  Monomial mono;
  std::int64_t coef;
};
using Poly = std::vector<Term>;  // sorted by decreasing CompareMonomials, coef != 0

// ---- integer helpers (nullopt on overflow or division by zero) ----

std::optional<std::int64_t> AddInt(std::int64_t a, std::int64_t b) {
  std::int64_t r;
  if (__builtin_add_overflow(a, b, &r)) return std::nullopt;
  return r;
}
std::optional<std::int64_t> SubInt(std::int64_t a, std::int64_t b) {
  std::int64_t r;
  if (__builtin_sub_overflow(a, b, &r)) return std::nullopt;
  return r;
}
std::optional<std::int64_t> MulInt(std::int64_t a, std::int64_t b) {
  std::int64_t r;
  if (__builtin_mul_overflow(a, b, &r)) return std::nullopt;
  return r;
}
std::optional<std::int64_t> NegInt(std::int64_t a) {
  if (a == kMin) return std::nullopt;
  return -a;
}
// Python's a // b.
std::optional<std::int64_t> FloorDivInt(std::int64_t a, std::int64_t b) {
  if (b == 0 || (a == kMin && b == -1)) return std::nullopt;
  std::int64_t q = a / b;
  if ((a % b != 0) && ((a < 0) != (b < 0))) --q;
  return q;
}
// Python's a % b (sign of b).
std::optional<std::int64_t> ModInt(std::int64_t a, std::int64_t b) {
  if (b == 0) return std::nullopt;
  if (b == -1) return 0;
  std::int64_t r = a % b;
  if (r != 0 && ((r < 0) != (b < 0))) r += b;
  return r;
}
// a / b when exact.
std::optional<std::int64_t> ExactDivInt(std::int64_t a, std::int64_t b) {
  if (b == 0 || (a == kMin && b == -1)) return std::nullopt;
  if (a % b != 0) return std::nullopt;
  return a / b;
}
std::uint64_t AbsU(std::int64_t a) {
  return a < 0 ? std::uint64_t{0} - static_cast<std::uint64_t>(a) : static_cast<std::uint64_t>(a);
}

// ---- atoms and monomials ----

int OpRank(Op op) { return static_cast<int>(op); }

int CompareAtoms(const Atom& a, const Atom& b) {
  if (&a == &b) return 0;
  if (a.op != b.op) return OpRank(a.op) < OpRank(b.op) ? -1 : 1;
  int c = a.text.compare(b.text);
  return c < 0 ? -1 : (c > 0 ? 1 : 0);
}

std::int64_t Degree(const Monomial& m) {
  std::int64_t d = 0;
  for (const Factor& f : m) d += f.exp;
  return d;
}

// Graded lexicographic order (a monomial order: compatible with multiplication).
int CompareMonomials(const Monomial& a, const Monomial& b) {
  std::int64_t da = Degree(a), db = Degree(b);
  if (da != db) return da < db ? -1 : 1;
  std::size_t i = 0, j = 0;
  while (i < a.size() && j < b.size()) {
    int c = CompareAtoms(*a[i].atom, *b[j].atom);
    if (c < 0) return 1;   // a has an earlier atom that b lacks
    if (c > 0) return -1;  // b has an earlier atom that a lacks
    if (a[i].exp != b[j].exp) return a[i].exp < b[j].exp ? -1 : 1;
    ++i;
    ++j;
  }
  if (i < a.size()) return 1;
  if (j < b.size()) return -1;
  return 0;
}

std::optional<Monomial> MulMonomials(const Monomial& a, const Monomial& b) {
  Monomial r;
  r.reserve(a.size() + b.size());
  std::size_t i = 0, j = 0;
  while (i < a.size() || j < b.size()) {
    int c = i == a.size() ? 1 : (j == b.size() ? -1 : CompareAtoms(*a[i].atom, *b[j].atom));
    if (c < 0) {
      r.push_back(a[i++]);
    } else if (c > 0) {
      r.push_back(b[j++]);
    } else {
      r.push_back({a[i].atom, a[i].exp + b[j].exp});
      ++i;
      ++j;
    }
  }
  if (Degree(r) > kMaxDegree) return std::nullopt;
  return r;
}

// a / b when b divides a.
std::optional<Monomial> DivMonomials(const Monomial& a, const Monomial& b) {
  Monomial r;
  std::size_t i = 0, j = 0;
  while (j < b.size()) {
    if (i == a.size()) return std::nullopt;
    int c = CompareAtoms(*a[i].atom, *b[j].atom);
    if (c < 0) {
      r.push_back(a[i++]);
    } else if (c > 0) {
      return std::nullopt;
    } else {
      if (a[i].exp < b[j].exp) return std::nullopt;
      if (a[i].exp > b[j].exp) r.push_back({a[i].atom, a[i].exp - b[j].exp});
      ++i;
      ++j;
    }
  }
  while (i < a.size()) r.push_back(a[i++]);
  return r;
}

Monomial GcdMonomials(const Monomial& a, const Monomial& b) {
  Monomial r;
  std::size_t i = 0, j = 0;
  while (i < a.size() && j < b.size()) {
    int c = CompareAtoms(*a[i].atom, *b[j].atom);
    if (c < 0) {
      ++i;
    } else if (c > 0) {
      ++j;
    } else {
      r.push_back({a[i].atom, std::min(a[i].exp, b[j].exp)});
      ++i;
      ++j;
    }
  }
  return r;
}

// ---- polynomials ----

std::optional<Poly> AddPolys(const Poly& a, const Poly& b) {
  Poly r;
  r.reserve(a.size() + b.size());
  std::size_t i = 0, j = 0;
  while (i < a.size() || j < b.size()) {
    int c = i == a.size() ? -1 : (j == b.size() ? 1 : CompareMonomials(a[i].mono, b[j].mono));
    if (c > 0) {
      r.push_back(a[i++]);
    } else if (c < 0) {
      r.push_back(b[j++]);
    } else {
      auto s = AddInt(a[i].coef, b[j].coef);
      if (!s) return std::nullopt;
      if (*s != 0) r.push_back({a[i].mono, *s});
      ++i;
      ++j;
    }
  }
  return r;
}

std::optional<Poly> NegPoly(const Poly& a) {
  Poly r = a;
  for (Term& t : r) {
    auto n = NegInt(t.coef);
    if (!n) return std::nullopt;
    t.coef = *n;
  }
  return r;
}

std::optional<Poly> SubPolys(const Poly& a, const Poly& b) {
  auto nb = NegPoly(b);
  if (!nb) return std::nullopt;
  return AddPolys(a, *nb);
}

std::optional<Poly> MulPolyTerm(const Poly& a, const Term& t) {
  Poly r;
  r.reserve(a.size());
  for (const Term& x : a) {
    auto m = MulMonomials(x.mono, t.mono);
    auto c = MulInt(x.coef, t.coef);
    if (!m || !c) return std::nullopt;
    r.push_back({std::move(*m), *c});  // multiplying by a monomial keeps the order
  }
  return r;
}

std::optional<Poly> MulPolys(const Poly& a, const Poly& b) {
  Poly r;
  for (const Term& t : b) {
    if (t.coef == 0) continue;
    auto p = MulPolyTerm(a, t);
    if (!p) return std::nullopt;
    auto s = AddPolys(r, *p);
    if (!s || s->size() > kMaxTerms) return std::nullopt;
    r = std::move(*s);
  }
  return r;
}

std::optional<std::int64_t> ConstantOf(const Poly& p) {
  if (p.empty()) return 0;
  if (p.size() == 1 && p[0].mono.empty()) return p[0].coef;
  return std::nullopt;
}

Poly ConstPoly(std::int64_t v) {
  if (v == 0) return {};
  return {Term{{}, v}};
}

// Exact division in Z[atoms]: the quotient when q divides p (division algorithm with a
// single divisor: p is a multiple of q iff the remainder is zero).
std::optional<Poly> DivPolysExact(const Poly& p, const Poly& q) {
  if (q.empty()) return std::nullopt;
  const Term& lq = q[0];
  Poly quot;
  Poly rem = p;
  for (int step = 0; !rem.empty(); ++step) {
    if (step >= kMaxDivisionSteps) return std::nullopt;
    const Term& lt = rem[0];
    auto m = DivMonomials(lt.mono, lq.mono);
    if (!m) return std::nullopt;
    auto c = ExactDivInt(lt.coef, lq.coef);
    if (!c) return std::nullopt;
    Term t{std::move(*m), *c};
    auto sub = MulPolyTerm(q, t);
    if (!sub) return std::nullopt;
    auto next = SubPolys(rem, *sub);
    if (!next || next->size() > kMaxTerms) return std::nullopt;
    quot.push_back(std::move(t));  // leading terms of rem decrease strictly
    rem = std::move(*next);
  }
  return quot;
}

// gcd of the absolute values of the coefficients (0 for the zero polynomial).
std::uint64_t Content(const Poly& p) {
  std::uint64_t g = 0;
  for (const Term& t : p) g = std::gcd(g, AbsU(t.coef));
  return g;
}

Monomial MonomialContent(const Poly& p) {
  if (p.empty()) return {};
  Monomial g = p[0].mono;
  for (std::size_t i = 1; i < p.size() && !g.empty(); ++i) g = GcdMonomials(g, p[i].mono);
  return g;
}

// ---- text ----

bool IsIdentifier(std::string_view s) {
  if (s.empty()) return false;
  auto alpha = [](char c) { return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_'; };
  auto digit = [](char c) { return c >= '0' && c <= '9'; };
  if (!alpha(s[0])) return false;
  for (char c : s)
    if (!alpha(c) && !digit(c)) return false;
  return true;
}

std::string SymbolText(std::string_view name) {
  if (IsIdentifier(name)) return std::string(name);
  std::string out = "`";
  for (char c : name) {
    if (c == '`') out += '`';  // a backquote inside a quoted name is doubled
    out += c;
  }
  out += '`';
  return out;
}

}  // namespace

struct SymDim::Expr {
  Poly terms;
  std::string text;

  static const Expr* Of(const SymDim& d) { return d.expr_.get(); }
  static SymDim FromPoly(std::optional<Poly> p);
  static std::string PolyText(const Poly& p);
  static SymDim MakeAtom(Op op, const SymDim& lhs, const SymDim& rhs);
  static SymDim Divide(Op op, const SymDim& a, const SymDim& b);
  static std::optional<std::int64_t> Eval(const SymDim& d,
                                          const std::map<std::string, std::int64_t, std::less<>>& values);
  static void CollectSymbols(const SymDim& d, std::set<std::string>& out);
};

namespace {

const Poly& PolyOf(const SymDim& d) { return SymDim::Expr::Of(d)->terms; }

bool IsSingleSymbol(const Poly& p) {
  return p.size() == 1 && p[0].coef == 1 && p[0].mono.size() == 1 && p[0].mono[0].exp == 1 &&
         p[0].mono[0].atom->op == Op::kSymbol;
}

std::string FactorText(const Atom& atom, bool parenthesize_op) {
  if (atom.op == Op::kSymbol || !parenthesize_op) return atom.text;
  return "(" + atom.text + ")";
}

std::string MonomialText(const Monomial& m, bool parenthesize_op) {
  std::string out;
  for (const Factor& f : m) {
    for (std::int64_t k = 0; k < f.exp; ++k) {
      if (!out.empty()) out += '*';
      out += FactorText(*f.atom, parenthesize_op);
    }
  }
  return out;
}

}  // namespace

std::string SymDim::Expr::PolyText(const Poly& p) {
  if (p.empty()) return "0";
  std::string out;
  bool first = true;
  for (const Term& t : p) {
    const bool single = t.mono.size() == 1 && t.mono[0].exp == 1;
    if (t.mono.empty()) {
      if (t.coef < 0 && !first) {
        if (t.coef == kMin) {
          out += "+(" + std::to_string(t.coef) + ")";
        } else {
          out += "-" + std::to_string(-t.coef);
        }
      } else {
        if (!first) out += '+';
        out += std::to_string(t.coef);
      }
    } else if (t.coef == 1) {
      if (!first) out += '+';
      out += MonomialText(t.mono, !single);
    } else if (t.coef == -1) {
      // A leading "-a//2" would parse as (-a)//2: parenthesize operations there.
      out += '-';
      out += MonomialText(t.mono, !single || first);
    } else if (t.coef == kMin) {
      out += first ? std::to_string(t.coef) : "+(" + std::to_string(t.coef) + ")";
      out += '*';
      out += MonomialText(t.mono, true);
    } else if (t.coef < 0) {
      out += "-" + std::to_string(-t.coef) + "*" + MonomialText(t.mono, true);
    } else {
      if (!first) out += '+';
      out += std::to_string(t.coef) + "*" + MonomialText(t.mono, true);
    }
    first = false;
  }
  return out;
}

SymDim SymDim::Expr::FromPoly(std::optional<Poly> p) {
  if (!p || p->size() > kMaxTerms) return SymDim();
  auto e = std::make_shared<Expr>();
  e->text = PolyText(*p);
  if (e->text.size() > kMaxTextLength) return SymDim();
  e->terms = std::move(*p);
  return SymDim(std::shared_ptr<const Expr>(std::move(e)));
}

// The atom lhs op rhs, operands already normalized.
SymDim SymDim::Expr::MakeAtom(Op op, const SymDim& lhs, const SymDim& rhs) {
  auto atom = std::make_shared<Atom>();
  atom->op = op;
  atom->lhs = lhs;
  atom->rhs = rhs;
  const Poly& l = PolyOf(lhs);
  const Poly& r = PolyOf(rhs);
  std::string lt = l.size() > 1 ? "(" + lhs.ToString() + ")" : lhs.ToString();
  auto rc = ConstantOf(r);
  bool bare_rhs = (rc && *rc > 0) || IsSingleSymbol(r);
  std::string rt = bare_rhs ? rhs.ToString() : "(" + rhs.ToString() + ")";
  const char* sign = op == Op::kExactDiv ? "/" : (op == Op::kFloorDiv ? "//" : "%");
  atom->text = lt + sign + rt;
  if (atom->text.size() > kMaxTextLength) return SymDim();
  return FromPoly(Poly{Term{Monomial{Factor{std::move(atom), 1}}, 1}});
}

namespace {

// Divides p and q by their common factor (positive content and common monomial) and
// returns that factor.
Term CancelCommonFactor(Poly& p, Poly& q) {
  std::uint64_t content = std::gcd(Content(p), Content(q));
  std::int64_t g = content > 0 && content <= static_cast<std::uint64_t>(std::numeric_limits<std::int64_t>::max())
                       ? static_cast<std::int64_t>(content)
                       : 1;
  Monomial m = GcdMonomials(MonomialContent(p), MonomialContent(q));
  if (g != 1 || !m.empty()) {
    // Dividing every term by the same monomial keeps the order.
    for (Poly* x : {&p, &q}) {
      for (Term& t : *x) {
        t.coef /= g;
        t.mono = *DivMonomials(t.mono, m);
      }
    }
  }
  return Term{std::move(m), g};
}

}  // namespace

SymDim SymDim::Expr::Divide(Op op, const SymDim& a, const SymDim& b) {
  if (a.IsUnknown() || b.IsUnknown()) return SymDim();
  const Poly& p = PolyOf(a);
  const Poly& q = PolyOf(b);
  if (q.empty()) return SymDim();  // division by zero
  auto pc = ConstantOf(p);
  auto qc = ConstantOf(q);
  if (pc && qc) {
    switch (op) {
      case Op::kExactDiv: {
        auto r = ExactDivInt(*pc, *qc);
        return r ? SymDim(*r) : SymDim();
      }
      case Op::kFloorDiv: {
        auto r = FloorDivInt(*pc, *qc);
        return r ? SymDim(*r) : SymDim();
      }
      default: {
        auto r = ModInt(*pc, *qc);
        return r ? SymDim(*r) : SymDim();
      }
    }
  }
  // q divides p: the quotient is exact (wherever q != 0).
  if (auto quot = DivPolysExact(p, q)) {
    if (op == Op::kMod) return SymDim(0);
    return FromPoly(std::move(*quot));
  }
  if (qc) {
    std::int64_t c = *qc;
    Poly num = p;
    bool negated = false;
    if (c < 0) {
      // p/c = (-p)/(-c); p%c = -((-p)%(-c)).
      auto n = NegPoly(p);
      auto nc = NegInt(c);
      if (!n || !nc) return SymDim();
      num = std::move(*n);
      c = *nc;
      negated = true;
    }
    // num = c*h + r with the coefficients of r in [0, c):
    // num/c = h + r/c, num//c = h + r//c, num%c = r%c.
    Poly h, r;
    for (const Term& t : num) {
      std::int64_t hq = *FloorDivInt(t.coef, c);
      std::int64_t rq = *ModInt(t.coef, c);
      if (hq != 0) h.push_back({t.mono, hq});
      if (rq != 0) r.push_back({t.mono, rq});
    }
    SymDim rest;
    if (r.empty()) {
      rest = SymDim(0);
    } else if (auto rc = ConstantOf(r)) {
      // 0 < rc < c.
      if (op == Op::kExactDiv) return SymDim();  // never exact
      rest = op == Op::kFloorDiv ? SymDim(0) : SymDim(*rc);
    } else {
      // r/c = (r/g)/(c/g) for g = gcd(content(r), c); r%c = g*((r/g)%(c/g)).
      std::int64_t g = static_cast<std::int64_t>(std::gcd(Content(r), static_cast<std::uint64_t>(c)));
      for (Term& t : r) t.coef /= g;
      SymDim atom = MakeAtom(op, FromPoly(std::move(r)), SymDim(c / g));
      rest = op == Op::kMod ? atom * SymDim(g) : atom;
    }
    if (op == Op::kMod) return negated ? -rest : rest;
    return FromPoly(std::move(h)) + rest;
  }
  // Symbolic divisor: cancel the common factor m of p and q (p = m*p', q = m*q'), then
  // make q's leading coefficient positive. p/q = p'/q', p//q = p'//q', p%q = m*(p'%q');
  // negating both: p/q = (-p)/(-q), p//q = (-p)//(-q), p%q = -((-p)%(-q)).
  Poly np = p, nq = q;
  Term m = CancelCommonFactor(np, nq);
  if (ConstantOf(nq)) {
    // The divisor became a constant: normalize as such (a*n // (3*n) = a//3).
    SymDim reduced = Divide(op, FromPoly(std::move(np)), FromPoly(std::move(nq)));
    return op == Op::kMod ? reduced * FromPoly(Poly{std::move(m)}) : reduced;
  }
  bool negated = false;
  if (nq[0].coef < 0) {
    auto a2 = NegPoly(np);
    auto b2 = NegPoly(nq);
    if (!a2 || !b2) return SymDim();
    np = std::move(*a2);
    nq = std::move(*b2);
    negated = true;
  }
  SymDim atom = MakeAtom(op, FromPoly(std::move(np)), FromPoly(std::move(nq)));
  if (op != Op::kMod) return atom;
  SymDim result = atom * FromPoly(Poly{std::move(m)});
  return negated ? -result : result;
}

std::optional<std::int64_t> SymDim::Expr::Eval(const SymDim& d,
                                               const std::map<std::string, std::int64_t, std::less<>>& values) {
  if (d.IsUnknown()) return std::nullopt;
  std::int64_t sum = 0;
  for (const Term& t : PolyOf(d)) {
    std::int64_t prod = t.coef;
    for (const Factor& f : t.mono) {
      const Atom& a = *f.atom;
      std::optional<std::int64_t> v;
      if (a.op == Op::kSymbol) {
        auto it = values.find(a.name);
        if (it == values.end()) return std::nullopt;
        v = it->second;
      } else {
        auto l = Eval(a.lhs, values);
        auto r = Eval(a.rhs, values);
        if (!l || !r) return std::nullopt;
        v = a.op == Op::kExactDiv ? ExactDivInt(*l, *r)
            : a.op == Op::kFloorDiv ? FloorDivInt(*l, *r)
                                    : ModInt(*l, *r);
      }
      if (!v) return std::nullopt;
      for (std::int64_t k = 0; k < f.exp; ++k) {
        auto p = MulInt(prod, *v);
        if (!p) return std::nullopt;
        prod = *p;
      }
    }
    auto s = AddInt(sum, prod);
    if (!s) return std::nullopt;
    sum = *s;
  }
  return sum;
}

void SymDim::Expr::CollectSymbols(const SymDim& d, std::set<std::string>& out) {
  if (d.IsUnknown()) return;
  for (const Term& t : PolyOf(d)) {
    for (const Factor& f : t.mono) {
      if (f.atom->op == Op::kSymbol) {
        out.insert(f.atom->name);
      } else {
        CollectSymbols(f.atom->lhs, out);
        CollectSymbols(f.atom->rhs, out);
      }
    }
  }
}

// ---- SymDim ----

SymDim::SymDim() = default;

namespace {

SymDim::Expr ConstantExpr(std::int64_t value) {
  SymDim::Expr e;
  e.terms = ConstPoly(value);
  e.text = std::to_string(value);
  return e;
}

// Shapes are mostly small constants: one immutable Expr per small value, shared, saves two
// allocations per dimension (inference creates several dims per node). Each is made on
// first use (making all 4 113 up front cost 1.5 M instructions, 7 % of optimizing a small
// model) and never freed, so the dims hold it without a reference count: a shared_ptr that
// owns nothing (aliasing an empty one), whose copies touch no counter.
constexpr std::int64_t kFirstShared = -16;
constexpr std::int64_t kLastShared = 4096;

const SymDim::Expr* SharedConstant(std::int64_t value) {
  static std::array<std::atomic<const SymDim::Expr*>, kLastShared - kFirstShared + 1> table{};
  std::atomic<const SymDim::Expr*>& slot = table[static_cast<std::size_t>(value - kFirstShared)];
  const SymDim::Expr* expr = slot.load(std::memory_order_acquire);
  if (expr) return expr;
  auto* made = new SymDim::Expr(ConstantExpr(value));
  // Another thread may have made it meanwhile: keep the first.
  if (slot.compare_exchange_strong(expr, made, std::memory_order_acq_rel)) return made;
  delete made;
  return expr;
}

}  // namespace

SymDim::SymDim(std::int64_t value) {
  if (value >= kFirstShared && value <= kLastShared)
    expr_ = std::shared_ptr<const Expr>(std::shared_ptr<const Expr>(), SharedConstant(value));
  else
    expr_ = std::make_shared<const Expr>(ConstantExpr(value));
}

SymDim::SymDim(std::shared_ptr<const Expr> expr) : expr_(std::move(expr)) {}

SymDim SymDim::Symbol(std::string_view name) {
  if (name.empty()) throw BuilderError("SymDim::Symbol: expected a non-empty symbol name");
  auto atom = std::make_shared<Atom>();
  atom->op = Op::kSymbol;
  atom->name = std::string(name);
  atom->text = SymbolText(name);
  return Expr::FromPoly(Poly{Term{Monomial{Factor{std::move(atom), 1}}, 1}});
}

bool SymDim::IsUnknown() const { return expr_ == nullptr; }

bool SymDim::IsConstant() const { return expr_ && ConstantOf(expr_->terms).has_value(); }

std::optional<std::int64_t> SymDim::Constant() const {
  if (!expr_) return std::nullopt;
  return ConstantOf(expr_->terms);
}

std::vector<std::string> SymDim::Symbols() const {
  std::set<std::string> names;
  Expr::CollectSymbols(*this, names);
  return {names.begin(), names.end()};
}

std::optional<std::int64_t> SymDim::Evaluate(const std::map<std::string, std::int64_t, std::less<>>& values) const {
  return Expr::Eval(*this, values);
}

namespace {

// `a op b` for two constants, computed without building polynomials (shape inference
// adds and multiplies constant dims at most nodes); nullopt when an operand is not
// constant or the result overflows: the caller takes the general path.
std::optional<SymDim> ConstantArithmetic(const SymDim& a, const SymDim& b,
                                         std::optional<std::int64_t> (*operation)(std::int64_t, std::int64_t)) {
  const std::optional<std::int64_t> x = ConstantOf(PolyOf(a)), y = ConstantOf(PolyOf(b));
  if (!x || !y) return std::nullopt;
  const std::optional<std::int64_t> result = operation(*x, *y);
  if (!result) return std::nullopt;
  return SymDim(*result);
}

}  // namespace

SymDim operator+(const SymDim& a, const SymDim& b) {
  if (a.IsUnknown() || b.IsUnknown()) return SymDim();
  if (std::optional<SymDim> sum = ConstantArithmetic(a, b, AddInt)) return *std::move(sum);
  return SymDim::Expr::FromPoly(AddPolys(PolyOf(a), PolyOf(b)));
}

SymDim operator-(const SymDim& a, const SymDim& b) {
  if (a.IsUnknown() || b.IsUnknown()) return SymDim();
  if (std::optional<SymDim> difference = ConstantArithmetic(a, b, SubInt)) return *std::move(difference);
  return SymDim::Expr::FromPoly(SubPolys(PolyOf(a), PolyOf(b)));
}

SymDim operator*(const SymDim& a, const SymDim& b) {
  if (a.IsUnknown() || b.IsUnknown()) return SymDim();
  if (std::optional<SymDim> product = ConstantArithmetic(a, b, MulInt)) return *std::move(product);
  return SymDim::Expr::FromPoly(MulPolys(PolyOf(a), PolyOf(b)));
}

SymDim operator-(const SymDim& a) {
  if (a.IsUnknown()) return SymDim();
  return SymDim::Expr::FromPoly(NegPoly(PolyOf(a)));
}

SymDim SymDim::ExactDiv(const SymDim& a, const SymDim& b) { return Expr::Divide(Op::kExactDiv, a, b); }

SymDim SymDim::FloorDiv(const SymDim& a, const SymDim& b) { return Expr::Divide(Op::kFloorDiv, a, b); }

SymDim SymDim::CeilDiv(const SymDim& a, const SymDim& b) {
  // For a positive constant c, ceil(a/c) = (a+c-1)//c: the usual form, e.g. (a+1)//2.
  if (auto c = b.Constant(); c && *c > 0) return FloorDiv(a + (*c - 1), b);
  return -FloorDiv(-a, b);
}

SymDim SymDim::Mod(const SymDim& a, const SymDim& b) { return Expr::Divide(Op::kMod, a, b); }

// Min and Max decide only what holds for every integer value of the symbols: nothing is
// assumed about signs. The int64 bounds are decidable (Slice's ends = INT64_MAX).
SymDim SymDim::Min(const SymDim& a, const SymDim& b) {
  if (a.IsUnknown() || b.IsUnknown()) return SymDim();
  if (a.Constant() == kMin || b.Constant() == kMin) return SymDim(kMin);
  if (a.Constant() == kMaxInt) return b;
  if (b.Constant() == kMaxInt) return a;
  auto d = (a - b).Constant();
  if (!d) return SymDim();
  return *d <= 0 ? a : b;
}

SymDim SymDim::Max(const SymDim& a, const SymDim& b) {
  if (a.IsUnknown() || b.IsUnknown()) return SymDim();
  if (a.Constant() == kMaxInt || b.Constant() == kMaxInt) return SymDim(kMaxInt);
  if (a.Constant() == kMin) return b;
  if (b.Constant() == kMin) return a;
  auto d = (a - b).Constant();
  if (!d) return SymDim();
  return *d >= 0 ? a : b;
}

bool operator==(const SymDim& a, const SymDim& b) {
  if (a.IsUnknown() || b.IsUnknown()) return false;
  if (a.expr_ == b.expr_) return true;
  return a.expr_->text == b.expr_->text;
}

bool SymDim::ProvablyDifferent(const SymDim& a, const SymDim& b) {
  auto d = (a - b).Constant();
  return d && *d != 0;
}

bool SymDim::Less(const SymDim& a, const SymDim& b) {
  if (b.IsUnknown()) return false;
  if (a.IsUnknown()) return true;
  auto ca = a.Constant();
  auto cb = b.Constant();
  if (ca && cb) return *ca < *cb;
  if (ca || cb) return ca.has_value();  // constants before expressions
  return a.expr_->text < b.expr_->text;
}

std::string SymDim::ToString() const { return expr_ ? expr_->text : "?"; }

// ---- Parse ----

namespace {

class Parser {
 public:
  explicit Parser(std::string_view text) : text_(text) {}

  SymDim ParseAll() {
    SymDim d = ParseSum();
    SkipSpaces();
    if (pos_ != text_.size()) Fail("unexpected character");
    return d;
  }

 private:
  [[noreturn]] void Fail(const std::string& what) const {
    throw Error("SymDim::Parse: " + what + " at position " + std::to_string(pos_) + " in '" +
                std::string(text_) + "'");
  }

  void SkipSpaces() {
    while (pos_ < text_.size() && (text_[pos_] == ' ' || text_[pos_] == '\t')) ++pos_;
  }

  bool Eat(std::string_view token) {
    SkipSpaces();
    if (text_.substr(pos_, token.size()) != token) return false;
    pos_ += token.size();
    return true;
  }

  SymDim ParseSum() {
    SymDim d = ParseProduct();
    for (;;) {
      if (Eat("+")) {
        d = d + ParseProduct();
      } else if (Eat("-")) {
        d = d - ParseProduct();
      } else {
        return d;
      }
    }
  }

  SymDim ParseProduct() {
    SymDim d = ParseUnary();
    for (;;) {
      if (Eat("*")) {
        d = d * ParseUnary();
      } else if (Eat("//")) {
        d = SymDim::FloorDiv(d, ParseUnary());
      } else if (Eat("/")) {
        d = SymDim::ExactDiv(d, ParseUnary());
      } else if (Eat("%")) {
        d = SymDim::Mod(d, ParseUnary());
      } else {
        return d;
      }
    }
  }

  SymDim ParseUnary() {
    if (++depth_ > kMaxParseDepth) Fail("expression nested too deeply");
    SymDim d = ParseUnaryBody();
    --depth_;
    return d;
  }

  SymDim ParseUnaryBody() {
    if (Eat("-")) {
      SkipSpaces();
      // "-9223372036854775808" is a literal: its magnitude does not fit in int64.
      if (pos_ < text_.size() && IsDigit(text_[pos_])) return ParseInteger(true);
      return -ParseUnary();
    }
    if (Eat("+")) return ParseUnary();
    return ParsePrimary();
  }

  static bool IsDigit(char c) { return c >= '0' && c <= '9'; }

  SymDim ParseInteger(bool negative) {
    std::uint64_t v = 0;
    const std::uint64_t limit =
        negative ? std::uint64_t{1} << 63 : static_cast<std::uint64_t>(std::numeric_limits<std::int64_t>::max());
    std::size_t start = pos_;
    while (pos_ < text_.size() && IsDigit(text_[pos_])) {
      std::uint64_t digit = static_cast<std::uint64_t>(text_[pos_] - '0');
      if (v > (limit - digit) / 10) {
        pos_ = start;
        Fail("integer out of range");
      }
      v = v * 10 + digit;
      ++pos_;
    }
    if (negative) return SymDim(v == (std::uint64_t{1} << 63) ? kMin : -static_cast<std::int64_t>(v));
    return SymDim(static_cast<std::int64_t>(v));
  }

  SymDim ParsePrimary() {
    SkipSpaces();
    if (pos_ >= text_.size()) Fail("unexpected end");
    char c = text_[pos_];
    if (c == '(') {
      ++pos_;
      SymDim d = ParseSum();
      if (!Eat(")")) Fail("expected ')'");
      return d;
    }
    if (c == '?') {
      ++pos_;
      return SymDim();
    }
    if (IsDigit(c)) return ParseInteger(false);
    if (c == '`') {
      ++pos_;
      std::string name;
      for (;;) {
        if (pos_ >= text_.size()) Fail("unterminated quoted name");
        if (text_[pos_] == '`') {
          if (pos_ + 1 < text_.size() && text_[pos_ + 1] == '`') {
            name += '`';
            pos_ += 2;
            continue;
          }
          ++pos_;
          break;
        }
        name += text_[pos_++];
      }
      if (name.empty()) Fail("empty quoted name");
      return SymDim::Symbol(name);
    }
    auto alpha = [](char x) { return (x >= 'a' && x <= 'z') || (x >= 'A' && x <= 'Z') || x == '_'; };
    if (alpha(c)) {
      std::size_t start = pos_;
      while (pos_ < text_.size() && (alpha(text_[pos_]) || IsDigit(text_[pos_]))) ++pos_;
      return SymDim::Symbol(text_.substr(start, pos_ - start));
    }
    Fail("unexpected character");
  }

  static constexpr int kMaxParseDepth = 256;
  std::string_view text_;
  std::size_t pos_ = 0;
  int depth_ = 0;
};

}  // namespace

SymDim SymDim::Parse(std::string_view text) { return Parser(text).ParseAll(); }

// ---- SymbolGenerator ----

SymDim SymbolGenerator::Fresh() { return SymDim::Symbol(prefix_ + std::to_string(next_++)); }

}  // namespace onnxopt::core::shapes
