#pragma once

#include <string_view>

#include "onnx_core/optimizer/pattern.h"

namespace onnxopt::onnx_patterns {

using core::builder::GraphGraph;
using core::builder::MatchResult;
using core::builder::NumericalClass;
using core::builder::PatternOptimization;

/// BatchNormalization<training_mode=1>(X, scale, B, mean, var) => its definition with the batch
/// statistics, in elementary ops onnxruntime can run (it has no training-mode kernel):
///   m = mean(X over every axis but 1), v = mean((X - m)^2 over the same axes)
///   Y = (X - m) / sqrt(v + epsilon) * scale + B        (biased variance, as the spec says)
/// Before:  Y = BatchNormalization<epsilon=e, training_mode=1>(X, s, b, m0, v0)
/// After:   mean = ReduceMean<keepdims=1>(X, axes); xc = Sub(X, mean); sq = Mul(xc, xc)
///          var = ReduceMean<keepdims=1>(sq, axes); sd = Sqrt(Add(var, [e]))
///          Y = Add(Mul(Div(xc, sd), Reshape(s, [1,-1,1..])), Reshape(b, [1,-1,1..]))
/// Inference mode (training_mode=0, whatever the momentum) uses mean and var and is left
/// alone. The running mean and variance outputs must be unused: the expansion does not
/// compute them. Needs opset 18 (ReduceMean with axes as an input). Rounding: the sums run
/// in another order than in a fused kernel.
class BatchNormalizationTrainingPattern final : public PatternOptimization {
 public:
  static constexpr std::string_view kName = "BatchNormalizationTrainingPattern";
  static constexpr NumericalClass kNumerics = NumericalClass::kRounding;
  BatchNormalizationTrainingPattern() : PatternOptimization(0) {}

  std::string Name() const override { return std::string(kName); }
  std::set<std::string> FastOpType() const override;
  MatchResult Match(GraphGraph& graph, const NodeProto& bn) const override;
  utils::RepeatedProtoField<NodeProto> Apply(GraphGraph& graph,
                                             const std::vector<const NodeProto*>& nodes) const override;
};

}  // namespace onnxopt::onnx_patterns
