#pragma once

#include <string_view>

#include "onnx_core/optimizer/pattern.h"

namespace onnxopt::onnx_patterns {

using core::builder::GraphGraph;
using core::builder::MatchResult;
using core::builder::NumericalClass;
using core::builder::PatternOptimization;

/// Mul(Unsqueeze(X, a), Unsqueeze(Y, a)) => Unsqueeze(Mul(X, Y), a) when X and Y have the
/// same rank: the inserted 1s multiply into 1s, every other dim pairs as before.
/// Before:  ux = Unsqueeze(X, a); uy = Unsqueeze(Y, b); Z = Mul(ux, uy)
/// After:   t = Mul(X, Y); Z = Unsqueeze(t, a)
/// Needs constant axes equal after normalization (same values, same order) and both
/// Unsqueeze outputs read by the Mul alone. Not valid when X and Y differ in rank (upstream
/// does not check: X (2,3), Y (3,), axes [1] give (2,3,3) but the rewrite (2,1,3)), nor
/// before opset 13.
class MulUnsqueezeUnsqueezePattern final : public PatternOptimization {
 public:
  static constexpr std::string_view kName = "MulUnsqueezeUnsqueezePattern";
  static constexpr NumericalClass kNumerics = NumericalClass::kExact;
  MulUnsqueezeUnsqueezePattern() : PatternOptimization(0) {}

  std::string Name() const override { return std::string(kName); }
  std::set<std::string> FastOpType() const override { return {"Mul"}; }
  MatchResult Match(GraphGraph& graph, const NodeProto& node) const override;
  utils::RepeatedProtoField<NodeProto> Apply(GraphGraph& graph,
                                             const std::vector<const NodeProto*>& nodes) const override;
};

}  // namespace onnxopt::onnx_patterns
