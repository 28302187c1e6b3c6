#pragma once

#include <string_view>

#include "onnx_core/optimizer/pattern.h"

namespace onnxopt::onnx_patterns {

using core::builder::GraphGraph;
using core::builder::MatchResult;
using core::builder::NumericalClass;
using core::builder::PatternOptimization;

/// Where(Cast(Expand(x, s)), Expand(x, s), o) => Expand(Where(Cast(x), x, o), s): Cast and
/// Where are pointwise, so they can run before the Expand on the smaller tensor.
/// Before:  e = Expand(x, s); c = Cast<to=T>(e); y = Where(c, e, o)      (or Where(c, o, e))
/// After:   c2 = Cast<to=T>(x); w = Where(c2, x, o); y = Expand(w, s)
/// Not valid when e or c are read elsewhere (e a graph output), for Where(c, e, e), or
/// when x and o do not broadcast; only applied when the broadcast of x and o is no larger
/// than the output in every dimension it does not take from x.
class ShapeBasedExpandCastWhereSwapPattern final : public PatternOptimization {
 public:
  static constexpr std::string_view kName = "ShapeBasedExpandCastWhereSwapPattern";
  static constexpr NumericalClass kNumerics = NumericalClass::kExact;
  ShapeBasedExpandCastWhereSwapPattern() : PatternOptimization(1) {}

  std::string Name() const override { return std::string(kName); }
  std::set<std::string> FastOpType() const override { return {"Where"}; }
  MatchResult Match(GraphGraph& graph, const NodeProto& node) const override;
  utils::RepeatedProtoField<NodeProto> Apply(GraphGraph& graph,
                                             const std::vector<const NodeProto*>& nodes) const override;
};

}  // namespace onnxopt::onnx_patterns
