#pragma once

#include <string_view>

#include "onnx_core/optimizer/pattern.h"

namespace onnxopt::onnx_patterns {

using core::builder::GraphGraph;
using core::builder::MatchResult;
using core::builder::NumericalClass;
using core::builder::PatternOptimization;

/// Reshape(x, Concat(...)) => Reshape(x, s') with s' a constant derived from the symbolic
/// shapes of x and y by aligning them (a weighted edit distance over groups of up to four
/// dimensions): equal dimensions, groups of integers of equal product, and at most one
/// uncertain step (a symbol on either side), whose dimension the element count gives.
/// Before:  s = Concat(...); y = Reshape(x, s)         e.g. x (2,3,D), y (6,D)
/// After:   y = Reshape(x, s')                          s' = (6, -1)
///          (A,B,4) -> (A,B,2,2) gives (0,0,2,2); (A,6) -> (A,2,3) gives (0,2,3)
/// Not valid when the alignment needs two uncertain steps ((A,B) -> (B,A)), a group holds
/// two symbols on one side ((A,B,C) -> (A,E)), or s' would need two -1. The rewrite trusts
/// the inferred shape of y. Empty tensors are refused: a dimension 0 of y written in s'
/// would copy x's dimension (allowzero=0) and a -1 cannot be inferred beside a 0, so s'
/// may hold a -1 only when every other dim of y is a known positive integer (not a
/// symbol, which may be 0 at run time).
class ShapeBasedEditDistanceReshapePattern final : public PatternOptimization {
 public:
  static constexpr std::string_view kName = "ShapeBasedEditDistanceReshapePattern";
  static constexpr NumericalClass kNumerics = NumericalClass::kExact;
  ShapeBasedEditDistanceReshapePattern() : PatternOptimization(0) {}

  std::string Name() const override { return std::string(kName); }
  std::set<std::string> FastOpType() const override { return {"Reshape"}; }
  MatchResult Match(GraphGraph& graph, const NodeProto& node) const override;
  utils::RepeatedProtoField<NodeProto> Apply(GraphGraph& graph,
                                             const std::vector<const NodeProto*>& nodes) const override;
};

}  // namespace onnxopt::onnx_patterns
