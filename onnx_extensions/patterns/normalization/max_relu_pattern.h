#pragma once

#include <string_view>

#include "onnx_core/optimizer/pattern.h"

namespace onnxopt::onnx_patterns {

using core::builder::GraphGraph;
using core::builder::MatchResult;
using core::builder::NumericalClass;
using core::builder::PatternOptimization;

/// Max(X, 0) or Max(0, X) => Relu(X).
/// Before:  Y = Max(zero, X)
/// After:   Y = Relu(X)
/// For float, float16, int16 and int32 (the integer types from opset 14, when Relu takes
/// them). Not valid with a third input, or when X may be a scalar while the 0 has shape
/// (1,): Max broadcasts to (1,), Relu keeps ().
class MaxReluPattern final : public PatternOptimization {
 public:
  static constexpr std::string_view kName = "MaxReluPattern";
  static constexpr NumericalClass kNumerics = NumericalClass::kExact;
  MaxReluPattern() : PatternOptimization(1) {}

  std::string Name() const override { return std::string(kName); }
  std::set<std::string> FastOpType() const override;
  MatchResult Match(GraphGraph& graph, const NodeProto& node) const override;
  utils::RepeatedProtoField<NodeProto> Apply(GraphGraph& graph,
                                             const std::vector<const NodeProto*>& nodes) const override;
};

}  // namespace onnxopt::onnx_patterns
