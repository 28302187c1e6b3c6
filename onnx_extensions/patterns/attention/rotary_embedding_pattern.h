#pragma once

#include <string_view>

#include "onnx_core/optimizer/pattern.h"

namespace onnxopt::onnx_patterns {

using core::builder::GraphGraph;
using core::builder::MatchResult;
using core::builder::NumericalClass;
using core::builder::PatternOptimization;

/// intermediate.HalfRotaryEmbedding(X, Concat(c, c), Concat(s, s)) => RotaryEmbedding (opset 23),
/// the stage 2 of FunctionHalfRotaryEmbeddingPattern, on all of X or on the first channels.
/// Before (full):     C = Concat<axis=-1>(c, c); S = Concat<axis=-1>(s, s)
///                    Y = intermediate.HalfRotaryEmbedding(X, C, S)
/// Before (partial):  xr, xp = Split<axis=-1>(Xfull, [r, rest]); yr = intermediate.HalfRotaryEmbedding(xr, C, S)
///                    Y = Concat<axis=-1>(yr, xp)
/// After:   b = Shape<start=0, end=1>(Xmain); shp = Concat<axis=0>(b, [1, 1])
///          ce = Expand(Squeeze(c, [1]), shp); se = Expand(Squeeze(s, [1]), shp)
///          Y = RotaryEmbedding<num_heads=H[, rotary_embedding_dim=r]>(Xmain, ce, se)
/// Xmain is X (full) or Xfull (partial), [B, H, seq, head_dim] with H a known integer. The
/// Concats that build C and S are left to the cleanup (kept while something else reads
/// them). Only at main opset >= 23, where RotaryEmbedding exists. Valid when the caches are
/// [1 or B, 1, seq, r/2] halves repeated on the last axis, seq being X's, and X is float,
/// float16 or bfloat16 (RotaryEmbedding has no double version): RotaryEmbedding
/// then computes x1*c - x2*s and x2*c + x1*s, the products of the function body; a kernel
/// may fuse them (rounding). Not valid when the called function is not exactly the body
/// FunctionHalfRotaryEmbeddingPattern writes (byte for byte, at the model's main opset) or is
/// missing: only that body is known to compute the rotation RotaryEmbedding does, and a
/// model may define anything under the name (the other rotation direction, say).
class RotaryEmbeddingPattern final : public PatternOptimization {
 public:
  static constexpr std::string_view kName = "RotaryEmbeddingPattern";
  static constexpr NumericalClass kNumerics = NumericalClass::kRounding;
  RotaryEmbeddingPattern() : PatternOptimization(1) {}

  std::string Name() const override { return std::string(kName); }
  std::set<std::string> FastOpType() const override { return {"HalfRotaryEmbedding"}; }
  MatchResult Match(GraphGraph& graph, const NodeProto& node) const override;
  utils::RepeatedProtoField<NodeProto> Apply(GraphGraph& graph,
                                             const std::vector<const NodeProto*>& nodes) const override;
};

}  // namespace onnxopt::onnx_patterns
