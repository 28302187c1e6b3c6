#include "onnx_extensions/patterns/fusion/conv_mul_pattern.h"

#include "onnx_core/optimizer/graph_graph.h"
#include "onnx_core/optimizer/match.h"
#include "onnx_extensions/patterns/fusion/fusion_matchers.h"

namespace onnxopt::onnx_patterns {

namespace {

bool IsMul(const NodeProto& node) { return core::builder::IsOp(node, "Mul"); }

}  // namespace

MatchResult ConvMulPattern::Match(GraphGraph& graph, const NodeProto& mul) const {
  if (!IsMul(mul)) return NoMatch(mul, "the node is not a default-domain Mul");
  std::string_view why;
  const std::optional<fusion::ConvWithChannelConstant> match =
      fusion::MatchConvWithChannelConstant(graph, mul, /*scales_weight=*/true, &why);
  if (!match) return NoMatch(mul, why);
  return Matched({match->conv, &mul});
}

utils::RepeatedProtoField<NodeProto> ConvMulPattern::Apply(GraphGraph& graph,
                                                           const std::vector<const NodeProto*>& nodes) const {
  core::builder::ExpectMatchedNodes(*this, nodes, {fusion::kConvOrConvTranspose, {"Mul", IsMul}});
  return fusion::FoldChannelConstantIntoConv(graph, kName, *nodes[0], *nodes[1], /*scales_weight=*/true);
}

}  // namespace onnxopt::onnx_patterns
