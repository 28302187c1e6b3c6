#pragma once

#include <string_view>

#include "onnx_core/optimizer/pattern.h"

namespace onnxopt::onnx_patterns {

using core::builder::GraphGraph;
using core::builder::MatchResult;
using core::builder::NumericalClass;
using core::builder::PatternOptimization;

/// Op(Opl(X, a), Opr(Y, b)) => Op(X, Y) scaled once by a factor folded from the constant
/// scalars a and b (Op, Opl, Opr each Mul or Div): with a counted a^+1 under a Mul and a^-1
/// under a Div (b's sign flipped again when Op is Div), the factor is a^sa * b^sb.
/// Before:  L = Opl(X, a); R = Opr(Y, b); Z = Op(L, R)
/// After:   t = Op(X, Y); f = a*b | a/b | b/a; Z = Mul(t, f)   (Z = Div(t, a*b) when sa = sb = -1)
///          (f is folded into an initializer of the constants' type and shape)
/// Not valid with a division on integers (truncation does not commute), when a or b is not
/// a constant of shape () or (1,) in second position, when L or R has another reader, or
/// when the folded float factor is zero or not finite (an overflow or underflow the
/// original does not have), nor on float16, whose models scale operands to keep products
/// below 65504 (Op(X, Y) unscaled would overflow). Reassociates float products: rounding
/// may differ, and like any reassociation X*Y may overflow near the float32 limit where
/// X*a and Y*b did not; exact for integer Mul chains (wrapping multiplication is
/// associative and commutative).
class MulMulMulScalarPattern final : public PatternOptimization {
 public:
  static constexpr std::string_view kName = "MulMulMulScalarPattern";
  static constexpr NumericalClass kNumerics = NumericalClass::kRounding;
  MulMulMulScalarPattern() : PatternOptimization(1) {}

  std::string Name() const override { return std::string(kName); }
  std::set<std::string> FastOpType() const override { return {"Mul", "Div"}; }
  MatchResult Match(GraphGraph& graph, const NodeProto& node) const override;
  utils::RepeatedProtoField<NodeProto> Apply(GraphGraph& graph,
                                             const std::vector<const NodeProto*>& nodes) const override;
};

}  // namespace onnxopt::onnx_patterns
