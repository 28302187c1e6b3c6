#include "onnx_extensions/patterns/reshape/reshape_pattern.h"

#include "onnx_core/optimizer/graph_graph.h"
#include "onnx_core/optimizer/match.h"
#include "onnx_extensions/patterns/reshape/reshape_matchers.h"

namespace onnxopt::onnx_patterns {

using core::builder::ConstantInts;
using core::builder::StaticDims;

MatchResult ReshapePattern::Match(GraphGraph& graph, const NodeProto& node) const {
  if (const std::string_view why = reshape::WhyNotPlainReshape(node); !why.empty()) return NoMatch(node, why);
  const auto dims = StaticDims(graph, node.input(0));
  if (!dims) return NoMatch(node, "the shape of the input is not static");
  const auto shape = ConstantInts(graph, node.input(1));
  if (!shape) return NoMatch(node, "the shape input is not constant");
  if (*shape != *dims) return NoMatch(node, "the shape is not the shape of the input");
  return Matched({&node});
}

utils::RepeatedProtoField<NodeProto> ReshapePattern::Apply(GraphGraph& graph,
                                                           const std::vector<const NodeProto*>& nodes) const {
  core::builder::ExpectMatchedNodes(*this, nodes, {"Reshape"});
  utils::RepeatedProtoField<NodeProto> replacement;
  *replacement.Add() = reshape::IdentityOf(graph, kName, *nodes[0]);
  return replacement;
}

}  // namespace onnxopt::onnx_patterns
