#pragma once

#include <string_view>

#include "onnx_core/optimizer/pattern.h"

namespace onnxopt::onnx_patterns {

using core::builder::GraphGraph;
using core::builder::MatchResult;
using core::builder::NumericalClass;
using core::builder::PatternOptimization;

/// The RoPE cos/sin caches computed from positions and inverse frequencies => a call to the
/// local function intermediate.CosSinCache[WithRange][_to<T>][_p<axes>] (stage 1).
/// Before:  [p1 = Squeeze(dim1); p2 = Squeeze(dim2); pos = Range(p1, p2, 1)]   (or pos an input)
///          u = Unsqueeze(pos, axes); f = Cast<to=FLOAT>(u)   (in either order; axes [0,1] with
///          the Range, [1] without); r = Reshape(f, [0, -1, 1]); m = Mul(weights, r)
///          cos = Cos(m) [-> Cast<to=T>]; sin = Sin(m) [-> Cast<to=T>]
/// After:   cos, sin = intermediate.CosSinCacheWithRange_to<T>(dim1, dim2, weights)
///          (or (position_ids, weights)), the body being the same computation (Unsqueeze
///          before Cast, which commutes). The position chain up to the Reshape is left to the
///          cleanup, kept while something else reads it. Exact.
/// Not valid when the model already defines the function of that name with another content:
/// the call would run that body, and the model cannot hold two functions of one name
/// (GraphBuilder::GetOrAddFunction refuses).
class FunctionCosSinCachePattern final : public PatternOptimization {
 public:
  static constexpr std::string_view kName = "FunctionCosSinCachePattern";
  static constexpr NumericalClass kNumerics = NumericalClass::kExact;
  FunctionCosSinCachePattern() : PatternOptimization(1) {}

  std::string Name() const override { return std::string(kName); }
  std::set<std::string> FastOpType() const override { return {"Cos"}; }
  MatchResult Match(GraphGraph& graph, const NodeProto& node) const override;
  utils::RepeatedProtoField<NodeProto> Apply(GraphGraph& graph,
                                             const std::vector<const NodeProto*>& nodes) const override;
};

}  // namespace onnxopt::onnx_patterns
