#pragma once

#include <string_view>

#include "onnx_core/optimizer/pattern.h"

namespace onnxopt::onnx_patterns {

using core::builder::GraphGraph;
using core::builder::MatchResult;
using core::builder::NumericalClass;
using core::builder::PatternOptimization;

/// Add(Mul(LayerNormalization(X, g[, b]), s), c) => LayerNormalization(X, g*s, b*s + c): the
/// affine step after a normalization goes into its scale and bias.
/// Before:  n = LayerNormalization(X, g, b); m = Mul(n, s); Y = Add(m, c)
/// After:   Y = LayerNormalization(X, Mul(g, s), Add(Mul(s, b), c))
/// Without the Add, the new bias is Mul(b, s) (upstream keeps b, which is wrong); without a
/// bias, the new one is c (or none). g*s is s when g is all ones
/// (same shapes). Requires shape(s) ==
/// shape(g) (and shape(c) == shape(g)): a full-size s would become a per-element scale.
/// Not valid when the normalization declares Mean or InvStdDev, or when its output has other
/// readers; the Add is folded only when it is the Mul's only reader. Rounding: (n*g)*s
/// becomes n*(g*s).
class LayerNormalizationScalePattern final : public PatternOptimization {
 public:
  static constexpr std::string_view kName = "LayerNormalizationScalePattern";
  static constexpr NumericalClass kNumerics = NumericalClass::kRounding;
  LayerNormalizationScalePattern() : PatternOptimization(1) {}

  std::string Name() const override { return std::string(kName); }
  std::set<std::string> FastOpType() const override;
  MatchResult Match(GraphGraph& graph, const NodeProto& ln) const override;
  utils::RepeatedProtoField<NodeProto> Apply(GraphGraph& graph,
                                             const std::vector<const NodeProto*>& nodes) const override;
};

}  // namespace onnxopt::onnx_patterns
