#include "onnx_extensions/patterns/expand/swap_expand_reshape_pattern.h"

#include "onnx_core/optimizer/graph_graph.h"
#include "onnx_core/optimizer/match.h"

namespace onnxopt::onnx_patterns {

using core::builder::ConstantInts;
using core::builder::DerivedNodeName;
using core::builder::HasOneUse;
using core::builder::IntAttr;
using core::builder::IsOp;
using core::builder::ProducerOf;
using core::builder::RankOf;
using core::shapes::SymDim;

MatchResult SwapExpandReshapePattern::Match(GraphGraph& graph, const NodeProto& node) const {
  if (!IsOp(node, "Reshape") || node.input_size() != 2)
    return NoMatch(node, "the node is not a default-domain Reshape with two inputs");
  if (IntAttr(node, "allowzero").value_or(0) != 0) return NoMatch(node, "the Reshape has allowzero=1");
  if (ConstantInts(graph, node.input(1)) != std::vector<std::int64_t>{0, 1, -1})
    return NoMatch(node, "the shape of the Reshape is not the constant (0, 1, -1)");
  const NodeProto* expand = ProducerOf(graph, node.input(0), "Expand");
  if (!expand || expand->input_size() != 2) return NoMatch(node, "the input is not produced by an Expand");
  if (!HasOneUse(graph, node.input(0))) return NoMatch(node, "the output of the Expand has other readers");
  if (RankOf(graph, expand->input(0)) != 3u) return NoMatch(node, "the input of the Expand does not have rank 3");
  const auto target = core::builder::ShapeValue(graph, expand->input(1));
  if (!target) return NoMatch(node, "the target shape of the Expand is not known");
  if (target->size() != 3 || !((*target)[1] == 1) || !((*target)[2] == 1))
    return NoMatch(node, "the target shape of the Expand is not (d, 1, 1)");
  return Matched({expand, &node}, &node);
}

utils::RepeatedProtoField<NodeProto> SwapExpandReshapePattern::Apply(GraphGraph& graph,
                                                                     const std::vector<const NodeProto*>& nodes) const {
  core::builder::ExpectMatchedNodes(*this, nodes, {"Expand", "Reshape"});
  const NodeProto& expand = *nodes[0];
  const NodeProto& reshape = *nodes[1];
  const std::string r = graph.Builder().UniqueName(kName);
  utils::RepeatedProtoField<NodeProto> replacement;
  NodeProto& moved = *replacement.Add() = reshape;
  moved.set_name(DerivedNodeName(graph, kName, reshape));
  moved.set_input(0, expand.input(0));
  moved.set_output(0, r);
  NodeProto& node = *replacement.Add() = expand;
  node.set_name(DerivedNodeName(graph, kName, expand));
  node.set_input(0, r);
  node.set_output(0, reshape.output(0));
  return replacement;
}

}  // namespace onnxopt::onnx_patterns
