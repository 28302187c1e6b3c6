#pragma once
// GraphBuilder: the editable form of one ONNX graph.
//
// A root builder owns a ModelProto (taken by move: building never copies the weights) and
// edits its graph in place: nodes are a utils::RepeatedProtoField<NodeProto>, so moving
// nodes moves pointers. Every graph attribute of every node (If, Loop, Scan,
// SequenceMap, custom ops) gets a nested builder that edits that GraphProto in place and
// knows its enclosing builder, so that scoping (which outer names a subgraph reads) and
// name generation see the whole model.
//
// The whole-graph passes (cleanup, constant folding) live a layer above, in passes/;
// they operate on a builder and its nested builders.

#include <cstddef>
#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <unordered_map>
#include <unordered_set>
#include <utility>
#include <vector>

#include "onnx_core/ir/graph_queries.h"
#include "onnx_core/ir/onnx_pb.h"
#include "onnx_core/shapes/inference.h"
#include "onnx_core/shapes/sym_tensor.h"
#include "onnx_core/utils/name_table.h"
#include "onnx_core/utils/repeated_proto_field.h"
#include "onnx_core/utils/string_hash.h"

namespace onnxopt::core::builder {

class GraphBuilder;
class PatternRegistry;  // optimizer/pattern_registry.h

// Hands out value and node names that appear nowhere in the model (main graph, nested
// graphs, local functions), including names handed out earlier.
class NameGenerator {
 public:
  void Reserve(std::string_view name);
  bool IsUsed(std::string_view name) const;
  // `prefix` itself when unused, else `prefix_1`, `prefix_2`, ...
  std::string Unique(std::string_view prefix);

 private:
  // Flat tables looked up without building a string: every node a rewrite adds asks for
  // a name or two, against the 100k+ names of a large model.
  utils::NameTable<bool> used_;
  utils::NameTable<std::uint64_t> next_suffix_;  // by prefix
};

// The value names a nested graph can read from the graphs around it. Each enclosing
// graph's definitions form one level, shared by every graph nested in it: copying them
// into each nested builder made a graph with many branches (thousands of If nodes on one
// level) quadratic in time and memory.
class EnclosingNames {
 public:
  EnclosingNames() = default;
  // One level: `names` (a standalone graph's outer scope).
  explicit EnclosingNames(const std::set<std::string>& names);
  // `names`, the definitions of a graph, seen from inside it: a level over `enclosing`.
  EnclosingNames(std::vector<std::string> names, const EnclosingNames& enclosing);

  bool Contains(std::string_view name) const;
  // Every name of every level, sorted.
  std::set<std::string> Names() const;

 private:
  struct Level {
    std::unordered_set<std::string, utils::StringHash, std::equal_to<>> names;
    std::shared_ptr<const Level> enclosing;
  };
  std::shared_ptr<const Level> innermost_;
};

// Where a nested graph sits: the node that holds it (identified by its first non-empty
// output name, unique in its graph by SSA), the attribute, and the index for GRAPHS.
struct SubgraphKey {
  std::string node_output;
  std::string attribute;
  int index = -1;  // -1 for a GRAPH attribute

  std::string ToString() const;  // "out:then_branch" or "out:branches[2]"
  auto operator<=>(const SubgraphKey&) const = default;
};

class GraphBuilder {
 public:
  // A root builder over a whole model. Takes ownership (pass with std::move).
  explicit GraphBuilder(ModelProto model);
  // A root builder over a standalone graph, as a nested graph seen from an enclosing
  // scope whose visible value names are `outer_scope` (opset imports are empty).
  GraphBuilder(GraphProto graph, std::set<std::string> outer_scope);

  GraphBuilder(const GraphBuilder&) = delete;
  GraphBuilder& operator=(const GraphBuilder&) = delete;
  ~GraphBuilder();

  // --- The model -------------------------------------------------------------------
  // An equivalent ModelProto (a copy; the builder stays usable). A root model of IR
  // version below 4 whose initializers are not all graph inputs declares version 4
  // (ir::DeclareIrVersionOfInitializersNotInputs): folding and rewrites add initializers.
  ModelProto ToModel() const;
  // The model itself, without copying, with the same IR version rule; the builder must not
  // be used afterwards.
  ModelProto TakeModel() &&;

  bool IsRoot() const { return parent_ == nullptr; }
  const GraphBuilder* Parent() const { return parent_; }
  // Path from the root: empty for the root graph.
  const std::vector<SubgraphKey>& Path() const { return path_; }
  std::string PathString() const;  // "" for the root, keys joined by "/"

  GraphProto& Graph() { return *graph_; }
  const GraphProto& Graph() const { return *graph_; }
  utils::RepeatedProtoField<NodeProto>& Nodes() { return *graph_->mutable_node(); }
  const utils::RepeatedProtoField<NodeProto>& Nodes() const { return graph_->node(); }
  utils::RepeatedProtoField<TensorProto>& Initializers() { return *graph_->mutable_initializer(); }
  const utils::RepeatedProtoField<TensorProto>& Initializers() const { return graph_->initializer(); }
  const utils::RepeatedProtoField<ValueInfoProto>& Inputs() const { return graph_->input(); }
  const utils::RepeatedProtoField<ValueInfoProto>& Outputs() const { return graph_->output(); }
  utils::RepeatedProtoField<ValueInfoProto>& ValueInfos() { return *graph_->mutable_value_info(); }
  // Opset imports and local functions belong to the model: nested builders return the root's.
  const utils::RepeatedProtoField<OperatorSetIdProto>& OpsetImports() const;
  const utils::RepeatedProtoField<FunctionProto>& Functions() const;
  // Version imported for `domain` ("" and "ai.onnx" are the same); nullopt when absent.
  std::optional<std::int64_t> OpsetVersion(std::string_view domain) const;

  // --- Local functions (the model's; nested builders act on the root's) ---------------
  // The local function (domain, name) ("" and "ai.onnx" are one domain), or null.
  const FunctionProto* FindFunction(std::string_view domain, std::string_view name) const;
  // The local function (function.domain(), function.name()): added the first time (at the
  // end of the model's functions, its body's names reserved), returned as it is later.
  // Adding it imports its domain at version 1 (new custom domains start there) and every
  // domain its body imports that the model does not, at the body's version. Throws
  // BuilderError, changing nothing, when the model already has a function of that key with
  // another content (compared byte for byte: build a body deterministically, with fixed
  // names, since a body has its own scope), when the function has no name, is in the
  // default domain, or its body imports a domain at another version than the model (the
  // IR lets a function import its own versions, but runtimes may refuse a mismatch, and
  // the patterns build bodies for the model's opset).
  // The reference stays valid until functions are removed. The driver records the
  // functions a pattern's Apply adds (LocalRewriting::added_functions).
  const FunctionProto& GetOrAddFunction(FunctionProto function);
  // Removes the local functions at `positions` (indices in Functions(), distinct, any
  // order), keeping the others in order; opset imports stay. Throws BuilderError for a
  // position out of range or repeated, changing nothing; `what` prefixes the message.
  void RemoveFunctions(const std::vector<std::size_t>& positions, std::string_view what = "RemoveFunctions");
  // Imports every custom domain that a node uses (in any graph or local function) and the
  // model does not import yet, at version 1 (the version of com.microsoft's contrib
  // operators and of new custom domains); returns the domains added. A rewrite that
  // introduces such operators thus leaves a valid model. Root builders only.
  std::vector<std::string> ImportUsedDomains();

  // --- Values ------------------------------------------------------------------------
  bool IsGraphInput(std::string_view name) const;
  bool IsGraphOutput(std::string_view name) const;
  // Initializer of this graph named `name`, or null.
  const TensorProto* Initializer(std::string_view name) const;
  // Names visible from enclosing graphs (empty for a root built from a ModelProto).
  const EnclosingNames& OuterScope() const { return outer_scope_; }
  // Names this graph (or any graph nested in it) reads from its enclosing graphs.
  std::set<std::string> OuterScopeReads() const;

  // --- Shapes (shapes/inference.h) ---------------------------------------------------
  // Operators are known through the shape-function registry, which applications fill by
  // calling onnx_shapes::RegisterShapeFunctions() (onnx_core does not link it): without
  // it every node output is unknown. Results are not updated by edits: after a rewrite,
  // call InferShapesOf(new nodes) or InferShapes() again.
  //
  // Infers every value of this graph and of the graphs nested in it, replacing earlier
  // results. A nested builder infers its own graph in the context nested in its
  // parent's, reading enclosing values from there (infer the root first).
  void InferShapes();
  // Infers the outputs of `nodes` (nodes of this graph, in order, e.g. added by a
  // rewrite), first recording the initializers they read that inference has not seen.
  // When an output keeps the name of a value inference knew and is now known better (a
  // rewrite gave it a producer whose shape is clearer), the readers of that name learn it
  // (as in AddKnowledgeOfFoldedConstants).
  void InferShapesOf(const std::vector<const NodeProto*>& nodes);
  // InferShapesOf in two steps, so that a node its operator's specification forbids is
  // found before it joins the graph. InferShapesAhead infers `nodes` (about to be added,
  // in their order after the edit) into a context over this graph's shapes that they do
  // not see yet. When a node is invalid, `invalid` holds its position in `nodes` and why,
  // and this graph's shapes are as before the call (the generator of fresh symbols and the
  // diagnostics included). Otherwise, once these very nodes are in the graph (ApplyBatch
  // moves them in), CommitShapes takes what was inferred: the result is that of
  // InferShapesOf(nodes) then.
  struct PendingShapes {
    std::optional<shapes::InvalidNodeAt> invalid;
    std::unique_ptr<shapes::ShapesContext> overlay;
    std::vector<const NodeProto*> nodes;
  };
  PendingShapes InferShapesAhead(const std::vector<const NodeProto*>& nodes);
  void CommitShapes(PendingShapes pending);
  // Constant folding replaced the producers of the values `initializers` (of this graph)
  // name by them. Records those that shapes::ShapesContext::KeepsConstant as constants,
  // as loaded initializers are (for the shape functions that read constant inputs), adds
  // what they tell (elements, dims) to what inference knew of them, and infers again, in
  // graph order, the nodes that read a value whose knowledge so grew, as far as it keeps
  // growing: a Reshape or Expand inferred while its shape operand was not yet known learns
  // its dims once the operand is folded, as inference from scratch would. What was known
  // stays (AddKnowledge): other values may share its symbols. Nodes holding a nested graph
  // keep what they knew.
  void AddKnowledgeOfFoldedConstants(const std::vector<const TensorProto*>& initializers);
  // The values whose shapes, types or elements inference from scratch would know and the
  // shapes held now do not, one line each ("name (OpType): held ..., from scratch ...");
  // empty when the held shapes know everything a fresh inference does. A check of the
  // incremental inference (ONNXOPT_CHECK_INCREMENTAL): it infers the whole model again.
  std::vector<std::string> LessKnownThanFreshInference() const;
  // The values whose shape, type or elements inference learned since the last call while
  // their producer stayed as it was (the readers InferShapesOf and
  // AddKnowledgeOfFoldedConstants inferred again): what was derived from them may change
  // too (the optimizer's match cache asks).
  std::vector<std::string> TakeRefinedValues() { return std::exchange(refined_values_, {}); }
  // What inference knows about `name` (looking in enclosing graphs): null when nothing is
  // known (never inferred, or Kind::kUnknown). The pointer stays valid until the next
  // InferShapes / InferShapesOf.
  const shapes::SymTensor* GetShape(std::string_view name) const;
  // The same, given utils::HashString(name) (for callers that hash the name for other
  // tables too).
  const shapes::SymTensor* GetShape(std::string_view name, std::uint64_t name_hash) const;
  // GetShape(name) is known with a known rank (dims may still be unknown).
  bool HasShape(std::string_view name) const;
  // GetShape(name) is known with a known element type.
  bool HasType(std::string_view name) const;
  // The element type (TensorProto::DataType) of `name`; 0 when unknown.
  int GetType(std::string_view name) const;
  // The inference results of this graph (its enclosing graphs through Parent()); null
  // before InferShapes.
  const shapes::ShapesContext* Shapes() const;
  // Writes the inferred type and shape of every node output of this graph and of its
  // nested graphs into value_info (symbolic dims as dim_param, their expression text),
  // replacing the entries of those names. Outputs whose element type is unknown get no
  // entry. Graph outputs are left alone except that a declared tensor type without a
  // shape receives the inferred shape (and an unset type the inferred one). Nothing is
  // written for graphs that were never inferred.
  void WriteValueInfo();

  // --- Names -------------------------------------------------------------------------
  // A name used nowhere in the model; shared by the root and all nested builders.
  std::string UniqueName(std::string_view prefix);
  NameGenerator& Names();

  // --- Patterns ----------------------------------------------------------------------
  // The patterns registered for this model only (see optimizer/pattern_registry.h, which
  // fills it): null until one is. Nested builders return the root's.
  std::shared_ptr<PatternRegistry>& LocalPatternRegistry();
  const PatternRegistry* LocalPatternRegistry() const;

  // --- Nested graphs -----------------------------------------------------------------
  // One nested builder per graph attribute of every node of this graph, in node order.
  // Builders are created on first use and kept while their node exists; call after
  // editing nodes to get an up-to-date list.
  std::vector<GraphBuilder*> Subgraphs();
  // The nested builders of one node (empty when it has no graph attribute).
  std::vector<GraphBuilder*> SubgraphsOf(const NodeProto& node);
  // Nested builders whose graph reads at least one value from an enclosing scope, and
  // the values each reads (these values must be kept alive by cleanup passes).
  std::vector<std::pair<GraphBuilder*, std::set<std::string>>> ReferencedSubgraphs();

  // Renames every use of `from` into `to` in this graph's node inputs, and in every
  // nested graph that reads `from` from its enclosing scope (node inputs and the nested
  // graph's outputs). value_info entries describing `from` are dropped. This graph's own
  // outputs and definitions (node outputs, inputs, initializers) are not touched: the
  // caller never renames a graph output.
  void RenameUses(const std::string& from, const std::string& to);
  // The same for many names in one walk over the graph (linear in the graph size, not in
  // the number of renames). Targets must not themselves be keys.
  void RenameUses(const std::unordered_map<std::string, std::string>& renames);
  // RenameUses(from, to) where the caller knows every node of this graph that reads
  // `from` (from an analysis of its own): only `readers` are visited, where the others
  // walk the whole graph.
  void RenameUses(const std::string& from, const std::string& to, const std::vector<const NodeProto*>& readers);

 private:
  // Nested builder over `graph`, which lives inside a node attribute of `parent`.
  GraphBuilder(GraphProto* graph, GraphBuilder* parent, SubgraphKey key);
  GraphBuilder& Root();
  const GraphBuilder& Root() const;
  EnclosingNames VisibleToNested() const;
  // The inference context of this graph, created when missing.
  shapes::ShapesContext& MutableShapes();
  // Infers again, in graph order, the nodes reading a value of `grown`, adding what they
  // learn to what was known (AddKnowledgeOfFoldedConstants); a value that so grows joins
  // `grown`.
  void InferReadersAgain(std::unordered_set<std::string> grown);
  // Finds or creates the nested builders of `node`, refreshes their path and outer scope
  // (a cached GraphProto address may have been reused by a new node) and appends them.
  void AttachNested(const NodeProto& node, const EnclosingNames& visible, std::vector<GraphBuilder*>& out);

  std::unique_ptr<ModelProto> owned_model_;  // root only
  GraphProto* graph_ = nullptr;
  GraphBuilder* parent_ = nullptr;
  std::vector<SubgraphKey> path_;
  EnclosingNames outer_scope_;
  std::unique_ptr<NameGenerator> names_;  // root only
  // Nested builders, keyed by the address of the GraphProto they edit (stable while the
  // owning node lives).
  std::map<const GraphProto*, std::unique_ptr<GraphBuilder>> nested_;
  // Inference results (root only; nested graphs use the contexts nested in it).
  std::unique_ptr<shapes::ShapesContext> shapes_;
  std::shared_ptr<PatternRegistry> local_patterns_;  // root only
  std::vector<std::string> refined_values_;          // TakeRefinedValues
};

// Every value name defined or read in `graph` (node inputs/outputs, inputs, outputs,
// initializers, sparse initializers, value_info) and node names, recursively through
// nested graphs.
void CollectNames(const GraphProto& graph, NameGenerator& names);

// The structural queries of ir/graph_queries.h, which patterns and passes reach through
// the builder's namespace.
using ir::HasSubgraph;
using ir::IsOnnxDomain;
using ir::SubgraphReads;

// Keeps, in order, the elements of `field` for which `keep(element)` is true and deletes
// the others. Moves pointers only (no message is copied); linear in the field size.
// Returns how many elements were deleted.
template <class T, class Keep>
std::size_t KeepIf(utils::RepeatedProtoField<T>& field, Keep&& keep) {
  int kept = 0;
  for (int i = 0; i < field.size(); ++i) {
    // Earlier swaps only touched slots before i: slot i still holds the i-th element.
    if (!keep(std::as_const(field.Get(i)))) continue;
    if (kept != i) field.SwapElements(kept, i);
    ++kept;
  }
  const int removed = field.size() - kept;
  field.DeleteSubrange(kept, removed);
  return static_cast<std::size_t>(removed);
}

}  // namespace onnxopt::core::builder
