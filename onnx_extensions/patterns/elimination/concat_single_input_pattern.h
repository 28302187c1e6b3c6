#pragma once

#include <string_view>

#include "onnx_core/optimizer/pattern.h"

namespace onnxopt::onnx_patterns {

using core::builder::GraphGraph;
using core::builder::MatchResult;
using core::builder::NumericalClass;
using core::builder::PatternOptimization;

/// Concat(x) with one input => x.
/// Before:  y = Concat<axis>(x)
/// After:   y = Identity(x)
/// Exact.
class ConcatSingleInputPattern final : public PatternOptimization {
 public:
  static constexpr std::string_view kName = "ConcatSingleInputPattern";
  static constexpr NumericalClass kNumerics = NumericalClass::kExact;
  ConcatSingleInputPattern() : PatternOptimization(0) {}

  std::string Name() const override { return std::string(kName); }
  std::set<std::string> FastOpType() const override { return {"Concat"}; }
  MatchResult Match(GraphGraph& graph, const NodeProto& concat) const override;
  utils::RepeatedProtoField<NodeProto> Apply(GraphGraph& graph,
                                             const std::vector<const NodeProto*>& nodes) const override;
};

}  // namespace onnxopt::onnx_patterns
