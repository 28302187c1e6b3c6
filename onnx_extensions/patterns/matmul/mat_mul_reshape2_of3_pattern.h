#pragma once

#include <string_view>

#include "onnx_core/optimizer/pattern.h"

namespace onnxopt::onnx_patterns {

using core::builder::GraphGraph;
using core::builder::MatchResult;
using core::builder::NumericalClass;
using core::builder::PatternOptimization;

/// A matrix product with Reshapes on at least two of its three sides, each of which only
/// regroups batch dimensions: the product runs on the tensors before the Reshapes.
/// Before:  a = Reshape(XL, sL); b = Reshape(XR, sR); Z = MatMul(a, b); W = Reshape(Z, sO)
/// After:   W = MatMul(XL, XR)                         (when XL, XR and W share batch dims)
///          otherwise the side (or output) whose batch dims differ from the chosen ones Bt
///          gets a Reshape to Bt + its own two matrix dims, e.g.
///          r = Reshape(XR, Bt + XR[-2:]); W = MatMul(XL, r)
/// Bt is the batch of W, XL, XR or Z that needs the fewest Reshapes; the rewrite fires only
/// if that is fewer than the Reshapes it removes (the measure that makes it converge).
/// Valid because a Reshape that keeps the two matrix dims only regroups whole matrices in
/// order: with no batch broadcasting in the product (a and b have the same batch dims),
/// matrix i of Z is a_i x b_i, whatever the grouping. Hence the conditions, stricter than
/// upstream: static shapes; a and b with equal batch dims (upstream only compares batch
/// sizes, and [6,1] x [1,6] broadcasts); each Reshape keeps the last two dims exactly
/// (upstream compares their product only); no empty input. A side Reshape whose output has
/// other readers, or an output Reshape when Z has other readers or is a graph output,
/// counts as absent: it stays, and so its readers keep their order.
/// FusedMatMul (com.microsoft) is accepted with transBatchA = transBatchB = 0, its
/// attributes kept: transA / transB only act on the matrix dims.
class MatMulReshape2Of3Pattern final : public PatternOptimization {
 public:
  static constexpr std::string_view kName = "MatMulReshape2Of3Pattern";
  static constexpr NumericalClass kNumerics = NumericalClass::kExact;
  MatMulReshape2Of3Pattern() : PatternOptimization(1) {}

  std::string Name() const override { return std::string(kName); }
  std::set<std::string> FastOpType() const override { return {"MatMul", "FusedMatMul"}; }
  MatchResult Match(GraphGraph& graph, const NodeProto& node) const override;
  utils::RepeatedProtoField<NodeProto> Apply(GraphGraph& graph,
                                             const std::vector<const NodeProto*>& nodes) const override;
};

}  // namespace onnxopt::onnx_patterns
