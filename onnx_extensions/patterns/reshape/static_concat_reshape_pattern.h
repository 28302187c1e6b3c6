#pragma once

#include <string_view>

#include "onnx_core/optimizer/pattern.h"

namespace onnxopt::onnx_patterns {

using core::builder::GraphGraph;
using core::builder::MatchResult;
using core::builder::NumericalClass;
using core::builder::PatternOptimization;

/// Reshape(x, Concat(constants, p)) => Reshape(x, Concat(constants, -1)) when p, of shape
/// (1,), is the only input computed at run time: the shape becomes a constant, which
/// constant folding turns into an initializer.
/// Before:  s = Concat(c1, ..., p, ..., ck); y = Reshape(x, s)
/// After:   s' = Concat(c1, ..., -1, ..., ck); y = Reshape(x, s')     (s kept for other readers)
/// Requires the constant inputs (of any length) to be computable and free of -1 (the result
/// would hold two), and p to have the known shape (1,) (a graph input is fine). Not valid
/// unless every other dim of y is a known positive integer: Reshape cannot infer a -1
/// beside a dim that is 0 at run time, which upstream ignores (MinusOneInferableAt).
class StaticConcatReshapePattern final : public PatternOptimization {
 public:
  static constexpr std::string_view kName = "StaticConcatReshapePattern";
  static constexpr NumericalClass kNumerics = NumericalClass::kExact;
  StaticConcatReshapePattern() : PatternOptimization(0) {}

  std::string Name() const override { return std::string(kName); }
  std::set<std::string> FastOpType() const override { return {"Reshape"}; }
  MatchResult Match(GraphGraph& graph, const NodeProto& node) const override;
  utils::RepeatedProtoField<NodeProto> Apply(GraphGraph& graph,
                                             const std::vector<const NodeProto*>& nodes) const override;
};

}  // namespace onnxopt::onnx_patterns
