#pragma once

#include <string_view>

#include "onnx_core/optimizer/pattern.h"

namespace onnxopt::onnx_patterns {

using core::builder::GraphGraph;
using core::builder::MatchResult;
using core::builder::NumericalClass;
using core::builder::PatternOptimization;

/// Cast<to=Tout>(Op(Cast(x: Tout), y)) => Op(x, Cast<to=Tout>(y)): run the operation in the
/// output type instead of converting both ways (Op: Add, Sub, Mul, Div, Neg, Sigmoid,
/// Softmax, and the custom-domain MulSigmoid).
/// Before:  a = Cast<to=T>(x); o = Op(a, y); z = Cast<to=Tout>(o)      (x of type Tout)
/// After:   yc = Cast<to=Tout>(y); z = Op(x, yc)
///          (when o is also a graph output or read by a subgraph: o = Cast<to=T>(z))
/// Approximate: the operation runs in Tout instead of T (about one unit in the last place
/// of Tout when it is narrower). Not valid when T or Tout is not a float type (a float
/// computation cast to int64 would truncate its operands first), when a bypassed Cast's
/// input is not of type Tout (the new Op would be ill-typed), when o has another reader
/// node, or when a bypassed Cast's output has other readers. An Op reading one Cast
/// output twice is rejected.
class CastOpCastPattern final : public PatternOptimization {
 public:
  static constexpr std::string_view kName = "CastOpCastPattern";
  // Approximate: the operation runs in the cast's target type instead of the model's.
  static constexpr NumericalClass kNumerics = NumericalClass::kApproximate;
  static constexpr std::string_view kMulSigmoidDomain = "yaourt.ortops.fused_kernel.cuda";
  CastOpCastPattern() : PatternOptimization(1) {}

  std::string Name() const override { return std::string(kName); }
  std::set<std::string> FastOpType() const override {
    return {"Add", "Sub", "Mul", "Div", "Neg", "Sigmoid", "Softmax", "MulSigmoid"};
  }
  MatchResult Match(GraphGraph& graph, const NodeProto& op) const override;
  utils::RepeatedProtoField<NodeProto> Apply(GraphGraph& graph,
                                             const std::vector<const NodeProto*>& nodes) const override;
};

}  // namespace onnxopt::onnx_patterns
