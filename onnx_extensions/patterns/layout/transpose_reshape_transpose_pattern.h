#pragma once

#include <string_view>

#include "onnx_core/optimizer/pattern.h"

namespace onnxopt::onnx_patterns {

using core::builder::GraphGraph;
using core::builder::MatchResult;
using core::builder::NumericalClass;
using core::builder::PatternOptimization;

/// Transpose(Reshape(Transpose(X, p1), S), p2): moves the Reshape across one Transpose so
/// that the two Transposes become adjacent (TransposeTransposePattern then merges them).
/// Before:  T = Transpose<perm=p1>(X); R = Reshape(T, S); Y = Transpose<perm=p2>(R)
/// After, when the Reshape only merges dims (len(p2) <= len(p1)):
///          T = Transpose<perm=p1>(X); t = Transpose<perm=q>(T); Y = Reshape(t, S2)
///          q: the dims of T of each group in the order p2 takes the groups; S2[k] = S[p2[k]]
/// After, when the Reshape only splits dims:
///          t = Reshape(X, S2); R = Transpose<perm=q>(t); Y = Transpose<perm=p2>(R)
///          idx: the dims of S of the group of each dim of X (the inverse of p1 names it);
///          S2 = S[idx]; q = inverse(idx)
/// The dims of T (static) and S are aligned into groups of one dim on a side and one or
/// more on the other. Not valid when a group has several dims on both sides, when S has
/// an entry -1, 0 or negative, or when a value the rewrite removes (R merging, T
/// splitting) has other readers. Needs T and R read once and both perms.
class TransposeReshapeTransposePattern final : public PatternOptimization {
 public:
  static constexpr std::string_view kName = "TransposeReshapeTransposePattern";
  static constexpr NumericalClass kNumerics = NumericalClass::kExact;
  TransposeReshapeTransposePattern() : PatternOptimization(0) {}

  std::string Name() const override { return std::string(kName); }
  std::set<std::string> FastOpType() const override { return {"Transpose"}; }
  MatchResult Match(GraphGraph& graph, const NodeProto& node) const override;
  utils::RepeatedProtoField<NodeProto> Apply(GraphGraph& graph,
                                             const std::vector<const NodeProto*>& nodes) const override;
};

}  // namespace onnxopt::onnx_patterns
