#include "onnx_extensions/patterns/algebra/sub1_mul_pattern.h"

#include "onnx_core/optimizer/graph_graph.h"
#include "onnx_core/optimizer/match.h"
#include "onnx_extensions/patterns/algebra/algebra_matchers.h"

namespace onnxopt::onnx_patterns {

using core::builder::Broadcast;
using core::builder::DerivedNodeName;
using core::builder::HasOneUse;
using core::builder::IsConstantFilledWith;
using core::builder::IsOp;
using core::builder::KnownShape;
using core::builder::ProducerOf;
using core::shapes::SymShape;

namespace {

// Why input `side` of `mul` is not a usable Sub(ones, X); empty when it is.
std::string_view WhyNotOneMinus(GraphGraph& graph, const NodeProto& mul, int side) {
  const NodeProto* sub = ProducerOf(graph, mul.input(side), "Sub");
  if (!sub || sub->input_size() != 2) return "no input is produced by a default-domain Sub";
  if (!IsConstantFilledWith(graph, sub->input(0), 1.0)) return "the first input of the Sub is not a constant of ones";
  if (!HasOneUse(graph, mul.input(side))) return "the output of the Sub has other readers";
  const SymShape* x = KnownShape(graph, sub->input(1));
  const SymShape* y = KnownShape(graph, mul.input(1 - side));
  const SymShape* z = KnownShape(graph, mul.output(0));
  if (!x || !y || !z) return "the shape of X, of the other operand or of the product is not known";
  const auto without_ones = Broadcast(x->Dims(), y->Dims());
  if (!without_ones || SymShape(*without_ones) != *z) return "the constant of ones enlarges the product";
  return {};
}

}  // namespace

MatchResult Sub1MulPattern::Match(GraphGraph& graph, const NodeProto& node) const {
  if (!IsOp(node, "Mul") || node.input_size() != 2 || node.output_size() != 1)
    return NoMatch(node, "the node is not a default-domain Mul with two inputs");
  // Before opset 7, Sub broadcasts only its second input into its first (broadcast=1):
  // Sub(Y, X * Y) would need Y to be the larger operand.
  if (!core::builder::BroadcastsMultidirectionally(graph)) return NoMatch(node, "the opset is older than 7");
  if (node.input(0) == node.input(1)) return NoMatch(node, "the Mul reads the same value twice");
  // The left side first, as upstream.
  const std::string_view left = WhyNotOneMinus(graph, node, 0);
  if (left.empty()) return Matched({graph.NodeBefore(node.input(0)), &node}, &node);
  const std::string_view right = WhyNotOneMinus(graph, node, 1);
  if (right.empty()) return Matched({graph.NodeBefore(node.input(1)), &node}, &node);
  // The reason of the side that got further: a Sub rather than no Sub.
  return NoMatch(node, ProducerOf(graph, node.input(0), "Sub") ? left : right);
}

utils::RepeatedProtoField<NodeProto> Sub1MulPattern::Apply(GraphGraph& graph,
                                                           const std::vector<const NodeProto*>& nodes) const {
  core::builder::ExpectMatchedNodes(*this, nodes, {"Sub", "Mul"});
  const NodeProto& sub = *nodes[0];
  const NodeProto& mul = *nodes[1];
  const int side = mul.input(0) == sub.output(0) ? 0 : 1;
  const std::string& x = sub.input(1);
  const std::string& y = mul.input(1 - side);
  utils::RepeatedProtoField<NodeProto> replacement;
  NodeProto& product = *replacement.Add() = mul;
  product.set_name(DerivedNodeName(graph, kName, mul));
  product.set_input(side, x);
  product.set_output(0, graph.Builder().UniqueName(kName));
  NodeProto& difference = algebra::AddNode(replacement, graph, kName, sub, "Sub", {y, product.output(0)});
  difference.set_output(0, mul.output(0));
  return replacement;
}

}  // namespace onnxopt::onnx_patterns
