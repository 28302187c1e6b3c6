#pragma once

#include <string_view>

#include "onnx_core/optimizer/pattern.h"

namespace onnxopt::onnx_patterns {

using core::builder::GraphGraph;
using core::builder::MatchResult;
using core::builder::NumericalClass;
using core::builder::PatternOptimization;

/// Mul(Conv(x, W, B), k) => Conv(x, W * k, B * k), k a constant per output channel.
/// Before:  c = Conv<attrs>(x, W[, B]); y = Mul(c, k)   (or Mul(k, c))
/// After:   y = Conv<attrs>(x, W', B')          (W' = W * k[o] on output channel o, B' = B * k)
/// The same for ConvTranspose. k has shape [M, 1, ...], [1, M, 1, ...], [1] or () once
/// left-padded to the output rank: any other shape would change the output's shape or
/// need a value per position. Not valid when c has another use, or when W or B is not a
/// constant within the folding limits (a graph input is overridable).
/// W must have no other consumer (folding would copy it). Folded in double, rounded once
/// to the weight type (float16 included); the rounding order changes: kRounding. Not
/// valid when that rounding leaves the range of the type: W * k or B * k beyond the
/// largest finite value (float16 1000 * 100 is +inf where the original multiplies a
/// finite output), or W * k of nonzero factors 0 or subnormal (float 1e-30 * 1e-20 is 0
/// where the original keeps the precision the input multiplies; see fusion::FoldIntoWeights).
class ConvMulPattern final : public PatternOptimization {
 public:
  static constexpr std::string_view kName = "ConvMulPattern";
  static constexpr NumericalClass kNumerics = NumericalClass::kRounding;
  ConvMulPattern() : PatternOptimization(0) {}

  std::string Name() const override { return std::string(kName); }
  std::set<std::string> FastOpType() const override { return {"Mul"}; }
  MatchResult Match(GraphGraph& graph, const NodeProto& mul) const override;
  utils::RepeatedProtoField<NodeProto> Apply(GraphGraph& graph,
                                             const std::vector<const NodeProto*>& nodes) const override;
};

}  // namespace onnxopt::onnx_patterns
