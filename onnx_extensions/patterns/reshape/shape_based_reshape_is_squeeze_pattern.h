#pragma once

#include <string_view>

#include "onnx_core/optimizer/pattern.h"

namespace onnxopt::onnx_patterns {

using core::builder::GraphGraph;
using core::builder::MatchResult;
using core::builder::NumericalClass;
using core::builder::PatternOptimization;

/// Reshape(x, s) (or Expand(x, all ones)) => Unsqueeze(x, axes) or Squeeze(x, axes) when,
/// by the inferred shapes, it only inserts or only removes dimensions equal to 1.
/// Before:  y = Reshape(x, s)            x (2,3,D), y (1,2,3,D,1)
/// After:   y = Unsqueeze(x, (0, 4))     (Squeeze(x, axes of the 1s of x) when y has none)
/// Not valid when the 1s move ((A,1) -> (1,A)), when both sides keep a 1 ((1,A,1) -> (A,1):
/// which 1 goes is not known), or for an Expand whose shape is not all ones (it would
/// broadcast). A symbolic dimension is never taken for 1; it may be 1 at run time, but the
/// rewrite follows the inferred shapes, which hold for every run. Needs opset 18 (axes as
/// an input). The shape computation feeding s becomes dead.
class ShapeBasedReshapeIsSqueezePattern final : public PatternOptimization {
 public:
  static constexpr std::string_view kName = "ShapeBasedReshapeIsSqueezePattern";
  static constexpr NumericalClass kNumerics = NumericalClass::kExact;
  ShapeBasedReshapeIsSqueezePattern() : PatternOptimization(0) {}

  std::string Name() const override { return std::string(kName); }
  std::set<std::string> FastOpType() const override { return {"Expand", "Reshape"}; }
  MatchResult Match(GraphGraph& graph, const NodeProto& node) const override;
  utils::RepeatedProtoField<NodeProto> Apply(GraphGraph& graph,
                                             const std::vector<const NodeProto*>& nodes) const override;
};

}  // namespace onnxopt::onnx_patterns
