#pragma once

#include <string_view>

#include "onnx_core/optimizer/pattern.h"

namespace onnxopt::onnx_patterns {

using core::builder::GraphGraph;
using core::builder::MatchResult;
using core::builder::NumericalClass;
using core::builder::PatternOptimization;

/// MatMul(Reshape(Transpose(X, swap), s), Y) => MatMul(Transpose(Reshape(X, s'), swap'), Y) when the
/// Transpose swaps only the last two axes and the Reshape only regroups the batch dims: the
/// Transpose moves next to the MatMul, where TransposeMatMulPattern or a fusion absorbs it.
/// Before:  xt = Transpose<perm=[0, ..., n-1, n-2]>(X); xr = Reshape(xt, s); Z = MatMul(xr, Y)
/// After:   r = Reshape(X, s with its last two entries swapped);
///          xr = Transpose<perm=[0, ..., r-1, r-2]>(r); Z = MatMul(xr, Y)
/// The same on the right operand; the left one first, the right one in a later iteration.
/// Conditions: xr and xt each read by one node alone, s constant, the last two dims of xt
/// and xr known and equal. Not valid with a 0 in s (copy the input dim at its position)
/// that would copy another dim after the rewrite: s' reads X, whose last two axes are xt's
/// swapped, and moves the 0s of the last two entries. When rank(X) == rank(xr) both swaps
/// cancel and any 0 is kept; otherwise a 0 at position k is rejected unless
/// k < min(rank(X), rank(xr)) - 2 (a batch axis of both). Upstream does not check.
/// Exact: only data movement changes.
/// Measure: the operand becomes a Transpose output, which this pattern does not match.
class TransposeReshapeMatMulPattern final : public PatternOptimization {
 public:
  static constexpr std::string_view kName = "TransposeReshapeMatMulPattern";
  static constexpr NumericalClass kNumerics = NumericalClass::kExact;
  TransposeReshapeMatMulPattern() : PatternOptimization(1) {}

  std::string Name() const override { return std::string(kName); }
  std::set<std::string> FastOpType() const override { return {"MatMul"}; }
  MatchResult Match(GraphGraph& graph, const NodeProto& node) const override;
  utils::RepeatedProtoField<NodeProto> Apply(GraphGraph& graph,
                                             const std::vector<const NodeProto*>& nodes) const override;
};

}  // namespace onnxopt::onnx_patterns
