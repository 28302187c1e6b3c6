#pragma once

#include <string_view>

#include "onnx_core/optimizer/pattern.h"

namespace onnxopt::onnx_patterns {

using core::builder::GraphGraph;
using core::builder::MatchResult;
using core::builder::NumericalClass;
using core::builder::PatternOptimization;

/// X / sqrt(mean(X^2 over the last axis) + eps) => RMSNormalization (opset 23), absorbing a
/// Cast up before and a Cast back after.
/// Before:  [xf = Cast<to=F>(X)]; sq = Pow(xf, 2); ms = ReduceMean<keepdims=1>(sq, [a])
///          r = Sqrt(Add(ms, eps)); inv = Reciprocal(r) (or Div(1, r)); y = Mul(xf, inv)
///          [Y = Cast<to=type(X)>(y)]
/// After:   Y = RMSNormalization<axis=a, epsilon=eps, stash_type=F>(X or xf, ones)
/// ones has the type of the input and the size of the last dimension (an initializer when
/// static, else ConstantOfShape of Shape). Only for the last axis: RMSNormalization
/// normalizes every axis from a to the end. The Casts are absorbed together or not at all,
/// and only when xf is read by the Pow and the Mul alone. Never below opset 23. Not valid
///  - when epsilon is outside the normal range of a float: the attribute is a float, and a
///    double epsilon of 1e-50 would become 0 (one of 1e-6 is rounded to a float, a
///    rounding);
///  - when the Cast up narrows X (float -> float16, double -> float): the chain rounds to F,
///    and overflows in float16 (x = 1e5), where the fused operator reads X unrounded;
///  - when the chain (xf, or X without Casts) is float16 or bfloat16: the kernels compute
///    RMSNormalization in float32 whatever stash_type says, the chain rounds to 16 bits
///    (x^2 overflows float16 beyond 256);
///  - when the last dim is static and below 2: onnxruntime refuses the operator there.
/// Rounding: the fused kernel sums in its own order; with the Casts the result is rounded
/// once to type(X), as before.
class RMSNormalizationPattern final : public PatternOptimization {
 public:
  static constexpr std::string_view kName = "RMSNormalizationPattern";
  static constexpr NumericalClass kNumerics = NumericalClass::kRounding;
  RMSNormalizationPattern() : PatternOptimization(1) {}

  std::string Name() const override { return std::string(kName); }
  std::set<std::string> FastOpType() const override;
  MatchResult Match(GraphGraph& graph, const NodeProto& ms) const override;
  utils::RepeatedProtoField<NodeProto> Apply(GraphGraph& graph,
                                             const std::vector<const NodeProto*>& nodes) const override;
};

}  // namespace onnxopt::onnx_patterns
