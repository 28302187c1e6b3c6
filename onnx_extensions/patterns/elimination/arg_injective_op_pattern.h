#pragma once

#include <string_view>

#include "onnx_core/optimizer/pattern.h"

namespace onnxopt::onnx_patterns {

using core::builder::GraphGraph;
using core::builder::MatchResult;
using core::builder::NumericalClass;
using core::builder::PatternOptimization;

/// ArgMax/ArgMin of a strictly monotone op that is injective in floating point too => the
/// same Arg of the op's input (ArgMax of a Neg becomes ArgMin, and conversely).
/// Before:  t = Cast<to>(x); y = ArgMax<axis, keepdims, select_last_index>(t)
/// After:   y = ArgMax<axis, keepdims, select_last_index>(x)
/// Before:  t = Neg(x); y = ArgMax<...>(t)
/// After:   y = ArgMin<...>(x)
/// An elimination (the op goes, the Arg stays): the family of the no-op nodes.
/// The Arg picks its index by comparing elements; these ops keep every comparison:
///  - a Cast that converts every value exactly (float16/bfloat16 -> float/double, float
///    -> double, an integer into a wider integer or a float type whose significand holds
///    it): equal values stay equal, the order stays, NaN stays NaN;
///  - Neg of a float type: a > b <=> -a < -b, ties stay ties (also -0 and +0). With NaN,
///    which ONNX leaves unspecified, ArgMax(-x) and ArgMin(x) still agree in the
///    implementations we know: comparison loops and Eigen (a NaN compares false in both),
///    and numpy's reference (both return the first NaN). So Neg is exact too. An integer
///    Neg is not: it overflows at the type's minimum.
/// After a Cast the Arg reads the narrower type: only float16, float, int8, uint8 and
/// int32, the types onnxruntime's CPU ArgMax/ArgMin implement (the spec allows every
/// numeric type, but a model that ran must keep running). Not valid when t has another
/// reader (nothing would be removed). Exact. Exp, Sigmoid, Tanh and the softmaxes, which
/// floating point makes non-injective, are ArgMonotoneOpPattern's (approximate).
class ArgInjectiveOpPattern final : public PatternOptimization {
 public:
  static constexpr std::string_view kName = "ArgInjectiveOpPattern";
  static constexpr NumericalClass kNumerics = NumericalClass::kExact;
  ArgInjectiveOpPattern() : PatternOptimization(0) {}

  std::string Name() const override { return std::string(kName); }
  std::set<std::string> FastOpType() const override { return {"ArgMax", "ArgMin"}; }
  MatchResult Match(GraphGraph& graph, const NodeProto& arg) const override;
  utils::RepeatedProtoField<NodeProto> Apply(GraphGraph& graph,
                                             const std::vector<const NodeProto*>& nodes) const override;
};

}  // namespace onnxopt::onnx_patterns
