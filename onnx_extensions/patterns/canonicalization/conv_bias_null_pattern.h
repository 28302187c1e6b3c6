#pragma once

#include <string_view>

#include "onnx_core/optimizer/pattern.h"

namespace onnxopt::onnx_patterns {

using core::builder::GraphGraph;
using core::builder::MatchResult;
using core::builder::NumericalClass;
using core::builder::PatternOptimization;

/// Conv(x, w, 0) => Conv(x, w): a constant all-zero bias adds nothing.
/// Before:  y = Conv<attrs>(x, w, b)   (b constant, every element 0)
/// After:   y = Conv<attrs>(x, w)      (b left to dead-initializer cleanup)
/// Not valid when b is not a computable constant or has a non-zero element. Exact up to
/// the sign of zero (adding +0 turns a -0 result into +0).
class ConvBiasNullPattern final : public PatternOptimization {
 public:
  static constexpr std::string_view kName = "ConvBiasNullPattern";
  static constexpr NumericalClass kNumerics = NumericalClass::kExact;
  ConvBiasNullPattern() : PatternOptimization(0) {}

  std::string Name() const override { return std::string(kName); }
  std::set<std::string> FastOpType() const override { return {"Conv"}; }
  MatchResult Match(GraphGraph& graph, const NodeProto& conv) const override;
  utils::RepeatedProtoField<NodeProto> Apply(GraphGraph& graph,
                                             const std::vector<const NodeProto*>& nodes) const override;
};

}  // namespace onnxopt::onnx_patterns
