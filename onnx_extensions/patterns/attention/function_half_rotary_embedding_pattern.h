#pragma once

#include <string_view>

#include "onnx_core/optimizer/pattern.h"

namespace onnxopt::onnx_patterns {

using core::builder::GraphGraph;
using core::builder::MatchResult;
using core::builder::NumericalClass;
using core::builder::PatternOptimization;

/// The "rotate half" RoPE on X [batch, heads, seq, head_dim] => a call to the local function
/// intermediate.HalfRotaryEmbedding (stage 1; RotaryEmbeddingPattern is stage 2).
/// Before:  x1, x2 = Split<axis=-1>(X) (two equal halves); nx2 = Neg(x2)
///          rot = Concat<axis=-1>(nx2, x1); a = Mul(rot, sin); b = Mul(X, cos); Y = Add(a, b)
///          (Mul and Add operands in any order)
/// After:   Y = intermediate.HalfRotaryEmbedding(X, cos, sin), the function body being the
///          same computation: Split<num_outputs=2>, Neg, Concat, Mul(X, cos), Mul(conc, sin), Add.
/// Only at main opset >= 18 (the body's Split<num_outputs>). Exact: the same operations run.
/// Not valid when the model already defines intermediate.HalfRotaryEmbedding with another
/// content: the call would run that body, and the model cannot hold two functions of one
/// name (GraphBuilder::GetOrAddFunction refuses).
class FunctionHalfRotaryEmbeddingPattern final : public PatternOptimization {
 public:
  static constexpr std::string_view kName = "FunctionHalfRotaryEmbeddingPattern";
  static constexpr NumericalClass kNumerics = NumericalClass::kExact;
  FunctionHalfRotaryEmbeddingPattern() : PatternOptimization(1) {}

  std::string Name() const override { return std::string(kName); }
  std::set<std::string> FastOpType() const override { return {"Split"}; }
  MatchResult Match(GraphGraph& graph, const NodeProto& node) const override;
  utils::RepeatedProtoField<NodeProto> Apply(GraphGraph& graph,
                                             const std::vector<const NodeProto*>& nodes) const override;
};

}  // namespace onnxopt::onnx_patterns
