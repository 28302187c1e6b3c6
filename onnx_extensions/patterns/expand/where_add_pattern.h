#pragma once

#include <string_view>

#include "onnx_core/optimizer/pattern.h"

namespace onnxopt::onnx_patterns {

using core::builder::GraphGraph;
using core::builder::MatchResult;
using core::builder::NumericalClass;
using core::builder::PatternOptimization;

/// Add(Where(cond, 0, k), x) => Where(cond, x, k) for an infinite constant scalar k.
/// Before:  w = Where(cond, zero, k); y = Add(w, x)      (or Add(x, w))
/// After:   y = Where(cond, x, k)
/// Not exact where cond is false and x is NaN or the infinity opposite to k (x + k is NaN,
/// the rewrite gives k); equal for every finite x. Not valid for a finite k (x + k != k),
/// a first branch other than 0, w read elsewhere, Add(w, w), or when the zero has shape
/// (1,) while k has shape () and nothing else gives the output a dimension.
class WhereAddPattern final : public PatternOptimization {
 public:
  static constexpr std::string_view kName = "WhereAddPattern";
  // Approximate: NaN, or the infinity opposite to k, gives k where the original gives NaN.
  static constexpr NumericalClass kNumerics = NumericalClass::kApproximate;
  WhereAddPattern() : PatternOptimization(1) {}

  std::string Name() const override { return std::string(kName); }
  std::set<std::string> FastOpType() const override { return {"Where"}; }
  MatchResult Match(GraphGraph& graph, const NodeProto& node) const override;
  utils::RepeatedProtoField<NodeProto> Apply(GraphGraph& graph,
                                             const std::vector<const NodeProto*>& nodes) const override;
};

}  // namespace onnxopt::onnx_patterns
