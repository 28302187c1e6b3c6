#pragma once

#include <string_view>

#include "onnx_core/optimizer/pattern.h"

namespace onnxopt::onnx_patterns {

using core::builder::GraphGraph;
using core::builder::MatchResult;
using core::builder::NumericalClass;
using core::builder::PatternOptimization;

/// Reshape(Reshape(x, s1), s2) => Reshape(x, s') where s' gives on x what s2 gives on the
/// intermediate t. Only the zeros of s2 depend on t (they copy t's dimension at their
/// index); positive entries and a -1 only depend on the element count, which x and t share.
/// Before:  t = Reshape(x, s1); y = Reshape(t, s2)
/// After:   y = Reshape(x, s')
///   s2 constant without 0:             s' = s2
///   s2 constant, s1 constant:          s' = s2 with each 0 at j replaced by s1[j] (s1[j] > 0)
///                                      or kept (s1[j] = 0 copies x[j], which t[j] is)
///   s2 constant, s1 computed:          s' = Concat(s1[k] where s2[k] = 0, else s2[k])
///   s2 computed, its value without 0:  s' = s2
/// Not valid when t has other readers, when a 0 of s2 faces a -1 of s1 (t's dimension is
/// inferred there: copying it would need a second -1) or has no entry of s1 at its index,
/// or when a computed s2 may hold a 0 (it would copy a dimension of x instead of t): a
/// symbolic entry may be 0 at run time, so it must face equal dims of x and t. The
/// gathered form needs s1 to hold no -1 where s2 has 0 when s2 has a -1 itself (two -1).
/// Like upstream, the computed forms also need the ranks of x, t, y and the shapes of x
/// and y, and a computed s2 needs a constant s1 without -1 or, when s2 has a -1, a value of
/// s1 known without -1. Upstream's fallback that resolves the zeros of s2 against x is
/// wrong when rank(x) = rank(y) (x (2,3,4), s1 = (3,2,4), s2 = (0,0,-1)): not reproduced.
class ReshapeReshapePattern final : public PatternOptimization {
 public:
  static constexpr std::string_view kName = "ReshapeReshapePattern";
  static constexpr NumericalClass kNumerics = NumericalClass::kExact;
  ReshapeReshapePattern() : PatternOptimization(0) {}

  std::string Name() const override { return std::string(kName); }
  std::set<std::string> FastOpType() const override { return {"Reshape"}; }
  MatchResult Match(GraphGraph& graph, const NodeProto& first) const override;
  utils::RepeatedProtoField<NodeProto> Apply(GraphGraph& graph,
                                             const std::vector<const NodeProto*>& nodes) const override;
};

}  // namespace onnxopt::onnx_patterns
