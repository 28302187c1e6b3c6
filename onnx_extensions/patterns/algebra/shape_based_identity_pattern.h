#pragma once

#include <string_view>

#include "onnx_core/optimizer/pattern.h"

namespace onnxopt::onnx_patterns {

using core::builder::GraphGraph;
using core::builder::MatchResult;
using core::builder::NumericalClass;
using core::builder::PatternOptimization;

/// Slice(X, starts, ends[, axes[, steps]]) => Identity(X) when the steps are 1 and shape
/// inference proves the output has X's shape: with unit steps, an output as large as the
/// input keeps every element of every axis, in order.
/// Before:  Y = Slice(X, starts, ends, axes)          (Y and X of the same known shape)
/// After:   Y = Identity(X)
/// Not valid with a step other than 1 (a step of -1 keeps the shape and reverses the
/// elements; other steps are refused too, as upstream), when the steps are not constant,
/// or when a dim of X or Y is unknown (symbolic dims are equal only by name).
class ShapeBasedIdentityPattern final : public PatternOptimization {
 public:
  static constexpr std::string_view kName = "ShapeBasedIdentityPattern";
  static constexpr NumericalClass kNumerics = NumericalClass::kExact;
  ShapeBasedIdentityPattern() : PatternOptimization(0) {}

  std::string Name() const override { return std::string(kName); }
  std::set<std::string> FastOpType() const override { return {"Slice"}; }
  MatchResult Match(GraphGraph& graph, const NodeProto& node) const override;
  utils::RepeatedProtoField<NodeProto> Apply(GraphGraph& graph,
                                             const std::vector<const NodeProto*>& nodes) const override;
};

}  // namespace onnxopt::onnx_patterns
