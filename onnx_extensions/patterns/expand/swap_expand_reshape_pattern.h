#pragma once

#include <string_view>

#include "onnx_core/optimizer/pattern.h"

namespace onnxopt::onnx_patterns {

using core::builder::GraphGraph;
using core::builder::MatchResult;
using core::builder::NumericalClass;
using core::builder::PatternOptimization;

/// Reshape(Expand(x, (d,1,1)), (0,1,-1)) => Expand(Reshape(x, (0,1,-1)), (d,1,1)) for x of
/// rank 3: the Expand enlarges the first dimension only, which the Reshape keeps.
/// Before:  e = Expand(x, s); y = Reshape(e, c)
/// After:   r = Reshape(x, c); y = Expand(r, s)
/// Not valid when c is not exactly (0,1,-1), with allowzero=1 (0 would mean an empty
/// dimension), when x does not have rank 3, when s is not known to be (d,1,1), or when e
/// is read elsewhere.
class SwapExpandReshapePattern final : public PatternOptimization {
 public:
  static constexpr std::string_view kName = "SwapExpandReshapePattern";
  static constexpr NumericalClass kNumerics = NumericalClass::kExact;
  SwapExpandReshapePattern() : PatternOptimization(0) {}

  std::string Name() const override { return std::string(kName); }
  std::set<std::string> FastOpType() const override { return {"Reshape"}; }
  MatchResult Match(GraphGraph& graph, const NodeProto& node) const override;
  utils::RepeatedProtoField<NodeProto> Apply(GraphGraph& graph,
                                             const std::vector<const NodeProto*>& nodes) const override;
};

}  // namespace onnxopt::onnx_patterns
