#pragma once

#include <string_view>

#include "onnx_core/optimizer/pattern.h"

namespace onnxopt::onnx_patterns {

using core::builder::GraphGraph;
using core::builder::MatchResult;
using core::builder::NumericalClass;
using core::builder::PatternOptimization;

/// ArgMax/ArgMin of an increasing op that floating point makes non-injective => the same
/// Arg of the op's input (onnxoptimizer's eliminate_nop_monotone_argmax).
/// Before:  t = Exp(x) (or Sigmoid, Tanh, Softmax<axis>, LogSoftmax<axis>); y = ArgMax<axis>(t)
/// After:   y = ArgMax<axis>(x)
/// The ops increase in real arithmetic, but distinct inputs can round to one output: Exp
/// of 0 and of 1e-8 are both 1.0f, Sigmoid of 20 and of 30 both 1.0f, Exp underflows to 0
/// below about -104. Such a new tie makes the original pick another index than the
/// rewrite (the first of the tied ones), so the rewrite is approximate and opt-in. A
/// Softmax or LogSoftmax only qualifies along the Arg axis (its denominator is then the
/// same for every element the Arg compares, in the opset 13 and the older flattening
/// definition alike); the rank must be known to compare negative axes. An elimination,
/// like ArgInjectiveOpPattern, the exact cases. Not valid when t has another reader.
class ArgMonotoneOpPattern final : public PatternOptimization {
 public:
  static constexpr std::string_view kName = "ArgMonotoneOpPattern";
  static constexpr NumericalClass kNumerics = NumericalClass::kApproximate;
  ArgMonotoneOpPattern() : PatternOptimization(0) {}

  std::string Name() const override { return std::string(kName); }
  std::set<std::string> FastOpType() const override { return {"ArgMax", "ArgMin"}; }
  MatchResult Match(GraphGraph& graph, const NodeProto& arg) const override;
  utils::RepeatedProtoField<NodeProto> Apply(GraphGraph& graph,
                                             const std::vector<const NodeProto*>& nodes) const override;
};

}  // namespace onnxopt::onnx_patterns
