#pragma once

#include <string_view>

#include "onnx_core/optimizer/pattern.h"

namespace onnxopt::onnx_patterns {

using core::builder::GraphGraph;
using core::builder::MatchResult;
using core::builder::NumericalClass;
using core::builder::PatternOptimization;

/// Cast<to=T>(Cast(X) - ReduceSum(Cast(X), axes) * Y) => X - ReduceSum(X, axes) * Cast<to=T>(Y)
/// for X of type T: the normalization runs in X's (narrow) type, without the round trip
/// through the wide one.
/// Before:  xc = Cast(X); r = ReduceSum(xc, axes); m = Mul(r, Y); d = Sub(xc, m);
///          Z = Cast<to=T>(d)                      (Mul(Y, r) and Sub(m, xc) too)
/// After:   r2 = ReduceSum(X, axes); y2 = Cast<to=T>(Y); m2 = Mul(r2, y2); Z = Sub(X, m2)
///          (Sub(m2, X) when the Sub read the product first)
/// Not valid when Z's type is not X's (no round trip), on integers (Y would be truncated),
/// when xc, r, m or d has another reader or is a graph output (upstream removes the first
/// Cast even then), when the Sub does not read xc, or without an axes input.
class ReduceSumNormalizePattern final : public PatternOptimization {
 public:
  static constexpr std::string_view kName = "ReduceSumNormalizePattern";
  // Approximate: the sum, product and difference are rounded in T instead of the wide
  // type, and a float16 sum may overflow (65504) where the float one did not.
  static constexpr NumericalClass kNumerics = NumericalClass::kApproximate;
  ReduceSumNormalizePattern() : PatternOptimization(1) {}

  std::string Name() const override { return std::string(kName); }
  std::set<std::string> FastOpType() const override { return {"ReduceSum"}; }
  MatchResult Match(GraphGraph& graph, const NodeProto& node) const override;
  utils::RepeatedProtoField<NodeProto> Apply(GraphGraph& graph,
                                             const std::vector<const NodeProto*>& nodes) const override;
};

}  // namespace onnxopt::onnx_patterns
