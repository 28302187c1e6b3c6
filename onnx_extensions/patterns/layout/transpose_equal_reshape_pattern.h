#pragma once

#include <string_view>

#include "onnx_core/optimizer/pattern.h"

namespace onnxopt::onnx_patterns {

using core::builder::GraphGraph;
using core::builder::MatchResult;
using core::builder::NumericalClass;
using core::builder::PatternOptimization;

/// Transpose(X, p) => Reshape(X, s) when the axes p moves hold at most one dim that is not
/// 1: moving 1s around a single real dim does not reorder the data.
/// Before:  Y = Transpose<perm=p>(X)
/// After:   Y = Reshape(X, s) with s[i] = 0 where p[i] == i, else X[p[i]] when it is an
///          integer, else -1 (the one symbolic dim)
/// The moved axes are those between the longest prefix and the longest suffix p keeps in
/// place; a symbolic dim there counts as not 1. Needs the shape of X and perm. Not applied
/// when a dim of X is the integer 0: a moved 0 would read as "copy" and a -1 cannot be
/// inferred for an empty tensor. The same holds for a symbolic dim that may be 0 at run
/// time: a -1 is written only when every other dim of Y is a known positive integer.
class TransposeEqualReshapePattern final : public PatternOptimization {
 public:
  static constexpr std::string_view kName = "TransposeEqualReshapePattern";
  static constexpr NumericalClass kNumerics = NumericalClass::kExact;
  TransposeEqualReshapePattern() : PatternOptimization(1) {}

  std::string Name() const override { return std::string(kName); }
  std::set<std::string> FastOpType() const override { return {"Transpose"}; }
  MatchResult Match(GraphGraph& graph, const NodeProto& node) const override;
  utils::RepeatedProtoField<NodeProto> Apply(GraphGraph& graph,
                                             const std::vector<const NodeProto*>& nodes) const override;
};

}  // namespace onnxopt::onnx_patterns
