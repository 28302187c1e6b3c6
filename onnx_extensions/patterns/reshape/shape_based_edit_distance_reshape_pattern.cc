#include "onnx_extensions/patterns/reshape/shape_based_edit_distance_reshape_pattern.h"

#include <algorithm>
#include <optional>
#include <string>
#include <vector>

#include "onnx_core/common/error.h"
#include "onnx_core/optimizer/graph_graph.h"
#include "onnx_core/optimizer/match.h"
#include "onnx_extensions/patterns/reshape/reshape_matchers.h"

namespace onnxopt::onnx_patterns {

using core::builder::DerivedNodeName;
using core::builder::IntTensor;
using core::builder::KnownShape;
using core::shapes::SymDim;
using core::shapes::SymShape;

namespace {

using Dims = std::vector<SymDim>;

// Costs are doubled so that the uncertain step (0.5 in the spec) is an integer.
constexpr int kExact = 0, kUncertain = 1, kMismatch = 2;
constexpr std::size_t kMaxGroup = 4;

// a[a_start, a_start + a_size) is aligned with b[b_start, b_start + b_size).
struct Segment {
  std::size_t a_start = 0, a_size = 0, b_start = 0, b_size = 0;
};

std::size_t CountSymbols(const Dims& dims, std::size_t start, std::size_t size) {
  return static_cast<std::size_t>(std::count_if(dims.begin() + static_cast<std::ptrdiff_t>(start),
                                                dims.begin() + static_cast<std::ptrdiff_t>(start + size),
                                                [](const SymDim& d) { return !d.IsConstant(); }));
}

SymDim Product(const Dims& dims, std::size_t start, std::size_t size) {
  SymDim product(1);
  for (std::size_t k = start; k < start + size; ++k) product = product * dims[k];
  return product;
}

int OneToOneCost(const SymDim& a, const SymDim& b) {
  if (a == b) return kExact;
  return a.IsConstant() && b.IsConstant() ? kMismatch : kUncertain;
}

// The cost of aligning two segments as one group; nullopt when the step is not allowed.
std::optional<int> GroupCost(const Dims& a, const Dims& b, const Segment& s) {
  const std::size_t symbols_a = CountSymbols(a, s.a_start, s.a_size), symbols_b = CountSymbols(b, s.b_start, s.b_size);
  if (symbols_a + symbols_b > 0) {
    if (symbols_a > 1 || symbols_b > 1) return std::nullopt;
    return kUncertain;
  }
  if (Product(a, s.a_start, s.a_size) == Product(b, s.b_start, s.b_size)) return kExact;
  return std::nullopt;
}

// The segments of the cheapest alignment of a with b, in order; nullopt when it costs 1 or
// more (a mismatch or two uncertain steps). Ties go to the smallest (size in a, size in b),
// the one-to-one step first.
std::optional<std::vector<Segment>> Align(const Dims& a, const Dims& b) {
  const std::size_t n = a.size(), m = b.size();
  const int unreachable = 2 * (static_cast<int>(std::max(n, m)) + 10);
  std::vector<std::vector<int>> cost(n + 1, std::vector<int>(m + 1, unreachable));
  std::vector<std::vector<Segment>> last(n + 1, std::vector<Segment>(m + 1));  // the step ending at (i, j)
  cost[0][0] = 0;
  for (std::size_t i = 1; i <= n; ++i) {
    for (std::size_t j = 1; j <= m; ++j) {
      cost[i][j] = cost[i - 1][j - 1] + OneToOneCost(a[i - 1], b[j - 1]);
      last[i][j] = Segment{i - 1, 1, j - 1, 1};
      for (std::size_t ki = 1; ki <= std::min(kMaxGroup, i); ++ki) {
        for (std::size_t kj = 1; kj <= std::min(kMaxGroup, j); ++kj) {
          const Segment step{i - ki, ki, j - kj, kj};
          // Both segments start at 0, or neither does.
          if ((ki == 1 && kj == 1) || (step.a_start == 0) != (step.b_start == 0)) continue;
          const std::optional<int> group = GroupCost(a, b, step);
          if (group && cost[step.a_start][step.b_start] + *group < cost[i][j]) {
            cost[i][j] = cost[step.a_start][step.b_start] + *group;
            last[i][j] = step;
          }
        }
      }
    }
  }
  if (n == 0 || m == 0 || cost[n][m] >= kMismatch) return std::nullopt;
  std::vector<Segment> segments;
  for (std::size_t i = n, j = m; i > 0 || j > 0;) {
    segments.push_back(last[i][j]);
    i = segments.back().a_start;
    j = segments.back().b_start;
  }
  std::reverse(segments.begin(), segments.end());
  return segments;
}

// s' written segment by segment; nullopt when a segment cannot be written or two -1 appear.
std::optional<std::vector<std::int64_t>> ShapeFromSegments(const Dims& a, const Dims& b,
                                                           const std::vector<Segment>& segments) {
  std::vector<std::int64_t> shape;
  for (const Segment& s : segments) {
    if (CountSymbols(b, s.b_start, s.b_size) == 0) {
      for (std::size_t k = s.b_start; k < s.b_start + s.b_size; ++k) shape.push_back(*b[k].Constant());
    } else if (CountSymbols(a, s.a_start, s.a_size) == 0) {
      // One symbol of y facing integers: the element count makes it their product.
      const std::optional<std::int64_t> product = Product(a, s.a_start, s.a_size).Constant();
      if (s.b_size != 1 || !product) return std::nullopt;
      shape.push_back(*product);
    } else if (s.a_size == 1 && s.b_size == 1) {
      // A 0 copies x's dimension at its own index.
      shape.push_back(a[s.a_start] == b[s.b_start] && s.a_start == s.b_start ? 0 : -1);
    } else {
      for (std::size_t k = s.b_start; k < s.b_start + s.b_size; ++k) shape.push_back(b[k].Constant().value_or(-1));
    }
  }
  if (std::count(shape.begin(), shape.end(), -1) > 1) return std::nullopt;
  return shape;
}

bool HasZero(const SymShape& shape) {
  return std::any_of(shape.Dims().begin(), shape.Dims().end(), [](const SymDim& d) { return d == SymDim(0); });
}

// Whether a target entry `entry` that is 0 at run time gives the same dim as the input dim
// `input` it then copies: they are the same expression, or both a nonzero constant times one
// symbol (1024 * batch beside batch: both are 0 exactly when batch is).
bool ZeroCopiesTheSameDim(const SymDim& entry, const SymDim& input) {
  if (entry == input) return true;
  const std::vector<std::string> symbols = entry.Symbols();
  if (symbols.size() != 1 || input.Symbols() != symbols) return false;
  const SymDim symbol = SymDim::Symbol(symbols.front());
  const auto nonzero_multiple = [&](const SymDim& dim) {
    const std::optional<std::int64_t> factor = SymDim::ExactDiv(dim, symbol).Constant();
    return factor && *factor != 0;
  };
  return nonzero_multiple(entry) && nonzero_multiple(input);
}

}  // namespace

MatchResult ShapeBasedEditDistanceReshapePattern::Match(GraphGraph& graph, const NodeProto& node) const {
  if (const std::string_view why = reshape::WhyNotPlainReshape(node); !why.empty()) return NoMatch(node, why);
  std::string_view why;
  if (!reshape::ShapeConcat(graph, node, &why)) return NoMatch(node, why);
  if (graph.IsConstant(node.input(1))) return NoMatch(node, "the shape input is constant");
  const SymShape* x = KnownShape(graph, node.input(0));
  const SymShape* y = KnownShape(graph, node.output(0));
  if (!x || !y) return NoMatch(node, "the shape of the input or of the output is not known");
  if (HasZero(*x) || HasZero(*y)) return NoMatch(node, "the input or the output has a dimension 0");
  const std::optional<std::vector<Segment>> segments = Align(x->Dims(), y->Dims());
  if (!segments) return NoMatch(node, "the shapes do not align with at most one uncertain step");
  const std::optional<std::vector<std::int64_t>> shape = ShapeFromSegments(x->Dims(), y->Dims(), *segments);
  if (!shape) return NoMatch(node, "the aligned shapes do not give a shape with at most one -1");
  if (const auto minus_one = std::find(shape->begin(), shape->end(), -1); minus_one != shape->end()) {
    const auto position = static_cast<std::size_t>(minus_one - shape->begin());
    if (why = reshape::WhyMinusOneNotInferable(graph, node, position); !why.empty()) return NoMatch(node, why);
  }
  // The output shape takes a symbolic target entry as the dim; were it 0 at run time, the
  // Reshape would copy the input dim at its position instead ([-1, D] of [2, 3, D] is
  // [0, 3] for D = 0, not [6, 0]), which the static shape written here would not, unless
  // that dim is then 0 as well.
  const std::optional<Dims> target = core::builder::ShapeValue(graph, node.input(1));
  if (!target) return NoMatch(node, "the values of the shape input are not known");
  for (std::size_t i = 0; i < target->size(); ++i)
    if (!(*target)[i].IsConstant() && !(i < x->Rank() && ZeroCopiesTheSameDim((*target)[i], (*x)[i])))
      return NoMatch(node, "a symbolic target entry may be 0 where the input dim at its position is not");
  return Matched({&node});
}

utils::RepeatedProtoField<NodeProto> ShapeBasedEditDistanceReshapePattern::Apply(
    GraphGraph& graph, const std::vector<const NodeProto*>& nodes) const {
  core::builder::ExpectMatchedNodes(*this, nodes, {"Reshape"});
  const NodeProto& reshape = *nodes[0];
  const Dims& x = graph.GetShape(reshape.input(0)).shape.Dims();
  const Dims& y = graph.GetShape(reshape.output(0)).shape.Dims();
  const std::optional<std::vector<Segment>> segments = Align(x, y);
  const auto shape = segments ? ShapeFromSegments(x, y, *segments) : std::nullopt;
  if (!shape) throw BuilderError(std::string(kName) + "::Apply called with shapes that do not align");
  utils::RepeatedProtoField<NodeProto> replacement;
  NodeProto& node = *replacement.Add() = reshape;
  node.set_name(DerivedNodeName(graph, kName, reshape));
  node.set_input(1, graph.MakeInitializer(kName, IntTensor(*shape)));
  return replacement;
}

}  // namespace onnxopt::onnx_patterns
