#pragma once

#include <string_view>

#include "onnx_core/optimizer/pattern.h"

namespace onnxopt::onnx_patterns {

using core::builder::GraphGraph;
using core::builder::MatchResult;
using core::builder::NumericalClass;
using core::builder::PatternOptimization;

/// Gemm(A, B) => Gemm<transB=1>(A, Transpose(B)) for a constant B: the weights in the [N, K]
/// layout runtimes prefer; the Transpose of the constant is folded into a new initializer.
/// Before:  Y = Gemm<alpha, beta>(A, B[, C])                      (transA = transB = 0)
/// After:   Bt = Transpose<perm=[1,0]>(B); Y = Gemm<alpha, beta, transB=1>(A, Bt[, C])
/// Only when constant folding can materialize Bt (within the default FoldOptions limit: a
/// Transpose left in the graph would run at every inference), with transA = transB = 0
/// and beta = 1 (the spec keeps upstream's beta condition);
/// alpha and beta are copied, where upstream drops them. Exact: the same products and sums.
/// Measure: the new Gemm has transB = 1, which this pattern does not match, and
/// TransposeMatMulPattern refuses to fold a transposed constant back.
class GemmTransposePattern final : public PatternOptimization {
 public:
  static constexpr std::string_view kName = "GemmTransposePattern";
  static constexpr NumericalClass kNumerics = NumericalClass::kExact;
  GemmTransposePattern() : PatternOptimization(1) {}

  std::string Name() const override { return std::string(kName); }
  std::set<std::string> FastOpType() const override { return {"Gemm"}; }
  MatchResult Match(GraphGraph& graph, const NodeProto& node) const override;
  utils::RepeatedProtoField<NodeProto> Apply(GraphGraph& graph,
                                             const std::vector<const NodeProto*>& nodes) const override;
};

}  // namespace onnxopt::onnx_patterns
