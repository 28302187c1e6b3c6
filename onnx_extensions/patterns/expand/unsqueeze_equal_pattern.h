#pragma once

#include <string_view>

#include "onnx_core/optimizer/pattern.h"

namespace onnxopt::onnx_patterns {

using core::builder::GraphGraph;
using core::builder::MatchResult;
using core::builder::NumericalClass;
using core::builder::PatternOptimization;

/// Unsqueeze(Equal(r, c), axes) => Equal(Unsqueeze(r, axes), c) when Unsqueeze(r, axes)
/// already exists: the Equal reads it and one Unsqueeze disappears.
/// Before:  u = Unsqueeze(r, axes); e = Equal(r, c); m = Unsqueeze(e, axes)
/// After:   u = Unsqueeze(r, axes); m = Equal(u, c)
/// Not valid unless c is a constant of shape () or (1,) (a larger c broadcasts against
/// other axes), nor when r has rank 0 and c shape (1,) (the results' ranks differ), nor
/// when e is read elsewhere. The two Unsqueezes must use the same axes tensor (opset >=
/// 13) or equal axes attributes (opset < 13); r must have no other reader, so that the
/// rewrite removes a node.
class UnsqueezeEqualPattern final : public PatternOptimization {
 public:
  static constexpr std::string_view kName = "UnsqueezeEqualPattern";
  static constexpr NumericalClass kNumerics = NumericalClass::kExact;
  UnsqueezeEqualPattern() : PatternOptimization(1) {}

  std::string Name() const override { return std::string(kName); }
  std::set<std::string> FastOpType() const override { return {"Equal"}; }
  MatchResult Match(GraphGraph& graph, const NodeProto& node) const override;
  utils::RepeatedProtoField<NodeProto> Apply(GraphGraph& graph,
                                             const std::vector<const NodeProto*>& nodes) const override;
};

}  // namespace onnxopt::onnx_patterns
