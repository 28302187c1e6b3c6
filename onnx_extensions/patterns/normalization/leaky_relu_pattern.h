#pragma once

#include <string_view>

#include "onnx_core/optimizer/pattern.h"

namespace onnxopt::onnx_patterns {

using core::builder::GraphGraph;
using core::builder::MatchResult;
using core::builder::NumericalClass;
using core::builder::PatternOptimization;

/// Where(Greater(x, 0), x, Mul(x, slope)) => LeakyRelu<alpha=slope>(x).
/// Before:  pos = Greater(x, 0); xs = Mul(x, slope); y = Where(pos, x, xs)
/// After:   y = LeakyRelu<alpha=slope>(x)
/// Exact: at x == 0 both give 0 (x*slope is 0 for a finite slope), NaN propagates in both.
/// Requires x in float or float16 (LeakyRelu takes every float type, onnxruntime's CPU
/// provider these two), scalar constants that do not
/// broadcast x to a larger rank, a finite slope that a float attribute holds exactly, and x
/// first in Greater and Mul and as the true branch.
class LeakyReluPattern final : public PatternOptimization {
 public:
  static constexpr std::string_view kName = "LeakyReluPattern";
  static constexpr NumericalClass kNumerics = NumericalClass::kExact;
  LeakyReluPattern() : PatternOptimization(0) {}

  std::string Name() const override { return std::string(kName); }
  std::set<std::string> FastOpType() const override;
  MatchResult Match(GraphGraph& graph, const NodeProto& where) const override;
  utils::RepeatedProtoField<NodeProto> Apply(GraphGraph& graph,
                                             const std::vector<const NodeProto*>& nodes) const override;
};

}  // namespace onnxopt::onnx_patterns
