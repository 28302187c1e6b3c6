#pragma once

#include <string_view>

#include "onnx_core/optimizer/pattern.h"

namespace onnxopt::onnx_patterns {

using core::builder::GraphGraph;
using core::builder::MatchResult;
using core::builder::NumericalClass;
using core::builder::PatternOptimization;

/// Reshape(x, (0, ..., 0, k)) => Identity(x) for x of rank len(s): the zeros copy every
/// dimension but the last, and the element count then forces the last one.
/// (The class name keeps upstream's spelling "ShapedBased".)
/// Before:  y = Reshape(x, s)       s = (0, ..., 0, -1) or (0, ..., 0, k)
/// After:   y = Identity(x)
/// Not valid when the rank of x differs from len(s) (the Reshape then merges or splits
/// dimensions), when an entry before the last is not 0, or when the last one is 0 (that form
/// is IdentityPattern's). With a positive k, the last dimension of x must be known to be k:
/// a symbolic or unknown one is not proven equal (for an empty x the count does not force
/// it), and an integer other than k means the model fails at run time, which the rewrite
/// must not hide.
class ShapedBasedReshapePattern final : public PatternOptimization {
 public:
  static constexpr std::string_view kName = "ShapedBasedReshapePattern";
  static constexpr NumericalClass kNumerics = NumericalClass::kExact;
  ShapedBasedReshapePattern() : PatternOptimization(0) {}

  std::string Name() const override { return std::string(kName); }
  std::set<std::string> FastOpType() const override { return {"Reshape"}; }
  MatchResult Match(GraphGraph& graph, const NodeProto& node) const override;
  utils::RepeatedProtoField<NodeProto> Apply(GraphGraph& graph,
                                             const std::vector<const NodeProto*>& nodes) const override;
};

}  // namespace onnxopt::onnx_patterns
