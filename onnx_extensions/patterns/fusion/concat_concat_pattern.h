#pragma once

#include <string_view>

#include "onnx_core/optimizer/pattern.h"

namespace onnxopt::onnx_patterns {

using core::builder::GraphGraph;
using core::builder::MatchResult;
using core::builder::NumericalClass;
using core::builder::PatternOptimization;

/// Concat(a, Concat(b, c), d) => Concat(a, b, c, d) on the same axis.
/// Before:  t = Concat<axis>(b, c); y = Concat<axis>(a, t, d)
/// After:   y = Concat<axis>(a, b, c, d)
/// Not valid when t has another use (it would be computed twice) or the axes differ (a
/// negative axis counts from the rank: both are compared once normalized). One inner
/// Concat per match; the driver repeats. Exact.
class ConcatConcatPattern final : public PatternOptimization {
 public:
  static constexpr std::string_view kName = "ConcatConcatPattern";
  static constexpr NumericalClass kNumerics = NumericalClass::kExact;
  ConcatConcatPattern() : PatternOptimization(0) {}

  std::string Name() const override { return std::string(kName); }
  std::set<std::string> FastOpType() const override { return {"Concat"}; }
  MatchResult Match(GraphGraph& graph, const NodeProto& outer) const override;
  utils::RepeatedProtoField<NodeProto> Apply(GraphGraph& graph,
                                             const std::vector<const NodeProto*>& nodes) const override;
};

}  // namespace onnxopt::onnx_patterns
