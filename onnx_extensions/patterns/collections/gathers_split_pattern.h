#pragma once

#include <string_view>

#include "onnx_core/optimizer/pattern.h"

namespace onnxopt::onnx_patterns {

using core::builder::GraphGraph;
using core::builder::MatchResult;
using core::builder::NumericalClass;
using core::builder::PatternOptimization;

/// Gather(X, 0), ..., Gather(X, k-1) along the same axis a, with X.shape[a] == k => one Split.
/// Before:  Y0 = Gather<axis=a>(X, 0); ...; Yk-1 = Gather<axis=a>(X, k-1)    (scalar indices)
/// After:   P0, ..., Pk-1 = Split<axis=a, num_outputs=k>(X); Yj = Squeeze(Pj, {a})
///          (with indices of shape (1,) the Split writes Yj directly; below opset 18 the
///          split sizes are an input, below 13 attributes)
/// Gathers with a non-constant index are left alone. Not valid unless the indices are
/// exactly 0..k-1 and k is the static size of the axis (otherwise the pieces do not
/// partition X), nor when the Gathers disagree on the axis.
class GathersSplitPattern final : public PatternOptimization {
 public:
  static constexpr std::string_view kName = "GathersSplitPattern";
  static constexpr NumericalClass kNumerics = NumericalClass::kExact;
  GathersSplitPattern() : PatternOptimization(1) {}

  std::string Name() const override { return std::string(kName); }
  std::set<std::string> FastOpType() const override { return {"Gather"}; }
  MatchResult Match(GraphGraph& graph, const NodeProto& node) const override;
  utils::RepeatedProtoField<NodeProto> Apply(GraphGraph& graph,
                                             const std::vector<const NodeProto*>& nodes) const override;
};

}  // namespace onnxopt::onnx_patterns
