#pragma once

#include <string_view>

#include "onnx_core/optimizer/pattern.h"

namespace onnxopt::onnx_patterns {

using core::builder::GraphGraph;
using core::builder::MatchResult;
using core::builder::NumericalClass;
using core::builder::PatternOptimization;

/// MatMul|Gemm(Transpose(A), B) => Gemm<transA=1>(A, B) for 2-D inputs, on either or both
/// sides: the Transposes fold into the transA / transB flags.
/// Before:  at = Transpose<perm=[1,0]>(A); Y = MatMul(at, B)
/// After:   Y = Gemm<transA=1, transB=0>(A, B)
/// Before:  bt = Transpose<perm=[1,0]>(B); Y = Gemm<transB=t, alpha, beta>(A, bt[, C])
/// After:   Y = Gemm<transB=1-t, alpha, beta>(A, B[, C])
/// A folded Transpose with other readers stays for them. Refused on a Gemm whose transA and
/// transB differ when the transposed input is a constant: that is GemmTransposePattern's
/// result, which this would undo (the two would alternate forever).
/// A MatMul becomes a Gemm only in float or double (GemmComputesLikeMatMul: onnxruntime has
/// no integer Gemm and rounds a float16 Gemm differently).
/// Exact: the same products, only read in another layout.
class TransposeMatMulPattern final : public PatternOptimization {
 public:
  static constexpr std::string_view kName = "TransposeMatMulPattern";
  static constexpr NumericalClass kNumerics = NumericalClass::kExact;
  TransposeMatMulPattern() : PatternOptimization(1) {}

  std::string Name() const override { return std::string(kName); }
  std::set<std::string> FastOpType() const override { return {"MatMul", "Gemm"}; }
  MatchResult Match(GraphGraph& graph, const NodeProto& node) const override;
  utils::RepeatedProtoField<NodeProto> Apply(GraphGraph& graph,
                                             const std::vector<const NodeProto*>& nodes) const override;
};

}  // namespace onnxopt::onnx_patterns
