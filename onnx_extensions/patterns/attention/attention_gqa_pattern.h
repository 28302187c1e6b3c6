#pragma once

#include <string_view>

#include "onnx_core/optimizer/pattern.h"

namespace onnxopt::onnx_patterns {

using core::builder::GraphGraph;
using core::builder::MatchResult;
using core::builder::NumericalClass;
using core::builder::PatternOptimization;

/// Grouped-query attention over a KV cache => one opset-23 Attention that concatenates the
/// cache and broadcasts the key-value heads itself.
/// Before:  K = Concat<axis=2>(pk, k); V = Concat<axis=2>(pv, v)
///          Kx = Reshape(Expand(Unsqueeze(K, [2]), E), R)   (or Squeeze(..., R); same for V)
///          Y = Attention<[scale=σ]>(Q, Kx, Vx[, mask])
/// After:   Y, K, V = Attention<[scale=σ], is_causal=0>(Q, k, v, mask, pk, pv)
/// E = [1, 1, n, 1, 1] and R must repeat each key-value head n times in a row ([B, Hkv*n, L, D],
/// Hkv*n the query heads), which is Attention's own GQA broadcasting in the ONNX reference;
/// onnxruntime 1.23 cycles through the heads instead, so only Hkv = 1 (multi-query attention)
/// or n = 1 is fused, where both read the same. Only `scale` is kept: an Attention with any
/// other attribute (softcap, ...), with past inputs or with is_causal=1 (its causal frontier
/// would move by the past length) is left alone. The mask must be [Sq, T], [1, Sq, T] or
/// [1 or B, 1, Sq, T] (attention::WhyNotFusedMask), Q and the caches must agree in batch, and
/// the past and new keys and values in length. Only at main opset >= 23. The catalog's form B,
/// a LocalAttentionGQA call, is AttentionGQAFromFunctionPattern: it changes some results.
class AttentionGQAPattern final : public PatternOptimization {
 public:
  static constexpr std::string_view kName = "AttentionGQAPattern";
  static constexpr NumericalClass kNumerics = NumericalClass::kRounding;
  AttentionGQAPattern() : PatternOptimization(2) {}

  std::string Name() const override { return std::string(kName); }
  std::set<std::string> FastOpType() const override { return {"Attention"}; }
  MatchResult Match(GraphGraph& graph, const NodeProto& node) const override;
  utils::RepeatedProtoField<NodeProto> Apply(GraphGraph& graph,
                                             const std::vector<const NodeProto*>& nodes) const override;
};

}  // namespace onnxopt::onnx_patterns
