#pragma once

#include <string_view>

#include "onnx_core/optimizer/pattern.h"

namespace onnxopt::onnx_patterns {

using core::builder::GraphGraph;
using core::builder::MatchResult;
using core::builder::NumericalClass;
using core::builder::PatternOptimization;

/// Reshape(MatMul(Reshape(A, sA), Reshape(B, sB)), sZ) => MatMul(A, B) when the Reshapes only
/// flatten rank-n batch dims (n >= 4) to one and restore them: MatMul broadcasts the batch
/// dims itself.
/// Before:  ra = Reshape(A, sA); rb = Reshape(B, sB); m = MatMul(ra, rb); Z = Reshape(m, sZ)
/// After:   Z = MatMul(A, B)                        (ra, rb kept when they have other readers)
/// Conditions: constant sA, sB (3 entries) and sZ (n >= 4); A and B of rank n; the last two
/// dims of A and B static, positive and equal to the last two entries of sA and sB (so a
/// -1 or 0 there fails; a symbolic matrix dim is refused too, where upstream lets a name
/// stand for an integer: the Reshape would reinterpret the data if it took another value);
/// and, which upstream never checks (A = [2,3,M,K] with B = [3,2,K,N] both flatten to 6):
/// each of A[:-2] and B[:-2] equals sZ[:-2] or is all ones, their broadcast is sZ[:-2],
/// and sZ[-2:] = [A[-2], B[-1]]. The output Reshape must be a default-domain Reshape (upstream
/// checks the MatMul's domain instead). Exact: the same dot products.
class ReshapeMatMulReshapePattern final : public PatternOptimization {
 public:
  static constexpr std::string_view kName = "ReshapeMatMulReshapePattern";
  static constexpr NumericalClass kNumerics = NumericalClass::kExact;
  ReshapeMatMulReshapePattern() : PatternOptimization(1) {}

  std::string Name() const override { return std::string(kName); }
  std::set<std::string> FastOpType() const override { return {"MatMul"}; }
  MatchResult Match(GraphGraph& graph, const NodeProto& node) const override;
  utils::RepeatedProtoField<NodeProto> Apply(GraphGraph& graph,
                                             const std::vector<const NodeProto*>& nodes) const override;
};

}  // namespace onnxopt::onnx_patterns
