#include "onnx_core/memory/memory_graph.h"

#include <algorithm>
#include <numeric>

#include "onnx_core/common/error.h"
#include "onnx_core/ir/graph_queries.h"

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

std::string FunctionKey(std::string_view domain, std::string_view name) {
  return std::string(domain == "ai.onnx" ? "" : domain) + ":" + std::string(name);
}

std::set<std::string> FunctionKeys(const google::protobuf::RepeatedPtrField<FunctionProto>& functions) {
  std::set<std::string> keys;
  for (const FunctionProto& function : functions) keys.insert(FunctionKey(function.domain(), function.name()));
  return keys;
}

MemoryGraph::MemoryGraph(const GraphProto& graph, bool top_level, const MemoryOptions& options,
                         const ElementTypeQuery& type_of, std::set<std::string> functions,
                         const std::set<const NodeProto*>& elided, const std::set<const NodeProto*>& out_of_place)
    : graph_(graph),
      top_level_(top_level),
      options_(options),
      type_of_(type_of),
      elided_(elided),
      function_keys_(std::move(functions)) {
  Index(out_of_place);
  BuildSymbols();
}

void MemoryGraph::Index(const std::set<const NodeProto*>& out_of_place) {
  for (const auto& init : graph_.initializer()) initializers_.insert(init.name());
  for (const auto& init : graph_.sparse_initializer()) initializers_.insert(init.values().name());
  for (int i = 0; i < graph_.input_size(); ++i)
    definitions_[graph_.input(i).name()] = {Definition::Kind::kGraphInput, nullptr, i};
  for (const std::string& name : initializers_)
    definitions_.try_emplace(name, Definition{Definition::Kind::kInitializer, nullptr, -1});
  for (const NodeProto& node : graph_.node()) {
    position_[&node] = nodes_.size();
    nodes_.push_back(&node);
    OpMemoryTraits traits = TraitsOf(node, type_of_, options_.inplace_ops);
    if (out_of_place.contains(&node)) {
      // The writer copies its data input: its outputs are fresh buffers.
      traits.aliases.clear();
      traits.writes.clear();
    }
    if (IsCopy(node)) traits = {};  // a copy never aliases: its output is a fresh buffer
    if (elided_.contains(&node)) traits.aliases = {{0, 0}};
    traits_[&node] = std::move(traits);
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

bool MemoryGraph::IsFunctionCall(const NodeProto& node) const {
  return function_keys_.contains(FunctionKey(node.domain(), node.op_type()));
}

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
  // A call's body is not instantiated by this analysis: any use of the formal
  // input may clobber it (conservative; §5.1 line 3 merges the body's uses
  // instead).
  if (IsFunctionCall(node)) return InputRW::kScopeWriteable;
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
  // A call's body is not instantiated: its output may be a formal input or a
  // constant.
  if (IsFunctionCall(node)) return OutputRW::kInvalid;
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

std::vector<const NodeProto*> MemoryGraph::DataSuccessors(const NodeProto& node) const {
  std::vector<const NodeProto*> result;
  for (const std::string& output : node.output()) {
    if (output.empty()) continue;
    for (const Slot& slot : Consumers(output))
      if (!slot.IsGraphOutput() && std::find(result.begin(), result.end(), slot.node) == result.end())
        result.push_back(slot.node);
  }
  return result;
}

int MemoryGraph::SymbolOf(std::string_view value) const {
  auto it = symbol_of_.find(std::string(value));
  return it == symbol_of_.end() ? -1 : it->second;
}

}  // namespace onnxopt::core::memory
