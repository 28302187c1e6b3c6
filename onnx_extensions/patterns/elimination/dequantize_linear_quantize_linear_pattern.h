#pragma once

#include <string_view>

#include "onnx_core/optimizer/pattern.h"

namespace onnxopt::onnx_patterns {

using core::builder::GraphGraph;
using core::builder::MatchResult;
using core::builder::NumericalClass;
using core::builder::PatternOptimization;

/// QuantizeLinear(DequantizeLinear(q, scale, zero_point), scale, zero_point) => q.
/// Before:  x = DequantizeLinear<axis>(q, scale, zero_point)
///          y = QuantizeLinear<axis>(x, scale, zero_point)
/// After:   y = Identity(q)          (x kept for its other readers)
/// Quantized models hold such pairs where an operator between two QDQ units went away (a
/// Transpose the transpose optimizer cancelled, a Reshape removed as a no-op), or where a
/// residual branch re-quantizes a value with the parameters it already has; onnxruntime
/// removes them too. Exact: only where the round trip gives back every value
/// (core::builder::QuantizationRoundTripsExactly: 8- or 16-bit data, a float32 scale of
/// normal numbers), the two nodes read the same scale and zero point, quantize along the
/// same axis (and blocks), and y has q's type (a QuantizeLinear without a zero point
/// produces uint8).
class DequantizeLinearQuantizeLinearPattern final : public PatternOptimization {
 public:
  static constexpr std::string_view kName = "DequantizeLinearQuantizeLinearPattern";
  static constexpr NumericalClass kNumerics = NumericalClass::kExact;
  DequantizeLinearQuantizeLinearPattern() : PatternOptimization(0) {}

  std::string Name() const override { return std::string(kName); }
  std::set<std::string> FastOpType() const override { return {"QuantizeLinear"}; }
  MatchResult Match(GraphGraph& graph, const NodeProto& quantize) const override;
  utils::RepeatedProtoField<NodeProto> Apply(GraphGraph& graph,
                                             const std::vector<const NodeProto*>& nodes) const override;
};

}  // namespace onnxopt::onnx_patterns
