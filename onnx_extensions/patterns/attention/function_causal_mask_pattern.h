#pragma once

#include <string_view>

#include "onnx_core/optimizer/pattern.h"

namespace onnxopt::onnx_patterns {

using core::builder::GraphGraph;
using core::builder::MatchResult;
using core::builder::NumericalClass;
using core::builder::PatternOptimization;

/// The boolean causal mask [1, 1, T-P, T] => a call to the local function
/// intermediate.CausalMask or intermediate.ShiftedCausalMask (stage 1).
/// Before:  p = Squeeze(A); t = Squeeze(B); r1 = Range(0, t, 1); r2 = Range(p, t, 1)
///          u1 = Unsqueeze(r1, [0, 1, 2]); u2 = Unsqueeze(r2, [0, 1, 3])
///          mask = LessOrEqual(u1, u2)               or   mask = Greater(u1, Sub(u2, shift))
/// After:   mask = intermediate.CausalMask(A, B)     or   mask = intermediate.ShiftedCausalMask(A, B, shift)
/// the body being the same computation. The nodes before the comparison are left to the
/// cleanup, kept while something else reads them (the spec's re-emission). Exact.
/// Not valid when the model already defines intermediate.CausalMask (or ShiftedCausalMask)
/// with another content: the call would run that body, and the model cannot hold two
/// functions of one name (GraphBuilder::GetOrAddFunction refuses).
class FunctionCausalMaskPattern final : public PatternOptimization {
 public:
  static constexpr std::string_view kName = "FunctionCausalMaskPattern";
  static constexpr NumericalClass kNumerics = NumericalClass::kExact;
  FunctionCausalMaskPattern() : PatternOptimization(1) {}

  std::string Name() const override { return std::string(kName); }
  std::set<std::string> FastOpType() const override { return {"LessOrEqual", "Greater"}; }
  MatchResult Match(GraphGraph& graph, const NodeProto& node) const override;
  utils::RepeatedProtoField<NodeProto> Apply(GraphGraph& graph,
                                             const std::vector<const NodeProto*>& nodes) const override;
};

}  // namespace onnxopt::onnx_patterns
