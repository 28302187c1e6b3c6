#pragma once

#include <string_view>

#include "onnx_core/optimizer/pattern.h"

namespace onnxopt::onnx_patterns {

using core::builder::GraphGraph;
using core::builder::MatchResult;
using core::builder::NumericalClass;
using core::builder::PatternOptimization;

/// U(Expand(x, s), extra...) => Expand(U(x, extra...), s) for a pointwise U: U runs on the
/// smaller tensor.
/// Before:  e = Expand(x, s); z = U(e, extra...)
/// After:   t = U(x, extra...); z = Expand(t, s)
/// Not valid for ops that are not pointwise along the expanded axes (Softmax, CumSum,
/// LRN, Trilu, ...), for PRelu (the slope broadcasts against the smaller input), for
/// multi-output ops, when e is not the first input of U or is read elsewhere.
class ExpandSwapPattern final : public PatternOptimization {
 public:
  static constexpr std::string_view kName = "ExpandSwapPattern";
  static constexpr NumericalClass kNumerics = NumericalClass::kExact;
  ExpandSwapPattern() : PatternOptimization(1) {}

  std::string Name() const override { return std::string(kName); }
  std::set<std::string> FastOpType() const override { return {"Expand"}; }
  MatchResult Match(GraphGraph& graph, const NodeProto& node) const override;
  utils::RepeatedProtoField<NodeProto> Apply(GraphGraph& graph,
                                             const std::vector<const NodeProto*>& nodes) const override;
};

}  // namespace onnxopt::onnx_patterns
