#pragma once

#include <string_view>

#include "onnx_core/optimizer/pattern.h"

namespace onnxopt::onnx_patterns {

using core::builder::GraphGraph;
using core::builder::MatchResult;
using core::builder::NumericalClass;
using core::builder::PatternOptimization;

/// Squeeze(Reshape(x, s), axes) => Reshape(x, s') with s' = s without the squeezed entries,
/// when the Reshape itself writes those size-1 dimensions (s[a] = 1).
/// Before:  t = Reshape(x, s); y = Squeeze(t, axes)      s = (0, 1, 4, 6), axes = (1)
/// After:   y = Reshape(x, s')                            s' = (0, 4, 6)
/// Not valid when a squeezed entry of s is not 1 (a 0 or -1 gives 1 only for some inputs),
/// when a 0 of s follows the first squeezed axis (removing entries before it would change
/// the dimension of x it copies), or when t has other readers. The Squeeze must take
/// constant, non-empty axes as an input (opset 13+): without axes it squeezes every 1.
class ReshapeSqueezePattern final : public PatternOptimization {
 public:
  static constexpr std::string_view kName = "ReshapeSqueezePattern";
  static constexpr NumericalClass kNumerics = NumericalClass::kExact;
  ReshapeSqueezePattern() : PatternOptimization(0) {}

  std::string Name() const override { return std::string(kName); }
  std::set<std::string> FastOpType() const override { return {"Squeeze"}; }
  MatchResult Match(GraphGraph& graph, const NodeProto& squeeze) const override;
  utils::RepeatedProtoField<NodeProto> Apply(GraphGraph& graph,
                                             const std::vector<const NodeProto*>& nodes) const override;
};

}  // namespace onnxopt::onnx_patterns
