#pragma once

#include <cstdint>
#include <string_view>
#include <vector>

#include "onnx_core/optimizer/pattern.h"

namespace onnxopt::onnx_patterns {

using core::builder::GraphGraph;
using core::builder::MatchResult;
using core::builder::NumericalClass;
using core::builder::PatternOptimization;

/// Grouped-query attention over a KV cache => one opset-23 Attention that concatenates the
/// cache and broadcasts the key-value heads itself.
/// Before (form A): K = Concat<axis=2>(pk, k); V = Concat<axis=2>(pv, v)
///                  Kx = Reshape(Expand(Unsqueeze(K, [2]), E), R)   (or Squeeze(..., R); same for V)
///                  Y = Attention<[scale=σ]>(Q, Kx, Vx[, mask])
/// Before (form B): Y = intermediate.LocalAttentionGQA[SW][sQ]_to<t>(Q, K, V, mask, s, E, R)
/// After:   Y, K, V = Attention<[scale=σ | s*s], is_causal=0>(Q, k, v, mask | Not(mask) for SW, pk, pv)
/// E = [1, 1, n, 1, 1] and R must repeat each key-value head n times in a row ([B, Hkv*n, L, D],
/// Hkv*n the query heads), which is Attention's own GQA broadcasting in the ONNX reference;
/// onnxruntime 1.23 cycles through the heads instead, so only Hkv = 1 (multi-query attention)
/// or n = 1 is fused, where both read the same. Form A keeps only
/// `scale`: an Attention with any other attribute (softcap, ...), with past inputs or with
/// is_causal=1 (its causal frontier would move by the past length) is left alone. Form B
/// needs a boolean mask that spans every key: its function keeps the scores where the mask
/// is true (false for SW). In both forms the mask must be [Sq, T], [1, Sq, T] or
/// [1 or B, 1, Sq, T]: Attention's mask does not broadcast Q as Where and MatMul do, and
/// onnxruntime wants Sq in it; Q and the caches must agree in batch, and the past and new
/// keys and values in length. A fully masked row gives 0 in the function (NaN guard) and in
/// Attention's specification, but the mean of V in onnxruntime 1.23's Attention; a NaN or
/// infinite score differs too: the guard zeros the NaN probabilities it gives, Attention
/// keeps them (tests/ort/non_finite_differences.txt). Only at main opset >= 23. The scale is
/// applied once instead of twice (rounding): s * s must be a normal float (Attention
/// refuses 0), and form B on double is left alone (onnxruntime 1.23's Attention drops Y's
/// batch dim there). Form B is not valid when the called function is missing or not exactly the body
/// FunctionAttentionGQAPattern writes under its name (byte for byte, at the model's main
/// opset): a model may define anything under the name, and only that body is known to
/// compute what Attention does.
class AttentionGQAPattern final : public PatternOptimization {
 public:
  static constexpr std::string_view kName = "AttentionGQAPattern";
  static constexpr NumericalClass kNumerics = NumericalClass::kRounding;
  AttentionGQAPattern() : PatternOptimization(2) {}

  std::string Name() const override { return std::string(kName); }
  std::set<std::string> FastOpType() const override;
  MatchResult Match(GraphGraph& graph, const NodeProto& node) const override;
  utils::RepeatedProtoField<NodeProto> Apply(GraphGraph& graph,
                                             const std::vector<const NodeProto*>& nodes) const override;

 private:
  MatchResult MatchFormA(GraphGraph& graph, const NodeProto& attention) const;
  MatchResult MatchFormB(GraphGraph& graph, const NodeProto& call) const;
  // The matched nodes (`node`, the two cache Concats, then `chain`) when `keys` and `values`
  // come from two KV-cache Concats and the expansion (E, R) repeats their heads as Attention
  // does.
  MatchResult MatchCaches(GraphGraph& graph, const NodeProto& node, std::string_view keys, std::string_view values,
                          const std::vector<std::int64_t>& e, const std::vector<std::int64_t>& r, bool squeeze,
                          const std::vector<const NodeProto*>& chain) const;
};

}  // namespace onnxopt::onnx_patterns
