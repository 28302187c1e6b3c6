#pragma once

#include <string_view>

#include "onnx_core/optimizer/pattern.h"

namespace onnxopt::onnx_patterns {

using core::builder::GraphGraph;
using core::builder::MatchResult;
using core::builder::NumericalClass;
using core::builder::PatternOptimization;

/// X(DequantizeLinear(C, scale, zero_point), ...) => DequantizeLinear(X(C, ...), scale,
/// zero_point) for X a Reshape, Flatten, Squeeze or Unsqueeze with constant shape or axes:
/// folding then stores the quantized constant in the shape its reader wants, where it
/// would otherwise reshape the float weights at every inference (constant folding leaves
/// DequantizeLinear so that the weights stay integers). Exporters write this for a
/// quantized bias or scale vector unsqueezed to broadcast, and for weights flattened or
/// reshaped before a MatMul or Gemm.
/// Before:  W = DequantizeLinear<axis=a>(C, scale, zero_point); Y = Reshape(W, shape)
/// After:   Y = DequantizeLinear<axis=j>(Cr, scale, zero_point), Cr the folded Reshape of C
/// Per-tensor quantization moves through any of the four. Per-axis quantization moves when
/// the quantized axis survives whole: an output axis j of the same length whose preceding
/// dims hold as many elements as those before axis a (then every element keeps its index
/// along the axis: row-major order is unchanged). Exact: DequantizeLinear is element-wise
/// along its axis and the four only relabel positions. Not applied when the DequantizeLinear
/// has another reader, to blocked quantization, when the shape or axes are not constant,
/// when the output shape is not static, or when the constant is too large to fold.
class DequantizeLinearReshapePattern final : public PatternOptimization {
 public:
  static constexpr std::string_view kName = "DequantizeLinearReshapePattern";
  static constexpr NumericalClass kNumerics = NumericalClass::kExact;
  DequantizeLinearReshapePattern() : PatternOptimization(0) {}

  std::string Name() const override { return std::string(kName); }
  std::set<std::string> FastOpType() const override { return {"Reshape", "Flatten", "Squeeze", "Unsqueeze"}; }
  MatchResult Match(GraphGraph& graph, const NodeProto& node) const override;
  utils::RepeatedProtoField<NodeProto> Apply(GraphGraph& graph,
                                             const std::vector<const NodeProto*>& nodes) const override;
};

}  // namespace onnxopt::onnx_patterns
