#pragma once

#include <string_view>

#include "onnx_core/optimizer/pattern.h"

namespace onnxopt::onnx_patterns {

using core::builder::GraphGraph;
using core::builder::MatchResult;
using core::builder::NumericalClass;
using core::builder::PatternOptimization;

/// The index grid Y[i, 0, 0, j] = i * C + j of two int64 ranges => one call of the local
/// function intermediate.CausalMaskMulAdd, which holds the same computation.
/// Before:  s1 = Squeeze(A); s2 = Squeeze(B)
///          r1 = Range(0, s1, 1); r2 = Range(0, s2, 1)
///          u1 = Unsqueeze(r1, [0, 1, 2]); u2 = Unsqueeze(r2, [1, 2, 3])
///          m = Mul(u2, C); Y = Add(u1, m)
/// After:   Y = intermediate.CausalMaskMulAdd(A, B, C)
/// The Squeezes are left to the cleanup (kept while something else reads them); every
/// other matched node must be used once. The body hard-codes the starts 0, the deltas 1
/// and int64: the ranges must be int64 with constant starts 0 and deltas 1. The body adds
/// Mul + Unsqueeze in the other order (integers: exact).
/// Not valid when the model already defines intermediate.CausalMaskMulAdd with another
/// content: the call would run that body, and the model cannot hold two functions of one
/// name (GraphBuilder::GetOrAddFunction refuses).
class FunctionCausalMaskMulAddPattern final : public PatternOptimization {
 public:
  static constexpr std::string_view kName = "FunctionCausalMaskMulAddPattern";
  static constexpr NumericalClass kNumerics = NumericalClass::kExact;
  FunctionCausalMaskMulAddPattern() : PatternOptimization(1) {}

  std::string Name() const override { return std::string(kName); }
  std::set<std::string> FastOpType() const override { return {"Add"}; }
  MatchResult Match(GraphGraph& graph, const NodeProto& node) const override;
  utils::RepeatedProtoField<NodeProto> Apply(GraphGraph& graph,
                                             const std::vector<const NodeProto*>& nodes) const override;
};

}  // namespace onnxopt::onnx_patterns
