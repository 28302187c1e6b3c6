#pragma once

#include <string_view>

#include "onnx_core/optimizer/pattern.h"

namespace onnxopt::onnx_patterns {

using core::builder::GraphGraph;
using core::builder::MatchResult;
using core::builder::NumericalClass;
using core::builder::PatternOptimization;

/// Unsqueeze(Op(Squeeze(d), c), 0) => Op(d, Unsqueeze(c, 0)) for d of shape (1,), c of rank
/// 0 and Op in Add, Sub, Mul, Div: the same scalar operation, kept in shape (1,).
/// Before:  s = Squeeze(d[, [0]]); q = Op(s, c); e = Unsqueeze(q, z)     (z the scalar 0, or -1)
/// After:   t = Unsqueeze(c, z); e = Op(d, t)
/// Not valid unless s comes from a default-domain Squeeze of axes [0] (or none) of a d of
/// static shape (1,): upstream accepts any one-input node, dropping e.g. a Neg, and a d of
/// shape (3,) changes the output shape. Needs s and q read once and opset 13.
class SqueezeBinaryUnsqueezePattern final : public PatternOptimization {
 public:
  static constexpr std::string_view kName = "SqueezeBinaryUnsqueezePattern";
  static constexpr NumericalClass kNumerics = NumericalClass::kExact;
  SqueezeBinaryUnsqueezePattern() : PatternOptimization(0) {}

  std::string Name() const override { return std::string(kName); }
  std::set<std::string> FastOpType() const override { return {"Unsqueeze"}; }
  MatchResult Match(GraphGraph& graph, const NodeProto& node) const override;
  utils::RepeatedProtoField<NodeProto> Apply(GraphGraph& graph,
                                             const std::vector<const NodeProto*>& nodes) const override;
};

}  // namespace onnxopt::onnx_patterns
