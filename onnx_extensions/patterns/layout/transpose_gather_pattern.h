#pragma once

#include <string_view>

#include "onnx_core/optimizer/pattern.h"

namespace onnxopt::onnx_patterns {

using core::builder::GraphGraph;
using core::builder::MatchResult;
using core::builder::NumericalClass;
using core::builder::PatternOptimization;

/// Gather<axis=k>(Transpose<perm=p>(X), idx) => Gather<axis=p[k]>(X, idx) for an index of
/// rank 0, followed by a Transpose of the smaller result when the remaining axes are not
/// in increasing order.
/// Before:  T = Transpose<perm=p>(X); Y = Gather<axis=k>(T, idx)
/// After:   Y = Gather<axis=j>(X, idx)                               (rest increasing)
///          g = Gather<axis=j>(X, idx); Y = Transpose<perm=r>(g)    (otherwise)
///          with j = p[k], rest = p without position k, r[m] = rest[m] - (rest[m] > j)
///          (T kept when it has other readers)
/// k is normalized with len(p). Not valid for an index of another or unknown rank: a 1-D
/// index keeps the gathered axis where the Transpose put it. Not applied without perm, nor
/// when T has other readers and the index is computed after the Transpose (the kept
/// Transpose must stay before its readers, the new Gather after the index).
class TransposeGatherPattern final : public PatternOptimization {
 public:
  static constexpr std::string_view kName = "TransposeGatherPattern";
  static constexpr NumericalClass kNumerics = NumericalClass::kExact;
  TransposeGatherPattern() : PatternOptimization(0) {}

  std::string Name() const override { return std::string(kName); }
  std::set<std::string> FastOpType() const override { return {"Gather"}; }
  MatchResult Match(GraphGraph& graph, const NodeProto& node) const override;
  utils::RepeatedProtoField<NodeProto> Apply(GraphGraph& graph,
                                             const std::vector<const NodeProto*>& nodes) const override;
};

}  // namespace onnxopt::onnx_patterns
