#pragma once

#include <string_view>

#include "onnx_core/optimizer/pattern.h"

namespace onnxopt::onnx_patterns {

using core::builder::GraphGraph;
using core::builder::MatchResult;
using core::builder::NumericalClass;
using core::builder::PatternOptimization;

/// Reshape(Squeeze(x, axes), s) or Reshape(Unsqueeze(x, axes), s) => Reshape(x, s): the
/// size-1 dimensions the first node removes or inserts do not change the element count,
/// and the Reshape gives the same shape from x.
/// Before:  u = Unsqueeze(x, axes); y = Reshape(u, s)       (or Squeeze)
/// After:   y = Reshape(x, s)
/// Not valid when u has other readers or s is not constant, or when a 0 of s (which copies
/// u's dimension at its index) is at or after the first removed or inserted axis, where x
/// and u differ (Unsqueeze(x, (1)) with s = (0, 0, -1)). With a 0 in s the axes must be known
/// and not empty: a constant input or the attribute of old opsets, negative axes normalized
/// against rank(x) for Squeeze and rank(x) + len(axes) for Unsqueeze (upstream compares the
/// raw values, and crashes without axes).
class UnsqueezeOrSqueezeReshapePattern final : public PatternOptimization {
 public:
  static constexpr std::string_view kName = "UnsqueezeOrSqueezeReshapePattern";
  static constexpr NumericalClass kNumerics = NumericalClass::kExact;
  UnsqueezeOrSqueezeReshapePattern() : PatternOptimization(0) {}

  std::string Name() const override { return std::string(kName); }
  std::set<std::string> FastOpType() const override { return {"Reshape"}; }
  MatchResult Match(GraphGraph& graph, const NodeProto& node) const override;
  utils::RepeatedProtoField<NodeProto> Apply(GraphGraph& graph,
                                             const std::vector<const NodeProto*>& nodes) const override;
};

}  // namespace onnxopt::onnx_patterns
