#pragma once

#include <string_view>

#include "onnx_core/optimizer/pattern.h"

namespace onnxopt::onnx_patterns {

using core::builder::GraphGraph;
using core::builder::MatchResult;
using core::builder::NumericalClass;
using core::builder::PatternOptimization;

/// Cast<to=T3>(Cast<to=T2>(x: T1)) => one Cast, or Identity(x), when the two
/// conversions reduce to at most one without changing any value:
///   T1 == T3, T2 == T1 (two no-ops)               -> Identity(x)
///   T1 == T3, T1 in {float, float16, bfloat16},
///             T2 in {float, double} (exact widening round trip) -> Identity(x)
///   T3 == T2 (the second Cast is a no-op)         -> Cast<to=T2>(x), first Cast's attributes
///   T1 == T2 (the first Cast is a no-op)          -> Cast<to=T3>(x), second Cast's attributes
/// Before:  m = Cast<to=T2>(x); y = Cast<to=T3>(m)
/// After:   y = Cast<to=T>(x)   or   y = Identity(x)    (m kept if it has other readers)
/// Not valid for lossy round trips (float -> float16 -> float, int64 -> int32 -> int64,
/// float -> int64 -> float) nor for two real conversions (float16 -> float -> int64).
class CastCastPattern final : public PatternOptimization {
 public:
  static constexpr std::string_view kName = "CastCastPattern";
  static constexpr NumericalClass kNumerics = NumericalClass::kExact;
  CastCastPattern() : PatternOptimization(0) {}

  std::string Name() const override { return std::string(kName); }
  std::set<std::string> FastOpType() const override { return {"Cast"}; }
  MatchResult Match(GraphGraph& graph, const NodeProto& second) const override;
  utils::RepeatedProtoField<NodeProto> Apply(GraphGraph& graph,
                                                   const std::vector<const NodeProto*>& nodes) const override;
};

}  // namespace onnxopt::onnx_patterns
