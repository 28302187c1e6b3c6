#pragma once

#include <string_view>

#include "onnx_core/optimizer/pattern.h"

namespace onnxopt::onnx_patterns {

using core::builder::GraphGraph;
using core::builder::MatchResult;
using core::builder::NumericalClass;
using core::builder::PatternOptimization;

/// Reshape(ReduceXxx<keepdims=1>(x, axes), s) => ReduceXxx<keepdims=0>(x, axes) when the
/// Reshape only removes the size-1 dimensions the reduction kept.
/// Before:  r = ReduceXxx<keepdims=1>(x[, axes]); y = Reshape(r, s)
/// After:   y = ReduceXxx<keepdims=0>(x[, axes])      (axes attribute of old opsets kept)
/// Not valid when r has other readers, when rank(y) is not rank(x) minus the number of
/// axes, or, for rank(y) > 1, when y's shape is not x's with the reduced dimensions removed
/// in order (x (4,3,2), axes (1), y (2,4): the Reshape permutes what is left). The axes must
/// be known and not empty: an empty axes input reduces everything or, with
/// noop_with_empty_axes=1, nothing, which the rank test does not describe (upstream turns
/// a (1,) result into a scalar there). Negative axes are normalized against rank(x).
class ReduceReshapePattern final : public PatternOptimization {
 public:
  static constexpr std::string_view kName = "ReduceReshapePattern";
  static constexpr NumericalClass kNumerics = NumericalClass::kExact;
  ReduceReshapePattern() : PatternOptimization(1) {}

  std::string Name() const override { return std::string(kName); }
  std::set<std::string> FastOpType() const override;
  MatchResult Match(GraphGraph& graph, const NodeProto& reduce) const override;
  utils::RepeatedProtoField<NodeProto> Apply(GraphGraph& graph,
                                             const std::vector<const NodeProto*>& nodes) const override;
};

}  // namespace onnxopt::onnx_patterns
