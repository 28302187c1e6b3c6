#pragma once

#include <string_view>

#include "onnx_core/optimizer/pattern.h"

namespace onnxopt::onnx_patterns {

using core::builder::GraphGraph;
using core::builder::MatchResult;
using core::builder::NumericalClass;
using core::builder::PatternOptimization;

/// Shape<start, end>(Transpose<perm=p>(X)) => Gather<axis=0>(Shape(X), p[start:end]): the
/// dims of a transposed tensor are the dims of its input in the order of perm.
/// Before:  T = Transpose<perm=p>(X); Y = Shape<start, end>(T)
/// After:   sx = Shape(X); Y = Gather<axis=0>(sx, p[start:end])     (T kept when it has
///          other readers)
/// start and end are resolved against len(p) as the operator does (negative values count
/// from the end, then clamped). Not applied without perm, nor to an empty range (the
/// Gather index would be empty).
class ShapeTransposePattern final : public PatternOptimization {
 public:
  static constexpr std::string_view kName = "ShapeTransposePattern";
  static constexpr NumericalClass kNumerics = NumericalClass::kExact;
  ShapeTransposePattern() : PatternOptimization(0) {}

  std::string Name() const override { return std::string(kName); }
  std::set<std::string> FastOpType() const override { return {"Shape"}; }
  MatchResult Match(GraphGraph& graph, const NodeProto& node) const override;
  utils::RepeatedProtoField<NodeProto> Apply(GraphGraph& graph,
                                             const std::vector<const NodeProto*>& nodes) const override;
};

}  // namespace onnxopt::onnx_patterns
