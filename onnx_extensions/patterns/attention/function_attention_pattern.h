#pragma once

#include <string_view>

#include "onnx_core/optimizer/pattern.h"

namespace onnxopt::onnx_patterns {

using core::builder::GraphGraph;
using core::builder::MatchResult;
using core::builder::NumericalClass;
using core::builder::PatternOptimization;

/// Scaled dot-product attention as PyTorch exports it => one call of the local function
/// intermediate.LocalAttention[GQA][SW][NoT]_to<type>, which holds the same computation.
/// Before:  q = Mul(Q, s); k = Mul(K, s); kt = Transpose<perm=[0,1,3,2]>(k); qk = MatMul(q, kt)
///          masked = Add(qk, Where(mask, 0, -inf)) | Where(mask, qk, -inf) | Where(mask, -inf, qk) (SW)
///          sm = Softmax<axis=-1>(masked); Y = MatMul(Where(IsNaN(sm), 0, sm), V)
/// After:   Y = intermediate.LocalAttention[SW]_to<type of s>(Q, K, V, mask, s)
/// Front ends: qk = com.microsoft.FusedMatMul<transB=1>(q, k) (NoT, no Transpose); 3-D Q and
/// K, q = Transpose<perm=[0,2,1,3]>(Reshape(Mul(Q, s), shp)) and
/// kt = Transpose<perm=[0,2,3,1]>(Reshape(Mul(K, s), shp)): the call then reads
/// Transpose<perm=[0,2,1,3]>(Reshape(Q | K, shp)), new nodes (s being a scalar, scaling
/// before or after is the same); GQA, kt = Transpose(Reshape(Expand(Mul(Unsqueeze(K, [2]), s), E), R))
/// and V = Reshape(Expand(Unsqueeze(Vkv, [2]), E), R): the call
/// LocalAttentionGQA[SW]_to<type>(Q, K, Vkv, mask, s, E, R) expands inside.
/// Only at main opset >= 18. The masking constants must be 0 and -inf: the body masks with
/// -inf, and a finite "minus infinity" would change fully masked rows. The mask Where of
/// the add form is left to the cleanup (kept while other layers read it); every other node
/// is used once, the Softmax by the IsNaN and the Where only. The body masks with Where in
/// the add form too: equal, except where a masked score is +inf or NaN (scores that overflow):
/// the Add spreads NaN over the row, which the guard then zeros, where Where masks the score
/// (attention.md's numerical note; not seen with NaN and infinities in the inputs, where the
/// row's other scores are NaN as well).
/// Not valid when the model already defines the function of that name with another content:
/// the call would run that body, and the model cannot hold two functions of one name
/// (GraphBuilder::GetOrAddFunction refuses).
class FunctionAttentionPattern final : public PatternOptimization {
 public:
  static constexpr std::string_view kName = "FunctionAttentionPattern";
  static constexpr NumericalClass kNumerics = NumericalClass::kExact;
  FunctionAttentionPattern() : PatternOptimization(0) {}

  std::string Name() const override { return std::string(kName); }
  std::set<std::string> FastOpType() const override { return {"Softmax"}; }
  MatchResult Match(GraphGraph& graph, const NodeProto& node) const override;
  utils::RepeatedProtoField<NodeProto> Apply(GraphGraph& graph,
                                             const std::vector<const NodeProto*>& nodes) const override;
};

}  // namespace onnxopt::onnx_patterns
