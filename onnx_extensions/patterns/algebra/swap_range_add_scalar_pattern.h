#pragma once

#include <string_view>

#include "onnx_core/optimizer/pattern.h"

namespace onnxopt::onnx_patterns {

using core::builder::GraphGraph;
using core::builder::MatchResult;
using core::builder::NumericalClass;
using core::builder::PatternOptimization;

/// Add(Range(start, end, step), c) => Range(start + c, end + c, step) for c of shape (1,)
/// on integers: the offset moves to the scalar bounds instead of every element.
/// Before:  r = Range(start, end, step); y = Add(r, c)
/// After:   s = Squeeze(c); e2 = Add(end, s); s2 = Add(start, s); y = Range(s2, e2, step)
///          (s2 = s when start is the constant 0)
/// Approximate, hence opt-in: the elements start+c + i*step = (start + i*step) + c are
/// the same, but Range counts its elements from limit - start without wrapping (the
/// evaluator and onnxruntime both), so when end+c or start+c leaves the type's range and
/// the original's elements do not (end within |step| of the limit, or an empty range
/// moved across it: int16 Range(0, 4, 1) + 32766), the count changes. The bounds are
/// rarely constant, so no proof is at hand. Not valid on floats (rounding may change even
/// the count), when r has another reader or is a graph output (it would be lost), or when
/// c is not known to have shape (1,) (a larger c broadcasts r; c of shape () is left
/// alone, as upstream does). r must be the Add's first input (upstream assumes it).
class SwapRangeAddScalarPattern final : public PatternOptimization {
 public:
  static constexpr std::string_view kName = "SwapRangeAddScalarPattern";
  static constexpr NumericalClass kNumerics = NumericalClass::kApproximate;
  SwapRangeAddScalarPattern() : PatternOptimization(1) {}

  std::string Name() const override { return std::string(kName); }
  std::set<std::string> FastOpType() const override { return {"Range"}; }
  MatchResult Match(GraphGraph& graph, const NodeProto& node) const override;
  utils::RepeatedProtoField<NodeProto> Apply(GraphGraph& graph,
                                             const std::vector<const NodeProto*>& nodes) const override;
};

}  // namespace onnxopt::onnx_patterns
