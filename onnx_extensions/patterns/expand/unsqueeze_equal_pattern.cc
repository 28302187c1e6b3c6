#include "onnx_extensions/patterns/expand/unsqueeze_equal_pattern.h"

#include "onnx_core/optimizer/graph_graph.h"
#include "onnx_core/optimizer/match.h"

namespace onnxopt::onnx_patterns {

using core::builder::ConstantScalar;
using core::builder::DerivedNodeName;
using core::builder::IntsAttr;
using core::builder::IsOp;
using core::builder::RankOf;
using core::builder::SoleConsumer;

namespace {

// The Unsqueeze of `r` among its readers other than `equal`, if that is the only one.
const NodeProto* SiblingUnsqueeze(const GraphGraph& graph, const NodeProto& equal) {
  const std::vector<const NodeProto*>& readers = graph.NextNodes(equal.input(0));
  if (readers.size() != 2) return nullptr;
  const NodeProto* sibling = readers[0] == &equal ? readers[1] : readers[0];
  return IsOp(*sibling, "Unsqueeze") && sibling->input(0) == equal.input(0) ? sibling : nullptr;
}

bool SameAxes(const NodeProto& a, const NodeProto& b) {
  if (a.input_size() == 2 || b.input_size() == 2)
    return a.input_size() == 2 && b.input_size() == 2 && a.input(1) == b.input(1);
  const auto axes_a = IntsAttr(a, "axes");
  return axes_a && axes_a == IntsAttr(b, "axes");
}

}  // namespace

MatchResult UnsqueezeEqualPattern::Match(GraphGraph& graph, const NodeProto& node) const {
  if (!IsOp(node, "Equal") || node.input_size() != 2)
    return NoMatch(node, "the node is not a default-domain Equal with two inputs");
  // Before opset 7, Equal broadcasts only with broadcast=1: Equal(r, c) of one shape needs
  // none, Equal(Unsqueeze(r), c) of a higher rank than c would.
  if (!core::builder::BroadcastsMultidirectionally(graph)) return NoMatch(node, "the opset is older than 7");
  const TensorProto* c = graph.GetComputedConstant(node.input(1));
  if (!c || !ConstantScalar(graph, node.input(1)))
    return NoMatch(node, "the second input of the Equal is not a constant scalar");
  const NodeProto* unsqueeze = SoleConsumer(graph, node.output(0), "Unsqueeze");
  if (!unsqueeze || unsqueeze->input(0) != node.output(0))
    return NoMatch(node, "the output of the Equal is not read by an Unsqueeze alone");
  const NodeProto* sibling = SiblingUnsqueeze(graph, node);
  if (!sibling) return NoMatch(node, "the first input of the Equal is not read by exactly one other node, an Unsqueeze");
  if (!SameAxes(*sibling, *unsqueeze)) return NoMatch(node, "the two Unsqueezes do not use the same axes");
  if (graph.Position(*sibling) > graph.Position(*unsqueeze))
    return NoMatch(node, "the sibling Unsqueeze follows the Unsqueeze of the Equal");
  const auto rank = RankOf(graph, node.input(0));
  if (c->dims_size() == 1 && (!rank || *rank == 0))
    return NoMatch(node, "the constant has shape (1,) and the first input may have rank 0");
  // The sibling stays where it is (it may have other readers): the new Equal goes at the
  // place of the second Unsqueeze, after it.
  return Matched({&node, unsqueeze}, unsqueeze);
}

utils::RepeatedProtoField<NodeProto> UnsqueezeEqualPattern::Apply(GraphGraph& graph,
                                                                  const std::vector<const NodeProto*>& nodes) const {
  core::builder::ExpectMatchedNodes(*this, nodes, {"Equal", "Unsqueeze"});
  const NodeProto& equal = *nodes[0];
  const NodeProto& unsqueeze = *nodes[1];
  const NodeProto& sibling = *SiblingUnsqueeze(graph, equal);
  utils::RepeatedProtoField<NodeProto> replacement;
  NodeProto& node = *replacement.Add() = equal;
  node.set_name(DerivedNodeName(graph, kName, equal));
  node.set_input(0, sibling.output(0));
  node.set_output(0, unsqueeze.output(0));
  return replacement;
}

}  // namespace onnxopt::onnx_patterns
