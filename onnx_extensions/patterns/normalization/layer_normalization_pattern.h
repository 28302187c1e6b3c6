#pragma once

#include <string_view>

#include "onnx_core/optimizer/pattern.h"

namespace onnxopt::onnx_patterns {

using core::builder::GraphGraph;
using core::builder::MatchResult;
using core::builder::NumericalClass;
using core::builder::PatternOptimization;

/// (X - mean(X)) / sqrt(mean((X - mean(X))^2) + eps) over the trailing axes => LayerNormalization.
/// Before:  mean = ReduceMean(X, axes); xc = Sub(X, mean); sq = Pow(xc, 2)
///          var = ReduceMean(sq, axes); ve = Add(var, eps); sd = Sqrt(ve); Y = Div(xc, sd)
/// After:   Y = LayerNormalization<axis=a, epsilon=eps, stash_type=type(X)>(X, ones, zeros)
/// with a = -1 for axes [-1], else the first of the trailing axes [r-k, ..., r-1]; ones and
/// zeros cover the normalized dims (initializers when static, else ConstantOfShape of
/// Shape<start=a>(X)). Without the Add, epsilon is 0 so that a constant row still gives
/// 0/0 = NaN. Only for float and double inputs: on float16 the fused operator would compute
/// its statistics in float32, another precision than the chain's. Not valid when epsilon
/// is outside the normal range of a float: the attribute is a float, and a double epsilon
/// of 1e-50 would become 0 (one of 1e-5 is rounded to a float, a rounding); nor over static
/// dims of fewer than two elements, where onnxruntime refuses the operator. Rounding: the
/// fused kernel sums in its own order. Needs ReduceMean with axes as an input (opset 18).
class LayerNormalizationPattern final : public PatternOptimization {
 public:
  static constexpr std::string_view kName = "LayerNormalizationPattern";
  static constexpr NumericalClass kNumerics = NumericalClass::kRounding;
  LayerNormalizationPattern() : PatternOptimization(1) {}

  std::string Name() const override { return std::string(kName); }
  std::set<std::string> FastOpType() const override;
  MatchResult Match(GraphGraph& graph, const NodeProto& var) const override;
  utils::RepeatedProtoField<NodeProto> Apply(GraphGraph& graph,
                                             const std::vector<const NodeProto*>& nodes) const override;
};

}  // namespace onnxopt::onnx_patterns
