#pragma once

#include <string_view>

#include "onnx_core/optimizer/pattern.h"

namespace onnxopt::onnx_patterns {

using core::builder::GraphGraph;
using core::builder::MatchResult;
using core::builder::NumericalClass;
using core::builder::PatternOptimization;

/// Gather(Gather(X, i1), i2) => Gather(X, i1[i2]) with constant indices on axis 0.
/// Before:  T = Gather<axis=0>(X, i1); Y = Gather<axis=0>(T, i2)      (i1 1-D)
/// After:   Y = Gather<axis=0>(X, i3), i3 = i1[i2] (int64, shape of i2)   (T kept if it has other readers)
/// Not valid on another axis, for an i1 that is not 1-D (the composition would not be an
/// index of X), nor for an i2 value outside [-len(i1), len(i1)) (rejected: the original
/// fails at run time).
class GatherGatherPattern final : public PatternOptimization {
 public:
  static constexpr std::string_view kName = "GatherGatherPattern";
  static constexpr NumericalClass kNumerics = NumericalClass::kExact;
  GatherGatherPattern() : PatternOptimization(0) {}

  std::string Name() const override { return std::string(kName); }
  std::set<std::string> FastOpType() const override { return {"Gather"}; }
  MatchResult Match(GraphGraph& graph, const NodeProto& node) const override;
  utils::RepeatedProtoField<NodeProto> Apply(GraphGraph& graph,
                                             const std::vector<const NodeProto*>& nodes) const override;
};

}  // namespace onnxopt::onnx_patterns
