#pragma once

#include <string_view>

#include "onnx_core/optimizer/pattern.h"

namespace onnxopt::onnx_patterns {

using core::builder::GraphGraph;
using core::builder::MatchResult;
using core::builder::NumericalClass;
using core::builder::PatternOptimization;

/// Flatten<axis=1>(x) => x when x has rank 2: the output is [d0, d1], x's own shape.
/// Before:  y = Flatten<axis=1>(x)   (x of rank 2)
/// After:   y = Identity(x)
/// Exact. Other ranks or axes change the shape (unless dimensions are 1: left to Reshape patterns).
class FlattenSameShapePattern final : public PatternOptimization {
 public:
  static constexpr std::string_view kName = "FlattenSameShapePattern";
  static constexpr NumericalClass kNumerics = NumericalClass::kExact;
  FlattenSameShapePattern() : PatternOptimization(0) {}

  std::string Name() const override { return std::string(kName); }
  std::set<std::string> FastOpType() const override { return {"Flatten"}; }
  MatchResult Match(GraphGraph& graph, const NodeProto& flatten) const override;
  utils::RepeatedProtoField<NodeProto> Apply(GraphGraph& graph,
                                             const std::vector<const NodeProto*>& nodes) const override;
};

}  // namespace onnxopt::onnx_patterns
