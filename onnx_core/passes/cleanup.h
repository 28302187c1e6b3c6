#pragma once
// Cleanup passes over a GraphBuilder and, recursively, its nested graphs.
//
// Each pass returns what it did, so that the optimizer can record it: how many nodes and
// initializers it removed and which value names it redirected (every use of `from` now
// reads `to`), with the path of the graph where the rename happened. Passes never rename
// a graph output and never remove a value that a nested graph reads.

#include <cstddef>
#include <functional>
#include <string>
#include <vector>

#include "onnx_core/builder/graph_builder.h"
#include "onnx_core/utils/dense_index.h"

namespace onnxopt::core::builder {

// A set of nodes, by address.
using NodeSet = utils::DenseIndex<const NodeProto*>;

struct ValueRename {
  std::string graph_path;  // GraphBuilder::PathString() of the graph where `from` is defined
  std::string from;
  std::string to;
};

struct CleanupResult {
  std::string pass;  // stable name: "RemoveIdentityNodes", ...
  std::size_t removed_nodes = 0;
  std::size_t removed_initializers = 0;
  std::vector<ValueRename> renames;
  // Nodes that stay but define a renamed output (identity removal hands a graph output's
  // name to the producer): the optimizer records them as rewritten.
  std::vector<const NodeProto*> redefined_nodes;
  // Positions (in the model's local functions before the pass) of the functions removed.
  std::vector<std::size_t> removed_functions;
  // RemoveIdentityNodes: the plain Identity nodes it had to keep (an input or initializer
  // written to a graph output...). None kept and no node added since: nothing to remove.
  std::size_t kept_identities = 0;

  bool Changed() const { return removed_nodes != 0 || removed_initializers != 0 || !removed_functions.empty(); }
  std::string ToString() const;
};

// Where a pass runs: on the graph and, innermost first, every graph nested in it; or on
// the graph alone (the optimizer, which handles nested graphs itself and records every
// change; sparse initializers are then left alone).
enum class CleanupScope { kNestedGraphs, kThisGraph };

// y = Identity(x): consumers of y read x and the node goes. When y is a graph output,
// the producer of x is made to write y instead (if x is itself no graph output, input,
// initializer or outer value); otherwise the Identity stays (e.g. input -> output).
CleanupResult RemoveIdentityNodes(GraphBuilder& builder, CleanupScope scope = CleanupScope::kNestedGraphs);
// The Identity nodes that pass removes or hands over: ONNX Identity, one input, one
// output, both named and different.
bool IsPlainIdentity(const NodeProto& node);
// The same on `builder`'s graph alone, for a caller that knows where its plain Identity
// nodes are and what reads each value (the optimizer after a rewrite batch), without
// walking the graph: `identities` are all the plain Identity nodes of the graph, in graph
// order, none writing a graph output (BuilderError otherwise), and `readers_of(name)`
// returns every node that reads `name` (none holding a nested graph that reads it).
CleanupResult RemoveIdentityNodesAmong(GraphBuilder& builder, const std::vector<const NodeProto*>& identities,
                                       const std::function<const std::vector<NodeProto*>&(const std::string&)>& readers_of);

// Removes nodes none of whose outputs is needed for a graph output (dead code), and
// initializers nothing reads (unless they are graph inputs). A value read by a nested
// graph counts as read by the node holding that graph.
CleanupResult RemoveUnusedNodes(GraphBuilder& builder, CleanupScope scope = CleanupScope::kNestedGraphs);
// What RemoveUnusedNodes does to `builder`'s graph, for a caller that found the unused
// nodes and initializers itself (the optimizer looks only around a rewrite batch): the
// same removal, reported under the same pass name.
CleanupResult RemoveUnusedElements(GraphBuilder& builder, const std::function<bool(const NodeProto&)>& unused_node,
                                   const std::function<bool(const TensorProto&)>& unused_initializer);

// Common subexpression elimination: a node with the same domain, op type, overload,
// inputs and attributes as an earlier one is removed and its outputs redirected to the
// earlier node's outputs. Only deterministic ONNX operators qualify (no random
// generators, no custom domains whose semantics we do not know, no graph attributes).
// A node is merged into the first earlier one that computes the same and has each of its
// outputs (an optional output may be empty); a node writing a graph output is kept. After
// the pass, no node computes the same as an earlier one it could be merged into.
CleanupResult RemoveDuplicateNodes(GraphBuilder& builder, CleanupScope scope = CleanupScope::kNestedGraphs);
// The same on `builder`'s graph alone, for a caller that knows no two nodes could be merged
// until the readers of some values were redirected to the values `redirected` (the
// optimizer after merging initializers: the initializers kept): only nodes reading one of
// those, or an output the pass merges into, are compared, the others are not hashed. Same
// result as RemoveDuplicateNodes(builder, CleanupScope::kThisGraph) on such a graph.
CleanupResult RemoveDuplicateNodesReading(GraphBuilder& builder, const std::vector<std::string>& redirected);
// What RemoveDuplicateNodes compares (the optimizer also uses them to prove that a rewrite
// created no duplicate): whether a node may be merged at all, and whether two nodes
// compute the same.
bool IsMergeable(const NodeProto& node);
bool SameComputation(const NodeProto& a, const NodeProto& b);
// Equal for nodes that compute the same (SameComputation), and usually different otherwise.
std::size_t ComputationHash(const NodeProto& node);

// Initializers with the same element type, shape and bytes are merged into the first;
// graph inputs and outputs are never merged away.
CleanupResult RemoveDuplicateInitializers(GraphBuilder& builder, CleanupScope scope = CleanupScope::kNestedGraphs);
// The same on `builder`'s graph alone, looking only for duplicates of `recent` (e.g. the
// initializers a rewrite added): the others are known to be distinct, and the weights
// are not read again.
CleanupResult RemoveDuplicateInitializers(GraphBuilder& builder, const std::vector<const TensorProto*>& recent);

// Removes the model's local functions that nothing calls. Calls are nodes of the main
// graph, of its nested graphs (at any depth) and of the bodies of the functions kept, so
// a function called only from the body of a removed function goes too. Functions the
// input model already had without calling them go as well: like an unused initializer,
// an uncalled function contributes nothing to the outputs (the ONNX IR makes a local
// function the implementation of an operator the model uses; onnxscript's optimizer
// removes unused functions the same way). Opset imports stay. Call it on the root builder
// (functions belong to the model; BuilderError otherwise).
CleanupResult RemoveUnusedFunctions(GraphBuilder& builder);

// The four passes above, in this order, repeated until none changes anything, then
// RemoveUnusedFunctions on a root builder.
std::vector<CleanupResult> RunCleanupPasses(GraphBuilder& builder);

}  // namespace onnxopt::core::builder
