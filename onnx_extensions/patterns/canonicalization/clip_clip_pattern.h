#pragma once

#include <string_view>

#include "onnx_core/optimizer/pattern.h"

namespace onnxopt::onnx_patterns {

using core::builder::GraphGraph;
using core::builder::MatchResult;
using core::builder::NumericalClass;
using core::builder::PatternOptimization;

/// Clip(Clip(x, lo), , hi) => Clip(x, lo, hi) when each bound is set by exactly one of them.
/// Before:  m = Clip(x, min1?, max1?); y = Clip(m, min2?, max2?)
/// After:   y = Clip(x, min1 or min2, max1 or max2)
/// Not valid when both Clips set the same bound (the tighter one would have to be
/// computed), when m has other readers, or for Clips of opset < 11 (bounds as attributes).
/// When the first Clip sets the maximum and the second the minimum, the pair returns min
/// everywhere if min > max while the fused Clip returns max: that order is accepted only
/// when both bounds are constants with min <= max.
class ClipClipPattern final : public PatternOptimization {
 public:
  static constexpr std::string_view kName = "ClipClipPattern";
  static constexpr NumericalClass kNumerics = NumericalClass::kExact;
  ClipClipPattern() : PatternOptimization(1) {}

  std::string Name() const override { return std::string(kName); }
  std::set<std::string> FastOpType() const override { return {"Clip"}; }
  MatchResult Match(GraphGraph& graph, const NodeProto& second) const override;
  utils::RepeatedProtoField<NodeProto> Apply(GraphGraph& graph,
                                             const std::vector<const NodeProto*>& nodes) const override;
};

}  // namespace onnxopt::onnx_patterns
