#include "onnx_core/ir/local_functions.h"

#include <google/protobuf/unknown_field_set.h>

#include <algorithm>
#include <unordered_set>
#include <vector>

namespace onnxopt::core::ir {

namespace {

// Fields newer than onnx 1.12's protobuf, kept by protobuf as unknown fields.
constexpr int kNodeOverloadField = 8;
constexpr int kFunctionAttributeProtoField = 11;
constexpr int kFunctionOverloadField = 13;

bool IsDefaultDomain(std::string_view domain) { return domain.empty() || domain == "ai.onnx"; }

// The last length-delimited unknown field `number` of a NodeProto or FunctionProto. Read
// with the generated accessor, not through reflection: the first reflection call builds
// the descriptors of all of onnx.proto (about 900 000 instructions, once per process).
template <class Message>
std::string UnknownString(const Message& message, int number) {
  const google::protobuf::UnknownFieldSet& fields = message.unknown_fields();
  std::string value;
  for (int i = 0; i < fields.field_count(); ++i) {
    const google::protobuf::UnknownField& field = fields.field(i);
    if (field.number() == number && field.type() == google::protobuf::UnknownField::TYPE_LENGTH_DELIMITED)
      value = field.length_delimited();
  }
  return value;
}

std::string FunctionKey(std::string_view domain, std::string_view name, std::string_view overload) {
  std::string key(IsDefaultDomain(domain) ? std::string_view() : domain);
  key.push_back('\0');
  key.append(name);
  key.push_back('\0');
  key.append(overload);
  return key;
}

// The function's attribute defaults (FunctionProto.attribute_proto, IR 9).
std::vector<AttributeProto> AttributeDefaults(const FunctionProto& function) {
  std::vector<AttributeProto> defaults;
  const google::protobuf::UnknownFieldSet& fields = function.unknown_fields();
  for (int i = 0; i < fields.field_count(); ++i) {
    const google::protobuf::UnknownField& field = fields.field(i);
    if (field.number() != kFunctionAttributeProtoField ||
        field.type() != google::protobuf::UnknownField::TYPE_LENGTH_DELIMITED)
      continue;
    AttributeProto attr;
    if (attr.ParseFromString(field.length_delimited())) defaults.push_back(std::move(attr));
  }
  return defaults;
}

using AttributeMap = std::unordered_map<std::string_view, const AttributeProto*>;

void SubstituteGraph(GraphProto& graph, const AttributeMap& attributes);

void SubstituteNode(NodeProto& node, const AttributeMap& attributes) {
  bool removed = false;
  for (AttributeProto& attr : *node.mutable_attribute()) {
    if (!attr.ref_attr_name().empty()) {
      auto it = attributes.find(attr.ref_attr_name());
      if (it == attributes.end()) {
        attr.clear_name();
        removed = true;
        continue;
      }
      std::string name = attr.name();
      attr = *it->second;
      attr.set_name(std::move(name));
      attr.clear_ref_attr_name();
    }
    if (attr.has_g()) SubstituteGraph(*attr.mutable_g(), attributes);
    for (GraphProto& graph : *attr.mutable_graphs()) SubstituteGraph(graph, attributes);
  }
  if (!removed) return;
  auto& attrs = *node.mutable_attribute();
  int kept = 0;
  for (int i = 0; i < attrs.size(); ++i) {
    if (attrs.Get(i).name().empty()) continue;
    if (kept != i) attrs.SwapElements(kept, i);
    ++kept;
  }
  attrs.DeleteSubrange(kept, attrs.size() - kept);
}

void SubstituteGraph(GraphProto& graph, const AttributeMap& attributes) {
  for (NodeProto& node : *graph.mutable_node()) SubstituteNode(node, attributes);
}

}  // namespace

std::optional<std::int64_t> FindOpsetVersion(const google::protobuf::RepeatedPtrField<OperatorSetIdProto>& imports,
                                             std::string_view domain) {
  const bool onnx = IsDefaultDomain(domain);
  for (const OperatorSetIdProto& opset : imports)
    if (onnx ? IsDefaultDomain(opset.domain()) : opset.domain() == domain) return opset.version();
  return std::nullopt;
}

LocalFunctions::LocalFunctions(const google::protobuf::RepeatedPtrField<FunctionProto>& functions) {
  for (const FunctionProto& function : functions)
    index_.try_emplace(FunctionKey(function.domain(), function.name(), UnknownString(function, kFunctionOverloadField)),
                       &function);
}

const FunctionProto* LocalFunctions::Find(const NodeProto& node) const {
  if (index_.empty()) return nullptr;
  auto it = index_.find(FunctionKey(node.domain(), node.op_type(), UnknownString(node, kNodeOverloadField)));
  return it == index_.end() ? nullptr : it->second;
}

// --- CallExpansions ---------------------------------------------------------------------

namespace {

void CollectCalls(const google::protobuf::RepeatedPtrField<NodeProto>& nodes,
                  const std::function<const FunctionProto*(const NodeProto&)>& resolve,
                  std::vector<const FunctionProto*>& calls, std::uint64_t& node_count) {
  for (const NodeProto& node : nodes) {
    ++node_count;
    if (const FunctionProto* callee = resolve(node)) calls.push_back(callee);
    for (const AttributeProto& attr : node.attribute()) {
      if (attr.has_g()) CollectCalls(attr.g().node(), resolve, calls, node_count);
      for (const GraphProto& graph : attr.graphs()) CollectCalls(graph.node(), resolve, calls, node_count);
    }
  }
}

std::uint64_t SaturatingAdd(std::uint64_t a, std::uint64_t b) {
  std::uint64_t sum = 0;
  return __builtin_add_overflow(a, b, &sum) ? UINT64_MAX : sum;
}

}  // namespace

CallExpansions::CallExpansions(std::function<const FunctionProto*(const NodeProto&)> resolve)
    : resolve_(std::move(resolve)) {}

CallExpansions::Entry& CallExpansions::Prepare(const FunctionProto& function) {
  Entry& entry = entries_[&function];
  if (entry.state == Entry::State::kNew) {
    CollectCalls(function.node(), resolve_, entry.calls, entry.expansion.nodes);
    entry.state = Entry::State::kActive;
  }
  return entry;
}

const CallExpansion& CallExpansions::Of(const FunctionProto& function) {
  if (auto it = entries_.find(&function); it != entries_.end() && it->second.state == Entry::State::kDone)
    return it->second.expansion;
  // Depth-first over the calls with an explicit stack: a chain of thousands of functions
  // must not overflow the C++ stack. A function is done once all its callees are.
  struct Visit {
    const FunctionProto* function;
    Entry* entry;
    std::size_t next_call = 0;
  };
  std::vector<Visit> stack{{&function, &Prepare(function)}};
  while (!stack.empty()) {
    Visit& visit = stack.back();
    if (visit.next_call < visit.entry->calls.size()) {
      const FunctionProto* callee = visit.entry->calls[visit.next_call++];
      Entry& callee_entry = entries_[callee];
      if (callee_entry.state == Entry::State::kActive) visit.entry->expansion.recursive = callee;
      if (callee_entry.state == Entry::State::kNew) stack.push_back({callee, &Prepare(*callee)});
      continue;
    }
    CallExpansion& expansion = visit.entry->expansion;
    std::uint64_t deepest_call = 0;
    for (const FunctionProto* callee : visit.entry->calls) {
      const Entry& callee_entry = entries_.at(callee);
      if (callee_entry.state != Entry::State::kDone) continue;  // on a cycle: recursive is set
      expansion.nodes = SaturatingAdd(expansion.nodes, callee_entry.expansion.nodes);
      deepest_call = std::max(deepest_call, callee_entry.expansion.depth);
      if (!expansion.recursive) expansion.recursive = callee_entry.expansion.recursive;
    }
    expansion.depth = deepest_call + 1;
    visit.entry->state = Entry::State::kDone;
    stack.pop_back();
  }
  return entries_.at(&function).expansion;
}

google::protobuf::RepeatedPtrField<NodeProto> InstantiateFunctionBody(const FunctionProto& function,
                                                                      const NodeProto& call) {
  const std::vector<AttributeProto> defaults = AttributeDefaults(function);
  AttributeMap attributes;
  for (const AttributeProto& attr : defaults) attributes[attr.name()] = &attr;
  for (const AttributeProto& attr : call.attribute()) attributes[attr.name()] = &attr;
  std::unordered_set<std::string_view> absent;
  for (int i = 0; i < function.input_size(); ++i)
    if (i >= call.input_size() || call.input(i).empty()) absent.insert(function.input(i));

  google::protobuf::RepeatedPtrField<NodeProto> body = function.node();
  for (NodeProto& node : body) {
    SubstituteNode(node, attributes);
    if (absent.empty()) continue;
    for (std::string& input : *node.mutable_input())
      if (absent.contains(input)) input.clear();
  }
  return body;
}

}  // namespace onnxopt::core::ir
