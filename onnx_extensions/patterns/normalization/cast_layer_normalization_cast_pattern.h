#pragma once

#include <string_view>

#include "onnx_core/optimizer/pattern.h"

namespace onnxopt::onnx_patterns {

using core::builder::GraphGraph;
using core::builder::MatchResult;
using core::builder::NumericalClass;
using core::builder::PatternOptimization;

/// Cast<to=T>(N(Cast<to=S>(X), scale[, bias])) => N(X, Cast<to=T>(scale)[, Cast<to=T>(bias)]) for
/// N a LayerNormalization, GroupNormalization or RMSNormalization (default domain) or a
/// SimplifiedLayerNormalization (com.microsoft, or the default domain where onnxruntime
/// registers it) with stash_type S: the normalization already
/// computes its statistics in S.
/// Before:  xc = Cast<to=S>(X); n = N<stash_type=S>(xc, scale, bias); Y = Cast<to=T>(n)
/// After:   Y = N<stash_type=S>(X, Cast<to=T>(scale), Cast<to=T>(bias))
/// Approximate: scale and bias are rounded to T and the affine step runs in T (float16
/// mostly). Not valid when an output beyond the first is used (Mean, InvStdDev change type),
/// when the first Cast's output has other readers, or when the Casts do not go to S and back
/// to the type of X.
class CastLayerNormalizationCastPattern final : public PatternOptimization {
 public:
  static constexpr std::string_view kName = "CastLayerNormalizationCastPattern";
  static constexpr NumericalClass kNumerics = NumericalClass::kApproximate;
  CastLayerNormalizationCastPattern() : PatternOptimization(1) {}

  std::string Name() const override { return std::string(kName); }
  std::set<std::string> FastOpType() const override;
  MatchResult Match(GraphGraph& graph, const NodeProto& norm) const override;
  utils::RepeatedProtoField<NodeProto> Apply(GraphGraph& graph,
                                             const std::vector<const NodeProto*>& nodes) const override;
};

}  // namespace onnxopt::onnx_patterns
