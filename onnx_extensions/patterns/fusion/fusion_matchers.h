#pragma once
// Helpers shared by the fusion patterns (docs/classic-fusions.md): folding a per-output-
// channel affine map y = conv(x) * multiplier + offset into the weights and bias of a
// Conv or ConvTranspose. Queries return nullopt / a reason instead of throwing.

#include <cstdint>
#include <optional>
#include <string_view>
#include <vector>

#include "onnx_core/ir/onnx_pb.h"
#include "onnx_core/optimizer/graph_graph.h"
#include "onnx_core/utils/repeated_proto_field.h"

namespace onnxopt::onnx_patterns::fusion {

using core::builder::GraphGraph;

// One value per output channel of a convolution: y[:, o, ...] * multiplier[o] + offset[o].
struct ChannelAffine {
  std::vector<double> multiplier;
  std::vector<double> offset;
};

// float, double, float16 or bfloat16: the types FloatTensor writes.
bool IsFloatType(int elem_type);

// A tensor of the float type `elem_type` (float, double, float16, bfloat16) with these
// dims, each element rounded once from its double value (float16 and bfloat16 through
// float32, see AddFoldedConv).
TensorProto FloatTensor(int elem_type, const std::vector<std::int64_t>& dims, const std::vector<double>& values);

// A default-domain Conv or ConvTranspose (for ExpectMatchedNodes).
bool IsConvOrConvTranspose(const NodeProto& node);
inline constexpr core::builder::ExpectedNode kConvOrConvTranspose{"Conv or ConvTranspose", IsConvOrConvTranspose};

// The default-domain Conv or ConvTranspose producing `value`, when `value` is its only
// output and has one use (the node to fuse); null otherwise.
const NodeProto* FusableConvProducer(const GraphGraph& graph, std::string_view value);

// The number of output channels of a Conv (W is [M, C/group, k...]) or ConvTranspose (W is
// [C, M/group, k...]) whose weight has `weight_dims`; nullopt when the dims do not fit.
std::optional<std::int64_t> OutputChannels(const NodeProto& conv, const std::vector<std::int64_t>& weight_dims);

// Why the weights of `conv` cannot take a folded affine map, or nullopt when they can:
// the weight and bias are computable constants within the folding limits, of a float
// type, and, when `scales_weight`, the weight has no other consumer (folding would copy it).
std::optional<std::string_view> WhyWeightsNotFoldable(GraphGraph& graph, const NodeProto& conv, bool scales_weight);

// The values of a constant that broadcasts against the output of a convolution of rank
// `rank` with `channels` channels without changing its shape: once left-padded with 1s
// to `rank`, its shape is [1, channels or 1, 1, ...]. One value per channel; nullopt
// when `value` is not such a constant or holds an infinity or a NaN.
std::optional<std::vector<double>> PerChannelConstant(GraphGraph& graph, std::string_view value, std::size_t rank,
                                                      std::int64_t channels);

// The affine map an inference-mode BatchNormalization(x, scale, B, mean, var) applies
// per channel: multiplier = scale / sqrt(var + epsilon), offset = B - mean * multiplier.
// Nullopt, with the reason in `*why`, when the node is not a default-domain
// BatchNormalization in inference mode whose running statistics outputs are unused, or
// when its four parameters are not constants of `channels` elements. Inference mode is
// training_mode=0 and, before opset 14 (which has no training_mode), a single output:
// there the number of outputs gives the mode.
std::optional<ChannelAffine> InferenceBatchNormalization(GraphGraph& graph, const NodeProto& bn, std::int64_t channels,
                                                         std::string_view* why);

// The weight and bias of a convolution with a ChannelAffine folded in, in double, before
// the rounding to the weight type: W'[o, ...] = W[o, ...] * multiplier[o] and
// B'[o] = B[o] * multiplier[o] + offset[o] (B = 0 when the convolution has no bias).
struct FoldedWeights {
  std::optional<std::vector<double>> weight;  // nullopt when the multiplier is all ones: W is kept
  std::vector<double> bias;
};

// `conv`'s weight and bias with `affine` folded in, computed in one pass over the weight.
// Nullopt, with the reason in `*why`, when the rounding to the weight type would change
// more than the order of the roundings:
// - a folded weight or bias is beyond the finite range of the type (float16 1000 * 100
//   becomes +inf, where the original multiplies a finite convolution output);
// - a folded weight of two nonzero factors is 0 or subnormal in the type (float
//   1e-30 * 1e-20 flushes to 0, where the original multiplies a convolution output that
//   a large input keeps in range). The weight multiplies the input, so the bits it
//   loses grow with the input. A subnormal folded bias is kept: it is added, and its
//   error, at most half the smallest subnormal, is within the rounding of the original's
//   output.
// Call after WhyWeightsNotFoldable; `affine` has one value per output channel.
std::optional<FoldedWeights> FoldIntoWeights(GraphGraph& graph, const NodeProto& conv, const ChannelAffine& affine,
                                             std::string_view* why);

// A binary node `y = Op(c, k)` or `Op(k, c)` where c comes from a Conv or ConvTranspose
// with foldable weights (FusableConvProducer, WhyWeightsNotFoldable), k is a
// PerChannelConstant of its output, and k folds into the weights as a multiplier
// (scales_weight) or an offset without leaving the range of their type (FoldIntoWeights).
struct ConvWithChannelConstant {
  const NodeProto* conv = nullptr;
  FoldedWeights folded;
};
// Nullopt, with the reason in `*why`, when `binary` is not such a node.
std::optional<ConvWithChannelConstant> MatchConvWithChannelConstant(GraphGraph& graph, const NodeProto& binary,
                                                                    bool scales_weight, std::string_view* why);

// Appends `output = Conv(x, W', B')` (the op type and attributes of `conv`) to
// `replacement`, where W' and B' are new initializers holding `folded` (W' is `conv`'s
// weight when `folded.weight` is nullopt). Each value computed in double is rounded once
// to the weight type (float16 and bfloat16 go through float32 on the way, which only
// rounds again when the double result lies within 2^-29 relative of a float16/bfloat16
// rounding boundary). `folded` comes from FoldIntoWeights.
void AddFoldedConv(utils::RepeatedProtoField<NodeProto>& replacement, GraphGraph& graph, std::string_view pattern,
                   const NodeProto& conv, const FoldedWeights& folded, const std::string& output);

// The replacement of ConvMulPattern (scales_weight) and ConvAddPattern: `binary`'s
// per-channel constant folded into `conv` (as multiplier or offset). Throws BuilderError
// naming `pattern` when `binary` no longer matches MatchConvWithChannelConstant.
utils::RepeatedProtoField<NodeProto> FoldChannelConstantIntoConv(GraphGraph& graph, std::string_view pattern,
                                                                 const NodeProto& conv, const NodeProto& binary,
                                                                 bool scales_weight);

}  // namespace onnxopt::onnx_patterns::fusion
