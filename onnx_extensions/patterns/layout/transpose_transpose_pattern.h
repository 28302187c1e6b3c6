#pragma once

#include <string_view>

#include "onnx_core/optimizer/pattern.h"

namespace onnxopt::onnx_patterns {

using core::builder::GraphGraph;
using core::builder::MatchResult;
using core::builder::NumericalClass;
using core::builder::PatternOptimization;

/// Transpose(Transpose(X, p1), p2) => Transpose(X, c) with c[i] = p1[p2[i]] (output axis i of
/// Y is axis c[i] of X); Identity(X) when c is the identity.
/// Before:  T = Transpose<perm=p1>(X); Y = Transpose<perm=p2>(T)
/// After:   Y = Transpose<perm=c>(X)        or  Y = Identity(X)
///          (T kept when it has other readers, which only the identity case accepts)
/// The second Transpose is the last one reading T in graph order. Not applied without both
/// perm attributes, nor to a composite other than the identity when T has other readers:
/// the graph would keep both Transposes and gain a third.
class TransposeTransposePattern final : public PatternOptimization {
 public:
  static constexpr std::string_view kName = "TransposeTransposePattern";
  static constexpr NumericalClass kNumerics = NumericalClass::kExact;
  TransposeTransposePattern() : PatternOptimization(0) {}

  std::string Name() const override { return std::string(kName); }
  std::set<std::string> FastOpType() const override { return {"Transpose"}; }
  MatchResult Match(GraphGraph& graph, const NodeProto& node) const override;
  utils::RepeatedProtoField<NodeProto> Apply(GraphGraph& graph,
                                             const std::vector<const NodeProto*>& nodes) const override;
};

}  // namespace onnxopt::onnx_patterns
