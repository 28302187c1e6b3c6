#pragma once

#include <string_view>

#include "onnx_core/optimizer/pattern.h"

namespace onnxopt::onnx_patterns {

using core::builder::GraphGraph;
using core::builder::MatchResult;
using core::builder::NumericalClass;
using core::builder::PatternOptimization;

/// Add(Conv(x, W[, B]), k) => Conv(x, W, B + k), k a constant per output channel.
/// Before:  c = Conv<attrs>(x, W[, B]); y = Add(c, k)   (or Add(k, c))
/// After:   y = Conv<attrs>(x, W, B')              (B' = B + k, or k when the Conv has no bias)
/// The same for ConvTranspose. k has shape [M, 1, ...], [1, M, 1, ...], [1] or () once
/// left-padded to the output rank: any other shape would change the output's shape or
/// need a value per position. Not valid when c has another use, or when W or B is not a
/// constant within the folding limits (a graph input is overridable).
/// W is kept as it is (it may be shared). The bias sum rounds once where the original
/// rounded twice: kRounding. Not valid when B + k is beyond the largest finite value of
/// the type (float16 60000 + 60000 is +inf, where the original adds both to an output that
/// may bring the sum back in range).
class ConvAddPattern final : public PatternOptimization {
 public:
  static constexpr std::string_view kName = "ConvAddPattern";
  static constexpr NumericalClass kNumerics = NumericalClass::kRounding;
  ConvAddPattern() : PatternOptimization(0) {}

  std::string Name() const override { return std::string(kName); }
  std::set<std::string> FastOpType() const override { return {"Add"}; }
  MatchResult Match(GraphGraph& graph, const NodeProto& add) const override;
  utils::RepeatedProtoField<NodeProto> Apply(GraphGraph& graph,
                                             const std::vector<const NodeProto*>& nodes) const override;
};

}  // namespace onnxopt::onnx_patterns
