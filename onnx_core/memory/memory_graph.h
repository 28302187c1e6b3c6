#pragma once
// The analysis graph of one ONNX graph for the in-place memory plan
// (shared/docs/copy-elimination.md §4-§6): where each value is defined, who
// reads it (node slots, captures by nested graphs, graph output slots), the
// read/write type of every use and definition, and the symbol table (which
// values share one buffer).
//
// It is a snapshot of a GraphBuilder's node list: rebuild it after editing the
// graph, or, after the edits of copy elimination, update it (UpdateAfterCopyRemoval,
// RebuildInstance).

#include <cstddef>
#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <unordered_map>
#include <utility>
#include <vector>

#include "onnx_core/ir/onnx_pb.h"
#include "onnx_core/memory/memory_traits.h"

namespace onnxopt::core::builder {
class GraphBuilder;
}

namespace onnxopt::core::memory {

// Options of the plan (§8.1). Validated by ParseMemoryOptions
// (memory_options.h).
struct MemoryOptions {
  std::set<std::string> inplace_ops = BuiltinInPlaceFamilies();
  bool identity_is_copy = true;
  std::vector<std::pair<int, int>> output_reuse_input;        // (graph input, graph output)
  std::set<int> input_reuse;                                  // graph inputs the caller lets us overwrite
  std::set<std::string> keep_copies;                          // node names or output names
  std::vector<std::pair<std::string, std::string>> ordering;  // (before, after) node references
  enum class VisitOrder { kReverse, kTopological } visit_order = VisitOrder::kReverse;
  // Copies inside local-function bodies are candidates too (one decision per call site,
  // §7.6 write-back). The optimizer's pass turns this off: its batches cannot record an
  // edited function body. Traces go through calls either way.
  bool copies_in_functions = true;
  // Call sites of one function that disagree get specialized clones
  // (`<name>__onnxopt_m<k>`); off: their deletions stay in the plan (ELIDED).
  bool specialize_functions = true;
  // The work copy elimination may spend, in steps (copy_elimination.h); nullopt: the
  // default, linear in the graph.
  std::optional<std::uint64_t> work_limit;
};

enum class InputRW { kReadOnly, kWriteable, kScopeWriteable, kInvalid };
enum class OutputRW { kReadOnlyConst, kReadOnly, kSoftRead, kWriteable, kInvalid };
std::string_view InputRWName(InputRW type);
std::string_view OutputRWName(OutputRW type);
// The conflict table of §5.4: true when the producer's buffer may not be read
// by the use.
bool RWConflict(OutputRW producer, InputRW use);

// A use of a value: input `index` of `node`; a capture (`node` reads the value
// from one of its nested graphs, index kCapture); or graph output slot `index`
// (`node` null).
struct Slot {
  static constexpr int kCapture = -1;
  const NodeProto* node = nullptr;
  int index = 0;
  bool IsGraphOutput() const { return node == nullptr; }
  bool IsCapture() const { return node != nullptr && index == kCapture; }
  friend bool operator==(const Slot&, const Slot&) = default;
};

struct Definition {
  enum class Kind {
    kUndefined,    // not defined anywhere visible (or an empty optional input)
    kNode,         // output `index` of `node`
    kGraphInput,   // input `index` of this graph (top-level: user memory; body:
                   // formal input)
    kInitializer,  // initializer of this graph (not listed as an input)
    kOuter,        // defined in an enclosing graph (a nested graph's capture)
  };
  Kind kind = Kind::kUndefined;
  const NodeProto* node = nullptr;
  int index = -1;
  friend bool operator==(const Definition&, const Definition&) = default;
};

using FunctionList = google::protobuf::RepeatedPtrField<FunctionProto>;

// An edit of a copy inside one function instance (§7.6 steps 1-3). `node` is the copy's
// position in the function's node list.
struct BodyEdit {
  enum class Kind {
    kRenameUses,      // the copy's uses read its input; the copy goes
    kRenameProducer,  // the copy's output is a body output: its producer takes that name
    kElide,           // the copy stays and executes as an alias
  };
  int node = 0;
  Kind kind = Kind::kRenameUses;
  friend auto operator<=>(const BodyEdit&, const BodyEdit&) = default;
};
// The edits of every instance, by MemoryGraph::InstanceKey, in the order they were made.
using InstanceEdits = std::map<std::string, std::vector<BodyEdit>>;

// Applies `edits` to `nodes` (a function's node list or an instantiated body);
// `outputs` are the body's outputs. Returns, per remaining node, its position before.
std::vector<int> ApplyBodyEdits(google::protobuf::RepeatedPtrField<NodeProto>& nodes,
                                const google::protobuf::RepeatedPtrField<std::string>& outputs,
                                const std::vector<BodyEdit>& edits);

class MemoryGraph {
 public:
  // `top_level`: the model's main graph (graph inputs are user memory) rather
  // than a control-flow body. `elided` copies are executed as aliases: they
  // count as views. `out_of_place` writers do not alias their written input
  // (the functional plan). `functions`: the model's local functions; each call
  // site gets an instance of its body (§4), edited by `edits`. `options`, and `edits`
  // when given, must outlive the graph.
  MemoryGraph(const GraphProto& graph, bool top_level, const MemoryOptions& options, const ElementTypeQuery& type_of,
              const FunctionList& functions, const std::set<const NodeProto*>& elided = {},
              const std::set<const NodeProto*>& out_of_place = {}, const InstanceEdits* edits = nullptr);
  ~MemoryGraph();
  MemoryGraph(const MemoryGraph&) = delete;
  MemoryGraph& operator=(const MemoryGraph&) = delete;

  const GraphProto& Graph() const { return graph_; }
  bool TopLevel() const { return top_level_; }
  const std::vector<const NodeProto*>& Nodes() const { return nodes_; }
  // The node's index in Nodes() when the analysis was built. An update keeps the
  // positions of the nodes that stay, so that positions still order the nodes but may
  // skip numbers.
  std::size_t Position(const NodeProto* node) const { return position_.at(node); }
  // The node's index in Nodes() (log n).
  std::size_t IndexOf(const NodeProto* node) const;

  const Definition& DefinitionOf(std::string_view value) const;
  const std::vector<Slot>& Consumers(std::string_view value) const;
  // A value is connected when something reads it.
  bool IsConnected(std::string_view value) const { return !Consumers(value).empty(); }
  bool IsGraphOutput(std::string_view value) const { return graph_outputs_.contains(std::string(value)); }
  bool IsInitializer(std::string_view value) const;
  // Top-level graph input that also has an initializer (a default the caller
  // may override).
  bool IsOverridableInput(std::string_view value) const;

  // --- Roles
  // ------------------------------------------------------------------------ A
  // copy candidate: ai.onnxopt.TensorMove, or Identity on a tensor when
  // identity_is_copy.
  bool IsCopy(const NodeProto& node) const;
  static bool IsControlFlow(const NodeProto& node);
  bool IsFunctionCall(const NodeProto& node) const;
  bool IsWrapper(const NodeProto& node) const { return IsControlFlow(node) || IsFunctionCall(node); }
  // The input that output `k` of `node` aliases, if any.
  std::optional<int> AliasedInput(const NodeProto& node, int output) const;
  // Some output of `node` aliases its input `input`.
  bool AliasOf(const NodeProto& node, int input) const;
  const OpMemoryTraits& Traits(const NodeProto& node) const;

  // --- Function instances (§4) ---------------------------------------------
  // The instance of the body that `call` (a node of this graph) runs, or null
  // (not a call, or beyond the nesting and size limits: the call is then opaque).
  const MemoryGraph* Instance(const NodeProto& call) const;
  // This graph is a function body instantiated for CallNode() of Caller().
  bool IsFunctionBody() const { return caller_ != nullptr; }
  const MemoryGraph* Caller() const { return caller_; }
  const NodeProto* CallNode() const { return call_; }
  const FunctionProto* Function() const { return function_; }
  // Identifies an instance across rebuilds: the caller's key (the root call
  // node's address at the top) and the call's position in the caller's body.
  const std::string& InstanceKey() const { return instance_key_; }
  // For reports: the first outputs of the calls from the root, joined by "/".
  const std::string& InstanceLabel() const { return instance_label_; }
  // Position of `node` in the function's node list (in the graph, for a graph
  // that is not a function body).
  int OriginalPosition(const NodeProto* node) const;
  // Every instance of a call of this graph, in node order.
  std::vector<const MemoryGraph*> Instances() const;

  // --- Read/write types (§5)
  // -----------------------------------------------------------
  InputRW InputType(const Slot& slot) const;
  OutputRW OutputType(std::string_view value) const;
  bool Writable(const Slot& slot) const;

  // --- Data dependencies
  // --------------------------------------------------------------- Producer
  // nodes of the node's inputs and captures (distinct).
  std::vector<const NodeProto*> DataPredecessors(const NodeProto& node) const;
  // Nodes reading `value` (inputs or captures; distinct).
  std::vector<const NodeProto*> Readers(std::string_view value) const;
  // Nodes reading one of the node's outputs (inputs or captures; distinct).
  std::vector<const NodeProto*> DataSuccessors(const NodeProto& node) const;
  // Values `node` reads from enclosing scopes through its nested graphs.
  const std::set<std::string>& Captures(const NodeProto& node) const;

  // --- Symbols (§6)
  // ------------------------------------------------------------------ The
  // buffer of a value: values joined by alias outputs share one symbol. -1 for
  // a value the graph does not know.
  int SymbolOf(std::string_view value) const;
  // The values of a symbol, in order of definition (pseudo definitions first).
  const std::vector<std::string>& ValuesOf(int symbol) const {
    return symbol_values_.at(static_cast<std::size_t>(symbol));
  }
  // The number of symbols; after an update, some may have no value left.
  std::size_t SymbolCount() const { return symbol_values_.size(); }

  // --- Updates after copy elimination (copy_elimination.h) --------------------------
  // How the pass dealt with a copy: its readers now read its input (the copy is gone);
  // the producer of its input took the copy's output name, a graph output (gone too); or
  // it stays and executes as an alias.
  enum class CopyRemoval { kRenameUses, kRenameProducer, kElide };
  // Brings the analysis up to date after the pass dealt with `copy`, a node of this
  // graph, as `how`, and edited the graph accordingly; `in` and `out` are the copy's
  // input and output names. The other nodes must have kept their order. Costs what the
  // edit touched, where a rebuild costs the whole graph: a rebuild for each deleted copy
  // made the pass quadratic (the 64-layer decoder's 1 345 copies: 33 s).
  // Readers that are function calls get their instances built again (RebuildInstance),
  // for the names they read now: they are appended to `rebuilt` (the candidates inside
  // them are the caller's to replace); without `rebuilt`, such readers are beyond an
  // update. False, with the analysis stale (possibly updated in part), when the edit is
  // beyond what an update covers: a function body, readers that read the value in nested
  // graphs, node traits or element types that change with the names, an instance that
  // cannot be built again. Rebuild then.
  bool UpdateAfterCopyRemoval(const NodeProto* copy, const std::string& in, const std::string& out,
                              CopyRemoval how, std::vector<const MemoryGraph*>* rebuilt = nullptr);
  // After an edit of `instance` (a function instance below this analysis, which must be
  // the top of it) was added to the edits the analysis was built with: builds that
  // instance again, with the instances below it, and leaves the rest. Returns the new
  // instance (`instance` is gone), or null when the call's traits change with the edit
  // (the caller's symbols would) or, with the instance limit reached, when the instance
  // (before or after) has a call without an instance or another number of instances
  // below it: the analysis is then stale; rebuild it. A rebuild of every instance for each edited one made `onnxopt
  // memory` quadratic in call sites (1 600 calls of a function holding a copy: 18 s).
  const MemoryGraph* RebuildInstance(const MemoryGraph& instance);
  // "" when this analysis describes the graph as `rebuilt` (built from scratch for the
  // same graph and options) does, up to symbol numbers and gaps in positions; otherwise
  // the first difference. For the checks of the updates (ONNXOPT_CHECK_INCREMENTAL).
  std::string DifferenceFrom(const MemoryGraph& rebuilt) const;

 private:
  struct Shared;  // what every instance of one analysis shares (functions, budget)
  // An instance of `function` for `call`, a node of `caller`.
  MemoryGraph(const MemoryGraph& caller, const NodeProto& call, const FunctionProto& function, std::string key);
  void Index();
  // The traits of `node` in this analysis (a call's come from its instance, which this
  // creates).
  OpMemoryTraits NodeTraits(const NodeProto& node);
  void Instantiate(const NodeProto& call, OpMemoryTraits& traits);
  // Adds `more` to `sorted`, the uses of a value in the order Index lists them: node slots
  // in node order (inputs, then the capture), graph output slots last; among equal keys,
  // those of `sorted` first.
  void MergeSlots(std::vector<Slot>& sorted, std::vector<Slot> more) const;
  // Merge of the input types of the uses of formal input `input` (§5.1 line 3).
  InputRW FormalInputUse(int input) const;
  // A name defined nowhere in the graph: an enclosing graph's value in a nested
  // graph, nothing at the top level (a malformed graph).
  Definition::Kind UndefinedKind() const {
    return top_level_ || IsFunctionBody() ? Definition::Kind::kUndefined : Definition::Kind::kOuter;
  }
  void BuildSymbols();
  // This instance and the instances below it.
  std::size_t InstanceCount() const;
  // Every call in this graph and in the instances below it has an instance (none was
  // refused by the limits).
  bool EveryCallInstantiated() const;
  // DifferenceFrom's comparison of the function instances of two analyses.
  static std::string SameInstances(const MemoryGraph& ours, const MemoryGraph& rebuilt);

  std::shared_ptr<Shared> shared_;
  std::unique_ptr<GraphProto> owned_body_;  // a function instance's body
  const GraphProto& graph_;
  bool top_level_;
  const MemoryGraph* caller_ = nullptr;
  const NodeProto* call_ = nullptr;
  const FunctionProto* function_ = nullptr;
  std::string instance_key_;
  std::string instance_label_;
  std::vector<int> original_position_;  // instances: per node, its position in the function
  std::unordered_map<const NodeProto*, std::unique_ptr<MemoryGraph>> instances_;
  const MemoryOptions& options_;
  ElementTypeQuery type_of_;
  std::set<const NodeProto*> elided_;
  std::set<const NodeProto*> out_of_place_;
  std::vector<const NodeProto*> nodes_;
  std::unordered_map<const NodeProto*, std::size_t> position_;
  std::unordered_map<std::string, Definition> definitions_;
  std::unordered_map<std::string, std::vector<Slot>> consumers_;
  std::unordered_map<const NodeProto*, OpMemoryTraits> traits_;
  std::unordered_map<const NodeProto*, std::set<std::string>> captures_;
  std::set<std::string> graph_outputs_;
  std::set<std::string> initializers_;
  std::unordered_map<std::string, int> symbol_of_;
  std::vector<std::vector<std::string>> symbol_values_;
};

}  // namespace onnxopt::core::memory
