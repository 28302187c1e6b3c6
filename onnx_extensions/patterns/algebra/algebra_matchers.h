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

// A node and later nodes computing the same (WhyNotDuplicates(kept, duplicate) is empty).
struct DuplicateGroup {
  const NodeProto* kept;
  std::vector<const NodeProto*> duplicates;  // in graph order, never empty
};

// The first step of SameChildrenPattern on the readers of one value (in graph order):
// grouped by op type (Identity left out); in each op type, the first duplicate pair
// (kept, second) and every later reader that duplicates `kept` too. Upstream merges one
// pair per op type and iteration: n identical readers then took n iterations, each over
// the whole graph. When there is none, `why` says why not.
struct DuplicateGroups {
  std::vector<DuplicateGroup> groups;
  std::string_view why;
};
DuplicateGroups FindDuplicateGroups(const std::vector<const NodeProto*>& readers);

// The NoMatch reason of an empty MergePlan.
inline constexpr std::string_view kNothingToMerge =
    "no duplicate can become Identity nodes here (an output is a sequence before opset 14 or an optional before "
    "16, or the kept node reads a value defined after the first kept node)";

// Groups merged by one replacement, which the driver places at the first kept node: the
// kept nodes are copied there, each duplicate becomes Identity nodes.
class MergePlan {
 public:
  // `groups` sorted by the position of the kept node, without the duplicates whose
  // outputs Identity does not take at the model's opset (a sequence before opset 14, an
  // optional before 16), nor the groups whose kept node cannot move to the first one's
  // position (reading a value defined after it: a later iteration merges them).
  MergePlan(const core::builder::GraphGraph& graph, std::vector<DuplicateGroup> groups);
  // Adds a group (without the duplicates Identity cannot repeat) when a duplicate is
  // left and its kept node can move to the first one's position.
  bool Add(DuplicateGroup group);
  // Whether an output of `node` belongs to a group already.
  bool Paired(const NodeProto& node) const;
  // Each output of a pair (a group of one duplicate) and its counterpart; a duplicate's
  // output and its kept one otherwise.
  const Aliases& PairedOutputs() const { return aliases_; }
  const std::vector<DuplicateGroup>& Groups() const { return groups_; }
  // The matched nodes: each group's kept node and its duplicates, groups separated by a
  // null entry (MergeGroups reads them back).
  std::vector<const NodeProto*> Nodes() const;

 private:
  const core::builder::GraphGraph& graph_;
  std::size_t position_ = 0;
  std::vector<DuplicateGroup> groups_;
  core::builder::StringSet defined_;  // outputs of the groups
  Aliases aliases_;
};

// The replacement of MergePlan::Nodes(): a copy of each kept node, then one
// Identity(kept output) per output of each of its duplicates, keeping the duplicates'
// names. Throws BuilderError unless `nodes` are groups of two nodes or more.
utils::RepeatedProtoField<NodeProto> MergeGroups(core::builder::GraphGraph& graph, std::string_view pattern,
                                                 const std::vector<const NodeProto*>& nodes);

// The replacement of one group: a copy of `kept`, then one Identity(kept output) per
// output of each duplicate.
void KeepAndAlias(utils::RepeatedProtoField<NodeProto>& replacement, core::builder::GraphGraph& graph,
                  std::string_view pattern, const NodeProto& kept, const std::vector<const NodeProto*>& duplicates);

}  // namespace onnxopt::onnx_patterns::algebra
