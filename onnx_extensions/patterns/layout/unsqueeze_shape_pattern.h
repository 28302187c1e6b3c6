#pragma once

#include <string_view>

#include "onnx_core/optimizer/pattern.h"

namespace onnxopt::onnx_patterns {

using core::builder::GraphGraph;
using core::builder::MatchResult;
using core::builder::NumericalClass;
using core::builder::PatternOptimization;

/// Shape<start, end>(Unsqueeze(X, axes)) => Concat of slices of Shape(X) and [1] pieces: the
/// shape of an unsqueezed tensor is the shape of its input with 1s inserted.
/// Before:  U = Unsqueeze(X, axes); Y = Shape<start, end>(U)
/// After:   Y = Concat<axis=0>(pieces) where, walking the positions of U within
///          [start, end), a run of dims of X gives Shape<start=xs, end=xe>(X) and an
///          inserted axis gives the constant [1]      (U kept when it has other readers)
/// The Shape is the first one reading U in graph order; other Shapes are left alone. Needs
/// the rank of X (to place the axes and resolve start/end), constant axes (opset 13+) and
/// opset 15 (Shape with start and end). Not applied to an empty range: a Concat needs an
/// input.
class UnsqueezeShapePattern final : public PatternOptimization {
 public:
  static constexpr std::string_view kName = "UnsqueezeShapePattern";
  static constexpr NumericalClass kNumerics = NumericalClass::kExact;
  UnsqueezeShapePattern() : PatternOptimization(0) {}

  std::string Name() const override { return std::string(kName); }
  std::set<std::string> FastOpType() const override { return {"Unsqueeze"}; }
  MatchResult Match(GraphGraph& graph, const NodeProto& node) const override;
  utils::RepeatedProtoField<NodeProto> Apply(GraphGraph& graph,
                                             const std::vector<const NodeProto*>& nodes) const override;
};

}  // namespace onnxopt::onnx_patterns
