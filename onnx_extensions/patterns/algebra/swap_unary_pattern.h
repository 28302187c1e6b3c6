#pragma once

#include <string_view>

#include "onnx_core/optimizer/pattern.h"

namespace onnxopt::onnx_patterns {

using core::builder::GraphGraph;
using core::builder::MatchResult;
using core::builder::NumericalClass;
using core::builder::PatternOptimization;

/// U(Transpose(X)) => Transpose(U(X)) and U(Reshape(X, s)) => Reshape(U(X), s) for an
/// element-wise U: the same function of the same values, then the same layout change, so
/// that Transposes and Reshapes move down and meet each other.
/// Before:  T = Transpose(X) | Reshape(X, s); Y = U(T, extras...)
/// After:   t = U(X, extras...); Y = Transpose(t) | Reshape(t, s)
/// U is a one-input element-wise operator (Relu, Cast, Exp, ...), one whose extra inputs
/// are scalars of shape () or (1,) (Clip, PRelu, BitShift, per-tensor QuantizeLinear and
/// DequantizeLinear), CastLike (only the type of its second input counts), or Add, Sub,
/// Mul, Div by a second input of shape (1,) (from opset 7: before, they broadcast only with
/// broadcast=1). Not valid for operators that depend on an axis or on positions (Softmax,
/// LogSoftmax, CumSum, Trilu, LpNormalization, LRN, MeanVarianceNormalization: upstream
/// moves them and changes the values), whose extra inputs broadcast against X (PRelu with
/// a vector slope, per-axis quantization), or that have several outputs
/// (DynamicQuantizeLinear); nor when T has another reader or is a
/// graph output, is not U's first input, when X is a scalar or its rank is unknown, or for
/// a (1,) extra input after a Reshape whose output may be a scalar (the (1,) would give
/// the result a dimension the rewrite loses). A Cast or CastLike to a wider element type
/// stays after the layout node, which would otherwise move wider elements.
/// The chain below moves in one rewrite: further element-wise nodes, and the next layout
/// node of the same kind when it merges with the first (a Transpose: the permutations
/// compose, to an Identity when they cancel; a plain Reshape to a constant shape without a
/// 0: only the last shape counts) with the element-wise nodes after it; each node the only
/// reader of the previous one. Upstream swaps one pair per match: a chain Reshape, Relu,
/// Reshape, Relu... then only rotates, n iterations of n swaps; here each iteration halves
/// its Reshapes.
class SwapUnaryPattern final : public PatternOptimization {
 public:
  static constexpr std::string_view kName = "SwapUnaryPattern";
  static constexpr NumericalClass kNumerics = NumericalClass::kExact;
  SwapUnaryPattern() : PatternOptimization(0) {}

  std::string Name() const override { return std::string(kName); }
  std::set<std::string> FastOpType() const override { return {"Transpose", "Reshape"}; }
  MatchResult Match(GraphGraph& graph, const NodeProto& node) const override;
  utils::RepeatedProtoField<NodeProto> Apply(GraphGraph& graph,
                                             const std::vector<const NodeProto*>& nodes) const override;
};

}  // namespace onnxopt::onnx_patterns
