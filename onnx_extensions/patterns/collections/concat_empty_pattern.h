#pragma once

#include <string_view>

#include "onnx_core/optimizer/pattern.h"

namespace onnxopt::onnx_patterns {

using core::builder::GraphGraph;
using core::builder::MatchResult;
using core::builder::NumericalClass;
using core::builder::PatternOptimization;

/// Concat(..., E, ...) => Concat(...) without the inputs that are empty along the axis;
/// Identity of the only remaining input (or of the first input when all are empty).
/// Before:  Y = Concat<axis=a>(A, E, B)        with E.shape[a] == 0 (static)
/// After:   Y = Concat<axis=a>(A, B)
/// Not valid when the zero length is only possible (a symbolic dim): nothing is dropped
/// then. A negative axis is normalized with the rank of each input.
class ConcatEmptyPattern final : public PatternOptimization {
 public:
  static constexpr std::string_view kName = "ConcatEmptyPattern";
  static constexpr NumericalClass kNumerics = NumericalClass::kExact;
  ConcatEmptyPattern() : PatternOptimization(1) {}

  std::string Name() const override { return std::string(kName); }
  std::set<std::string> FastOpType() const override { return {"Concat"}; }
  MatchResult Match(GraphGraph& graph, const NodeProto& node) const override;
  utils::RepeatedProtoField<NodeProto> Apply(GraphGraph& graph,
                                             const std::vector<const NodeProto*>& nodes) const override;
};

}  // namespace onnxopt::onnx_patterns
