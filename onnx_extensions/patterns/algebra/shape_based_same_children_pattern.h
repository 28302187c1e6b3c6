#pragma once

#include <string_view>

#include "onnx_core/optimizer/pattern.h"

namespace onnxopt::onnx_patterns {

using core::builder::GraphGraph;
using core::builder::MatchResult;
using core::builder::NumericalClass;
using core::builder::PatternOptimization;

/// Expands (or Reshapes) of the same data to the same known output shape => the first of
/// them: Expand(D, s) only depends on D and the output shape, and so does Reshape (the
/// elements in row-major order), whatever the shape inputs say.
/// Before:  Y1 = Expand(D, s1); Y2 = Expand(D, s2)         (Y1 and Y2 of the same shape)
/// After:   Y1 = Expand(D, s1); Y2 = Identity(Y1)
/// The readers of the anchor's data D that are default-domain Expand nodes reading D as
/// data are grouped by output shape, then the Reshape nodes; the first group of two or
/// more merges into its first node. Upstream requires all of them to have one shape; a
/// group among others is as correct. Anchored on the first Expand or Reshape reading D,
/// so that the readers of one value are grouped once per iteration. Not valid when an output shape is not fully known
/// (symbolic dims are equal only by name), nor between an Expand and a Reshape.
class ShapeBasedSameChildrenPattern final : public PatternOptimization {
 public:
  static constexpr std::string_view kName = "ShapeBasedSameChildrenPattern";
  static constexpr NumericalClass kNumerics = NumericalClass::kExact;
  ShapeBasedSameChildrenPattern() : PatternOptimization(0) {}

  std::string Name() const override { return std::string(kName); }
  std::set<std::string> FastOpType() const override { return {"Expand", "Reshape"}; }
  MatchResult Match(GraphGraph& graph, const NodeProto& node) const override;
  utils::RepeatedProtoField<NodeProto> Apply(GraphGraph& graph,
                                             const std::vector<const NodeProto*>& nodes) const override;
};

}  // namespace onnxopt::onnx_patterns
