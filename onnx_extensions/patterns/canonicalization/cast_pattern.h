#pragma once

#include <string_view>

#include "onnx_core/optimizer/pattern.h"

namespace onnxopt::onnx_patterns {

using core::builder::GraphGraph;
using core::builder::MatchResult;
using core::builder::NumericalClass;
using core::builder::PatternOptimization;

/// Cast<to=T>(x: T) => Identity(x): a cast to the type the tensor already has.
/// Before:  y = Cast<to=T>(x)          (x of element type T)
/// After:   y = Identity(x)            (doc string kept)
/// Not valid when the element type of x is unknown (it may be a real conversion), nor
/// when it differs from T.
class CastPattern final : public PatternOptimization {
 public:
  static constexpr std::string_view kName = "CastPattern";
  static constexpr NumericalClass kNumerics = NumericalClass::kExact;
  CastPattern() : PatternOptimization(0) {}

  std::string Name() const override { return std::string(kName); }
  std::set<std::string> FastOpType() const override { return {"Cast"}; }
  MatchResult Match(GraphGraph& graph, const NodeProto& cast) const override;
  utils::RepeatedProtoField<NodeProto> Apply(GraphGraph& graph,
                                             const std::vector<const NodeProto*>& nodes) const override;
};

}  // namespace onnxopt::onnx_patterns
