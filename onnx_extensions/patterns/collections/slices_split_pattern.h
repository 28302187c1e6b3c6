#pragma once

#include <string_view>

#include "onnx_core/optimizer/pattern.h"

namespace onnxopt::onnx_patterns {

using core::builder::GraphGraph;
using core::builder::MatchResult;
using core::builder::NumericalClass;
using core::builder::PatternOptimization;

/// Slices of X that partition one axis into contiguous pieces => one Split.
/// Before:  Yk = Slice(X, sk, ek, {a}[, {1}]) for every Slice reading X
/// After:   Y1, ..., Ym = Split<axis=a>(X, sizes)    (pieces sorted by start)
/// Bounds are normalized (negative + D, clamped to [0, D], D = X.shape[a] static). Not valid
/// unless the sorted pieces are non-empty, contiguous and cover exactly [0, D), all on the
/// same axis with step 1 and constant bounds; below opset 13 the sizes are an attribute.
class SlicesSplitPattern final : public PatternOptimization {
 public:
  static constexpr std::string_view kName = "SlicesSplitPattern";
  static constexpr NumericalClass kNumerics = NumericalClass::kExact;
  SlicesSplitPattern() : PatternOptimization(1) {}

  std::string Name() const override { return std::string(kName); }
  std::set<std::string> FastOpType() const override { return {"Slice"}; }
  MatchResult Match(GraphGraph& graph, const NodeProto& node) const override;
  utils::RepeatedProtoField<NodeProto> Apply(GraphGraph& graph,
                                             const std::vector<const NodeProto*>& nodes) const override;
};

}  // namespace onnxopt::onnx_patterns
