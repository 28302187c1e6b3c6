#include "onnx_extensions/patterns/fusion/conv_batch_normalization_pattern.h"

#include "onnx_core/common/error.h"
#include "onnx_core/optimizer/graph_graph.h"
#include "onnx_core/optimizer/match.h"
#include "onnx_extensions/patterns/fusion/fusion_matchers.h"

namespace onnxopt::onnx_patterns {

namespace {

// `conv`'s weight and bias with the BatchNormalization's per-channel map folded in, for
// the channels of `conv`'s output.
std::optional<fusion::FoldedWeights> FoldedAfterConv(GraphGraph& graph, const NodeProto& conv, const NodeProto& bn,
                                                     std::string_view* why) {
  const TensorProto& weight = *graph.GetComputedConstant(conv.input(1));
  const std::int64_t channels =
      *fusion::OutputChannels(conv, std::vector<std::int64_t>(weight.dims().begin(), weight.dims().end()));
  const std::optional<fusion::ChannelAffine> affine = fusion::InferenceBatchNormalization(graph, bn, channels, why);
  if (!affine) return std::nullopt;
  return fusion::FoldIntoWeights(graph, conv, *affine, why);
}

bool IsBatchNormalization(const NodeProto& node) { return core::builder::IsOp(node, "BatchNormalization"); }

}  // namespace

MatchResult ConvBatchNormalizationPattern::Match(GraphGraph& graph, const NodeProto& bn) const {
  if (!core::builder::IsOp(bn, "BatchNormalization") || bn.input_size() != 5)
    return NoMatch(bn, "the node is not a default-domain BatchNormalization with five inputs");
  const NodeProto* conv = fusion::FusableConvProducer(graph, bn.input(0));
  if (!conv) return NoMatch(bn, "the input is not produced by a Conv or ConvTranspose with no other use");
  if (std::optional<std::string_view> why = fusion::WhyWeightsNotFoldable(graph, *conv, /*scales_weight=*/true))
    return NoMatch(bn, *why);
  std::string_view why;
  if (!FoldedAfterConv(graph, *conv, bn, &why)) return NoMatch(bn, why);
  return Matched({conv, &bn});
}

utils::RepeatedProtoField<NodeProto> ConvBatchNormalizationPattern::Apply(
    GraphGraph& graph, const std::vector<const NodeProto*>& nodes) const {
  core::builder::ExpectMatchedNodes(*this, nodes,
                                    {fusion::kConvOrConvTranspose, {"BatchNormalization", IsBatchNormalization}});
  const NodeProto& conv = *nodes[0];
  const NodeProto& bn = *nodes[1];
  // Apply recomputes the folded weights Match found: a match result carries nodes, not values.
  std::string_view why;
  const std::optional<fusion::FoldedWeights> folded = FoldedAfterConv(graph, conv, bn, &why);
  if (!folded)
    throw BuilderError(std::string(kName) + "::Apply called with nodes that do not match: " + std::string(why));
  utils::RepeatedProtoField<NodeProto> replacement;
  fusion::AddFoldedConv(replacement, graph, kName, conv, *folded, bn.output(0));
  return replacement;
}

}  // namespace onnxopt::onnx_patterns
