#pragma once

#include <string_view>

#include "onnx_core/optimizer/pattern.h"

namespace onnxopt::onnx_patterns {

using core::builder::GraphGraph;
using core::builder::MatchResult;
using core::builder::NumericalClass;
using core::builder::PatternOptimization;

/// BatchNormalization(X, 1, 0, 0, 1) with epsilon=0 in inference mode => Identity(X):
/// (X - 0) / sqrt(1 + 0) * 1 + 0 is X (up to the sign of a zero).
/// Before:  Y = BatchNormalization<epsilon=0>(X, ones, zeros, zeros, ones)
/// After:   Y = Identity(X)
/// Not valid with the default epsilon (1e-5): X / sqrt(1 + 1e-5) is not X. Not valid in
/// training mode (any momentum): the batch statistics normalise, not mean and var. Training
/// mode is training_mode=1, and before opset 14 (no training_mode) more than one output,
/// used or not, empty names included (onnxruntime counts them). The running mean and
/// variance outputs must be unused (a graph output would disappear).
class BatchNormalizationPattern final : public PatternOptimization {
 public:
  static constexpr std::string_view kName = "BatchNormalizationPattern";
  static constexpr NumericalClass kNumerics = NumericalClass::kExact;
  BatchNormalizationPattern() : PatternOptimization(0) {}

  std::string Name() const override { return std::string(kName); }
  std::set<std::string> FastOpType() const override;
  MatchResult Match(GraphGraph& graph, const NodeProto& bn) const override;
  utils::RepeatedProtoField<NodeProto> Apply(GraphGraph& graph,
                                             const std::vector<const NodeProto*>& nodes) const override;
};

}  // namespace onnxopt::onnx_patterns
