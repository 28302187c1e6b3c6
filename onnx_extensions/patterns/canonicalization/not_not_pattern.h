#pragma once

#include <string_view>

#include "onnx_core/optimizer/pattern.h"

namespace onnxopt::onnx_patterns {

using core::builder::GraphGraph;
using core::builder::MatchResult;
using core::builder::NumericalClass;
using core::builder::PatternOptimization;

/// Not(Not(x)) => Identity(x).
/// Before:  m = Not(x); y = Not(m)
/// After:   y = Identity(x)            (m kept if it has other readers)
/// Always valid for two default-domain Nots (boolean negation is an involution).
class NotNotPattern final : public PatternOptimization {
 public:
  static constexpr std::string_view kName = "NotNotPattern";
  static constexpr NumericalClass kNumerics = NumericalClass::kExact;
  NotNotPattern() : PatternOptimization(1) {}

  std::string Name() const override { return std::string(kName); }
  std::set<std::string> FastOpType() const override { return {"Not"}; }
  MatchResult Match(GraphGraph& graph, const NodeProto& second) const override;
  utils::RepeatedProtoField<NodeProto> Apply(GraphGraph& graph,
                                             const std::vector<const NodeProto*>& nodes) const override;
};

}  // namespace onnxopt::onnx_patterns
