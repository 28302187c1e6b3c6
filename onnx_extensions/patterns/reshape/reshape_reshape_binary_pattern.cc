#include "onnx_extensions/patterns/reshape/reshape_reshape_binary_pattern.h"

#include "onnx_core/optimizer/graph_graph.h"
#include "onnx_core/optimizer/match.h"
#include "onnx_extensions/patterns/reshape/reshape_matchers.h"

namespace onnxopt::onnx_patterns {

using core::builder::ConstantInts;
using core::builder::DerivedNodeName;
using core::builder::HasOneUse;
using core::builder::KnownShape;
using core::shapes::SymShape;

std::set<std::string> ReshapeReshapeBinaryPattern::FastOpType() const { return reshape::ReshapableBinaryOps(); }

MatchResult ReshapeReshapeBinaryPattern::Match(GraphGraph& graph, const NodeProto& op) const {
  if (!reshape::IsReshapableBinary(op))
    return NoMatch(op, "the node is not a default-domain element-wise binary operator with two inputs");
  // Before opset 7 the operator's `broadcast` and `axis` refer to its inputs' rank, which the
  // rewrite changes: a negative axis (-2: axis 0 of two dims) points elsewhere in three.
  if (!core::builder::BroadcastsMultidirectionally(graph)) return NoMatch(op, "the opset is older than 7");
  if (!HasOneUse(graph, op.input(0)) || !HasOneUse(graph, op.input(1)))
    return NoMatch(op, "an input has other readers than the binary operator");
  const NodeProto* left = graph.NodeBefore(op.input(0));
  const NodeProto* right = graph.NodeBefore(op.input(1));
  if (!left || !right || !reshape::IsPlainReshape(*left) || !reshape::IsPlainReshape(*right))
    return NoMatch(op, "an input is not produced by a plain Reshape (default domain, allowzero=0)");
  const auto s = ConstantInts(graph, left->input(1));
  const auto s_right = ConstantInts(graph, right->input(1));
  if (!s || !s_right) return NoMatch(op, "the shape of a Reshape is not constant");
  if (*s != *s_right) return NoMatch(op, "the two Reshapes have different shapes");
  const SymShape* x = KnownShape(graph, left->input(0));
  const SymShape* y = KnownShape(graph, right->input(0));
  if (!x || !y) return NoMatch(op, "the shape of an input of the Reshapes is not known");
  if (!(*x == *y)) return NoMatch(op, "the inputs of the Reshapes do not have the same shape");
  // Upstream requires it; it also keeps unknown shapes out of the rewritten graph.
  if (!KnownShape(graph, op.output(0))) return NoMatch(op, "the shape of the output is not known");
  return Matched({left, right, &op}, &op);
}

utils::RepeatedProtoField<NodeProto> ReshapeReshapeBinaryPattern::Apply(
    GraphGraph& graph, const std::vector<const NodeProto*>& nodes) const {
  core::builder::ExpectMatchedNodes(*this, nodes, {"Reshape", "Reshape", ""});
  core::builder::ExpectMatchedNodes(*this, {nodes[2]}, {{"binary operator", reshape::IsReshapableBinary}});
  const NodeProto& left = *nodes[0];
  const NodeProto& right = *nodes[1];
  const NodeProto& op = *nodes[2];
  utils::RepeatedProtoField<NodeProto> replacement;
  NodeProto& node = *replacement.Add() = op;
  node.set_name(DerivedNodeName(graph, kName, op));
  node.set_input(0, left.input(0));
  node.set_input(1, right.input(0));
  node.set_output(0, graph.Builder().UniqueName(kName));
  NodeProto& reshaped = *replacement.Add() = left;
  reshaped.set_name(DerivedNodeName(graph, kName, left));
  reshaped.set_input(0, node.output(0));
  reshaped.set_output(0, op.output(0));
  return replacement;
}

}  // namespace onnxopt::onnx_patterns
