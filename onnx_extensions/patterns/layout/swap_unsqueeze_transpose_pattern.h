#pragma once

#include <string_view>

#include "onnx_core/optimizer/pattern.h"

namespace onnxopt::onnx_patterns {

using core::builder::GraphGraph;
using core::builder::MatchResult;
using core::builder::NumericalClass;
using core::builder::PatternOptimization;

/// Transpose(Unsqueeze(X, axes), p) => Unsqueeze(Transpose(X, q), new_axes): transpose the
/// smaller tensor, then insert the 1s where the permutation moved them.
/// Before:  U = Unsqueeze(X, axes); Y = Transpose<perm=p>(U)
/// After:   t = Transpose<perm=q>(X); Y = Unsqueeze(t, new_axes)
///          q: the entries of p outside the (normalized) axes, in order, each replaced by
///          its rank among them; new_axes: the positions i with p[i] among the axes, sorted
/// new_axes uses the inverse of p (where the 1s land), not p itself as upstream does,
/// which is wrong unless p maps the axes onto those positions (X (A,B), axes [1],
/// p = [1,2,0]: Y is (1,B,A), upstream gives (B,A,1)). Needs constant axes, U read by the
/// Transpose alone, and perm.
class SwapUnsqueezeTransposePattern final : public PatternOptimization {
 public:
  static constexpr std::string_view kName = "SwapUnsqueezeTransposePattern";
  static constexpr NumericalClass kNumerics = NumericalClass::kExact;
  SwapUnsqueezeTransposePattern() : PatternOptimization(0) {}

  std::string Name() const override { return std::string(kName); }
  std::set<std::string> FastOpType() const override { return {"Transpose"}; }
  MatchResult Match(GraphGraph& graph, const NodeProto& node) const override;
  utils::RepeatedProtoField<NodeProto> Apply(GraphGraph& graph,
                                             const std::vector<const NodeProto*>& nodes) const override;
};

}  // namespace onnxopt::onnx_patterns
