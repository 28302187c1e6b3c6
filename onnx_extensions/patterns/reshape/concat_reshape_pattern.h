#pragma once

#include <string_view>

#include "onnx_core/optimizer/pattern.h"

namespace onnxopt::onnx_patterns {

using core::builder::GraphGraph;
using core::builder::MatchResult;
using core::builder::NumericalClass;
using core::builder::PatternOptimization;

/// Reshape(x, Concat(p1, ..., pk)) => Reshape(x, Concat(..., -1, ...)): one dimension
/// computed at run time is replaced by -1, which the Reshape infers from the element count,
/// so that its computation can go. The replaced input is the one not produced by a Shape
/// node if there is one, else the last Shape-produced one.
/// Before:  s = Concat(p1, ..., pk); y = Reshape(x, s)
/// After:   s' = Concat(p1, ..., -1, ..., pk); y = Reshape(x, s')   (s kept for other readers)
/// Requires every constant input to hold one element other than -1 (so a second -1 cannot
/// appear, and the pattern does not fire on its own result), every other input to be
/// produced by a node with shape (1,), and at most one of those not to come from Shape.
/// Not valid unless every other dim of y is a known positive integer: Reshape cannot infer
/// a -1 beside a dim that is 0 at run time (a symbolic batch of an empty tensor), which
/// upstream ignores (MinusOneInferableAt).
class ConcatReshapePattern final : public PatternOptimization {
 public:
  static constexpr std::string_view kName = "ConcatReshapePattern";
  static constexpr NumericalClass kNumerics = NumericalClass::kExact;
  ConcatReshapePattern() : PatternOptimization(0) {}

  std::string Name() const override { return std::string(kName); }
  std::set<std::string> FastOpType() const override { return {"Reshape"}; }
  MatchResult Match(GraphGraph& graph, const NodeProto& node) const override;
  utils::RepeatedProtoField<NodeProto> Apply(GraphGraph& graph,
                                             const std::vector<const NodeProto*>& nodes) const override;
};

}  // namespace onnxopt::onnx_patterns
