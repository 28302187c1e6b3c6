#include "onnx_extensions/patterns/algebra/reduce_sum_normalize_pattern.h"

#include "onnx_core/eval/value_comparison.h"
#include "onnx_core/optimizer/graph_graph.h"
#include "onnx_core/optimizer/match.h"
#include "onnx_extensions/patterns/algebra/algebra_matchers.h"

namespace onnxopt::onnx_patterns {

using core::builder::DerivedNodeName;
using core::builder::IntAttr;
using core::builder::IsOp;
using core::builder::OptionalInput;
using core::builder::ProducerOf;
using core::builder::SoleConsumer;
using core::eval::IsFloatingPointType;

namespace {

// Whether `x` is read by exactly the nodes `a` and `b`, and not as a graph output or from
// a nested graph.
bool ReadOnlyBy(const GraphGraph& graph, const std::string& x, const NodeProto* a, const NodeProto* b) {
  const std::vector<const NodeProto*>& readers = graph.NextNodes(x);
  return readers.size() == 2 && !graph.IsOutput(x) && !graph.IsUsedBySubgraph(x) &&
         ((readers[0] == a && readers[1] == b) || (readers[0] == b && readers[1] == a));
}

}  // namespace

MatchResult ReduceSumNormalizePattern::Match(GraphGraph& graph, const NodeProto& node) const {
  if (!IsOp(node, "ReduceSum") || node.output_size() != 1)
    return NoMatch(node, "the node is not a default-domain ReduceSum");
  if (OptionalInput(node, 1).empty()) return NoMatch(node, "the ReduceSum has no axes input");
  const NodeProto* widen = ProducerOf(graph, node.input(0), "Cast");
  if (!widen || widen->input_size() != 1)
    return NoMatch(node, "the data input of the ReduceSum is not produced by a Cast");
  const std::string& x = widen->input(0);
  const std::string& xc = node.input(0);
  if (!IsFloatingPointType(graph.GetType(x)) || !IsFloatingPointType(graph.GetType(xc)))
    return NoMatch(node, "the first Cast does not convert between float types");
  const NodeProto* mul = SoleConsumer(graph, node.output(0), "Mul");
  if (!mul || mul->input_size() != 2) return NoMatch(node, "the output of the ReduceSum is not read by a Mul alone");
  const NodeProto* sub = SoleConsumer(graph, mul->output(0), "Sub");
  if (!sub || sub->input_size() != 2) return NoMatch(node, "the output of the Mul is not read by a Sub alone");
  if (!(sub->input(0) == xc || sub->input(1) == xc))
    return NoMatch(node, "the Sub does not read the output of the first Cast");
  const NodeProto* narrow = SoleConsumer(graph, sub->output(0), "Cast");
  if (!narrow) return NoMatch(node, "the output of the Sub is not read by a Cast alone");
  if (IntAttr(*narrow, "to") != graph.GetType(x))
    return NoMatch(node, "the second Cast does not convert back to the type of the first Cast's input");
  if (!ReadOnlyBy(graph, xc, &node, sub))
    return NoMatch(node, "the output of the first Cast is read by other nodes than the ReduceSum and the Sub");
  // Y may be computed after the ReduceSum.
  return Matched({widen, &node, mul, sub, narrow}, narrow);
}

utils::RepeatedProtoField<NodeProto> ReduceSumNormalizePattern::Apply(
    GraphGraph& graph, const std::vector<const NodeProto*>& nodes) const {
  core::builder::ExpectMatchedNodes(*this, nodes, {"Cast", "ReduceSum", "Mul", "Sub", "Cast"});
  const NodeProto& widen = *nodes[0];
  const NodeProto& reduce = *nodes[1];
  const NodeProto& mul = *nodes[2];
  const NodeProto& sub = *nodes[3];
  const NodeProto& narrow = *nodes[4];
  const std::string& x = widen.input(0);
  const std::string& y = mul.input(0) == reduce.output(0) ? mul.input(1) : mul.input(0);
  utils::RepeatedProtoField<NodeProto> replacement;
  NodeProto& sum = *replacement.Add() = reduce;
  sum.set_name(DerivedNodeName(graph, kName, reduce));
  sum.set_input(0, x);
  sum.set_output(0, graph.Builder().UniqueName(kName));
  // The second Cast's attributes (saturate, ...) convert Y as they converted the result.
  NodeProto& y_narrow = *replacement.Add() = narrow;
  y_narrow.set_name(DerivedNodeName(graph, kName, narrow));
  y_narrow.set_input(0, y);
  y_narrow.set_output(0, graph.Builder().UniqueName(kName));
  const std::string product =
      algebra::AddNode(replacement, graph, kName, mul, "Mul", {sum.output(0), y_narrow.output(0)}).output(0);
  NodeProto& difference = *replacement.Add() = sub;
  difference.set_name(DerivedNodeName(graph, kName, sub));
  for (int i = 0; i < 2; ++i) difference.set_input(i, sub.input(i) == mul.output(0) ? product : x);
  difference.set_output(0, narrow.output(0));
  return replacement;
}

}  // namespace onnxopt::onnx_patterns
