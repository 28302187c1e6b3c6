#pragma once
// The cleanup after a rewrite batch, looking only around what the batch changed.
//
// After each batch the optimizer removes identities, unused nodes and initializers, and
// duplicate nodes (passes/cleanup.h). Run on the whole graph, these passes cost a walk of
// every node per batch, though a batch touches a few nodes. Here they are decided from
// what the batch removed and added, and from the optimizer's index, which still describes
// the graph before the batch (it is rebuilt at the next iteration): the readers of a value
// after the batch are the index's readers less the nodes gone since, plus the added nodes
// and the readers renamed to it.
//
// Every decision assumes the graph was clean before the batch (no plain Identity node, no
// unused node or initializer, no two nodes to merge): the optimizer only asks after a
// cleanup. The results equal the whole-graph passes' (ONNXOPT_CHECK_INCREMENTAL runs those
// as well and fails on a difference); where a proof is missing (a nested graph involved,
// an Identity writing a graph output), the plan says so and the whole-graph passes run.

#include <cstddef>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <unordered_set>
#include <vector>

#include "onnx_core/builder/graph_builder.h"
#include "onnx_core/passes/cleanup.h"

namespace onnxopt::core::builder {

// What the optimizer's index says about the graph before the batch.
class IndexBeforeBatch {
 public:
  virtual ~IndexBeforeBatch() = default;
  // The node that produced `value`; null for inputs, initializers, outer values.
  virtual const NodeProto* Producer(std::string_view value) const = 0;
  // The distinct nodes that read `value`, in graph order.
  virtual const std::vector<const NodeProto*>& Readers(std::string_view value) const = 0;
  // The nodes holding a nested graph that reads `value`; null when none.
  virtual const std::vector<const NodeProto*>* NestedReaders(std::string_view value) const = 0;
  virtual bool IsGraphOutput(std::string_view value) const = 0;
  // An initializer that is not also a graph input (which the caller may override).
  virtual bool IsPlainInitializer(std::string_view value) const = 0;
};

// Names copied into one buffer: one allocation for many names (of nodes about to be
// deleted, say).
class NameList {
 public:
  void Add(std::string_view name) { ends_.push_back(text_.append(name).size()); }
  std::size_t size() const { return ends_.size(); }
  std::string_view operator[](std::size_t i) const {
    const std::size_t begin = i == 0 ? 0 : ends_[i - 1];
    return std::string_view(text_).substr(begin, ends_[i] - begin);
  }

 private:
  std::string text_;
  std::vector<std::size_t> ends_;
};

// What a batch changed, kept from the batch to the cleanup after it.
struct BatchFootprint {
  // Whether the cleanup may look only around the changes (the graph was clean before the
  // batch, and the removed nodes' content is kept).
  bool local = false;
  NodeSet removed;
  // The removed nodes' content: the index views their names until it is rebuilt.
  std::vector<std::unique_ptr<NodeProto>> removed_content;
  std::vector<const NodeProto*> added;  // in the graph, in graph order (folded ones are not)
  NameList folded_inputs;               // what the added nodes folding removed read
  std::vector<const TensorProto*> added_initializers;  // by the rewrites and by folding
  // Whether a duplicate may involve an added node (DuplicatesAfterBatch).
  bool duplicate_nodes = true;
};

// Before the batch: whether the duplicate pass can find something after it. Survivors keep
// their inputs, so a new duplicate involves an added node and reads the same first input
// as it. A removed node may also have been the one its duplicates could not merge into
// (a graph output among their outputs): a survivor computing the same as a removed node
// makes the pass run, as does an added node without a first input. Plain Identity nodes
// are left out: the identity pass removes them first (PlanCleanupAfterBatch).
bool DuplicatesAfterBatch(const IndexBeforeBatch& index, const std::vector<const NodeProto*>& removed_nodes,
                          const NodeSet& removed, const std::vector<const NodeProto*>& added_nodes);

// After the batch and the folding of what it added: what the cleanup passes would do.
struct BatchCleanupPlan {
  // The identity pass: the plain Identity nodes to remove (in graph order) and, for each
  // value they write, its readers, to read the Identity's input instead.
  std::vector<const NodeProto*> identities;
  std::unordered_map<std::string, std::vector<NodeProto*>> identity_readers;
  // The unused-node pass (identities excluded: the identity pass removes them).
  NodeSet unused_nodes;
  std::unordered_set<std::string> unused_initializers;
  // Whether the duplicate pass can find something.
  bool duplicate_nodes = false;
  // The readers the identity pass renames (DuplicatesAfterMerge looks at them again).
  std::vector<const NodeProto*> moved;
  std::size_t nodes_visited = 0;
};

// nullopt when a proof is missing: the whole-graph passes must run. `identities_known`:
// the last identity pass kept no Identity node, so the graph's plain Identity nodes are
// among the added ones.
std::optional<BatchCleanupPlan> PlanCleanupAfterBatch(const IndexBeforeBatch& index, const BatchFootprint& batch,
                                                      bool identities_known);

// After the cleanup `plan` made and the duplicate-initializer pass merged (`renames`,
// ValueRename from -> to): whether the duplicate pass can find something. A node whose
// input was renamed now reads `to`, and a node computing the same reads `to` too: the
// nodes reading each `to` are compared. The index must not be asked about names that
// were renamed away (its views of the renamed reads changed with them); `to` and the
// merged initializers' names are not such names.
bool DuplicatesAfterMerge(const IndexBeforeBatch& index, const BatchFootprint& batch, const BatchCleanupPlan& plan,
                          const std::vector<ValueRename>& renames);

}  // namespace onnxopt::core::builder
