#pragma once

#include <string_view>

#include "onnx_core/optimizer/pattern.h"

namespace onnxopt::onnx_patterns {

using core::builder::GraphGraph;
using core::builder::MatchResult;
using core::builder::NumericalClass;
using core::builder::PatternOptimization;

/// BatchNormalization(Conv(x, W, B)) => Conv(x, W * s, (B - mean) * s + beta), with
/// s = scale / sqrt(var + epsilon) per output channel; the same for ConvTranspose.
/// Before:  c = Conv<attrs>(x, W[, B]); y = BatchNormalization(c, scale, beta, mean, var)
/// After:   y = Conv<attrs>(x, W', B')          (W', B' new initializers)
/// Not valid in training mode (training_mode=1; before opset 14, which has no
/// training_mode, more than one output, used or not, empty names included: onnxruntime
/// then normalizes with the batch statistics), when the running statistics are used, when
/// c has another use, or when W is shared (folding would copy it), is a graph input
/// (overridable) or is larger than the folding limit. The weights fold in double and round
/// once to their type (float16 weights included); the order of the float roundings
/// changes: kRounding. Not valid when that rounding leaves the range of the type: a folded
/// weight or bias beyond the largest finite value (+inf where the original multiplies a
/// finite output), or a folded weight of nonzero factors that is 0 or subnormal (the
/// original keeps the precision the input multiplies; see fusion::FoldIntoWeights).
class ConvBatchNormalizationPattern final : public PatternOptimization {
 public:
  static constexpr std::string_view kName = "ConvBatchNormalizationPattern";
  static constexpr NumericalClass kNumerics = NumericalClass::kRounding;
  ConvBatchNormalizationPattern() : PatternOptimization(0) {}

  std::string Name() const override { return std::string(kName); }
  std::set<std::string> FastOpType() const override { return {"BatchNormalization"}; }
  MatchResult Match(GraphGraph& graph, const NodeProto& bn) const override;
  utils::RepeatedProtoField<NodeProto> Apply(GraphGraph& graph,
                                             const std::vector<const NodeProto*>& nodes) const override;
};

}  // namespace onnxopt::onnx_patterns
