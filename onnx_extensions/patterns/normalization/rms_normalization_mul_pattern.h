#pragma once

#include <string_view>

#include "onnx_core/optimizer/pattern.h"

namespace onnxopt::onnx_patterns {

using core::builder::GraphGraph;
using core::builder::MatchResult;
using core::builder::NumericalClass;
using core::builder::PatternOptimization;

/// Mul(RMSNormalization(X, w), g) => RMSNormalization(X, w*g) for constants w and g of the same
/// shape.
/// Before:  n = RMSNormalization(X, w); Y = Mul(n, g)      (or Mul(g, n))
/// After:   Y = RMSNormalization(X, Mul(w, g))            (folded into a new initializer)
/// Not valid when n has other readers or is a graph output, or when g's shape differs from
/// w's (g of shape (1,) with w of shape (4,) would still be right, but is left alone as
/// upstream does). Never below opset 23. Rounding: (n*w)*g becomes n*(w*g).
class RMSNormalizationMulPattern final : public PatternOptimization {
 public:
  static constexpr std::string_view kName = "RMSNormalizationMulPattern";
  static constexpr NumericalClass kNumerics = NumericalClass::kRounding;
  RMSNormalizationMulPattern() : PatternOptimization(1) {}

  std::string Name() const override { return std::string(kName); }
  std::set<std::string> FastOpType() const override;
  MatchResult Match(GraphGraph& graph, const NodeProto& rms) const override;
  utils::RepeatedProtoField<NodeProto> Apply(GraphGraph& graph,
                                             const std::vector<const NodeProto*>& nodes) const override;
};

}  // namespace onnxopt::onnx_patterns
