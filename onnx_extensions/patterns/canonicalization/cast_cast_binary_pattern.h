#pragma once

#include <string_view>

#include "onnx_core/optimizer/pattern.h"

namespace onnxopt::onnx_patterns {

using core::builder::GraphGraph;
using core::builder::MatchResult;
using core::builder::NumericalClass;
using core::builder::PatternOptimization;

/// Op(Cast<to=T>(x), Cast<to=T>(y)) => Cast<to=T>(Op(x, y)) for Op in Add, Sub, Mul, Div:
/// compute in the source precision and round once.
/// Before:  a = Cast<to=T>(x); b = Cast<to=T>(y); z = Op(a, b)
/// After:   t = Op(x, y); z = Cast<to=T>(t)
/// Approximate: for narrowing casts the result differs by about one unit in the last
/// place of T (and is at least as accurate). Not valid when a or b has other readers,
/// when x and y have different or non-float types (the new Op would be ill-typed), nor
/// when the casts widen (float16 -> float): the Op would then run in the narrower type,
/// losing precision and overflowing (60000 + 60000 is inf in float16). The source type
/// must be T itself or strictly wider. Both operands being one Cast output is rejected.
class CastCastBinaryPattern final : public PatternOptimization {
 public:
  static constexpr std::string_view kName = "CastCastBinaryPattern";
  // Approximate: the operation runs in the precision of the inputs before the casts and
  // rounds once (see the class comment).
  static constexpr NumericalClass kNumerics = NumericalClass::kApproximate;
  CastCastBinaryPattern() : PatternOptimization(1) {}

  std::string Name() const override { return std::string(kName); }
  std::set<std::string> FastOpType() const override { return {"Add", "Sub", "Mul", "Div"}; }
  MatchResult Match(GraphGraph& graph, const NodeProto& op) const override;
  utils::RepeatedProtoField<NodeProto> Apply(GraphGraph& graph,
                                             const std::vector<const NodeProto*>& nodes) const override;
};

}  // namespace onnxopt::onnx_patterns
