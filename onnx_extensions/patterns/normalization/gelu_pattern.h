#pragma once

#include <string_view>

#include "onnx_core/optimizer/pattern.h"

namespace onnxopt::onnx_patterns {

using core::builder::GraphGraph;
using core::builder::MatchResult;
using core::builder::NumericalClass;
using core::builder::PatternOptimization;

/// The tanh approximation of GELU written out => Gelu<approximate="tanh">(x) (opset 20):
///   0.5*x*(1 + tanh(sqrt(2/pi)*(x + 0.044715*x^3)))
/// Before:  x3 = Pow(x, 3); t1 = Mul(x3, c04); t2 = Add(x, t1); t3 = Mul(t2, cpi)
///          t4 = Tanh(t3); t5 = Add(t4, 1); xh = Mul(x, 0.5); y = Mul(xh, t5)
/// After:   y = Gelu<approximate="tanh">(x)
/// Operands in exactly this order, as upstream's template matcher (a commuted Mul or Add is
/// left alone). c04 and cpi must be 0.044715 and sqrt(2/pi) as the element type of x rounds
/// them (within one unit of its precision; upstream compares doubles exactly and so only
/// matches float16). Not valid when a constant has a higher rank than x: the chain's
/// output would broadcast to it (x of shape () and constants of shape (1,) give (1,)),
/// Gelu(x) keeps the shape of x. Rounding: the constants are the roundings of the exact
/// ones and the fused operator rounds in its own order.
class GeluPattern final : public PatternOptimization {
 public:
  static constexpr std::string_view kName = "GeluPattern";
  static constexpr NumericalClass kNumerics = NumericalClass::kRounding;
  GeluPattern() : PatternOptimization(0) {}

  std::string Name() const override { return std::string(kName); }
  std::set<std::string> FastOpType() const override;
  MatchResult Match(GraphGraph& graph, const NodeProto& y) const override;
  utils::RepeatedProtoField<NodeProto> Apply(GraphGraph& graph,
                                             const std::vector<const NodeProto*>& nodes) const override;
};

}  // namespace onnxopt::onnx_patterns
