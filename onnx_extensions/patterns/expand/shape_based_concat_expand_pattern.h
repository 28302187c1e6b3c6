#pragma once

#include <string_view>

#include "onnx_core/optimizer/pattern.h"

namespace onnxopt::onnx_patterns {

using core::builder::GraphGraph;
using core::builder::MatchResult;
using core::builder::NumericalClass;
using core::builder::PatternOptimization;

/// Expand(x, Concat(d0, ..., dr-1)) => Expand(x, Concat(1, ..., dp, ..., 1)) when x and the
/// output differ (symbolically) in dimension p only: a 1 keeps the input dimension, which
/// is the output one everywhere else, so the pieces computing the others become dead.
/// Before:  s = Concat<axis=0>(d0, ..., dr-1); y = Expand(x, s)
/// After:   s2 = Concat<axis=0>(one, ..., dp, ..., one); y = Expand(x, s2)
/// Not valid when the Expand changes the rank, when two dimensions differ, when a piece
/// does not hold exactly one element, or when s is read elsewhere; useless when s is
/// constant or the other pieces are already 1.
class ShapeBasedConcatExpandPattern final : public PatternOptimization {
 public:
  static constexpr std::string_view kName = "ShapeBasedConcatExpandPattern";
  static constexpr NumericalClass kNumerics = NumericalClass::kExact;
  ShapeBasedConcatExpandPattern() : PatternOptimization(1) {}

  std::string Name() const override { return std::string(kName); }
  std::set<std::string> FastOpType() const override { return {"Expand"}; }
  MatchResult Match(GraphGraph& graph, const NodeProto& node) const override;
  utils::RepeatedProtoField<NodeProto> Apply(GraphGraph& graph,
                                             const std::vector<const NodeProto*>& nodes) const override;
};

}  // namespace onnxopt::onnx_patterns
