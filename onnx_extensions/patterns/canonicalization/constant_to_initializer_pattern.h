#pragma once

#include <string_view>

#include "onnx_core/optimizer/pattern.h"

namespace onnxopt::onnx_patterns {

using core::builder::GraphGraph;
using core::builder::MatchResult;
using core::builder::NumericalClass;
using core::builder::PatternOptimization;

/// Constant<value=v>() => Identity(initializer v): constants live in initializers.
/// Before:  y = Constant<value=v>()           (or value_float(s), value_int(s), value_string(s), sparse_value)
/// After:   y = Identity(y_cst2init)          with the new initializer y_cst2init = v
///          (identity removal then makes the readers of y read the initializer)
/// Not valid when the value cannot be read (the Constant is left alone), nor inside a
/// nested graph when y is also a name of an enclosing graph: y would shadow that value.
class ConstantToInitializerPattern final : public PatternOptimization {
 public:
  static constexpr std::string_view kName = "ConstantToInitializerPattern";
  static constexpr NumericalClass kNumerics = NumericalClass::kExact;
  ConstantToInitializerPattern() : PatternOptimization(1) {}

  std::string Name() const override { return std::string(kName); }
  std::set<std::string> FastOpType() const override { return {"Constant"}; }
  MatchResult Match(GraphGraph& graph, const NodeProto& constant) const override;
  utils::RepeatedProtoField<NodeProto> Apply(GraphGraph& graph,
                                             const std::vector<const NodeProto*>& nodes) const override;
};

}  // namespace onnxopt::onnx_patterns
