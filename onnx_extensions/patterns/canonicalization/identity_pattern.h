#pragma once

#include <string_view>

#include "onnx_core/optimizer/pattern.h"

namespace onnxopt::onnx_patterns {

using core::builder::GraphGraph;
using core::builder::MatchResult;
using core::builder::NumericalClass;
using core::builder::PatternOptimization;

/// A node that does no work => Identity(its data input):
///   Add/Sub/Or(x, 0), Mul/Div/And(x, 1), Add/Or(0, x), Mul/And(1, x)
///       with the constant of shape (), (1,) or (n,) (n = the static last dim of x, same
///       value everywhere), so that broadcasting does not change the shape of x;
///   Slice(x, starts=0.., ends=INT64_MAX.., axes?, steps=1..?)       (opset >= 10)
///   Reshape<allowzero=0>(x, [0, ..., 0]) and Expand(x, [1, ..., 1]) with len == rank(x);
///   Transpose<perm=[0, 1, ..., n-1]>(x);
///   BatchNormalization(x: float16 or bfloat16, 1, 0, 0, 1) in inference mode, epsilon <=
///       1e-5 (x / sqrt(1 + eps) rounds back to x in 16-bit formats; not in float).
/// Before:  y = Op(x, c)
/// After:   y = Identity(x)
/// Not valid when the constant would broadcast x to a larger shape (a (1,) constant with
/// a rank-0 x, (n,) with a last dim that is not n), for Sub(0, x) / Div(1, x), for
/// Reshape with allowzero=1 (a 0 then means an empty dim), for a Transpose without perm
/// (it reverses the axes), and when BatchNormalization's training outputs are used or,
/// before opset 14, declared (the outputs then give the training mode).
/// Exact, except that Add(-0.0, 0) is +0.0 where the rewrite keeps -0.0.
class IdentityPattern final : public PatternOptimization {
 public:
  static constexpr std::string_view kName = "IdentityPattern";
  static constexpr NumericalClass kNumerics = NumericalClass::kExact;
  IdentityPattern() : PatternOptimization(0) {}

  std::string Name() const override { return std::string(kName); }
  std::set<std::string> FastOpType() const override {
    return {"Add", "Sub", "Mul", "Div", "And", "Or", "Transpose", "Slice", "Expand", "Reshape", "BatchNormalization"};
  }
  MatchResult Match(GraphGraph& graph, const NodeProto& node) const override;
  utils::RepeatedProtoField<NodeProto> Apply(GraphGraph& graph,
                                             const std::vector<const NodeProto*>& nodes) const override;

 private:
  MatchResult MatchBinary(GraphGraph& graph, const NodeProto& node) const;
  MatchResult MatchSlice(GraphGraph& graph, const NodeProto& slice) const;
  MatchResult MatchReshapeOrExpand(GraphGraph& graph, const NodeProto& node) const;
  MatchResult MatchTranspose(const NodeProto& transpose) const;
  MatchResult MatchBatchNormalization(GraphGraph& graph, const NodeProto& bn) const;
};

}  // namespace onnxopt::onnx_patterns
