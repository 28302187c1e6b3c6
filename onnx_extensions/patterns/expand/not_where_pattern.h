#pragma once

#include <string_view>

#include "onnx_core/optimizer/pattern.h"

namespace onnxopt::onnx_patterns {

using core::builder::GraphGraph;
using core::builder::MatchResult;
using core::builder::NumericalClass;
using core::builder::PatternOptimization;

/// Where(Not(c), a, b) => Where(c, b, a)
/// Before:  n = Not(c); y = Where(n, a, b)
/// After:   y = Where(c, b, a)
/// Not valid when n is read elsewhere (a graph output, another node, a nested graph) nor
/// when n is a value branch of the Where (Where(c0, n, b) with boolean branches): only
/// the condition may be negated away.
class NotWherePattern final : public PatternOptimization {
 public:
  static constexpr std::string_view kName = "NotWherePattern";
  static constexpr NumericalClass kNumerics = NumericalClass::kExact;
  NotWherePattern() : PatternOptimization(1) {}

  std::string Name() const override { return std::string(kName); }
  std::set<std::string> FastOpType() const override { return {"Not"}; }
  MatchResult Match(GraphGraph& graph, const NodeProto& node) const override;
  utils::RepeatedProtoField<NodeProto> Apply(GraphGraph& graph,
                                             const std::vector<const NodeProto*>& nodes) const override;
};

}  // namespace onnxopt::onnx_patterns
