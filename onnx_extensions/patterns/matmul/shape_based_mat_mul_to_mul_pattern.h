#pragma once

#include <string_view>

#include "onnx_core/optimizer/pattern.h"

namespace onnxopt::onnx_patterns {

using core::builder::GraphGraph;
using core::builder::MatchResult;
using core::builder::NumericalClass;
using core::builder::PatternOptimization;

/// MatMul(X, Y) => Mul(X, Y) when the contracted dim is the literal 1: X = [..., m, 1] and
/// Y = [..., 1, n] give the outer products [..., m, n], which broadcasting computes (the
/// batch dims broadcast the same way in both operators).
/// Before:  Z = MatMul(X, Y)
/// After:   Z = Mul(X, Y)
/// When the product is read by a Transpose alone that swaps its last two axes:
/// Before:  p = MatMul(X, Y); Z = Transpose<perm=[0, ..., r-3, r-1, r-2]>(p)
/// After:   xr = Reshape(X, [0, ..., 0, 1, -1]); yr = Reshape(Y, [0, ..., 0, -1, 1]); Z = Mul(xr, yr)
/// (rank(X) - 2 and rank(Y) - 2 zeros: the batch dims are copied; rank 2 works too, where
/// upstream crashes). A -1 is not valid when a batch dim may be 0: the product of the other
/// dims is then 0 and the Reshape cannot infer it. So -1 is written only when every batch
/// dim of the operand is a static positive number; otherwise m (resp. n) is written as its
/// static value ([0, ..., 0, 1, m]), and when that is not a static positive number either
/// (a literal 0 would copy), the plain form is used and the Transpose stays. The plain form
/// is used too when p is also a graph output. A symbolic inner dim is never taken for 1.
/// Exact: a product with one term has no sum to round.
class ShapeBasedMatMulToMulPattern final : public PatternOptimization {
 public:
  static constexpr std::string_view kName = "ShapeBasedMatMulToMulPattern";
  static constexpr NumericalClass kNumerics = NumericalClass::kExact;
  ShapeBasedMatMulToMulPattern() : PatternOptimization(1) {}

  std::string Name() const override { return std::string(kName); }
  std::set<std::string> FastOpType() const override { return {"MatMul"}; }
  MatchResult Match(GraphGraph& graph, const NodeProto& node) const override;
  utils::RepeatedProtoField<NodeProto> Apply(GraphGraph& graph,
                                             const std::vector<const NodeProto*>& nodes) const override;
};

}  // namespace onnxopt::onnx_patterns
