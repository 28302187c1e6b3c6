#pragma once
// Helpers shared by the algebra family (../../../../shared/docs/patterns/algebra.md).

#include <cstddef>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "onnx_core/ir/onnx_pb.h"
#include "onnx_core/optimizer/graph_graph.h"
#include "onnx_core/optimizer/match.h"
#include "onnx_core/utils/repeated_proto_field.h"

namespace onnxopt::onnx_patterns::algebra {

using core::builder::AddNode;

// --- Duplicated computations (SameChildren*, ShapeBasedSameChildrenPattern) ------------

// Values known to be equal, both ways: an output of a duplicate and the output it repeats.
using Aliases = core::builder::StringMap<std::string>;

// Why `second` does not compute what `first` computes (empty when it does): the same ONNX
// operator and attributes (graphs included, compared by their bytes), deterministic
// (never RandomNormal*, RandomUniform*, Multinomial, Bernoulli or Dropout, also inside
// graph attributes), the same inputs position by position or through `aliases` (without
// aliases, the two inputs of Add and Mul may also be swapped), and every output `second`
// produces also produced by `first`. Reasons are literals, for NoMatch.
std::string_view WhyNotDuplicates(const NodeProto& first, const NodeProto& second, const Aliases* aliases = nullptr);

using NodePair = std::pair<const NodeProto*, const NodeProto*>;

// The first step of SameChildrenPattern on the readers of one value (in graph order):
// grouped by op type (Identity left out), the first duplicate pair (first, second) of each
// group, `first` earlier. When there is none, `why` says why not.
struct DuplicatePairs {
  std::vector<NodePair> pairs;
  std::string_view why;
};
DuplicatePairs FindDuplicatePairs(const std::vector<const NodeProto*>& readers);

// Pairs (kept, duplicate) merged by one replacement, which the driver places at the first
// kept node: the kept nodes are copied there, each duplicate becomes Identity nodes.
class MergePlan {
 public:
  // `pairs` sorted by the position of the kept node, without those whose kept node cannot
  // move to the first one's position (reading a value defined after it: a later
  // iteration merges them). Never empty when `pairs` is not.
  MergePlan(const core::builder::GraphGraph& graph, std::vector<NodePair> pairs);
  // Adds a pair when its kept node can move to the first one's position.
  bool Add(const NodePair& pair);
  // Whether an output of `node` belongs to a pair already.
  bool Paired(const NodeProto& node) const;
  // Each output of the pairs and its counterpart.
  const Aliases& PairedOutputs() const { return aliases_; }
  const std::vector<NodePair>& Pairs() const { return pairs_; }
  // The matched nodes: kept, duplicate, kept, duplicate...
  std::vector<const NodeProto*> Nodes() const;

 private:
  const core::builder::GraphGraph& graph_;
  std::size_t position_ = 0;
  std::vector<NodePair> pairs_;
  core::builder::StringSet defined_;  // outputs of the pairs
  Aliases aliases_;
};

// The replacement of MergePlan::Nodes(): a copy of each kept node, then one
// Identity(kept output) per output of its duplicate, keeping the duplicate's names.
// Throws BuilderError unless `nodes` are pairs.
utils::RepeatedProtoField<NodeProto> MergePairs(core::builder::GraphGraph& graph, std::string_view pattern,
                                                const std::vector<const NodeProto*>& nodes);

// The same for one kept node and several duplicates of it.
void KeepAndAlias(utils::RepeatedProtoField<NodeProto>& replacement, core::builder::GraphGraph& graph,
                  std::string_view pattern, const NodeProto& kept, const std::vector<const NodeProto*>& duplicates);

}  // namespace onnxopt::onnx_patterns::algebra
