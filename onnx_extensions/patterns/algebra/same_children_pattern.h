#pragma once

#include <string_view>

#include "onnx_core/optimizer/pattern.h"

namespace onnxopt::onnx_patterns {

using core::builder::GraphGraph;
using core::builder::MatchResult;
using core::builder::NumericalClass;
using core::builder::PatternOptimization;

/// Two readers of a node's output that compute the same thing => one of them, and the
/// chains of duplicates hanging below a single such pair.
/// Before:  a = P(...); b1 = Mul(a, W); b2 = Mul(W, a); c1 = Exp(b1); c2 = Exp(b2)
/// After:   a = P(...); b1 = Mul(a, W); b2 = Identity(b1); c1 = Exp(b1); c2 = Identity(c1)
/// Duplicates: the same deterministic ONNX operator with the same attributes (graphs by
/// their bytes) and inputs (Add and Mul also swapped; below the first pair, inputs may be
/// earlier duplicates of each other). The readers of the first output of P with two
/// readers or more are grouped by op type (Identity left out); in each group the first
/// duplicate pair is found and every later reader duplicating its first node merges with
/// them (upstream merges one pair per group and iteration, so that n identical readers took
/// n iterations); when there is exactly one pair, readers of its two outputs are
/// paired in turn (upstream's chain extension, stopped at a node with several outputs or at
/// an output already paired). The identities keep every name (graph outputs included);
/// the cleanup reroutes their readers.
/// Not valid for random operators (RandomNormal*, RandomUniform*, Multinomial, Bernoulli,
/// Dropout, also inside graph attributes) or custom domains (unknown semantics), nor when
/// the kept node lacks an optional output the other one produces. The kept nodes move to
/// the first kept node's position: a pair whose kept node reads a value defined after it
/// is left for a later iteration.
class SameChildrenPattern final : public PatternOptimization {
 public:
  static constexpr std::string_view kName = "SameChildrenPattern";
  static constexpr NumericalClass kNumerics = NumericalClass::kExact;
  SameChildrenPattern() : PatternOptimization(0) {}

  std::string Name() const override { return std::string(kName); }
  // Any node may be the parent.
  std::set<std::string> FastOpType() const override { return {}; }
  MatchResult Match(GraphGraph& graph, const NodeProto& node) const override;
  utils::RepeatedProtoField<NodeProto> Apply(GraphGraph& graph,
                                             const std::vector<const NodeProto*>& nodes) const override;
};

}  // namespace onnxopt::onnx_patterns
