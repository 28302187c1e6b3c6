#pragma once

#include <string_view>

#include "onnx_core/optimizer/pattern.h"

namespace onnxopt::onnx_patterns {

using core::builder::GraphGraph;
using core::builder::MatchResult;
using core::builder::NumericalClass;
using core::builder::PatternOptimization;

/// MatMul(Mul(X, c), Mul(d, Y)) => Mul(MatMul(X, Y), c*d) for constant scalars c and d (on
/// either side of their Mul).
/// Before:  a = Mul(X, c); b = Mul(d, Y); Z = MatMul(a, b)
/// After:   t = MatMul(X, Y); k = Mul(c, d); Z = Mul(t, k)     (k is folded into an initializer)
/// Each Mul needs exactly one constant operand, of shape () or (1,), and its output read by
/// the MatMul alone (upstream counts constants over both Mul nodes and deletes shared Muls).
/// A (1,) constant would give a scalar product a dimension: the MatMul output must then have
/// a known rank >= 1. Not for a float factor c*d that is 0, subnormal or not finite, an
/// underflow or overflow the original products do not have. Not for float16: X@Y may
/// overflow to inf where (X*c)@(Y*d) does not (exporters of float16 attention scale Q and K
/// separately for that reason); bfloat16 has float32's exponent range and is kept.
/// Rounding: (c*d) * sum(x*y) instead of sum((c*x) * (d*y)); exact for integers.
class MulMulMatMulPattern final : public PatternOptimization {
 public:
  static constexpr std::string_view kName = "MulMulMatMulPattern";
  static constexpr NumericalClass kNumerics = NumericalClass::kRounding;
  MulMulMatMulPattern() : PatternOptimization(1) {}

  std::string Name() const override { return std::string(kName); }
  std::set<std::string> FastOpType() const override { return {"MatMul"}; }
  MatchResult Match(GraphGraph& graph, const NodeProto& node) const override;
  utils::RepeatedProtoField<NodeProto> Apply(GraphGraph& graph,
                                             const std::vector<const NodeProto*>& nodes) const override;
};

}  // namespace onnxopt::onnx_patterns
