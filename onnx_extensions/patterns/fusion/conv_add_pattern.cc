#include "onnx_extensions/patterns/fusion/conv_add_pattern.h"

#include "onnx_core/optimizer/graph_graph.h"
#include "onnx_core/optimizer/match.h"
#include "onnx_extensions/patterns/fusion/fusion_matchers.h"

namespace onnxopt::onnx_patterns {

namespace {

bool IsAdd(const NodeProto& node) { return core::builder::IsOp(node, "Add"); }

}  // namespace

MatchResult ConvAddPattern::Match(GraphGraph& graph, const NodeProto& add) const {
  if (!IsAdd(add)) return NoMatch(add, "the node is not a default-domain Add");
  std::string_view why;
  const std::optional<fusion::ConvWithChannelConstant> match =
      fusion::MatchConvWithChannelConstant(graph, add, /*scales_weight=*/false, &why);
  if (!match) return NoMatch(add, why);
  return Matched({match->conv, &add});
}

utils::RepeatedProtoField<NodeProto> ConvAddPattern::Apply(GraphGraph& graph,
                                                           const std::vector<const NodeProto*>& nodes) const {
  core::builder::ExpectMatchedNodes(*this, nodes, {fusion::kConvOrConvTranspose, {"Add", IsAdd}});
  return fusion::FoldChannelConstantIntoConv(graph, kName, *nodes[0], *nodes[1], /*scales_weight=*/false);
}

}  // namespace onnxopt::onnx_patterns
