#pragma once

#include <string_view>

#include "onnx_core/optimizer/pattern.h"

namespace onnxopt::onnx_patterns {

using core::builder::GraphGraph;
using core::builder::MatchResult;
using core::builder::NumericalClass;
using core::builder::PatternOptimization;

/// Reshape(Unsqueeze(x, (2)), (0, 1, -1, 0)) => Unsqueeze(x, (1)) for x of rank 3: with x
/// (a, b, c), u is (a, b, 1, c) and the Reshape gives (a, 1, b, c). Upstream handles this one
/// case only, and so does this pattern (axis -2 is the same axis).
/// Before:  u = Unsqueeze(x, (2)); y = Reshape(u, (0, 1, -1, 0))
/// After:   y = Unsqueeze(x, (1))
/// Not valid for other axes or shapes (axes (1) with the same shape is a no-op Reshape, left
/// to other patterns), for x of another rank, or when u has other readers. The Unsqueeze must
/// take its axes as an input (opset 13+), the form the rewrite writes.
class UnsqueezeReshapePattern final : public PatternOptimization {
 public:
  static constexpr std::string_view kName = "UnsqueezeReshapePattern";
  static constexpr NumericalClass kNumerics = NumericalClass::kExact;
  UnsqueezeReshapePattern() : PatternOptimization(0) {}

  std::string Name() const override { return std::string(kName); }
  std::set<std::string> FastOpType() const override { return {"Reshape"}; }
  MatchResult Match(GraphGraph& graph, const NodeProto& node) const override;
  utils::RepeatedProtoField<NodeProto> Apply(GraphGraph& graph,
                                             const std::vector<const NodeProto*>& nodes) const override;
};

}  // namespace onnxopt::onnx_patterns
