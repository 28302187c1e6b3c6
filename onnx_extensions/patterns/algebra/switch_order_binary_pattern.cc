#include "onnx_extensions/patterns/algebra/switch_order_binary_pattern.h"

#include <algorithm>
#include <array>
#include <optional>

#include "onnx_core/optimizer/graph_graph.h"
#include "onnx_core/optimizer/match.h"

namespace onnxopt::onnx_patterns {

using core::builder::DerivedNodeName;
using core::builder::HasOneUse;
using core::builder::IsOp;
using core::builder::KnownShape;
using core::builder::PadLeft;
using core::builder::ProducerOf;
using core::builder::RegroupedProductMayOverflow;
using core::shapes::SymDim;
using core::shapes::SymShape;

namespace {

// A default-domain Add or Mul with two inputs and one output.
bool IsAddOrMul(const NodeProto& node) {
  return (IsOp(node, "Add") || IsOp(node, "Mul")) && node.input_size() == 2 && node.output_size() == 1;
}

// The index of the value strictly below the two others, or -1.
template <class T>
int StrictMinimum(const std::array<T, 3>& values) {
  for (int k = 0; k < 3; ++k)
    if (values[k] < values[(k + 1) % 3] && values[k] < values[(k + 2) % 3]) return k;
  return -1;
}

// Which grouping gives the smallest intermediate result: 0 for (B∘C)∘A as written, 1 for
// (B∘A)∘C, 2 for (C∘A)∘B (upstream's rule: ranks first, then the first decisive axis).
int SmallestGrouping(const SymShape& b, const SymShape& c, const SymShape& a) {
  const std::size_t rb = b.Rank(), rc = c.Rank(), ra = a.Rank();
  const int by_rank = StrictMinimum<std::size_t>({std::max(rb, rc), std::max(ra, rb), std::max(ra, rc)});
  if (by_rank >= 0) return by_rank;
  const std::size_t rank = std::max({rb, rc, ra});
  const std::vector<SymDim> pb = PadLeft(b.Dims(), rank), pc = PadLeft(c.Dims(), rank), pa = PadLeft(a.Dims(), rank);
  for (std::size_t i = 0; i < rank; ++i) {
    // A symbolic dim may be anything at run time: only integer dims decide.
    if (!pb[i].IsConstant() || !pc[i].IsConstant() || !pa[i].IsConstant()) continue;
    const std::int64_t db = *pb[i].Constant(), dc = *pc[i].Constant(), da = *pa[i].Constant();
    const int by_dim = StrictMinimum<std::int64_t>({std::max(db, dc), std::max(da, db), std::max(da, dc)});
    if (by_dim >= 0) return by_dim;
  }
  return 0;
}

// The anchor's input that `inner` does not produce.
const std::string& OtherInput(const NodeProto& node, const NodeProto& inner) {
  return node.input(0) == inner.output(0) ? node.input(1) : node.input(0);
}

// SmallestGrouping for `inner` under `node`; nullopt when a shape is not known.
std::optional<int> Grouping(const GraphGraph& graph, const NodeProto& node, const NodeProto& inner) {
  const SymShape* b = KnownShape(graph, inner.input(0));
  const SymShape* c = KnownShape(graph, inner.input(1));
  const SymShape* a = KnownShape(graph, OtherInput(node, inner));
  if (!a || !b || !c) return std::nullopt;
  return SmallestGrouping(*b, *c, *a);
}

}  // namespace

MatchResult SwitchOrderBinaryPattern::Match(GraphGraph& graph, const NodeProto& node) const {
  if (!IsAddOrMul(node)) return NoMatch(node, "the node is not a default-domain Add or Mul with two inputs");
  // Before opset 7, Add and Mul broadcast only their second input into the first, with
  // broadcast=1 and at `axis`: the regrouped operands would not fit the copied attributes.
  if (!core::builder::BroadcastsMultidirectionally(graph)) return NoMatch(node, "the opset is older than 7");
  if (node.input(0) == node.input(1)) return NoMatch(node, "the node reads the same value twice");
  if (!KnownShape(graph, node.input(0)) || !KnownShape(graph, node.input(1)))
    return NoMatch(node, "the shape of an input is not known");
  const NodeProto* sides[2] = {ProducerOf(graph, node.input(0), node.op_type()),
                               ProducerOf(graph, node.input(1), node.op_type())};
  if (!sides[0] && !sides[1]) return NoMatch(node, "no input is produced by a node of the same op type");
  // Upstream means to try the left inner node, then the right one (it only ever tries the
  // right one); a shared inner node on one side leaves the other side to try.
  bool shapes_known = false, shared = false;
  for (const NodeProto* inner : sides) {
    if (!inner || !IsAddOrMul(*inner)) continue;
    const std::optional<int> grouping = Grouping(graph, node, *inner);
    shapes_known = shapes_known || grouping.has_value();
    if (!grouping || *grouping == 0) continue;
    if (!HasOneUse(graph, inner->output(0))) {
      shared = true;
      continue;
    }
    const std::string& with_a = *grouping == 1 ? inner->input(0) : inner->input(1);
    if (node.op_type() == "Mul" &&
        RegroupedProductMayOverflow(graph, graph.GetType(node.output(0)), with_a, OtherInput(node, *inner)))
      return NoMatch(node, "a float16 product regrouped can overflow where the original grouping does not");
    return Matched({inner, &node}, &node);
  }
  if (shared) return NoMatch(node, "the output of the inner node has other readers");
  if (!shapes_known) return NoMatch(node, "the shape of an input of the inner node is not known");
  return NoMatch(node, "no other grouping gives a smaller intermediate result");
}

utils::RepeatedProtoField<NodeProto> SwitchOrderBinaryPattern::Apply(GraphGraph& graph,
                                                                     const std::vector<const NodeProto*>& nodes) const {
  const core::builder::ExpectedNode add_or_mul{"default-domain Add or Mul", IsAddOrMul};
  core::builder::ExpectMatchedNodes(*this, nodes, {add_or_mul, add_or_mul});
  const NodeProto& inner = *nodes[0];
  const NodeProto& node = *nodes[1];
  const bool first_with_a = *Grouping(graph, node, inner) == 1;
  const std::string& with_a = first_with_a ? inner.input(0) : inner.input(1);
  const std::string& last = first_with_a ? inner.input(1) : inner.input(0);
  utils::RepeatedProtoField<NodeProto> replacement;
  NodeProto& grouped = *replacement.Add() = inner;
  grouped.set_name(DerivedNodeName(graph, kName, inner));
  grouped.set_input(0, with_a);
  grouped.set_input(1, OtherInput(node, inner));
  grouped.set_output(0, graph.Builder().UniqueName(kName));
  NodeProto& outer = *replacement.Add() = node;
  outer.set_name(DerivedNodeName(graph, kName, node));
  outer.set_input(0, grouped.output(0));
  outer.set_input(1, last);
  return replacement;
}

}  // namespace onnxopt::onnx_patterns
