#pragma once

#include <string_view>

#include "onnx_core/optimizer/pattern.h"

namespace onnxopt::onnx_patterns {

using core::builder::GraphGraph;
using core::builder::MatchResult;
using core::builder::NumericalClass;
using core::builder::PatternOptimization;

/// Transpose(DequantizeLinear(C, scale, zero_point), p) => DequantizeLinear(C', scale,
/// zero_point) with C' = Transpose(C, p), folded: the quantized constant is stored in the
/// layout its reader wants, as onnxruntime's transpose optimizer stores it. Channels-last
/// converters write quantized weights this way (a TFLite OHWI kernel, then a Transpose to
/// OIHW before the Conv); constant folding leaves DequantizeLinear (the weights stay
/// integers), so without this rewrite the Transpose would run at every inference.
/// Before:  W = DequantizeLinear<axis=a>(C, scale, zero_point); Y = Transpose<perm=p>(W)
/// After:   Y = DequantizeLinear<axis=a'>(Ct, scale, zero_point), Ct the folded Transpose of
///          C, a' the position of axis a in p (per-axis quantization; a per-tensor one keeps
///          its attributes)
/// Exact: DequantizeLinear is element-wise along its axis. Not applied when the
/// DequantizeLinear has another reader (C would be stored twice), to blocked quantization
/// (block_size, opset 21: its scale has C's rank and would move too), nor when the
/// transposed constant is too large for folding to store it.
class DequantizeLinearTransposePattern final : public PatternOptimization {
 public:
  static constexpr std::string_view kName = "DequantizeLinearTransposePattern";
  static constexpr NumericalClass kNumerics = NumericalClass::kExact;
  DequantizeLinearTransposePattern() : PatternOptimization(0) {}

  std::string Name() const override { return std::string(kName); }
  std::set<std::string> FastOpType() const override { return {"Transpose"}; }
  MatchResult Match(GraphGraph& graph, const NodeProto& node) const override;
  utils::RepeatedProtoField<NodeProto> Apply(GraphGraph& graph,
                                             const std::vector<const NodeProto*>& nodes) const override;
};

}  // namespace onnxopt::onnx_patterns
