#pragma once

#include <string_view>

#include "onnx_core/optimizer/pattern.h"

namespace onnxopt::onnx_patterns {

using core::builder::GraphGraph;
using core::builder::MatchResult;
using core::builder::NumericalClass;
using core::builder::PatternOptimization;

/// Split(x) with one output => x.
/// Before:  y = Split<axis>(x[, split])
/// After:   y = Identity(x)
/// One output is the whole input whatever the axis (a valid split then lists the axis length). Exact.
class SplitSingleOutputPattern final : public PatternOptimization {
 public:
  static constexpr std::string_view kName = "SplitSingleOutputPattern";
  static constexpr NumericalClass kNumerics = NumericalClass::kExact;
  SplitSingleOutputPattern() : PatternOptimization(0) {}

  std::string Name() const override { return std::string(kName); }
  std::set<std::string> FastOpType() const override { return {"Split"}; }
  MatchResult Match(GraphGraph& graph, const NodeProto& split) const override;
  utils::RepeatedProtoField<NodeProto> Apply(GraphGraph& graph,
                                             const std::vector<const NodeProto*>& nodes) const override;
};

}  // namespace onnxopt::onnx_patterns
