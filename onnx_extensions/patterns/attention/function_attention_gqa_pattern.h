#pragma once

#include <string_view>

#include "onnx_core/optimizer/pattern.h"

namespace onnxopt::onnx_patterns {

using core::builder::GraphGraph;
using core::builder::MatchResult;
using core::builder::NumericalClass;
using core::builder::PatternOptimization;

/// A LocalAttention call whose keys and values are repeated per query head outside the
/// function => the GQA variant of the function, which repeats them inside.
/// Before:  Kx = Reshape(Expand(Unsqueeze(K, [2]), E), R)   (or Squeeze(..., R); same for V)
///          Y = intermediate.LocalAttention[SW][NoT]_to<t>(Q, Kx, Vx, mask, s)
/// After:   Y = intermediate.LocalAttentionGQA[SW][sQ]_to<t>(Q, K, V, mask, s, E, R)
/// E = [1, 1, n, 1, 1] and R (4-element shape or 1-element axes) are constants, equal for
/// the keys and the values; the expansion nodes are used once, and K and V keep their dims
/// 0, 2 and 3 through it. The body scales K before the repetition instead of after
/// (exact). The NoT variant has the body of the plain one, so its GQA name drops NoT: the
/// result is the function AttentionGQAFromFunctionPattern reads. The previous function stays until
/// the cleanup removes it as unused.
/// Not valid when the called function is missing or not exactly the body
/// FunctionAttentionPattern writes under its name (byte for byte, at the model's main opset):
/// a model may define anything under the name. Not valid either when the model already
/// defines the GQA function with another content: the new call would run that body, and the
/// model cannot hold two functions of one name (GraphBuilder::GetOrAddFunction refuses).
class FunctionAttentionGQAPattern final : public PatternOptimization {
 public:
  static constexpr std::string_view kName = "FunctionAttentionGQAPattern";
  static constexpr NumericalClass kNumerics = NumericalClass::kExact;
  FunctionAttentionGQAPattern() : PatternOptimization(0) {}

  std::string Name() const override { return std::string(kName); }
  std::set<std::string> FastOpType() const override;
  MatchResult Match(GraphGraph& graph, const NodeProto& node) const override;
  utils::RepeatedProtoField<NodeProto> Apply(GraphGraph& graph,
                                             const std::vector<const NodeProto*>& nodes) const override;
};

}  // namespace onnxopt::onnx_patterns
