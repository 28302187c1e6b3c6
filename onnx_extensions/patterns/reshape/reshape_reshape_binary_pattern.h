#pragma once

#include <string_view>

#include "onnx_core/optimizer/pattern.h"

namespace onnxopt::onnx_patterns {

using core::builder::GraphGraph;
using core::builder::MatchResult;
using core::builder::NumericalClass;
using core::builder::PatternOptimization;

/// Op(Reshape(x, s), Reshape(y, s)) => Reshape(Op(x, y), s) for an element-wise binary Op
/// when x and y have the same shape: the same Reshape of equal shapes broadcasts nothing.
/// Before:  a = Reshape(x, s); b = Reshape(y, s'); z = Op(a, b)      (s, s' equal constants)
/// After:   t = Op(x, y); z = Reshape(t, s)
/// Not valid when the shape constants differ ((-1, 8) and (8, -1)), when x and y do not have
/// one known shape ((N, 4) and (1, 4) would broadcast differently), or when a or b has other
/// readers (its Reshape would stay and the rewrite would add one). The Op needs exactly two
/// inputs; its attributes (Mod's fmod) are kept.
class ReshapeReshapeBinaryPattern final : public PatternOptimization {
 public:
  static constexpr std::string_view kName = "ReshapeReshapeBinaryPattern";
  static constexpr NumericalClass kNumerics = NumericalClass::kExact;
  ReshapeReshapeBinaryPattern() : PatternOptimization(1) {}

  std::string Name() const override { return std::string(kName); }
  std::set<std::string> FastOpType() const override;
  MatchResult Match(GraphGraph& graph, const NodeProto& op) const override;
  utils::RepeatedProtoField<NodeProto> Apply(GraphGraph& graph,
                                             const std::vector<const NodeProto*>& nodes) const override;
};

}  // namespace onnxopt::onnx_patterns
