#include "onnx_extensions/transpose/push_graph.h"

#include <algorithm>
#include <queue>
#include <tuple>
#include <utility>

#include "onnx_core/builder/graph_builder.h"
#include "onnx_core/common/error.h"
#include "onnx_core/eval/tensor.h"
#include "onnx_core/utils/string_hash.h"
#include "onnx_core/ir/constant_values.h"
#include "onnx_core/ir/graph_queries.h"
#include "onnx_core/optimizer/graph_graph.h"
#include "onnx_extensions/transpose/handlers.h"

namespace onnxopt::onnx_transpose {

using core::builder::GraphBuilder;
using core::builder::GraphGraph;

PushGraph::PushGraph(GraphGraph& graph, std::function<bool(const NodeProto&)> locked)
    : graph_(graph), builder_(graph.Builder()), locked_(std::move(locked)) {
  opset_ = builder_.OpsetVersion("").value_or(0);
  for (const auto& input : builder_.Inputs())
    values_[static_cast<std::size_t>(Intern(input.name()))].graph_input = true;
  for (const TensorProto& init : builder_.Initializers())
    values_[static_cast<std::size_t>(Intern(init.name()))].initializer = &init;
  for (const auto& output : builder_.Outputs())
    values_[static_cast<std::size_t>(Intern(output.name()))].graph_output = true;
  auto& protos = builder_.Nodes();
  const auto node_count = static_cast<std::size_t>(protos.size());
  nodes_.reserve(node_count);
  snapshot_.reserve(node_count);
  values_.reserve(2 * node_count);
  ids_.Reserve(2 * node_count);
  slot_values_.reserve(3 * node_count);
  for (int i = 0; i < protos.size(); ++i) {
    NodeProto* proto = protos.Mutable(i);
    const int inputs = AppendSlots(*proto, false);
    const int outputs = AppendSlots(*proto, true);
    const auto id = static_cast<NodeId>(nodes_.size());
    NodeEntry& entry = nodes_.emplace_back();
    entry.proto = proto;
    entry.position = i;
    entry.inputs = inputs;
    entry.input_count = proto->input_size();
    entry.outputs = outputs;
    entry.output_count = proto->output_size();
    snapshot_.push_back(id);
    for (int k = 0; k < entry.output_count; ++k)
      if (const ValueId output = OutputOf(id, k); output != kNone)
        values_[static_cast<std::size_t>(output)].producer = id;
  }
  // The values nested graphs read from here, as the optimizer's index finds them
  // (GraphBuilder::SubgraphsOf would list every name of the graph for each such node).
  for (NodeId id : snapshot_) {
    if (!core::ir::HasSubgraph(Node(id))) continue;
    for (const std::string& read : core::ir::SubgraphReads(Node(id))) {
      const ValueId value = Intern(read);
      values_[static_cast<std::size_t>(value)].read_by_subgraph = true;
      implicit_inputs_[id].push_back(value);
    }
  }
  // The use lists: counted, given their room in node order, then filled.
  for (NodeId id : snapshot_)
    for (int k = 0; k < InputCount(id); ++k)
      if (const ValueId input = InputOf(id, k); input != kNone) ++values_[static_cast<std::size_t>(input)].uses_capacity;
  std::uint32_t next_use = 0;
  for (ValueEntry& value : values_) {
    value.uses_first = next_use;
    next_use += value.uses_capacity;
  }
  use_pool_.resize(next_use);
  for (NodeId id : snapshot_)
    for (int k = 0; k < InputCount(id); ++k)
      if (const ValueId input = InputOf(id, k); input != kNone) {
        ValueEntry& value = values_[static_cast<std::size_t>(input)];
        use_pool_[value.uses_first + value.uses_count++] = id;
      }
  for (ValueEntry& value : values_) value.initializer_was_used = value.initializer && value.uses_count > 0;
}

PushGraph::~PushGraph() = default;

ValueId PushGraph::Intern(std::string_view name) {
  const auto [id, added] = ids_.Insert(utils::HashString(name), static_cast<std::uint32_t>(values_.size()),
                                       [&](std::uint32_t known) { return values_[known].name == name; });
  if (added) values_.emplace_back().name.assign(name.data(), name.size());
  return static_cast<ValueId>(id);
}

int PushGraph::AppendSlots(const NodeProto& proto, bool outputs) {
  const auto first = static_cast<int>(slot_values_.size());
  for (const std::string& name : outputs ? proto.output() : proto.input())
    slot_values_.push_back(name.empty() ? kNone : Intern(name));
  return first;
}

const std::string& PushGraph::Name(ValueId value) const {
  const ValueEntry& entry = values_[static_cast<std::size_t>(value)];
  if (entry.name.empty() && entry.created >= 0) NameValue(value);
  return entry.name;
}

void PushGraph::NameValue(ValueId value) const {
  // The sources are named first, oldest first (a loop: a chain of copies can be
  // long).
  std::vector<ValueId> unnamed{value};
  for (ValueId source = Created(value).name_source; values_[static_cast<std::size_t>(source)].name.empty();
       source = Created(source).name_source)
    unnamed.push_back(source);
  for (auto it = unnamed.rbegin(); it != unnamed.rend(); ++it) {
    const ValueEntry& entry = values_[static_cast<std::size_t>(*it)];
    const CreatedValue& created = Created(*it);
    std::string prefix = values_[static_cast<std::size_t>(created.name_source)].name;
    prefix += created.name_suffix;
    entry.name = builder_.UniqueName(prefix);
  }
}

ValueId PushGraph::NewValue(ValueId name_source, std::string_view suffix) {
  const auto value = static_cast<ValueId>(values_.size());
  ValueEntry entry;
  entry.shape_known = true;  // unknown until SetShape or SetTransposedShape
  values_.push_back(std::move(entry));
  CreatedValue& created = Created(value);
  created.name_source = name_source;
  created.name_suffix = suffix;
  return value;
}

ValueId PushGraph::Find(std::string_view name) const {
  if (name.empty()) return kNone;
  const std::uint32_t id = ids_.Find(utils::HashString(name),
                                     [&](std::uint32_t known) { return values_[known].name == name; });
  return id == utils::ProbeIndex::kNone ? kNone : static_cast<ValueId>(id);
}

std::vector<NodeId> PushGraph::Consumers(ValueId value) const {
  std::vector<NodeId> result;
  ConsumersInto(value, result);
  return result;
}

void PushGraph::ConsumersInto(ValueId value, std::vector<NodeId>& out) const {
  out.clear();
  if (consumer_marks_.size() < nodes_.size()) consumer_marks_.resize(nodes_.size(), 0);
  if (++consumer_mark_ == 0) {  // wrapped around: forget the old marks
    std::fill(consumer_marks_.begin(), consumer_marks_.end(), 0);
    consumer_mark_ = 1;
  }
  for (NodeId use : Uses(value)) {
    std::uint32_t& mark = consumer_marks_[static_cast<std::size_t>(use)];
    if (mark == consumer_mark_) continue;
    mark = consumer_mark_;
    out.push_back(use);
  }
}

bool PushGraph::HasCompleteConsumers(ValueId value) const {
  const ValueEntry& entry = values_[static_cast<std::size_t>(value)];
  return !entry.graph_output && !entry.read_by_subgraph;
}

bool PushGraph::IsUnshared(ValueId value) const {
  if (!HasCompleteConsumers(value)) return false;
  const std::span<const NodeId> uses = Uses(value);
  return !uses.empty() && std::all_of(uses.begin(), uses.end(), [&](NodeId use) { return use == uses.front(); });
}

const TensorProto* PushGraph::LocalConstant(ValueId value) const {
  const ValueEntry& entry = values_[static_cast<std::size_t>(value)];
  if (entry.graph_input) return nullptr;
  if (entry.initializer || entry.producer == kNone) return entry.initializer;
  if (!entry.constant_node_checked) {
    entry.constant_node_checked = true;
    // The pass never edits a Constant node, so its value stays what it is now.
    const NodeEntry& producer = nodes_[static_cast<std::size_t>(entry.producer)];
    const NodeProto& node = *producer.proto;
    if (!producer.removed && node.op_type() == "Constant" && core::ir::IsOnnxDomain(node.domain()))
      if (std::optional<TensorProto> tensor = core::ir::ConstantNodeValue(node))
        entry.constant_node_value = &constant_node_values_.emplace_back(std::move(*tensor));
  }
  return entry.constant_node_value;
}

const core::shapes::SymTensor* PushGraph::Shape(ValueId value) const {
  const ValueEntry& entry = values_[static_cast<std::size_t>(value)];
  if (entry.shape_pending) ResolveTransposedShapes(value);
  if (!entry.shape_known) {
    // Values the pass created have their shape set by SetShape; the others
    // keep the one inference gave their name.
    entry.shape = builder_.GetShape(entry.name);
    entry.shape_known = true;
  }
  return entry.shape;
}

std::optional<std::size_t> PushGraph::Rank(ValueId value) const {
  const core::shapes::SymTensor* shape = Shape(value);
  if (!shape || !shape->shape.HasRank()) return std::nullopt;
  return shape->shape.Rank();
}

std::int64_t PushGraph::Weight(ValueId value) const {
  const ValueEntry& entry = values_[static_cast<std::size_t>(value)];
  if (entry.weight >= 0) return entry.weight;
  const core::shapes::SymTensor* shape = Shape(value);
  std::int32_t weight = 0;
  if (!shape || !shape->shape.HasRank()) {
    weight = 5;
  } else {
    for (const core::shapes::SymDim& dim : shape->shape.Dims())
      if (dim.Constant() != std::optional<std::int64_t>(1)) ++weight;
  }
  entry.weight = weight;
  return weight;
}

std::optional<std::vector<std::int64_t>> PushGraph::ConstantInts(ValueId value) const {
  const TensorProto* tensor = LocalConstant(value);
  if (!tensor || tensor->dims_size() > 1) return std::nullopt;
  if (tensor->data_type() != TensorProto::INT64 && tensor->data_type() != TensorProto::INT32) return std::nullopt;
  if (tensor->data_location() == TensorProto::EXTERNAL) return std::nullopt;
  return core::eval::Tensor::FromProto(*tensor).ToInt64Vector();
}

const Perm* PushGraph::TransposePerm(NodeId node) const {
  const NodeEntry& entry = nodes_[static_cast<std::size_t>(node)];
  if (entry.has_perm < 0) {
    std::optional<Perm> perm = Is(node, OpKind::kTranspose) ? ExplicitPerm(*entry.proto) : std::nullopt;
    entry.has_perm = perm ? 1 : 0;
    if (perm) entry.perm = std::move(*perm);
  }
  return entry.has_perm == 1 ? &entry.perm : nullptr;
}

bool PushGraph::IsModifiable(NodeId node) const {
  const NodeEntry& entry = nodes_[static_cast<std::size_t>(node)];
  if (entry.modifiable < 0) {
    const NodeProto& proto = *entry.proto;
    const bool marked = proto.name().find(core::builder::kDoNotRemoveMarker) != std::string::npos;
    entry.modifiable = !marked && !(locked_ && locked_(proto)) ? 1 : 0;
  }
  return entry.modifiable == 1;
}

void PushGraph::MarkDirty(ValueId value) {
  ValueEntry& entry = values_[static_cast<std::size_t>(value)];
  if (entry.dirty) return;
  entry.dirty = true;
  dirty_.push_back(value);
}

void PushGraph::MarkNodeDirty(NodeId node) {
  for (int slot = 0; slot < InputCount(node); ++slot)
    if (const ValueId value = InputOf(node, slot); value != kNone) MarkDirty(value);
}

std::vector<ValueId> PushGraph::TakeDirtyValues() {
  std::vector<ValueId> result;
  result.swap(dirty_);
  for (ValueId value : result) values_[static_cast<std::size_t>(value)].dirty = false;
  return result;
}

void PushGraph::AddUse(ValueId value, NodeId node) {
  ValueEntry& entry = values_[static_cast<std::size_t>(value)];
  if (entry.uses_count == entry.uses_capacity) {
    // Moves to the end with twice the room (amortized O(1) per use).
    const auto first = static_cast<std::uint32_t>(use_pool_.size());
    const std::uint32_t capacity = std::max<std::uint32_t>(2, 2 * entry.uses_count);
    use_pool_.resize(use_pool_.size() + capacity);
    std::copy_n(use_pool_.begin() + entry.uses_first, entry.uses_count, use_pool_.begin() + first);
    entry.uses_first = first;
    entry.uses_capacity = capacity;
  }
  use_pool_[entry.uses_first + entry.uses_count++] = node;
}

void PushGraph::RemoveUse(ValueId value, NodeId node) {
  ValueEntry& entry = values_[static_cast<std::size_t>(value)];
  const auto begin = use_pool_.begin() + entry.uses_first;
  const auto end = begin + entry.uses_count;
  const auto it = std::find(begin, end, node);
  if (it != end) {
    // The order is kept; the shorter side moves (an early use: the entries
    // before it move one place on, and the list starts one place later).
    if (it - begin < end - it) {
      std::move_backward(begin, it, it + 1);
      ++entry.uses_first;
      --entry.uses_capacity;
    } else {
      std::move(it + 1, end, it);
    }
    --entry.uses_count;
  }
  MarkDirty(value);
}

void PushGraph::MarkModified(NodeId node) {
  nodes_[static_cast<std::size_t>(node)].modified = true;
  changed_ = true;
  MarkNodeDirty(node);
}

NodeProto& PushGraph::MutableNode(NodeId node) {
  MarkModified(node);
  NodeEntry& entry = nodes_[static_cast<std::size_t>(node)];
  ++entry.edits;
  // The caller may change what `locked`, Kind and TransposePerm look at.
  entry.modifiable = -1;
  entry.has_perm = -1;
  entry.kind = -1;
  return *entry.proto;
}

OpKind PushGraph::Kind(NodeId node) const {
  const NodeEntry& entry = nodes_[static_cast<std::size_t>(node)];
  if (entry.removed) return OpKind::kOther;
  if (entry.kind < 0) {
    const NodeProto& proto = *entry.proto;
    const std::string& domain = proto.domain();
    const bool onnx = domain.empty() || domain == "ai.onnx";
    const std::string_view op = proto.op_type();
    const bool quantization = onnx || domain == "com.microsoft";
    OpKind kind = OpKind::kOther;
    if (onnx && op == "Transpose")
      kind = OpKind::kTranspose;
    else if (onnx && op == "Reshape")
      kind = OpKind::kReshape;
    else if (quantization && op == "QuantizeLinear")
      kind = OpKind::kQuantizeLinear;
    else if (quantization && op == "DequantizeLinear")
      kind = OpKind::kDequantizeLinear;
    else if (onnx && op == "Shape")
      kind = OpKind::kShape;
    else if (onnx && (op.starts_with("Reduce") || op == "ArgMin" || op == "ArgMax" || op == "Squeeze"))
      kind = OpKind::kRankReducing;
    entry.kind = static_cast<std::int8_t>(kind);
  }
  return static_cast<OpKind>(entry.kind);
}

void PushGraph::SetInput(NodeId node, int slot, ValueId value) {
  MarkModified(node);
  if (const ValueId old = InputOf(node, slot); old != kNone) RemoveUse(old, node);
  const NodeEntry& entry = nodes_[static_cast<std::size_t>(node)];
  slot_values_[static_cast<std::size_t>(entry.inputs + slot)] = value;
  if (value == kNone) return;
  AddUse(value, node);
  MarkDirty(value);
  MarkNodeDirty(node);
}

void PushGraph::ResizeInputs(NodeId node, int count) {
  MarkModified(node);
  NodeEntry& entry = nodes_[static_cast<std::size_t>(node)];
  if (count <= entry.input_count) {
    for (int slot = count; slot < entry.input_count; ++slot)
      if (const ValueId value = InputOf(node, slot); value != kNone) RemoveUse(value, node);
    entry.input_count = count;
    return;
  }
  // The block cannot grow in place: copy it to the end.
  const auto first = static_cast<int>(slot_values_.size());
  for (int slot = 0; slot < entry.input_count; ++slot) {
    const ValueId value = slot_values_[static_cast<std::size_t>(entry.inputs + slot)];
    slot_values_.push_back(value);
  }
  slot_values_.insert(slot_values_.end(), static_cast<std::size_t>(count - entry.input_count), kNone);
  entry.inputs = first;
  entry.input_count = count;
}

NodeId PushGraph::AddNode(std::string_view op_type, std::string_view domain, const std::vector<ValueId>& inputs,
                          const std::vector<ValueId>& outputs, NodeId anchor, bool after) {
  NodeEntry entry;
  if (spare_protos_.empty()) {
    entry.owned = std::make_unique<NodeProto>();
  } else {
    entry.owned = std::move(spare_protos_.back());
    spare_protos_.pop_back();
    entry.owned->Clear();
  }
  entry.proto = entry.owned.get();
  entry.proto->set_op_type(std::string(op_type));
  if (!domain.empty()) entry.proto->set_domain(std::string(domain));
  entry.created = true;
  const NodeEntry& reference = nodes_[static_cast<std::size_t>(anchor)];
  entry.position = reference.position;
  entry.side = reference.side != 0 ? reference.side : (after ? 1 : -1);
  entry.sequence = ++next_sequence_;
  entry.inputs = static_cast<int>(slot_values_.size());
  entry.input_count = static_cast<int>(inputs.size());
  slot_values_.insert(slot_values_.end(), inputs.begin(), inputs.end());
  entry.outputs = static_cast<int>(slot_values_.size());
  entry.output_count = static_cast<int>(outputs.size());
  slot_values_.insert(slot_values_.end(), outputs.begin(), outputs.end());
  nodes_.push_back(std::move(entry));
  const NodeId id = static_cast<NodeId>(nodes_.size() - 1);
  for (ValueId input : inputs) {
    if (input == kNone) continue;
    AddUse(input, id);
    MarkDirty(input);
  }
  for (ValueId output : outputs) {
    ValueEntry& value = values_[static_cast<std::size_t>(output)];
    if (value.producer != kNone)
      throw BuilderError("TransposeOptimizer: the output '" + Name(output) + "' of a new node already has a producer");
    value.producer = id;
    MarkDirty(output);
  }
  changed_ = true;
  return id;
}

void PushGraph::RemoveNode(NodeId node) {
  NodeEntry& entry = nodes_[static_cast<std::size_t>(node)];
  for (int slot = 0; slot < entry.output_count; ++slot) {
    const ValueId value = OutputOf(node, slot);
    if (value == kNone) continue;
    if (!Uses(value).empty() || !HasCompleteConsumers(value))
      throw BuilderError("TransposeOptimizer: removing node '" + entry.proto->name() + "' whose output '" +
                         Name(value) + "' is still used");
    values_[static_cast<std::size_t>(value)].producer = kNone;
    MarkDirty(value);
  }
  for (int slot = 0; slot < entry.input_count; ++slot)
    if (const ValueId value = InputOf(node, slot); value != kNone) RemoveUse(value, node);
  entry.removed = true;
  if (entry.owned) {
    spare_protos_.push_back(std::move(entry.owned));
    entry.proto = &removed_;
  }
  changed_ = true;
}

bool PushGraph::RemoveIfUnused(NodeId node) {
  for (int slot = 0; slot < OutputCount(node); ++slot) {
    const ValueId value = OutputOf(node, slot);
    if (value != kNone && (!Uses(value).empty() || !HasCompleteConsumers(value))) return false;
  }
  RemoveNode(node);
  return true;
}

ValueId PushGraph::RenameOutput(NodeId node, int slot, std::string_view suffix) {
  MarkModified(node);
  const ValueId old = OutputOf(node, slot);
  values_[static_cast<std::size_t>(old)].producer = kNone;
  MarkDirty(old);
  // The consumers' acceptance may read the producer of this value (6.2).
  for (NodeId reader : Uses(old)) MarkNodeDirty(reader);
  const ValueId value = NewValue(old, suffix);
  slot_values_[static_cast<std::size_t>(nodes_[static_cast<std::size_t>(node)].outputs + slot)] = value;
  values_[static_cast<std::size_t>(value)].producer = node;
  return value;
}

void PushGraph::TakeOverOutput(NodeId node, int slot, ValueId value) {
  const ValueId old = OutputOf(node, slot);
  const std::span<const NodeId> uses = Uses(old);
  const std::vector<NodeId> readers(uses.begin(), uses.end());
  for (NodeId reader : readers)
    for (int i = 0; i < InputCount(reader); ++i)
      if (InputOf(reader, i) == old) SetInput(reader, i, value);
  MarkModified(node);
  slot_values_[static_cast<std::size_t>(nodes_[static_cast<std::size_t>(node)].outputs + slot)] = value;
  values_[static_cast<std::size_t>(old)].producer = kNone;
  values_[static_cast<std::size_t>(value)].producer = node;
  MarkDirty(old);
  MarkDirty(value);
}

ValueId PushGraph::AddInitializer(std::string_view prefix, TensorProto tensor) {
  const std::string name = graph_.MakeInitializer(prefix, std::move(tensor));
  const ValueId value = Intern(name);
  ValueEntry& entry = values_[static_cast<std::size_t>(value)];
  // MakeInitializer appends: the last initializer is the new one (Initializer(name) would
  // scan them all).
  entry.initializer = &builder_.Initializers().Get(builder_.Initializers().size() - 1);
  entry.initializer_added = true;
  SetShape(value, core::shapes::SymTensor::FromTensor(*entry.initializer));
  changed_ = true;
  return value;
}

ValueId PushGraph::FindDerivedConstant(ValueId constant, std::size_t rank, const Perm& perm) const {
  auto it = derived_constants_.find(std::forward_as_tuple(constant, rank, perm));
  return it == derived_constants_.end() ? kNone : it->second;
}

void PushGraph::RememberDerivedConstant(ValueId constant, std::size_t rank, Perm perm, ValueId derived) {
  derived_constants_.emplace(std::make_tuple(constant, rank, std::move(perm)), derived);
}

void PushGraph::SetShape(ValueId value, core::shapes::SymTensor shape) {
  values_[static_cast<std::size_t>(value)].shape_pending = false;
  StoreShape(value, std::move(shape));
}

void PushGraph::SetTransposedShape(ValueId value, ValueId from, Perm perm) {
  ValueEntry& entry = values_[static_cast<std::size_t>(value)];
  CreatedValue& created = Created(value);
  created.shape_from = from;
  created.shape_perm = std::move(perm);
  entry.shape_pending = true;
  entry.shape_known = false;
  entry.weight = -1;
}

void PushGraph::ResolveTransposedShapes(ValueId value) const {
  // The values each one is derived from are resolved first, deepest first (a
  // loop: copies of copies can be many).
  std::vector<ValueId> pending{value};
  for (ValueId from = Created(value).shape_from; values_[static_cast<std::size_t>(from)].shape_pending;
       from = Created(from).shape_from)
    pending.push_back(from);
  for (auto it = pending.rbegin(); it != pending.rend(); ++it) {
    const CreatedValue& created = Created(*it);
    const core::shapes::SymTensor* known = Shape(created.shape_from);
    core::shapes::SymTensor shape = core::shapes::SymTensor::Unknown();
    const Perm& perm = created.shape_perm;
    if (known && (!known->shape.HasRank() || known->shape.Rank() != perm.size())) {
      shape = core::shapes::SymTensor::Tensor(known->elem_type, core::shapes::SymShape());
    } else if (known) {
      std::vector<core::shapes::SymDim> dims;
      dims.reserve(perm.size());
      for (std::int64_t axis : perm) dims.push_back(known->shape[static_cast<std::size_t>(axis)]);
      shape = core::shapes::SymTensor::Tensor(known->elem_type, core::shapes::SymShape(std::move(dims)));
    }
    values_[static_cast<std::size_t>(*it)].shape_pending = false;
    StoreShape(*it, std::move(shape));
  }
}

PushGraph::CreatedValue& PushGraph::Created(ValueId value) const {
  const ValueEntry& entry = values_[static_cast<std::size_t>(value)];
  if (entry.created < 0) {
    entry.created = static_cast<std::int32_t>(created_.size());
    created_.emplace_back();
  }
  return created_[static_cast<std::size_t>(entry.created)];
}

void PushGraph::StoreShape(ValueId value, core::shapes::SymTensor shape) const {
  const ValueEntry& entry = values_[static_cast<std::size_t>(value)];
  core::shapes::SymTensor& stored = Created(value).shape;
  stored = std::move(shape);
  entry.shape = stored.kind == core::shapes::SymTensor::Kind::kUnknown ? nullptr : &stored;
  entry.shape_known = true;
  entry.weight = -1;
}

void PushGraph::WriteSlots(NodeId node, NodeProto& proto) const {
  auto write = [&](google::protobuf::RepeatedPtrField<std::string>& names, int first, int count) {
    // Shrink or grow to `count`, then overwrite: assigning keeps each string's memory.
    if (names.size() > count) names.DeleteSubrange(count, names.size() - count);
    while (names.size() < count) names.Add();
    for (int i = 0; i < count; ++i) {
      const ValueId value = slot_values_[static_cast<std::size_t>(first + i)];
      if (value == kNone)
        names.Mutable(i)->clear();
      else
        *names.Mutable(i) = Name(value);
    }
  };
  const NodeEntry& entry = nodes_[static_cast<std::size_t>(node)];
  write(*proto.mutable_input(), entry.inputs, entry.input_count);
  write(*proto.mutable_output(), entry.outputs, entry.output_count);
}

void PushGraph::Finish(std::vector<const NodeProto*>& modified) {
  if (!changed_) return;
  // Kahn's algorithm, ready nodes taken in (position, side, sequence) order:
  // the original order where it is still valid, new nodes next to the node they
  // were created for.
  using Key = std::tuple<std::int64_t, int, std::int64_t, NodeId>;
  auto key_of = [&](NodeId id) {
    const NodeEntry& e = nodes_[static_cast<std::size_t>(id)];
    return Key{e.position, e.side, e.sequence, id};
  };
  // Dependents of each producer in one flat array (two passes over the edges:
  // count, then fill), not one vector per node.
  const std::size_t count = nodes_.size();
  std::vector<int> waiting(count, 0);
  std::vector<std::size_t> first_dependent(count + 1, 0);
  std::vector<NodeId> dependents;
  auto for_each_edge = [&](auto&& edge) {
    auto depend = [&](NodeId node, ValueId value) {
      if (value == kNone) return;
      const NodeId producer = Producer(value);
      if (producer == kNone || producer == node || IsRemoved(producer)) return;
      edge(producer, node);
    };
    for (NodeId id = 0; id < static_cast<NodeId>(count); ++id) {
      if (IsRemoved(id)) continue;
      for (int slot = 0; slot < InputCount(id); ++slot) depend(id, InputOf(id, slot));
      if (auto it = implicit_inputs_.find(id); it != implicit_inputs_.end())
        for (ValueId value : it->second) depend(id, value);
    }
  };
  for_each_edge([&](NodeId producer, NodeId node) {
    ++first_dependent[static_cast<std::size_t>(producer) + 1];
    ++waiting[static_cast<std::size_t>(node)];
  });
  for (std::size_t i = 0; i < count; ++i) first_dependent[i + 1] += first_dependent[i];
  dependents.resize(first_dependent[count]);
  std::vector<std::size_t> filled(first_dependent.begin(), first_dependent.end() - 1);
  for_each_edge([&](NodeId producer, NodeId node) { dependents[filled[static_cast<std::size_t>(producer)]++] = node; });
  std::priority_queue<Key, std::vector<Key>, std::greater<>> ready;
  for (NodeId id = 0; id < static_cast<NodeId>(count); ++id)
    if (!IsRemoved(id) && waiting[static_cast<std::size_t>(id)] == 0) ready.push(key_of(id));
  std::vector<NodeId> order;
  order.reserve(count);
  while (!ready.empty()) {
    const NodeId id = std::get<3>(ready.top());
    ready.pop();
    order.push_back(id);
    const auto producer = static_cast<std::size_t>(id);
    for (std::size_t i = first_dependent[producer]; i < first_dependent[producer + 1]; ++i)
      if (--waiting[static_cast<std::size_t>(dependents[i])] == 0) ready.push(key_of(dependents[i]));
  }
  std::size_t alive = 0;
  for (const NodeEntry& entry : nodes_) alive += entry.removed ? 0 : 1;
  if (order.size() != alive) throw BuilderError("TransposeOptimizer: the edited graph has a cycle");

  // Take the original protos out of the field (by pointer) and put the
  // survivors back.
  auto& field = builder_.Nodes();
  std::vector<NodeProto*> originals(static_cast<std::size_t>(field.size()));
  field.ExtractSubrange(0, field.size(), originals.data());
  std::int64_t last_original = -1;
  for (NodeId id : order) {
    NodeEntry& entry = nodes_[static_cast<std::size_t>(id)];
    NodeProto* proto = entry.owned ? entry.owned.release()
                                   : std::exchange(originals[static_cast<std::size_t>(entry.position)], nullptr);
    if (entry.created || entry.modified) WriteSlots(id, *proto);
    if (entry.created) proto->set_name(builder_.UniqueName("TransposeOptimizer--" + proto->op_type()));
    field.AddAllocated(proto);
    entry.proto = proto;
    if (entry.side != 0) continue;
    // An original node placed before one that preceded it has moved: report it.
    if (entry.modified || entry.position < last_original) modified.push_back(proto);
    last_original = std::max(last_original, entry.position);
  }
  // What is left are the original nodes the pass removed.
  for (NodeProto* removed : originals) delete removed;
  // Initializers this pass left unused (the old data of a constant it
  // permuted).
  core::builder::KeepIf(builder_.Initializers(), [&](const TensorProto& init) {
    const ValueId value = Find(init.name());
    const ValueEntry& entry = values_[static_cast<std::size_t>(value)];
    const bool dropped =
        (entry.initializer_was_used || entry.initializer_added) && Uses(value).empty() && HasCompleteConsumers(value);
    return !dropped;
  });
}

}  // namespace onnxopt::onnx_transpose
