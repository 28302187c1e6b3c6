#pragma once

#include <string_view>

#include "onnx_core/optimizer/pattern.h"

namespace onnxopt::onnx_patterns {

using core::builder::GraphGraph;
using core::builder::MatchResult;
using core::builder::NumericalClass;
using core::builder::PatternOptimization;

/// U(Concat(X, X)) => Concat(U(X), U(X)) for a pointwise U: U is computed on half the data.
/// Before:  C = Concat<axis=a>(X, X); Y = U(C, <other inputs>)
/// After:   V = U(X, <other inputs>); Y = Concat<axis=a>(V, V)       (C kept if it has other readers)
/// U is a default-domain elementwise unary op, Mul/Add/Sub/Div(C, constant scalar), or
/// Unsqueeze(C, c) with a = -1 and c != -1 (the inserted axis is not the concatenated one).
/// Not valid for ops that mix elements along the axis (Softmax, CumSum, LRN, Trilu,
/// per-axis quantization, ...) nor for a non-scalar second operand (broadcasting along the
/// axis would pair halves with different elements). Requires opset 18.
class ConcatTwiceUnaryPattern final : public PatternOptimization {
 public:
  static constexpr std::string_view kName = "ConcatTwiceUnaryPattern";
  static constexpr NumericalClass kNumerics = NumericalClass::kExact;
  ConcatTwiceUnaryPattern() : PatternOptimization(1) {}

  std::string Name() const override { return std::string(kName); }
  std::set<std::string> FastOpType() const override { return {"Concat"}; }
  MatchResult Match(GraphGraph& graph, const NodeProto& node) const override;
  utils::RepeatedProtoField<NodeProto> Apply(GraphGraph& graph,
                                             const std::vector<const NodeProto*>& nodes) const override;
};

}  // namespace onnxopt::onnx_patterns
