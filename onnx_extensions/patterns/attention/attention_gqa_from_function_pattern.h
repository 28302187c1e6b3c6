#pragma once

#include <string_view>

#include "onnx_core/optimizer/pattern.h"

namespace onnxopt::onnx_patterns {

using core::builder::GraphGraph;
using core::builder::MatchResult;
using core::builder::NumericalClass;
using core::builder::PatternOptimization;

/// The grouped-query attention function FunctionAttentionGQAPattern writes, over a KV cache
/// => one opset-23 Attention (the catalog's form B of AttentionGQAPattern).
/// Before:  K = Concat<axis=2>(pk, k); V = Concat<axis=2>(pv, v)
///          Y = intermediate.LocalAttentionGQA[SW][sQ]_to<t>(Q, K, V, mask, s, E, R)
/// After:   Y, K, V = Attention<scale=s*s, is_causal=0>(Q, k, v, mask | Not(mask) for SW, pk, pv)
/// Approximate, hence opt-in: the function guards its probabilities, Where(IsNaN(p), 0, p),
/// which Attention does not. A row whose mask is false everywhere (a padded query) gives 0 in
/// the function and in Attention's specification but the mean of V in onnxruntime 1.23's
/// Attention, and a NaN or infinite score (a NaN or an overflow in Q or K) gives NaN in
/// Attention where the function gives 0 (tests/ort/non_finite_differences.txt).
/// Conditions: a boolean mask spanning every key, [Sq, T], [1, Sq, T] or [1 or B, 1, Sq, T]
/// (attention::WhyNotFusedMask); the caches and the head repetition as AttentionGQAPattern
/// requires them (attention::MatchKvCaches); s * s a normal float (Attention refuses a scale
/// of 0, and the scale applied once instead of twice rounds differently); not double
/// (onnxruntime 1.23's Attention drops Y's batch dim there). Only at main opset >= 23. Not
/// valid when the called function is missing or not exactly the body FunctionAttentionGQAPattern
/// writes under its name (byte for byte, at the model's main opset): a model may define
/// anything under the name, and only that body is known to compute what Attention does.
class AttentionGQAFromFunctionPattern final : public PatternOptimization {
 public:
  static constexpr std::string_view kName = "AttentionGQAFromFunctionPattern";
  static constexpr NumericalClass kNumerics = NumericalClass::kApproximate;
  AttentionGQAFromFunctionPattern() : PatternOptimization(2) {}

  std::string Name() const override { return std::string(kName); }
  std::set<std::string> FastOpType() const override;
  MatchResult Match(GraphGraph& graph, const NodeProto& node) const override;
  utils::RepeatedProtoField<NodeProto> Apply(GraphGraph& graph,
                                             const std::vector<const NodeProto*>& nodes) const override;
};

}  // namespace onnxopt::onnx_patterns
