#include "onnx_core/memory/memory_graph.h"

#include <algorithm>
#include <cstdint>
#include <numeric>

#include "onnx_core/common/error.h"
#include "onnx_core/common/quote.h"
#include "onnx_core/ir/graph_queries.h"
#include "onnx_core/ir/local_functions.h"
#include "onnx_core/ir/renames.h"

namespace onnxopt::core::memory {

namespace {

const std::vector<Slot> kNoSlots;
const Definition kUndefined;
const std::set<std::string> kNoCaptures;
const OpMemoryTraits kNoTraits;

bool Contains(const std::vector<int>& list, int value) {
  return std::find(list.begin(), list.end(), value) != list.end();
}

// Merge of the input types of several uses behind one slot (§5.3).
InputRW Merge(InputRW a, InputRW b) {
  if (a == InputRW::kInvalid || b == InputRW::kInvalid) return InputRW::kInvalid;
  if (a == InputRW::kReadOnly) return b;
  if (b == InputRW::kReadOnly || a == b) return a;
  return InputRW::kInvalid;
}

// Local functions nest at most this deep in the analysis, and one analysis
// instantiates at most this many call sites; a call beyond is opaque (§4's depth
// guard; calls of calls can grow exponentially).
constexpr int kMaxInstanceDepth = 16;
constexpr std::size_t kMaxInstances = 4096;

std::string FirstOutputOf(const NodeProto& node) {
  for (const std::string& output : node.output())
    if (!output.empty()) return output;
  return node.op_type();
}

// Element types inside a function instance: a formal input or output has the
// type of the call's value bound to it; a Constant its value's; views and copies
// their input's. Other values are unknown (0). Shapes compare only across
// formal values. Both queries share the caller's: each holding a copy of it (two
// functions, each holding a copy of its own caller's) made an instance nested d deep
// copy 2^d functions, and `onnxopt memory` of 10 functions each calling the next twice
// took 5 s and 1 GB.
ElementTypeQuery InstanceTypes(const ElementTypeQuery& caller_query, const NodeProto& call,
                               const FunctionProto& function, const GraphProto& body) {
  auto caller = std::make_shared<const ElementTypeQuery>(caller_query);
  auto outer = std::make_shared<std::unordered_map<std::string, std::string>>();
  for (int j = 0; j < function.input_size() && j < call.input_size(); ++j)
    if (!call.input(j).empty()) (*outer)[function.input(j)] = call.input(j);
  for (int k = 0; k < function.output_size() && k < call.output_size(); ++k)
    if (!call.output(k).empty()) outer->try_emplace(function.output(k), call.output(k));
  auto types = std::make_shared<std::unordered_map<std::string, int>>();
  auto lookup = [caller, outer, types](std::string_view value) {
    const std::string name(value);
    if (auto it = types->find(name); it != types->end()) return it->second;
    auto it = outer->find(name);
    return it == outer->end() ? 0 : (*caller)(it->second);
  };
  static const std::set<std::string_view> kSameType{"Identity",  "Reshape", "Squeeze",
                                                    "Unsqueeze", "Flatten", "Dropout"};
  for (const NodeProto& node : body.node()) {
    if (node.output_size() < 1 || node.output(0).empty()) continue;
    const bool onnx = ir::IsOnnxDomain(node.domain());
    if (onnx && node.op_type() == "Constant") {
      for (const AttributeProto& attr : node.attribute())
        if (attr.name() == "value" && attr.has_t()) (*types)[node.output(0)] = attr.t().data_type();
    } else if (node.input_size() >= 1 && ((onnx && kSameType.contains(node.op_type())) ||
                                          (node.domain() == kCopyDomain && node.op_type() == kCopyOpType))) {
      if (const int type = lookup(node.input(0)); type != 0) (*types)[node.output(0)] = type;
    }
  }
  return ElementTypeQuery(lookup, [caller, outer](std::string_view a, std::string_view b) {
    auto first = outer->find(std::string(a));
    auto second = outer->find(std::string(b));
    return first != outer->end() && second != outer->end() && caller->SameShape(first->second, second->second);
  });
}

// The union-find of the symbol construction.
class Partition {
 public:
  int Add() {
    parent_.push_back(static_cast<int>(parent_.size()));
    return parent_.back();
  }
  int Find(int x) {
    while (parent_[x] != x) x = parent_[x] = parent_[parent_[x]];
    return x;
  }
  void Unite(int a, int b) { parent_[Find(a)] = Find(b); }

 private:
  std::vector<int> parent_;
};

}  // namespace

std::string_view InputRWName(InputRW type) {
  switch (type) {
    case InputRW::kReadOnly:
      return "ReadOnly";
    case InputRW::kWriteable:
      return "Writeable";
    case InputRW::kScopeWriteable:
      return "ScopeWriteable";
    case InputRW::kInvalid:
      return "Invalid";
  }
  return "?";
}

std::string_view OutputRWName(OutputRW type) {
  switch (type) {
    case OutputRW::kReadOnlyConst:
      return "ReadOnlyConst";
    case OutputRW::kReadOnly:
      return "ReadOnly";
    case OutputRW::kSoftRead:
      return "SoftRead";
    case OutputRW::kWriteable:
      return "Writeable";
    case OutputRW::kInvalid:
      return "Invalid";
  }
  return "?";
}

bool RWConflict(OutputRW producer, InputRW use) {
  if (producer == OutputRW::kInvalid || use == InputRW::kInvalid) return true;
  if (use == InputRW::kReadOnly) return false;
  switch (producer) {
    case OutputRW::kReadOnlyConst:
      return true;
    case OutputRW::kSoftRead:
      return false;
    case OutputRW::kReadOnly:
    case OutputRW::kWriteable:
      return use == InputRW::kScopeWriteable;
    case OutputRW::kInvalid:
      return true;
  }
  return true;
}

std::vector<int> ApplyBodyEdits(google::protobuf::RepeatedPtrField<NodeProto>& nodes,
                                const google::protobuf::RepeatedPtrField<std::string>& outputs,
                                const std::vector<BodyEdit>& edits) {
  const int size = nodes.size();
  std::vector<bool> removed(static_cast<std::size_t>(size), false);
  for (const BodyEdit& edit : edits) {
    if (edit.node < 0 || edit.node >= size || removed[static_cast<std::size_t>(edit.node)]) continue;
    const NodeProto& copy = nodes.Get(edit.node);
    if (copy.input_size() < 1 || copy.output_size() < 1 || edit.kind == BodyEdit::Kind::kElide) continue;
    const std::string in = copy.input(0);
    const std::string out = copy.output(0);
    const bool out_is_output = std::find(outputs.begin(), outputs.end(), out) != outputs.end();
    if (edit.kind == BodyEdit::Kind::kRenameUses) {
      if (out_is_output) continue;  // the body output must keep its name: not an edit of this kind
      removed[static_cast<std::size_t>(edit.node)] = true;
      ir::RenameReads(nodes, {{out, in}});
      continue;
    }
    NodeProto* producer = nullptr;
    int producer_output = -1;
    for (int i = 0; i < size && producer == nullptr; ++i) {
      if (removed[static_cast<std::size_t>(i)]) continue;
      for (int k = 0; k < nodes.Get(i).output_size(); ++k)
        if (nodes.Get(i).output(k) == in) {
          producer = nodes.Mutable(i);
          producer_output = k;
          break;
        }
    }
    if (producer == nullptr || !out_is_output) continue;
    removed[static_cast<std::size_t>(edit.node)] = true;
    producer->set_output(producer_output, out);
    ir::RenameReads(nodes, {{in, out}});
  }
  google::protobuf::RepeatedPtrField<NodeProto> kept;
  std::vector<int> positions;
  for (int i = 0; i < size; ++i) {
    if (removed[static_cast<std::size_t>(i)]) continue;
    *kept.Add() = std::move(*nodes.Mutable(i));
    positions.push_back(i);
  }
  nodes.Swap(&kept);
  return positions;
}

struct MemoryGraph::Shared {
  explicit Shared(const FunctionList& functions, const InstanceEdits* instance_edits)
      : index(functions), edits(instance_edits) {}
  ir::LocalFunctions index;
  const InstanceEdits* edits;
  std::size_t instances = 0;
};

MemoryGraph::MemoryGraph(const GraphProto& graph, bool top_level, const MemoryOptions& options,
                         const ElementTypeQuery& type_of, const FunctionList& functions,
                         const std::set<const NodeProto*>& elided, const std::set<const NodeProto*>& out_of_place,
                         const InstanceEdits* edits)
    : shared_(std::make_shared<Shared>(functions, edits)),
      graph_(graph),
      top_level_(top_level),
      options_(options),
      type_of_(type_of),
      elided_(elided),
      out_of_place_(out_of_place) {
  Index();
  BuildSymbols();
}

MemoryGraph::MemoryGraph(const MemoryGraph& caller, const NodeProto& call, const FunctionProto& function,
                         std::string key)
    : shared_(caller.shared_),
      owned_body_(std::make_unique<GraphProto>()),
      graph_(*owned_body_),
      top_level_(false),
      caller_(&caller),
      call_(&call),
      function_(&function),
      instance_key_(std::move(key)),
      instance_label_((caller.IsFunctionBody() ? caller.instance_label_ + "/" : "") + FirstOutputOf(call)),
      options_(caller.options_) {
  for (const std::string& input : function.input()) owned_body_->add_input()->set_name(input);
  for (const std::string& output : function.output()) owned_body_->add_output()->set_name(output);
  *owned_body_->mutable_node() = ir::InstantiateFunctionBody(function, call);
  std::vector<BodyEdit> edits;
  if (shared_->edits != nullptr)
    if (auto it = shared_->edits->find(instance_key_); it != shared_->edits->end()) edits = it->second;
  original_position_ = ApplyBodyEdits(*owned_body_->mutable_node(), function.output(), edits);
  for (const BodyEdit& edit : edits) {
    if (edit.kind != BodyEdit::Kind::kElide) continue;
    auto at = std::find(original_position_.begin(), original_position_.end(), edit.node);
    if (at != original_position_.end()) elided_.insert(&graph_.node(static_cast<int>(at - original_position_.begin())));
  }
  type_of_ = InstanceTypes(caller.type_of_, call, function, graph_);
  Index();
  BuildSymbols();
}

MemoryGraph::~MemoryGraph() = default;

void MemoryGraph::Instantiate(const NodeProto& call, OpMemoryTraits& traits) {
  const FunctionProto* function = shared_->index.Find(call);
  if (function == nullptr || shared_->instances >= kMaxInstances) return;
  int depth = 0;
  for (const MemoryGraph* graph = this; graph->IsFunctionBody(); graph = graph->caller_) ++depth;
  if (depth >= kMaxInstanceDepth) return;
  ++shared_->instances;
  std::string key = IsFunctionBody() ? instance_key_ + "/" + std::to_string(OriginalPosition(&call))
                                     : "@" + std::to_string(reinterpret_cast<std::uintptr_t>(&call));
  std::unique_ptr<MemoryGraph> instance(new MemoryGraph(*this, call, *function, std::move(key)));
  // Output k is input j's buffer when the body's value bound to output k is
  // formal input j's (through views and writers).
  traits = {};
  for (int k = 0; k < call.output_size() && k < function->output_size(); ++k) {
    const int symbol = instance->SymbolOf(function->output(k));
    if (call.output(k).empty() || symbol < 0) continue;
    for (int j = 0; j < call.input_size() && j < function->input_size(); ++j)
      if (!call.input(j).empty() && instance->SymbolOf(function->input(j)) == symbol) {
        traits.aliases.emplace_back(k, j);
        break;
      }
  }
  instances_[&call] = std::move(instance);
}

const MemoryGraph* MemoryGraph::Instance(const NodeProto& call) const {
  auto it = instances_.find(&call);
  return it == instances_.end() ? nullptr : it->second.get();
}

int MemoryGraph::OriginalPosition(const NodeProto* node) const {
  const auto position = static_cast<std::size_t>(Position(node));
  return IsFunctionBody() ? original_position_.at(position) : static_cast<int>(position);
}

std::vector<const MemoryGraph*> MemoryGraph::Instances() const {
  std::vector<const MemoryGraph*> result;
  for (const NodeProto* node : nodes_)
    if (const MemoryGraph* instance = Instance(*node)) result.push_back(instance);
  return result;
}

InputRW MemoryGraph::FormalInputUse(int input) const {
  InputRW merged = InputRW::kReadOnly;
  if (input >= graph_.input_size()) return merged;
  for (const Slot& slot : Consumers(graph_.input(input).name())) merged = Merge(merged, InputType(slot));
  return merged;
}

OpMemoryTraits MemoryGraph::NodeTraits(const NodeProto& node) {
  OpMemoryTraits traits = TraitsOf(node, type_of_, options_.inplace_ops);
  if (out_of_place_.contains(&node)) {
    // The writer copies its data input: its outputs are fresh buffers.
    traits.aliases.clear();
    traits.writes.clear();
  }
  if (IsFunctionCall(node)) Instantiate(node, traits);
  if (IsCopy(node)) traits = {};  // a copy never aliases: its output is a fresh buffer
  if (elided_.contains(&node)) traits.aliases = {{0, 0}};
  return traits;
}

void MemoryGraph::Index() {
  for (const auto& init : graph_.initializer()) initializers_.insert(init.name());
  for (const auto& init : graph_.sparse_initializer()) initializers_.insert(init.values().name());
  for (int i = 0; i < graph_.input_size(); ++i)
    definitions_[graph_.input(i).name()] = {Definition::Kind::kGraphInput, nullptr, i};
  for (const std::string& name : initializers_)
    definitions_.try_emplace(name, Definition{Definition::Kind::kInitializer, nullptr, -1});
  for (const NodeProto& node : graph_.node()) {
    position_[&node] = nodes_.size();
    nodes_.push_back(&node);
    traits_[&node] = NodeTraits(node);
    for (int i = 0; i < node.input_size(); ++i) {
      const std::string& name = node.input(i);
      if (name.empty()) continue;
      consumers_[name].push_back({&node, i});
      if (!definitions_.contains(name)) definitions_[name] = {UndefinedKind(), nullptr, -1};
    }
    if (ir::HasSubgraph(node)) {
      std::set<std::string> reads = ir::SubgraphReads(node);
      for (const std::string& name : reads) {
        consumers_[name].push_back({&node, Slot::kCapture});
        if (!definitions_.contains(name)) definitions_[name] = {UndefinedKind(), nullptr, -1};
      }
      captures_[&node] = std::move(reads);
    }
    for (int k = 0; k < node.output_size(); ++k)
      if (!node.output(k).empty()) definitions_[node.output(k)] = {Definition::Kind::kNode, &node, k};
  }
  for (int i = 0; i < graph_.output_size(); ++i) {
    const std::string& name = graph_.output(i).name();
    graph_outputs_.insert(name);
    consumers_[name].push_back({nullptr, i});
    if (!definitions_.contains(name)) definitions_[name] = {UndefinedKind(), nullptr, -1};
  }
}

void MemoryGraph::BuildSymbols() {
  // Values in order of definition: graph inputs, initializers, outer values,
  // node outputs.
  std::vector<std::string> order;
  for (const auto& input : graph_.input()) order.push_back(input.name());
  for (const std::string& name : initializers_)
    if (definitions_.at(name).kind == Definition::Kind::kInitializer) order.push_back(name);
  std::vector<std::string> outer;
  for (const auto& [name, definition] : definitions_)
    if (definition.kind == Definition::Kind::kOuter || definition.kind == Definition::Kind::kUndefined)
      outer.push_back(name);
  std::sort(outer.begin(), outer.end());
  order.insert(order.end(), outer.begin(), outer.end());
  for (const NodeProto* node : nodes_)
    for (const std::string& output : node->output())
      if (!output.empty()) order.push_back(output);

  Partition partition;
  std::unordered_map<std::string, int> element;
  for (const std::string& name : order) element.try_emplace(name, partition.Add());
  for (const NodeProto* node : nodes_)
    for (const auto& [output, input] : Traits(*node).aliases) {
      if (output >= node->output_size() || input >= node->input_size()) continue;
      const std::string& out = node->output(output);
      const std::string& in = node->input(input);
      if (out.empty() || in.empty()) continue;
      partition.Unite(element.at(out), element.at(in));
    }
  std::unordered_map<int, int> symbol_of_root;
  for (const std::string& name : order) {
    if (symbol_of_.contains(name)) continue;
    const int root = partition.Find(element.at(name));
    auto [it, inserted] = symbol_of_root.try_emplace(root, static_cast<int>(symbol_values_.size()));
    if (inserted) symbol_values_.emplace_back();
    symbol_of_[name] = it->second;
    symbol_values_[static_cast<std::size_t>(it->second)].push_back(name);
  }
}

const Definition& MemoryGraph::DefinitionOf(std::string_view value) const {
  auto it = definitions_.find(std::string(value));
  return it == definitions_.end() ? kUndefined : it->second;
}

const std::vector<Slot>& MemoryGraph::Consumers(std::string_view value) const {
  auto it = consumers_.find(std::string(value));
  return it == consumers_.end() ? kNoSlots : it->second;
}

bool MemoryGraph::IsInitializer(std::string_view value) const { return initializers_.contains(std::string(value)); }

bool MemoryGraph::IsOverridableInput(std::string_view value) const {
  return top_level_ && DefinitionOf(value).kind == Definition::Kind::kGraphInput && IsInitializer(value);
}

bool MemoryGraph::IsCopy(const NodeProto& node) const {
  if (elided_.contains(&node) || node.input_size() != 1 || node.output_size() != 1) return false;
  if (node.domain() == kCopyDomain && node.op_type() == kCopyOpType) return true;
  if (!options_.identity_is_copy || !ir::IsOnnxDomain(node.domain()) || node.op_type() != "Identity") return false;
  // Only an Identity on a tensor is a copy (type_of answers 0 for sequences and
  // unknowns).
  return type_of_ && type_of_(node.input(0)) != 0;
}

bool MemoryGraph::IsControlFlow(const NodeProto& node) { return ir::HasSubgraph(node); }

bool MemoryGraph::IsFunctionCall(const NodeProto& node) const { return shared_->index.Find(node) != nullptr; }

const OpMemoryTraits& MemoryGraph::Traits(const NodeProto& node) const {
  auto it = traits_.find(&node);
  return it == traits_.end() ? kNoTraits : it->second;
}

std::optional<int> MemoryGraph::AliasedInput(const NodeProto& node, int output) const {
  for (const auto& [k, j] : Traits(node).aliases)
    if (k == output) return j;
  return std::nullopt;
}

bool MemoryGraph::AliasOf(const NodeProto& node, int input) const {
  const auto& aliases = Traits(node).aliases;
  return std::any_of(aliases.begin(), aliases.end(), [&](const auto& pair) { return pair.second == input; });
}

InputRW MemoryGraph::InputType(const Slot& slot) const {
  if (slot.IsGraphOutput()) return InputRW::kReadOnly;
  const NodeProto& node = *slot.node;
  const bool onnx = ir::IsOnnxDomain(node.domain());
  if (slot.IsCapture()) {
    // Uses inside the nested graphs. Their plans never run writers in place on
    // a captured value (a body's copy of a captured value is kept, Rule 1), so
    // a capture is read-only unless a body node declares a write or a clobber
    // of that very name.
    InputRW merged = InputRW::kReadOnly;
    ir::ForEachSubgraph(node, [&](const std::string&, int, const GraphProto& body) {
      for (const NodeProto& inner : body.node()) {
        const OpMemoryTraits traits = TraitsOf(inner, type_of_, options_.inplace_ops);
        for (int i = 0; i < inner.input_size(); ++i) {
          if (inner.input(i).empty() || !Captures(node).contains(inner.input(i))) continue;
          if (Contains(traits.writes, i)) merged = Merge(merged, InputRW::kWriteable);
          if (Contains(traits.clobbers, i)) merged = Merge(merged, InputRW::kScopeWriteable);
        }
      }
    });
    return merged;
  }
  if (onnx && (node.op_type() == "Loop" || node.op_type() == "Scan")) return InputRW::kScopeWriteable;
  const OpMemoryTraits& traits = Traits(node);
  if (Contains(traits.clobbers, slot.index)) return InputRW::kScopeWriteable;
  // §5.1 line 3: the merge of the uses of the formal input in the call's
  // instance; a call without an instance may clobber anything it reads.
  if (IsFunctionCall(node)) {
    const MemoryGraph* instance = Instance(node);
    if (instance == nullptr || slot.index >= instance->Graph().input_size()) return InputRW::kScopeWriteable;
    return instance->FormalInputUse(slot.index);
  }
  if (IsControlFlow(node)) {
    if (onnx && node.op_type() == "If") return InputRW::kReadOnly;
    return InputRW::kScopeWriteable;
  }
  if (Contains(traits.writes, slot.index)) return InputRW::kWriteable;
  return InputRW::kReadOnly;
}

OutputRW MemoryGraph::OutputType(std::string_view value) const {
  const Definition& definition = DefinitionOf(value);
  const bool shared = Consumers(value).size() > 1;
  switch (definition.kind) {
    case Definition::Kind::kUndefined:
    case Definition::Kind::kOuter:
      return OutputRW::kInvalid;
    case Definition::Kind::kGraphInput:
      if (IsFunctionBody()) {
        // §5.2 line 3: the type of the caller's value bound to the formal input.
        const int input = definition.index;
        if (input >= call_->input_size() || call_->input(input).empty()) return OutputRW::kInvalid;
        return caller_->OutputType(call_->input(input));
      }
      if (!top_level_) return OutputRW::kInvalid;
      return OutputRW::kWriteable;
    case Definition::Kind::kInitializer:
      return OutputRW::kReadOnlyConst;
    case Definition::Kind::kNode:
      break;
  }
  const NodeProto& node = *definition.node;
  if (ir::IsOnnxDomain(node.domain()) && (node.op_type() == "Loop" || node.op_type() == "Scan"))
    return OutputRW::kSoftRead;
  if (std::optional<int> input = AliasedInput(node, definition.index); input && Contains(Traits(node).writes, *input))
    return OutputRW::kWriteable;
  if (ir::IsOnnxDomain(node.domain()) && node.op_type() == "Constant") return OutputRW::kReadOnlyConst;
  // §5.2 line 6: the type of the body's value bound to the output; a call
  // without an instance may return anything (a formal input, a constant).
  if (IsFunctionCall(node)) {
    const MemoryGraph* instance = Instance(node);
    if (instance == nullptr || definition.index >= instance->Graph().output_size()) return OutputRW::kInvalid;
    const OutputRW inner = instance->OutputType(instance->Graph().output(definition.index).name());
    if (inner == OutputRW::kWriteable) return inner;
    return shared ? OutputRW::kReadOnly : inner;
  }
  return shared ? OutputRW::kReadOnly : OutputRW::kSoftRead;
}

bool MemoryGraph::Writable(const Slot& slot) const {
  const InputRW type = InputType(slot);
  return type == InputRW::kWriteable || type == InputRW::kScopeWriteable;
}

const std::set<std::string>& MemoryGraph::Captures(const NodeProto& node) const {
  auto it = captures_.find(&node);
  return it == captures_.end() ? kNoCaptures : it->second;
}

std::vector<const NodeProto*> MemoryGraph::DataPredecessors(const NodeProto& node) const {
  std::vector<const NodeProto*> result;
  auto add = [&](const std::string& name) {
    const Definition& definition = DefinitionOf(name);
    if (definition.kind == Definition::Kind::kNode &&
        std::find(result.begin(), result.end(), definition.node) == result.end())
      result.push_back(definition.node);
  };
  for (const std::string& input : node.input())
    if (!input.empty()) add(input);
  for (const std::string& capture : Captures(node)) add(capture);
  return result;
}

std::vector<const NodeProto*> MemoryGraph::Readers(std::string_view value) const {
  std::vector<const NodeProto*> result;
  for (const Slot& slot : Consumers(value))
    if (!slot.IsGraphOutput() && std::find(result.begin(), result.end(), slot.node) == result.end())
      result.push_back(slot.node);
  return result;
}

std::vector<const NodeProto*> MemoryGraph::DataSuccessors(const NodeProto& node) const {
  std::vector<const NodeProto*> result;
  for (const std::string& output : node.output()) {
    if (output.empty()) continue;
    for (const NodeProto* reader : Readers(output))
      if (std::find(result.begin(), result.end(), reader) == result.end()) result.push_back(reader);
  }
  return result;
}

int MemoryGraph::SymbolOf(std::string_view value) const {
  auto it = symbol_of_.find(std::string(value));
  return it == symbol_of_.end() ? -1 : it->second;
}

std::size_t MemoryGraph::IndexOf(const NodeProto* node) const {
  const std::size_t position = Position(node);
  const auto at = std::lower_bound(nodes_.begin(), nodes_.end(), position,
                                   [&](const NodeProto* other, std::size_t p) { return Position(other) < p; });
  return static_cast<std::size_t>(at - nodes_.begin());
}

void MemoryGraph::MergeSlots(std::vector<Slot>& sorted, std::vector<Slot> more) const {
  auto key = [&](const Slot& slot) {
    if (slot.IsGraphOutput()) return std::pair{SIZE_MAX, static_cast<std::size_t>(slot.index)};
    return std::pair{Position(slot.node), slot.IsCapture() ? SIZE_MAX : static_cast<std::size_t>(slot.index)};
  };
  auto before = [&](const Slot& a, const Slot& b) { return key(a) < key(b); };
  // Sorting the few moved slots and merging them costs one pass over a value's uses, where
  // sorting them all again cost a logarithm more for each copy removed (8 000 copies of one
  // value: a quarter of the pass).
  std::stable_sort(more.begin(), more.end(), before);
  const auto middle = static_cast<std::ptrdiff_t>(sorted.size());
  sorted.insert(sorted.end(), more.begin(), more.end());
  std::inplace_merge(sorted.begin(), sorted.begin() + middle, sorted.end(), before);
}

bool MemoryGraph::UpdateAfterCopyRemoval(const NodeProto* copy, const std::string& in, const std::string& out,
                                         CopyRemoval how, std::vector<const MemoryGraph*>* rebuilt) {
  if (IsFunctionBody() || !position_.contains(copy) || in.empty() || out.empty()) return false;
  const int in_symbol = SymbolOf(in);
  const int out_symbol = SymbolOf(out);
  if (in_symbol < 0 || out_symbol < 0) return false;
  // Whatever the edit, the copy's input and output are one buffer now.
  auto merge_buffers = [&] {
    if (in_symbol == out_symbol) return;
    std::vector<std::string>& into = symbol_values_[static_cast<std::size_t>(in_symbol)];
    for (std::string& value : symbol_values_[static_cast<std::size_t>(out_symbol)]) {
      symbol_of_[value] = in_symbol;
      into.push_back(std::move(value));
    }
    symbol_values_[static_cast<std::size_t>(out_symbol)].clear();
  };
  if (how == CopyRemoval::kElide) {
    elided_.insert(copy);
    traits_[copy] = NodeTraits(*copy);
    merge_buffers();
    return true;
  }

  // The name that disappears, the one that stays, and the nodes whose names changed: the
  // readers of the name that disappears, and for kRenameProducer the producer.
  const bool rename_uses = how == CopyRemoval::kRenameUses;
  const std::string& gone = rename_uses ? out : in;
  const std::string& kept = rename_uses ? in : out;
  if (type_of_(in) != type_of_(out)) return false;  // IsCopy of a reader may change
  std::vector<Slot> moved;
  for (const Slot& slot : Consumers(gone)) {
    if (slot.node == copy) continue;
    if (slot.IsGraphOutput() || slot.IsCapture() || IsControlFlow(*slot.node)) return false;
    if (IsFunctionCall(*slot.node) && rebuilt == nullptr) return false;
    moved.push_back(slot);
  }
  std::vector<const NodeProto*> renamed = Readers(gone);
  std::erase(renamed, copy);
  const Definition producer = DefinitionOf(in);
  if (!rename_uses) {
    if (producer.kind != Definition::Kind::kNode || IsWrapper(*producer.node)) return false;
    renamed.push_back(producer.node);
  }
  // Traits follow the element types and shapes of a node's values, which follow the names.
  // A call's come from its instance, built again below once the names are in place (an
  // instance holds the names its call reads).
  std::vector<const NodeProto*> calls;
  for (const NodeProto* node : renamed) {
    if (IsFunctionCall(*node)) {
      calls.push_back(node);
      continue;
    }
    if (NodeTraits(*node) != Traits(*node)) return false;
  }

  std::vector<Slot>& uses = consumers_[kept];
  std::erase_if(uses, [&](const Slot& slot) { return slot.node == copy; });
  MergeSlots(uses, std::move(moved));
  if (uses.empty()) consumers_.erase(kept);
  consumers_.erase(gone);
  definitions_.erase(gone);
  if (!rename_uses) definitions_[out] = producer;
  merge_buffers();
  symbol_of_.erase(gone);
  std::erase(symbol_values_[static_cast<std::size_t>(in_symbol)], gone);

  nodes_.erase(nodes_.begin() + static_cast<std::ptrdiff_t>(IndexOf(copy)));
  position_.erase(copy);
  traits_.erase(copy);
  captures_.erase(copy);
  out_of_place_.erase(copy);
  for (const NodeProto* call : calls) {
    const MemoryGraph* instance = Instance(*call);
    if (instance == nullptr) {
      // An opaque call (beyond the limits): its traits do not depend on the names.
      if (NodeTraits(*call) != Traits(*call)) return false;
      continue;
    }
    const MemoryGraph* fresh = RebuildInstance(*instance);
    if (fresh == nullptr) return false;
    rebuilt->push_back(fresh);
  }
  return true;
}

std::size_t MemoryGraph::InstanceCount() const {
  std::size_t count = 1;
  for (const auto& [call, instance] : instances_) count += instance->InstanceCount();
  return count;
}

const MemoryGraph* MemoryGraph::RebuildInstance(const MemoryGraph& instance) {
  const MemoryGraph* top = &instance;
  while (top->caller_ != nullptr) top = top->caller_;
  if (top != this || !instance.IsFunctionBody()) return nullptr;
  // At the limit, a call refused an instance may get one now: not what a rebuild gives.
  // Unless the instance had every call inside it instantiated and gets them all again, as
  // many as before: it then takes back exactly the places it frees, as it does in a
  // rebuild, where every call before it takes what it took. Without this, each edit of a
  // model of more calls than the limit rebuilt the whole analysis (8 000 calls of a
  // function holding a copy: 158 s; 3 000 calls of one whose body calls another: 122 s).
  const bool at_limit = shared_->instances >= kMaxInstances;
  if (at_limit && !instance.EveryCallInstantiated()) return nullptr;
  const std::size_t count = instance.InstanceCount();
  // This analysis owns every instance below it.
  auto& caller = const_cast<MemoryGraph&>(*instance.caller_);
  const NodeProto& call = *instance.call_;
  shared_->instances -= count;
  caller.instances_.erase(&call);  // `instance` is gone
  const OpMemoryTraits traits = caller.NodeTraits(call);
  if (traits != caller.Traits(call)) return nullptr;
  const MemoryGraph* rebuilt = caller.Instance(call);
  if (at_limit && (rebuilt == nullptr || rebuilt->InstanceCount() != count || !rebuilt->EveryCallInstantiated()))
    return nullptr;
  return rebuilt;
}

bool MemoryGraph::EveryCallInstantiated() const {
  for (const NodeProto* node : nodes_) {
    if (!IsFunctionCall(*node)) continue;
    const auto instance = instances_.find(node);
    if (instance == instances_.end() || !instance->second->EveryCallInstantiated()) return false;
  }
  return true;
}

std::string MemoryGraph::DifferenceFrom(const MemoryGraph& rebuilt) const {
  if (nodes_ != rebuilt.nodes_) return "the node lists differ";
  if (position_.size() != nodes_.size()) return "positions of nodes that are gone";
  for (std::size_t i = 0; i < nodes_.size(); ++i) {
    if (!position_.contains(nodes_[i])) return "no position for " + Quote(FirstOutputOf(*nodes_[i]));
    if (i > 0 && Position(nodes_[i - 1]) >= Position(nodes_[i]))
      return "the positions do not order the nodes at " + Quote(FirstOutputOf(*nodes_[i]));
  }
  if (definitions_.size() != rebuilt.definitions_.size()) return "the numbers of defined values differ";
  for (const auto& [name, definition] : rebuilt.definitions_)
    if (!(DefinitionOf(name) == definition)) return "the definition of " + Quote(name);
  auto compare_uses = [](const MemoryGraph& a, const MemoryGraph& b) -> std::string {
    for (const auto& [name, slots] : a.consumers_)
      if (b.Consumers(name) != slots) return "the uses of " + Quote(name);
    return "";
  };
  if (std::string difference = compare_uses(rebuilt, *this); !difference.empty()) return difference;
  if (std::string difference = compare_uses(*this, rebuilt); !difference.empty()) return difference;
  if (traits_.size() != rebuilt.traits_.size()) return "the numbers of node traits differ";
  for (const auto& [node, traits] : rebuilt.traits_)
    if (!(Traits(*node) == traits)) return "the traits of " + Quote(FirstOutputOf(*node));
  if (captures_ != rebuilt.captures_) return "the captured values";
  if (graph_outputs_ != rebuilt.graph_outputs_ || initializers_ != rebuilt.initializers_)
    return "the graph outputs or initializers";
  if (elided_ != rebuilt.elided_ || out_of_place_ != rebuilt.out_of_place_) return "the elided or out-of-place nodes";
  // Symbols: the same partition of the values, whatever the numbers.
  if (symbol_of_.size() != rebuilt.symbol_of_.size()) return "the numbers of values with a buffer differ";
  std::size_t listed = 0;
  for (std::size_t symbol = 0; symbol < symbol_values_.size(); ++symbol)
    for (const std::string& value : symbol_values_[symbol]) {
      ++listed;
      if (SymbolOf(value) != static_cast<int>(symbol)) return "the buffer list of " + Quote(value);
    }
  if (listed != symbol_of_.size()) return "the buffer lists";
  std::unordered_map<int, int> ours_of;
  std::set<int> taken;
  for (const auto& [value, symbol] : rebuilt.symbol_of_) {
    const int ours = SymbolOf(value);
    if (ours < 0) return "no buffer for " + Quote(value);
    auto [it, inserted] = ours_of.try_emplace(symbol, ours);
    if (it->second != ours || (inserted && !taken.insert(ours).second)) return "the buffer of " + Quote(value);
  }
  return SameInstances(*this, rebuilt);
}

std::string MemoryGraph::SameInstances(const MemoryGraph& ours, const MemoryGraph& rebuilt) {
  // An instance owns a copy of its body, so its nodes are not a rebuild's. An update
  // never edits one (it declines inside a body and where a call reads or defines a
  // renamed value), and RebuildInstance builds one from what a rebuild builds it from
  // (the function, the call, the edits): instances are compared by key, function and size.
  const std::vector<const MemoryGraph*> mine = ours.Instances();
  const std::vector<const MemoryGraph*> theirs = rebuilt.Instances();
  if (mine.size() != theirs.size()) return "the numbers of function instances differ";
  for (std::size_t i = 0; i < mine.size(); ++i) {
    const MemoryGraph& a = *mine[i];
    const MemoryGraph& b = *theirs[i];
    if (a.instance_key_ != b.instance_key_ || a.function_ != b.function_ || a.nodes_.size() != b.nodes_.size())
      return "the instance " + Quote(b.instance_key_);
    if (std::string difference = SameInstances(a, b); !difference.empty()) return difference;
  }
  return "";
}

}  // namespace onnxopt::core::memory
