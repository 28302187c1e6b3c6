#pragma once

#include <string_view>

#include "onnx_core/optimizer/pattern.h"

namespace onnxopt::onnx_patterns {

using core::builder::GraphGraph;
using core::builder::MatchResult;
using core::builder::NumericalClass;
using core::builder::PatternOptimization;

/// Pad(x, 0...) => x: padding by zero elements on every side, whatever the mode.
/// Before:  y = Pad<mode>(x, pads[, constant_value[, axes]])   (opset 11+; pads attribute before)
/// After:   y = Identity(x)
/// Not valid when a pad is not a constant 0 (a negative pad crops), nor when the pads do
/// not hold two values per padded axis (the input's rank, or the axes' count from opset
/// 18): the Pad fails there. Exact.
class PadZerosPattern final : public PatternOptimization {
 public:
  static constexpr std::string_view kName = "PadZerosPattern";
  static constexpr NumericalClass kNumerics = NumericalClass::kExact;
  PadZerosPattern() : PatternOptimization(0) {}

  std::string Name() const override { return std::string(kName); }
  std::set<std::string> FastOpType() const override { return {"Pad"}; }
  MatchResult Match(GraphGraph& graph, const NodeProto& pad) const override;
  utils::RepeatedProtoField<NodeProto> Apply(GraphGraph& graph,
                                             const std::vector<const NodeProto*>& nodes) const override;
};

}  // namespace onnxopt::onnx_patterns
