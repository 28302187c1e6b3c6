#pragma once
// PushGraph: the transpose optimizer's own view of one graph while it edits it
// (transpose-optimizer.md section 2). GraphGraph's index is stale once a pass
// edits the builder, so the pass keeps producers, consumers, shapes of the
// values it creates and a mutation journal here, and writes the node list back
// once, in a stable topological order, at the end (Finish).
//
// Nodes and values have dense integer ids (the memo of the push walk keys on
// them). Names are interned once, when the view is built: every node keeps the
// ids of its inputs and outputs, so queries and edits hash no string; a value's
// shape is looked up by name once and then cached.
//
// Edits change the ids only. The protos' input and output names, the names of
// the values the pass creates and the names of the nodes it creates are written
// by Finish: on a chain, most copies a push creates are removed by the next
// push, and naming them would cost more than the rest of the push. Read a
// node's inputs and outputs through InputOf/OutputOf, never from its proto.

#include <cstdint>
#include <deque>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <tuple>
#include <unordered_map>
#include <vector>

#include "onnx_core/ir/onnx_pb.h"
#include "onnx_core/shapes/sym_tensor.h"
#include "onnx_core/utils/probe_index.h"
#include "onnx_extensions/transpose/perm.h"

namespace onnxopt::core::builder {
class GraphGraph;
class GraphBuilder;
}  // namespace onnxopt::core::builder

namespace onnxopt::onnx_transpose {

using NodeId = int;
using ValueId = int;
inline constexpr int kNone = -1;

// The operators the pass treats apart, told by (domain, op type) once per node.
enum class OpKind : std::int8_t {
  kOther,
  kTranspose,         // default domain
  kReshape,           // default domain
  kQuantizeLinear,    // default domain or com.microsoft
  kDequantizeLinear,  // default domain or com.microsoft
  kShape,             // default domain
  // Reduce*, ArgMin, ArgMax, Squeeze (default domain): the output may lose the axes a
  // pushed copy moves, and the copy then disappears there.
  kRankReducing,
};

class PushGraph {
 public:
  // `locked` (may be empty) names nodes the caller forbids editing, besides the
  // DoNotRemove marker.
  PushGraph(core::builder::GraphGraph& graph, std::function<bool(const NodeProto&)> locked);
  ~PushGraph();
  PushGraph(const PushGraph&) = delete;
  PushGraph& operator=(const PushGraph&) = delete;

  // --- Queries
  // --------------------------------------------------------------------- The
  // original nodes in graph order (the sweep's snapshot).
  const std::vector<NodeId>& Snapshot() const { return snapshot_; }
  const NodeProto& Node(NodeId node) const { return *nodes_[static_cast<std::size_t>(node)].proto; }
  bool IsRemoved(NodeId node) const { return nodes_[static_cast<std::size_t>(node)].removed; }
  // How many times MutableNode gave `node` out for editing (for caches of
  // what depends on its op type or attributes; edits of its inputs do not count).
  std::uint32_t Edits(NodeId node) const { return nodes_[static_cast<std::size_t>(node)].edits; }
  std::size_t NodeCount() const { return nodes_.size(); }
  std::size_t ValueCount() const { return values_.size(); }
  std::int64_t Opset() const { return opset_; }
  // What the node is, as far as the pass treats operators apart; a removed node
  // is kOther.
  OpKind Kind(NodeId node) const;
  // A node of this kind that is not removed.
  bool Is(NodeId node, OpKind kind) const { return node != kNone && Kind(node) == kind; }

  // The id of `name`: a name of the graph when the view was built, or of an
  // initializer the pass added (kNone for the empty name of an absent optional
  // input, and for the names Name() gave the values the pass created).
  ValueId Find(std::string_view name) const;
  // kNone for an empty or absent slot.
  ValueId InputOf(NodeId node, int slot) const {
    const NodeEntry& entry = nodes_[static_cast<std::size_t>(node)];
    return slot < 0 || slot >= entry.input_count ? kNone : slot_values_[static_cast<std::size_t>(entry.inputs + slot)];
  }
  ValueId OutputOf(NodeId node, int slot) const {
    const NodeEntry& entry = nodes_[static_cast<std::size_t>(node)];
    return slot < 0 || slot >= entry.output_count ? kNone
                                                  : slot_values_[static_cast<std::size_t>(entry.outputs + slot)];
  }
  int InputCount(NodeId node) const { return nodes_[static_cast<std::size_t>(node)].input_count; }
  int OutputCount(NodeId node) const { return nodes_[static_cast<std::size_t>(node)].output_count; }
  // The value's name; a value the pass created is named on the first call
  // (GraphBuilder::UniqueName of its name source's name and its suffix).
  const std::string& Name(ValueId value) const;
  NodeId Producer(ValueId value) const { return values_[static_cast<std::size_t>(value)].producer; }
  // One entry per input slot reading the value, in the order the uses were
  // made (valid until the next edit).
  std::span<const NodeId> Uses(ValueId value) const {
    const ValueEntry& entry = values_[static_cast<std::size_t>(value)];
    return std::span<const NodeId>(use_pool_.data() + entry.uses_first, entry.uses_count);
  }
  // Distinct consumer nodes, in node order of first use.
  std::vector<NodeId> Consumers(ValueId value) const;
  // The same into `out` (cleared first, its capacity reused); O(uses).
  void ConsumersInto(ValueId value, std::vector<NodeId>& out) const;
  // Not a graph output and not read by a nested graph: Uses() lists every use.
  bool HasCompleteConsumers(ValueId value) const;
  // The valid explicit perm of `node` when it is a Transpose (ExplicitPerm),
  // else null; parsed once per edit of the node.
  const Perm* TransposePerm(NodeId node) const;
  // Exactly one consumer node and a complete consumer list.
  bool IsUnshared(ValueId value) const;
  bool IsGraphOutput(ValueId value) const { return values_[static_cast<std::size_t>(value)].graph_output; }
  // An initializer of this graph that no graph input overrides, or the value of a
  // Constant node of this graph (exporters write axes, pads and small weights as
  // Constant nodes, and the pass runs before the patterns that make them initializers);
  // null otherwise.
  const TensorProto* LocalConstant(ValueId value) const;
  // What is known of the value; null when nothing is (missing value info is
  // normal).
  const core::shapes::SymTensor* Shape(ValueId value) const;
  std::optional<std::size_t> Rank(ValueId value) const;
  // Dims not known to be 1; 5 when the rank is unknown (the cost unit).
  std::int64_t Weight(ValueId value) const;
  // The integers of a constant 1-D (or scalar) integer LocalConstant.
  std::optional<std::vector<std::int64_t>> ConstantInts(ValueId value) const;
  // The node may be edited (not marked DoNotRemove, not refused by the caller).
  bool IsModifiable(NodeId node) const;

  // --- Edits (each recorded in the journal)
  // ---------------------------------------
  // kNone leaves the slot empty ("").
  void SetInput(NodeId node, int slot, ValueId value);
  // Gives `node` exactly `count` inputs: new slots are empty, dropped ones stop
  // being uses.
  void ResizeInputs(NodeId node, int count);
  // A new value, named (when first needed) after `name_source` with `suffix`
  // (a literal); no producer, no uses, unknown shape.
  ValueId NewValue(ValueId name_source, std::string_view suffix);
  // A new node `outputs = op(inputs)` placed just before (or after) `anchor` in
  // the final order; its outputs are values without producer (NewValue, or one
  // whose producer was renamed away). Named by Finish. Returns its id.
  NodeId AddNode(std::string_view op_type, std::string_view domain, const std::vector<ValueId>& inputs,
                 const std::vector<ValueId>& outputs, NodeId anchor, bool after);
  // Removes a node none of whose outputs is used.
  void RemoveNode(NodeId node);
  // Removes `node` when none of its outputs is used any more; returns whether
  // it did.
  bool RemoveIfUnused(NodeId node);
  // Output `slot` of `node` becomes a new value (NewValue of the old one with
  // `suffix`, a literal: it is kept until Finish); returns its id. The old value (consumers, graph output) is left
  // without producer for the caller to give one.
  ValueId RenameOutput(NodeId node, int slot, std::string_view suffix);
  // Output `slot` of `node` takes the name of `value` (which must have no
  // producer) and every use of the node's old output value reads `value`
  // instead.
  void TakeOverOutput(NodeId node, int slot, ValueId value);
  // The node's proto, for edits of its op type or attributes (its inputs and
  // outputs are edited through SetInput and the others).
  NodeProto& MutableNode(NodeId node);
  // A new initializer (GraphGraph::MakeInitializer) and its value id.
  ValueId AddInitializer(std::string_view prefix, TensorProto tensor);
  void SetShape(ValueId value, core::shapes::SymTensor shape);
  // The shape of `value` is that of `from` transposed by `perm`, worked out when
  // first asked for (most copies are removed before anything asks).
  void SetTransposedShape(ValueId value, ValueId from, Perm perm);
  // Constants derived from a constant (reshaped to a rank, permuted by a perm) are made
  // once per run: a constant shared by many pushed nodes (a per-channel scale) gets one
  // copy per distinct perm, not one per push.
  // The constant derived from `constant` for (rank, perm) (an empty perm: reshaped
  // only), or kNone.
  ValueId FindDerivedConstant(ValueId constant, std::size_t rank, const Perm& perm) const;
  void RememberDerivedConstant(ValueId constant, std::size_t rank, Perm perm, ValueId derived);
  // The values whose uses or producer changed since the last call, and every
  // value read by a node whose inputs changed since then (memo invalidation,
  // section 6.2).
  std::vector<ValueId> TakeDirtyValues();
  bool Changed() const { return changed_; }

  // Writes the node list back in a stable topological order with the inputs
  // and outputs of every node the pass edited or created, names the nodes it
  // created, removes the initializers the pass left unused, and lists in
  // `modified` the surviving original nodes it edited.
  void Finish(std::vector<const NodeProto*>& modified);

 private:
  struct NodeEntry {
    NodeProto* proto = nullptr;
    std::unique_ptr<NodeProto> owned;  // nodes the pass created
    // Value ids of the inputs and outputs: slot_values_[inputs + i],
    // slot_values_[outputs + k]. A node whose input count grows gets a new
    // block at the end.
    int inputs = 0;
    int input_count = 0;
    int outputs = 0;
    int output_count = 0;
    bool removed = false;
    bool modified = false;
    bool created = false;
    std::uint32_t edits = 0;
    mutable std::int8_t modifiable = -1;  // IsModifiable, once computed
    mutable std::int8_t has_perm = -1;    // TransposePerm, once computed
    mutable std::int8_t kind = -1;        // Kind, once computed
    mutable Perm perm;
    std::int64_t position = 0;  // original position, or the anchor's
    int side = 0;               // -1 before the anchor, +1 after, 0 original
    std::int64_t sequence = 0;
  };
  struct ValueEntry {
    // Empty until Name() names a value the pass created (NewValue).
    mutable std::string name;
    NodeId producer = kNone;
    // The uses are use_pool_[uses_first, uses_first + uses_count), with room up
    // to uses_capacity. Removing an early use (the sweep removes a shared
    // constant's uses in node order) moves the entries before it, not the
    // thousands after it.
    std::uint32_t uses_first = 0;
    std::uint32_t uses_count = 0;
    std::uint32_t uses_capacity = 0;
    bool graph_output = false;
    bool read_by_subgraph = false;
    bool graph_input = false;
    const TensorProto* initializer = nullptr;
    // LocalConstant of a Constant node's output: looked at once, kept in
    // constant_node_values_.
    mutable bool constant_node_checked = false;
    mutable const TensorProto* constant_node_value = nullptr;
    bool initializer_was_used = false;
    bool initializer_added = false;
    bool dirty = false;
    // Index in created_ of what the pass knows of a value it created or gave a
    // shape (-1: nothing).
    mutable std::int32_t created = -1;
    // SetTransposedShape left the shape for Shape() to work out.
    mutable bool shape_pending = false;
    // Shape(): looked up once (builder shapes do not change during the pass).
    mutable bool shape_known = false;
    mutable const core::shapes::SymTensor* shape = nullptr;
    mutable std::int32_t weight = -1;  // Weight(), once computed
  };
  // What is known of a value the pass created, kept apart from ValueEntry (few).
  struct CreatedValue {
    // Its name, when first needed: UniqueName(name of name_source + name_suffix).
    ValueId name_source = kNone;
    std::string_view name_suffix;
    // Pending shape (ValueEntry::shape_pending): that of shape_from transposed by
    // shape_perm.
    ValueId shape_from = kNone;
    Perm shape_perm;
    core::shapes::SymTensor shape;  // ValueEntry::shape points here
  };

  ValueId Intern(std::string_view name);
  // Names the values the pass created (Name()).
  void NameValue(ValueId value) const;
  // Works out the shapes SetTransposedShape left pending, for `value` and the
  // values it derives from.
  void ResolveTransposedShapes(ValueId value) const;
  void StoreShape(ValueId value, core::shapes::SymTensor shape) const;
  // The CreatedValue of `value`, made on first use.
  CreatedValue& Created(ValueId value) const;
  // Sets the proto's inputs and outputs to the names of the node's values.
  void WriteSlots(NodeId node, NodeProto& proto) const;
  // Interns the input (or output) names of `proto` and appends their ids to
  // slot_values_; returns the index of the first.
  int AppendSlots(const NodeProto& proto, bool outputs);
  void MarkDirty(ValueId value);
  // The node's inputs or outputs changed: Finish writes them, the walk's memo
  // forgets what went through it.
  void MarkModified(NodeId node);
  void MarkNodeDirty(NodeId node);
  void AddUse(ValueId value, NodeId node);
  void RemoveUse(ValueId value, NodeId node);

  core::builder::GraphGraph& graph_;
  core::builder::GraphBuilder& builder_;
  std::int64_t opset_ = 0;
  std::vector<NodeEntry> nodes_;
  std::vector<ValueEntry> values_;
  std::vector<ValueId> slot_values_;
  // Every value's use list, in one array (ValueEntry::uses_first): the view is
  // built with each list exactly as long as the graph's uses, in node order; a
  // list that outgrows its room moves to the end with twice the room.
  std::vector<NodeId> use_pool_;
  // Protos of nodes the pass created and removed again (on a chain, the copy
  // pushed one node further), reused by AddNode: their strings and repeated
  // fields keep their memory. A removed node's entry points to `removed_`.
  std::vector<std::unique_ptr<NodeProto>> spare_protos_;
  NodeProto removed_;
  // ConsumersInto's duplicate check: the call that last listed each node.
  mutable std::vector<std::uint32_t> consumer_marks_;
  mutable std::uint32_t consumer_mark_ = 0;
  // Name -> value id (the index of the value in values_, which holds the
  // name): an open-addressing index, no allocation per name.
  utils::ProbeIndex ids_;
  // A deque does not move its elements: ValueEntry::shape stays valid.
  mutable std::deque<CreatedValue> created_;
  // The values of the Constant nodes LocalConstant was asked about (their pointers stay
  // valid in a deque).
  mutable std::deque<TensorProto> constant_node_values_;
  std::vector<NodeId> snapshot_;
  std::function<bool(const NodeProto&)> locked_;
  // Values a node's nested graphs read from this graph (ordering constraints of
  // Finish).
  std::unordered_map<NodeId, std::vector<ValueId>> implicit_inputs_;
  std::vector<ValueId> dirty_;
  // (constant, rank, perm) -> derived constant; looked up without building a key.
  std::map<std::tuple<ValueId, std::size_t, Perm>, ValueId, std::less<>> derived_constants_;
  std::int64_t next_sequence_ = 0;
  bool changed_ = false;
};

}  // namespace onnxopt::onnx_transpose
