#pragma once

#include <string_view>

#include "onnx_core/optimizer/pattern.h"

namespace onnxopt::onnx_patterns {

using core::builder::GraphGraph;
using core::builder::MatchResult;
using core::builder::NumericalClass;
using core::builder::PatternOptimization;

/// Op(Expand(x, s), o) => Op(x, o) for a binary elementwise Op whose other operand o
/// already has the shape s, so that broadcasting x against o gives the same result.
/// Before:  e = Expand(x, s); z = Op(e, o)      (or Op(o, e))
/// After:   z = Op(x, o)                        (same operand order, same attributes)
/// Not valid when o is smaller than s (the Expand does more than the broadcast), when x
/// has a symbolic dimension, when e has another reader, or for Op(e, e) and non-
/// elementwise consumers (MatMul).
class ExpandBroadcastPattern final : public PatternOptimization {
 public:
  static constexpr std::string_view kName = "ExpandBroadcastPattern";
  static constexpr NumericalClass kNumerics = NumericalClass::kExact;
  ExpandBroadcastPattern() : PatternOptimization(1) {}

  std::string Name() const override { return std::string(kName); }
  std::set<std::string> FastOpType() const override { return {"Expand"}; }
  MatchResult Match(GraphGraph& graph, const NodeProto& node) const override;
  utils::RepeatedProtoField<NodeProto> Apply(GraphGraph& graph,
                                             const std::vector<const NodeProto*>& nodes) const override;
};

}  // namespace onnxopt::onnx_patterns
