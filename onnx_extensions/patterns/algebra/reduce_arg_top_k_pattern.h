#pragma once

#include <string_view>

#include "onnx_core/optimizer/pattern.h"

namespace onnxopt::onnx_patterns {

using core::builder::GraphGraph;
using core::builder::MatchResult;
using core::builder::NumericalClass;
using core::builder::PatternOptimization;

/// ReduceMax(X, [a]) and ArgMax<axis=a>(X) => one TopK<axis=a, largest=1>(X, k=1) giving
/// both (ReduceMin and ArgMin: largest=0).
/// Before:  V = ReduceMax<keepdims=kd>(X, axes=[a]); I = ArgMax<axis=a, keepdims=kd>(X)
/// After:   V, I = TopK<axis=a, largest=1>(X, [1])                          (kd = 1)
///          v, i = TopK<axis=a, largest=1>(X, [1]); V = Squeeze(v, [a]); I = Squeeze(i, [a])
/// Same values and, on ties, the same first index. Not valid with select_last_index=1 on
/// the Arg node (TopK returns the first index; upstream reads the attribute from the
/// reduction, which never has it, and fuses anyway), with different keepdims or axes
/// (negative axes are compared after normalizing with the rank of X when it is known),
/// with noop_with_empty_axes=1, when the axes are not one constant axis, before opset 18
/// (axes of ReduceMax/ReduceMin become an input there), or when X has several reductions
/// of that kind (which one to fuse is ambiguous).
class ReduceArgTopKPattern final : public PatternOptimization {
 public:
  static constexpr std::string_view kName = "ReduceArgTopKPattern";
  // Approximate: on NaN the three operators disagree (ReduceMax/ReduceMin propagate it,
  // ArgMax/ArgMin compare it as nothing, TopK orders it above every number), and ONNX
  // leaves their NaN behaviour unspecified; equal on every input without NaN.
  static constexpr NumericalClass kNumerics = NumericalClass::kApproximate;
  ReduceArgTopKPattern() : PatternOptimization(1) {}

  std::string Name() const override { return std::string(kName); }
  std::set<std::string> FastOpType() const override { return {"ArgMax", "ArgMin"}; }
  MatchResult Match(GraphGraph& graph, const NodeProto& node) const override;
  utils::RepeatedProtoField<NodeProto> Apply(GraphGraph& graph,
                                             const std::vector<const NodeProto*>& nodes) const override;
};

}  // namespace onnxopt::onnx_patterns
