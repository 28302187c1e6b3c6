#pragma once

#include <string_view>

#include "onnx_core/optimizer/pattern.h"

namespace onnxopt::onnx_patterns {

using core::builder::GraphGraph;
using core::builder::MatchResult;
using core::builder::NumericalClass;
using core::builder::PatternOptimization;

/// Expand(Unsqueeze(Expand(x, s1), axes), s2) => Expand(Unsqueeze(x, axes), s3), s3 being
/// the broadcast of s1 (a 1 inserted at each axis) and s2 (opset >= 13).
/// Before:  a = Expand(x, s1); b = Unsqueeze(a, axes); y = Expand(b, s2)
/// After:   u = Unsqueeze(x, axes); y = Expand(u, s3)
/// Not valid when the first Expand changes the rank (the axes would refer to another
/// rank), when s1, s2 or axes are not constant, when s1 and s2 do not broadcast, or when a
/// or b is read elsewhere. s3 is the broadcast rule, not the maximum (wrong for 0-sized
/// dimensions).
class ExpandUnsqueezeExpandPattern final : public PatternOptimization {
 public:
  static constexpr std::string_view kName = "ExpandUnsqueezeExpandPattern";
  static constexpr NumericalClass kNumerics = NumericalClass::kExact;
  ExpandUnsqueezeExpandPattern() : PatternOptimization(0) {}

  std::string Name() const override { return std::string(kName); }
  std::set<std::string> FastOpType() const override { return {"Expand"}; }
  MatchResult Match(GraphGraph& graph, const NodeProto& node) const override;
  utils::RepeatedProtoField<NodeProto> Apply(GraphGraph& graph,
                                             const std::vector<const NodeProto*>& nodes) const override;
};

}  // namespace onnxopt::onnx_patterns
