#pragma once

#include <string_view>

#include "onnx_core/optimizer/pattern.h"

namespace onnxopt::onnx_patterns {

using core::builder::GraphGraph;
using core::builder::MatchResult;
using core::builder::NumericalClass;
using core::builder::PatternOptimization;

/// SequenceAt(SplitToSequence(X, split), j) for j = 0..m-1 => the outputs of one Split.
/// Before:  seq = SplitToSequence<axis=a, keepdims=k>(X, split?); Yj = SequenceAt(seq, j)
/// After:   Y0, ..., Ym-1 = Split<axis=a>(X, split)               (1-D split of length m)
///          P0, ..., Pm-1 = Split<axis=a, num_outputs=m>(X); Yj = Squeeze(Pj, {a})  (no split,
///          keepdims=0; with keepdims=1 the Split writes Yj; below opset 18 sizes of ones)
/// Not valid when the sequence has another reader or is a graph output, when the positions
/// are not exactly 0..m-1, when the number of chunks is not m (a 1-D split of another
/// length, no split and X.shape[a] != m), nor for a scalar split (chunks of that size, not
/// a Split input: rejected). keepdims is ignored by ONNX when split is given.
class SplitToSequenceSequenceAtPattern final : public PatternOptimization {
 public:
  static constexpr std::string_view kName = "SplitToSequenceSequenceAtPattern";
  static constexpr NumericalClass kNumerics = NumericalClass::kExact;
  SplitToSequenceSequenceAtPattern() : PatternOptimization(1) {}

  std::string Name() const override { return std::string(kName); }
  std::set<std::string> FastOpType() const override { return {"SplitToSequence"}; }
  MatchResult Match(GraphGraph& graph, const NodeProto& node) const override;
  utils::RepeatedProtoField<NodeProto> Apply(GraphGraph& graph,
                                             const std::vector<const NodeProto*>& nodes) const override;
};

}  // namespace onnxopt::onnx_patterns
