#include "onnx_extensions/patterns/fusion/conv_batch_normalization_pattern.h"

#include "onnx_core/optimizer/graph_graph.h"
#include "onnx_core/optimizer/match.h"
#include "onnx_extensions/patterns/fusion/fusion_matchers.h"

namespace onnxopt::onnx_patterns {

namespace {

// The BatchNormalization's per-channel map for the channels of `conv`'s output.
std::optional<fusion::ChannelAffine> AffineAfterConv(GraphGraph& graph, const NodeProto& conv, const NodeProto& bn,
                                                     std::string_view* why) {
  const TensorProto& weight = *graph.GetComputedConstant(conv.input(1));
  const std::int64_t channels =
      *fusion::OutputChannels(conv, std::vector<std::int64_t>(weight.dims().begin(), weight.dims().end()));
  return fusion::InferenceBatchNormalization(graph, bn, channels, why);
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
  if (!AffineAfterConv(graph, *conv, bn, &why)) return NoMatch(bn, why);
  return Matched({conv, &bn});
}

utils::RepeatedProtoField<NodeProto> ConvBatchNormalizationPattern::Apply(
    GraphGraph& graph, const std::vector<const NodeProto*>& nodes) const {
  core::builder::ExpectMatchedNodes(*this, nodes,
                                    {fusion::kConvOrConvTranspose, {"BatchNormalization", IsBatchNormalization}});
  const NodeProto& conv = *nodes[0];
  const NodeProto& bn = *nodes[1];
  std::string_view unused;
  utils::RepeatedProtoField<NodeProto> replacement;
  fusion::AddFoldedConv(replacement, graph, kName, conv, *AffineAfterConv(graph, conv, bn, &unused), bn.output(0));
  return replacement;
}

}  // namespace onnxopt::onnx_patterns
