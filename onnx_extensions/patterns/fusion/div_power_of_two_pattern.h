#pragma once

#include <string_view>

#include "onnx_core/optimizer/pattern.h"

namespace onnxopt::onnx_patterns {

using core::builder::GraphGraph;
using core::builder::MatchResult;
using core::builder::NumericalClass;
using core::builder::PatternOptimization;

/// Div(x, c) => Mul(x, 1/c) when every element of the constant c is a power of two (or
/// its negation) whose reciprocal is a normal number of the type.
/// Before:  y = Div(x, c)
/// After:   y = Mul(x, r)        (r a new initializer, r = 1/c, same shape and type)
/// Exact: 1/c is then representable, so x / c and x * (1/c) are the same real number,
/// rounded once the same way, subnormal results included. Not valid for other divisors
/// (1/3 rounds: the product may differ by one ulp) nor for integer types (Div truncates).
class DivPowerOfTwoPattern final : public PatternOptimization {
 public:
  static constexpr std::string_view kName = "DivPowerOfTwoPattern";
  static constexpr NumericalClass kNumerics = NumericalClass::kExact;
  DivPowerOfTwoPattern() : PatternOptimization(0) {}

  std::string Name() const override { return std::string(kName); }
  std::set<std::string> FastOpType() const override { return {"Div"}; }
  MatchResult Match(GraphGraph& graph, const NodeProto& div) const override;
  utils::RepeatedProtoField<NodeProto> Apply(GraphGraph& graph,
                                             const std::vector<const NodeProto*>& nodes) const override;
};

}  // namespace onnxopt::onnx_patterns
