#pragma once

#include <string_view>

#include "onnx_core/optimizer/pattern.h"

namespace onnxopt::onnx_patterns {

using core::builder::GraphGraph;
using core::builder::MatchResult;
using core::builder::NumericalClass;
using core::builder::PatternOptimization;

/// Gather(Shape<start, end>(X), idx) => Shape<start=s0+i, end=s0+j+1>(X) for contiguous
/// increasing indices i..j.
/// Before:  S = Shape<start?, end?>(X); Y = Gather(S, idx)
/// After:   Y = Shape<start=s0+i, end=s0+j+1>(X)                 (idx 1-D)
///          t = Shape<start=s0+i, end=s0+i+1>(X); Y = Squeeze(t, {0})   (idx scalar)
///          (S kept if it has other readers)
/// Indices are normalized with the length L of S, which must then be known, and must lie
/// in [0, L): {-1, 0} is not a range. Without the rank of X, end - start only bounds L
/// (Shape clamps end to the rank): negative indices are then refused. Not valid for non-contiguous indices, int32 indices,
/// another axis, nor below opset 15 (Shape has no start/end).
class GatherShapePattern final : public PatternOptimization {
 public:
  static constexpr std::string_view kName = "GatherShapePattern";
  static constexpr NumericalClass kNumerics = NumericalClass::kExact;
  GatherShapePattern() : PatternOptimization(0) {}

  std::string Name() const override { return std::string(kName); }
  std::set<std::string> FastOpType() const override { return {"Gather"}; }
  MatchResult Match(GraphGraph& graph, const NodeProto& node) const override;
  utils::RepeatedProtoField<NodeProto> Apply(GraphGraph& graph,
                                             const std::vector<const NodeProto*>& nodes) const override;
};

}  // namespace onnxopt::onnx_patterns
