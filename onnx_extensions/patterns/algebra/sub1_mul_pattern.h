#pragma once

#include <string_view>

#include "onnx_core/optimizer/pattern.h"

namespace onnxopt::onnx_patterns {

using core::builder::GraphGraph;
using core::builder::MatchResult;
using core::builder::NumericalClass;
using core::builder::PatternOptimization;

/// (1 - X) * Y => Y - X * Y, and Y * (1 - X) => Y - Y * X, for a constant of ones of any
/// shape that does not enlarge the result.
/// Before:  s = Sub(one, X); Z = Mul(s, Y)            (or Mul(Y, s))
/// After:   t = Mul(X, Y); Z = Sub(Y, t)              (t = Mul(Y, X) for Mul(Y, s))
/// Not valid when the ones broadcast the result to a larger shape than X and Y give
/// (upstream does not check: ones (2,4) with X, Y (1,4) give (2,4) before, (1,4) after),
/// so the shapes of X, Y and Z must be known and Z must be the broadcast of X and Y; nor
/// when s has another reader or is a graph output, when the constant is not all ones or is
/// the Sub's second input, or for Mul(s, s). Exact on integers (wrapping arithmetic).
class Sub1MulPattern final : public PatternOptimization {
 public:
  static constexpr std::string_view kName = "Sub1MulPattern";
  // Approximate: in float, Y - X*Y cancels where (1-X)*Y does not (X near 1), and for an
  // infinite Y with X = 0 the original gives Y where the rewrite gives inf - NaN = NaN.
  static constexpr NumericalClass kNumerics = NumericalClass::kApproximate;
  Sub1MulPattern() : PatternOptimization(1) {}

  std::string Name() const override { return std::string(kName); }
  std::set<std::string> FastOpType() const override { return {"Mul"}; }
  MatchResult Match(GraphGraph& graph, const NodeProto& node) const override;
  utils::RepeatedProtoField<NodeProto> Apply(GraphGraph& graph,
                                             const std::vector<const NodeProto*>& nodes) const override;
};

}  // namespace onnxopt::onnx_patterns
