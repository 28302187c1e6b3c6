#pragma once

#include <string_view>

#include "onnx_core/optimizer/pattern.h"

namespace onnxopt::onnx_patterns {

using core::builder::GraphGraph;
using core::builder::MatchResult;
using core::builder::NumericalClass;
using core::builder::PatternOptimization;

/// Add(MatMul(A, B), bias) => Gemm(A, B, bias) for 2-D A and B (either Add operand order).
/// Before:  P = MatMul(A, B) | Gemm<attrs>(A, B);  Y = Add(P, bias)
/// After:   Y = Gemm<attrs>(A, B, bias)
/// Before:  P = Gemm<attrs>(A, B, C);               Y = Add(P, bias)
/// After:   S = Add(bias, C); Y = Gemm<attrs>(A, B, S)
/// Fires only for a bias vector: rank 1 with N elements (N the column count of the
/// product). The spec also accepts a rank-2 bias of exactly P's shape; that is left out:
/// such an operand is an activation (in training graphs, mostly another product being
/// accumulated), the Gemm then adds it before the partial sums of the product instead of
/// after them, and the corpus model dort-c-custom__1 amplifies that rounding change beyond
/// onnxopt verify's tolerances. A [1, N] bias (refused by upstream too) and a scalar are
/// refused. A MatMul start needs float or double (GemmComputesLikeMatMul). A Gemm start
/// needs beta = 1 (upstream keeps beta and scales the bias too); alpha is kept. P must be
/// read by the Add alone (not a graph output, where upstream loses it). The reshape mode
/// (A of rank > 2) is not implemented: the default list does not use it.
/// Rounding: the Gemm adds the bias inside the product (and bias + C first for a 3-input
/// Gemm), which a runtime may round differently from MatMul then Add.
class MatMulAddPattern final : public PatternOptimization {
 public:
  static constexpr std::string_view kName = "MatMulAddPattern";
  static constexpr NumericalClass kNumerics = NumericalClass::kRounding;
  MatMulAddPattern() : PatternOptimization(3) {}

  std::string Name() const override { return std::string(kName); }
  std::set<std::string> FastOpType() const override { return {"MatMul", "Gemm"}; }
  MatchResult Match(GraphGraph& graph, const NodeProto& node) const override;
  utils::RepeatedProtoField<NodeProto> Apply(GraphGraph& graph,
                                             const std::vector<const NodeProto*>& nodes) const override;
};

}  // namespace onnxopt::onnx_patterns
