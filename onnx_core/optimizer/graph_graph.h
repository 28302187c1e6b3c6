#pragma once
// GraphGraph: the pattern optimizer over one GraphBuilder.
//
// The builder owns the graph; GraphGraph owns an index over its nodes (producer and
// consumers of every value, position of every node, candidates per op type, values read
// by nested graphs), rebuilt after each rewrite batch, and answers the structural, shape,
// type and constant queries patterns ask. Nodes are identified by address: the pointers
// are valid until the next batch rebuilds the node field.
//
// Optimize runs the match/apply loop (see Optimize below) and returns the rewrites it
// applied as self-contained LocalRewriting records that Replay can apply again.

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <unordered_set>
#include <vector>

#include "onnx_core/passes/constant_folding.h"
#include "onnx_core/utils/dense_index.h"
#include "onnx_core/builder/graph_builder.h"
#include "onnx_core/optimizer/local_rewriting.h"
#include "onnx_core/optimizer/pattern.h"
#include "onnx_core/optimizer/pattern_registry.h"
#include "onnx_core/optimizer/report.h"
#include "onnx_core/shapes/sym_tensor.h"
#include "onnx_core/utils/name_table.h"
#include "onnx_core/utils/string_hash.h"

namespace onnxopt::core::builder {

// Which side of a value a query looked at (match_cache.h).
enum class ValueSide : std::uint32_t;

// The default DoNotRemove marker: a node whose name contains it is never matched.
inline constexpr std::string_view kDoNotRemoveMarker = "_DONOTREMOVE_";

// A do_not_remove that keeps the default marker and adds the nodes whose name matches one
// of `globs` (fnmatch(3) without flags: `*` also matches '/'): `onnxopt optimize --keep`.
std::function<bool(const NodeProto&)> KeepNodesNamed(std::vector<std::string> globs);

struct OptimizerOptions {
  // Which registered patterns (global registry, then the builder's) take part; patterns
  // given to the GraphGraph constructor always do.
  PatternSelection registered = PatternSelection::Default();
  // Nodes no match may touch. Default: names containing kDoNotRemoveMarker.
  std::function<bool(const NodeProto&)> do_not_remove;
  // Before the first iteration, fold every node whose inputs are all constant (one
  // recorded batch "FoldConstants" per graph). Nodes added by rewrites are always folded.
  bool fold_constants_first = false;
  FoldOptions fold;
  // Record NoMatch reasons in the report (costs a little time per rejected candidate).
  bool collect_no_match = false;
  // Called at the start of each iteration with a short status ("iteration 3, 58041
  // nodes", prefixed by the graph path in nested graphs), e.g. for a progress line.
  std::function<void(const std::string&)> progress;
};

// String-keyed maps looked up with string_views, without building a std::string per query
// (queries run for every candidate of every pattern).
template <class T>
using StringMap = std::unordered_map<std::string, T, utils::StringHash, std::equal_to<>>;
using StringSet = std::unordered_set<std::string, utils::StringHash, std::equal_to<>>;

class GraphGraph {
 public:
  // Optimizes `builder` (which must outlive this object) with the registered patterns
  // merged by name with `patterns` (global registry < builder registry < `patterns`).
  explicit GraphGraph(GraphBuilder& builder, std::vector<std::shared_ptr<const PatternOptimization>> patterns = {},
                      OptimizerOptions options = {});
  ~GraphGraph();
  GraphGraph(const GraphGraph&) = delete;
  GraphGraph& operator=(const GraphGraph&) = delete;

  GraphBuilder& Builder() { return builder_; }
  const GraphBuilder& Builder() const { return builder_; }
  // The patterns in the order the driver tries them (by priority, then registration).
  const std::vector<std::shared_ptr<const PatternOptimization>>& Patterns() const { return patterns_; }

  // --- Structure (valid until the next rewrite batch) ----------------------------------
  // Node producing `name`; null for graph inputs, initializers, outer values, unknown names.
  const NodeProto* NodeBefore(std::string_view name) const;
  // Distinct nodes of this graph reading `name`, in graph order.
  const std::vector<const NodeProto*>& NextNodes(std::string_view name) const;
  // Distinct producers of the node's inputs / consumers of its outputs, in graph order.
  std::vector<const NodeProto*> Predecessors(const NodeProto& node) const;
  std::vector<const NodeProto*> Successors(const NodeProto& node) const;

  bool IsOutput(std::string_view name) const;
  // Read by a node, a graph output, or a nested graph.
  bool IsUsed(std::string_view name) const;
  // A graph output, read by a nested graph, or read by two nodes or more.
  bool IsUsedMoreThanOnce(std::string_view name) const;
  // Read from this scope by a graph nested in one of its nodes (If, Loop, Scan, ...).
  bool IsUsedBySubgraph(std::string_view name) const;
  // Index of the node in GraphBuilder::Nodes(); throws BuilderError for a foreign node.
  std::size_t Position(const NodeProto& node) const;
  bool Contains(const NodeProto& node) const;
  std::size_t NodeCount() const;

  // --- Values ------------------------------------------------------------------------
  bool HasShape(std::string_view name) const;
  // GetShape(name) when HasShape(name), else null: one lookup for both (shapes are asked
  // about for most candidates).
  const shapes::SymTensor* FindShape(std::string_view name) const;
  // What is known of `name` (its kind, element type, shape), even without a rank; null
  // when nothing is.
  const shapes::SymTensor* KnownValue(std::string_view name) const;
  // Throws BuilderError when nothing is known (check HasShape or HasType first).
  const shapes::SymTensor& GetShape(std::string_view name) const;
  bool HasType(std::string_view name) const;
  int GetType(std::string_view name) const;  // TensorProto::DataType, 0 when unknown

  // An initializer (not overridable as a graph input), a Constant node's output, the
  // output of a deterministic node whose inputs are all constant and that a kernel can
  // compute (but DequantizeLinear, unless FoldOptions::fold_dequantize_linear: folding
  // leaves it), or the output of Shape/Size of a statically shaped value; in this graph or
  // an enclosing one.
  bool IsConstant(std::string_view name) const;
  // A constant whose shape is () or (1,) (with `broadcast`, any shape of ones) and whose
  // every element equals `value`.
  bool IsConstantScalar(std::string_view name, double value, bool broadcast = false);
  // The constant's value, computed on first request and cached by name (a name is never
  // redefined with another value); null when it is not constant or cannot be computed
  // (no kernel, external data, larger than OptimizerOptions::fold.max_output_bytes).
  const TensorProto* GetComputedConstant(std::string_view name);

  // The limits of constant folding in this optimization: a pattern whose rewrite leaves a
  // node to fold (a Transpose of weights) checks that folding will take it.
  const FoldOptions& Folding() const { return options_.fold; }

  // --- Changes a pattern may make in Apply --------------------------------------------
  // Adds `value` as an initializer named UniqueName(name_prefix) and returns the name.
  // When called from Apply, the driver attributes it to that rewrite's record.
  std::string MakeInitializer(std::string_view name_prefix, TensorProto value);
  // The model's local function (function.domain(), function.name()), added the first time
  // (GraphBuilder::GetOrAddFunction: imports, errors). When called from Apply, the driver
  // records the addition in that rewrite's record (LocalRewriting::added_functions).
  const FunctionProto& GetOrAddFunction(FunctionProto function) {
    return builder_.GetOrAddFunction(std::move(function));
  }

  // --- Optimization ------------------------------------------------------------------
  // Runs the patterns until nothing matches. Nested graphs first (recursively, each with
  // its own GraphGraph over the nested builder), then this graph:
  //   [fold all constants] ; cleanup ; then per iteration:
  //   index ; match patterns of priority <= threshold on their candidates, keeping the
  //   matches that touch no node claimed earlier in the iteration and no DoNotRemove
  //   node ; apply them all in one rebuild of the node field ; fold the added nodes whose
  //   inputs are all constant ; cleanup (identities, unused nodes, duplicate nodes,
  //   duplicate initializers). When nothing matches, the threshold rises to the next
  //   priority; the loop ends when the highest one matches nothing, or after `max_iter`
  //   iterations (default max(node count, 10) * number of priorities), which the report
  //   notes. After an iteration that matched nothing, the graph is unchanged and only the
  //   patterns of the new priority are tried (Match only reads the graph: the others
  //   would find nothing to apply again). Returns every applied batch in order.
  std::vector<LocalRewriting> Optimize(int max_iter = -1, OptimizationReport* report = nullptr);

 private:
  class Driver;
  friend class Driver;

  // The optimizer of a graph nested in `outer`'s graph: `outer`'s patterns as they are
  // (already selected, deduplicated and ordered) and options.
  GraphGraph(GraphBuilder& nested, const GraphGraph& outer);

  struct ValueUses {
    const NodeProto* producer = nullptr;
    std::vector<const NodeProto*> consumers;
    // What the tables below say about the value, kept here so that a query hashes its name
    // once: whether it is an input or an output of this graph, whether a nested graph reads
    // it, and the initializer of this graph that defines it.
    bool graph_input = false, graph_output = false, nested_reader = false;
    const TensorProto* initializer = nullptr;
    // IsConstant's answer, once known for this index.
    std::optional<bool> constant;
    // GetComputedConstant's answer, once known for this index (null: none).
    std::optional<const TensorProto*> computed;
  };

  void BuildIndex() const;
  // The entry of `name` in the index being built, added (reusing a spare one) if new.
  ValueUses& AddValue(std::string_view name) const;
  void Refresh() const {
    if (index_stale_) BuildIndex();
  }
  const ValueUses* Uses(std::string_view name) const { return FindUses(name); }
  // The same entry, for the answers the index caches (IsConstant).
  ValueUses* FindUses(std::string_view name) const;
  // The entry of `name` (null when the index has none), noting that a query looked at
  // `side` of it (NoteRead): the name is hashed once for both (and for the caller, through
  // `hash`).
  ValueUses* Lookup(std::string_view name, ValueSide side, std::uint64_t* hash = nullptr) const;
  // Position of `node` in the index as it is, even when a batch made it stale (records
  // name the positions before the batch); throws BuilderError for an unindexed node.
  std::size_t IndexedPosition(const NodeProto& node) const;
  // Whether `name` is constant when that follows without looking at its producer's
  // inputs; nullopt when it depends on them.
  // `entry`, when given, receives the index entry of `name` (null when none).
  std::optional<bool> ConstantBaseCase(std::string_view name, ValueUses** entry = nullptr) const;
  // The same, not cached; `uses` is the value's entry in the index (or null).
  std::optional<bool> ConstantWithoutInputs(std::string_view name, const ValueUses* uses) const;
  // GetComputedConstant, not cached in the index.
  const TensorProto* FindOrComputeConstant(std::string_view name);
  // Computes the outputs of `target` and of the producers it needs, into computed_.
  void ComputeConstants(const NodeProto& target);
  bool ComputeNode(const NodeProto& node);
  // The GraphGraph of the enclosing graph when optimizing recursively (null otherwise).
  const GraphGraph* outer_ = nullptr;
  // The constants of the enclosing graphs for folding, indexed once for all their nested
  // graphs (null for the root graph).
  const EnclosingConstants* enclosing_constants_ = nullptr;
  // The index is built on first use and after each change of the graph.
  mutable bool index_stale_ = true;
  GraphGraph* MutableOuter() const { return const_cast<GraphGraph*>(outer_); }

  GraphBuilder& builder_;
  std::vector<std::shared_ptr<const PatternOptimization>> patterns_;
  OptimizerOptions options_;
  // What the kernels run by folding and by ComputeNode may spend, shared with the
  // optimizers of the nested graphs (options_.fold.max_work_steps for all of them).
  std::shared_ptr<eval::WorkBudget> evaluation_budget_;
  // The bytes computed_ holds, in this graph and the nested ones (FoldOptions::
  // max_computed_bytes bounds them all).
  std::shared_ptr<std::uint64_t> computed_bytes_;
  std::uint64_t ComputedBytesLeft() const {
    return options_.fold.max_computed_bytes - std::min(*computed_bytes_, options_.fold.max_computed_bytes);
  }

  // The index (views into the builder's names: valid until the graph changes). Value
  // names number the entries of values_; values_ keeps the entries (and the capacity of
  // their consumer lists) of earlier builds beyond value_index_.size() for reuse.
  mutable utils::DenseIndex<std::string_view> value_index_;
  mutable std::vector<ValueUses> values_;
  // Nodes numbered by position.
  mutable utils::DenseIndex<const NodeProto*> positions_;
  // Positions of the nodes of each op type, ascending.
  mutable std::unordered_map<std::string_view, std::vector<std::size_t>, utils::StringHash> by_op_type_;
  mutable StringSet outputs_;
  // Value -> nodes of this graph holding a nested graph that reads it.
  mutable StringMap<std::vector<const NodeProto*>> subgraph_readers_;
  mutable StringSet inputs_;
  mutable std::unordered_map<std::string_view, const TensorProto*, utils::StringHash> initializers_;

  // Constants computed so far, by value name (kept across batches: names are not reused
  // with another value); null for the values found not computable. One table, so that the
  // common query (a value that is neither) costs one lookup.
  utils::NameTable<std::unique_ptr<TensorProto>> computed_;
  // The computed value of `name`, or null (not computed yet, or not computable).
  const TensorProto* Computed(std::string_view name) const {
    const std::unique_ptr<TensorProto>* known = computed_.find(name);
    return known ? known->get() : nullptr;
  }
};

}  // namespace onnxopt::core::builder
