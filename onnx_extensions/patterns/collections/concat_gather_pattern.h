#pragma once

#include <string_view>

#include "onnx_core/optimizer/pattern.h"

namespace onnxopt::onnx_patterns {

using core::builder::GraphGraph;
using core::builder::MatchResult;
using core::builder::NumericalClass;
using core::builder::PatternOptimization;

/// Gather(Concat(I1, ..., In), {i}) => the element i read directly from the piece holding it.
/// Before:  D = Concat(I1, ..., In); Y = Gather(D, {i})         (1-D pieces, int64 index of shape (1,))
/// After:   Y = Identity(Ik)                       when Ik has length 1
///          Y = Shape<start=s+l, end=s+l+1>(Z)     when Ik = Shape<start=s>(Z) (opset >= 15)
///          Y = Gather(Ik, {l})                    otherwise, l = i - offset of Ik
///          (D kept if it has other readers)
/// Not valid for a negative index (it counts from the end of D, not of a piece: rejected),
/// an index past the end, or a piece before Ik of symbolic length (the offset is unknown).
class ConcatGatherPattern final : public PatternOptimization {
 public:
  static constexpr std::string_view kName = "ConcatGatherPattern";
  static constexpr NumericalClass kNumerics = NumericalClass::kExact;
  ConcatGatherPattern() : PatternOptimization(0) {}

  std::string Name() const override { return std::string(kName); }
  std::set<std::string> FastOpType() const override { return {"Gather"}; }
  MatchResult Match(GraphGraph& graph, const NodeProto& node) const override;
  utils::RepeatedProtoField<NodeProto> Apply(GraphGraph& graph,
                                             const std::vector<const NodeProto*>& nodes) const override;
};

}  // namespace onnxopt::onnx_patterns
