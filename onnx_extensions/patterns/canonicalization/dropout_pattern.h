#pragma once

#include <string_view>

#include "onnx_core/optimizer/pattern.h"

namespace onnxopt::onnx_patterns {

using core::builder::GraphGraph;
using core::builder::MatchResult;
using core::builder::NumericalClass;
using core::builder::PatternOptimization;

/// Dropout(x) => Identity(x) in inference mode.
/// Before:  y, mask = Dropout(x, ratio?, training_mode?)      (mask unused or absent)
/// After:   y = Identity(x)
/// Not valid when the mask is read (it has no producer afterwards), nor when the Dropout
/// may run in training mode, where it zeroes and scales values at random: training_mode
/// must be absent or a constant false, unless ratio is a constant 0 (then the op is the
/// identity in both modes). Before opset 7 the attribute is_test must be set.
class DropoutPattern final : public PatternOptimization {
 public:
  static constexpr std::string_view kName = "DropoutPattern";
  static constexpr NumericalClass kNumerics = NumericalClass::kExact;
  DropoutPattern() : PatternOptimization(1) {}

  std::string Name() const override { return std::string(kName); }
  std::set<std::string> FastOpType() const override { return {"Dropout"}; }
  MatchResult Match(GraphGraph& graph, const NodeProto& dropout) const override;
  utils::RepeatedProtoField<NodeProto> Apply(GraphGraph& graph,
                                             const std::vector<const NodeProto*>& nodes) const override;
};

}  // namespace onnxopt::onnx_patterns
