#pragma once

#include <string_view>

#include "onnx_core/optimizer/pattern.h"

namespace onnxopt::onnx_patterns {

using core::builder::GraphGraph;
using core::builder::MatchResult;
using core::builder::NumericalClass;
using core::builder::PatternOptimization;

/// Act(R(MatMul|Gemm(...))) => R(Act(MatMul|Gemm(...))) for R a Reshape or a Transpose: the
/// activation moves next to the product, where a later fusion can absorb it.
/// Before:  P = MatMul(...); T = R(P, <R inputs>); Z = Act<attrs>(T)
/// After:   P = MatMul(...); A = Act<attrs>(P); Z = R(A, <R inputs>)
/// Valid for element-wise activations; the two that are not (upstream moves them anyway):
/// Softmax only from opset 13 (before, it normalizes the flattened trailing axes) and only
/// when R leaves its axis in place: a Transpose with perm[axis] = axis, or a Reshape that
/// keeps the axis and every axis after it (the new axis then counts the same trailing
/// axes); PRelu only with a slope of one element and rank <= rank(P) (it broadcasts by
/// position). T and P must each be read by one node alone. Exact: the same function of the
/// same values.
class SwitchReshapeActivationPattern final : public PatternOptimization {
 public:
  static constexpr std::string_view kName = "SwitchReshapeActivationPattern";
  static constexpr NumericalClass kNumerics = NumericalClass::kExact;
  SwitchReshapeActivationPattern() : PatternOptimization(1) {}

  std::string Name() const override { return std::string(kName); }
  std::set<std::string> FastOpType() const override;
  MatchResult Match(GraphGraph& graph, const NodeProto& node) const override;
  utils::RepeatedProtoField<NodeProto> Apply(GraphGraph& graph,
                                             const std::vector<const NodeProto*>& nodes) const override;
};

}  // namespace onnxopt::onnx_patterns
