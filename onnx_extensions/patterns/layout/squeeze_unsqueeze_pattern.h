#pragma once

#include <string_view>

#include "onnx_core/optimizer/pattern.h"

namespace onnxopt::onnx_patterns {

using core::builder::GraphGraph;
using core::builder::MatchResult;
using core::builder::NumericalClass;
using core::builder::PatternOptimization;

/// Squeeze(Unsqueeze(X, a1), a2) and Unsqueeze(Squeeze(X, a1), a2) => Identity(X) when
/// a1 == a2; Squeeze(Unsqueeze(X, a1), a2) => Squeeze(X, e) when a1 is a strict subset of
/// a2 (e: the other axes of a2 in the coordinates of X); Squeeze(Unsqueeze(X, a1)) =>
/// Squeeze(X) (a Squeeze without axes removes the inserted 1s with every other 1).
/// Before:  U = Unsqueeze(X, a1); Y = Squeeze(U[, a2])
///     or   U = Squeeze(X[, a1]); Y = Unsqueeze(U, a2)
/// After:   Y = Identity(X)  or  Y = Squeeze(X, e)  or  Y = Squeeze(X)
///          (U kept when it has other readers)
/// Axes are normalized before comparing, both against the rank of the larger tensor
/// (upstream compares raw values and turns [-1] / [-1, 0] into a wrong Squeeze). A first
/// Squeeze without axes removes the 1s of X, known only when X is static: a symbolic dim
/// may be 1 at run time. Equal lists of several axes must be consecutive increasing, as
/// upstream requires. Not applied to the attribute form (opset < 13), nor to an empty
/// axes list of a Squeeze (read as "every axis" by some runtimes).
class SqueezeUnsqueezePattern final : public PatternOptimization {
 public:
  static constexpr std::string_view kName = "SqueezeUnsqueezePattern";
  static constexpr NumericalClass kNumerics = NumericalClass::kExact;
  SqueezeUnsqueezePattern() : PatternOptimization(0) {}

  std::string Name() const override { return std::string(kName); }
  std::set<std::string> FastOpType() const override { return {"Squeeze", "Unsqueeze"}; }
  MatchResult Match(GraphGraph& graph, const NodeProto& node) const override;
  utils::RepeatedProtoField<NodeProto> Apply(GraphGraph& graph,
                                             const std::vector<const NodeProto*>& nodes) const override;
};

}  // namespace onnxopt::onnx_patterns
