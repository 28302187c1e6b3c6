#pragma once

#include <string_view>

#include "onnx_core/optimizer/pattern.h"

namespace onnxopt::onnx_patterns {

using core::builder::GraphGraph;
using core::builder::MatchResult;
using core::builder::NumericalClass;
using core::builder::PatternOptimization;

/// Add(x, 0), Sub(x, 0), Mul(x, 1), Div(x, 1) (and Add(0, x), Mul(1, x)) => x, for a
/// constant of rank 2 or more whose broadcast leaves x's known shape unchanged.
/// Before:  y = Mul(x, ones)        (ones e.g. [1, C, 1, 1] against x [N, C, H, W])
/// After:   y = Identity(x)
/// The catalog's IdentityPattern handles constants of rank 0 and 1; this one the
/// per-channel and other higher-rank forms converters write. Not valid when the constant
/// broadcasts x to a larger shape (its rank or a dim exceeds x's). Exact up to the sign
/// of zero (-0 + +0 is +0), as IdentityPattern.
class NeutralOperandPattern final : public PatternOptimization {
 public:
  static constexpr std::string_view kName = "NeutralOperandPattern";
  static constexpr NumericalClass kNumerics = NumericalClass::kExact;
  NeutralOperandPattern() : PatternOptimization(0) {}

  std::string Name() const override { return std::string(kName); }
  std::set<std::string> FastOpType() const override { return {"Add", "Sub", "Mul", "Div"}; }
  MatchResult Match(GraphGraph& graph, const NodeProto& node) const override;
  utils::RepeatedProtoField<NodeProto> Apply(GraphGraph& graph,
                                             const std::vector<const NodeProto*>& nodes) const override;
};

}  // namespace onnxopt::onnx_patterns
