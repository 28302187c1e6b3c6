#include "onnx_core/ir/op_schema.h"

#include <algorithm>
#include <atomic>
#include <bit>
#include <charconv>
#include <optional>
#include <string>
#include <functional>
#include <mutex>
#include <unordered_map>
#include <utility>
#include <vector>

#include "onnx_core/common/error.h"
#include "onnx_core/ir/attributes.h"
#include "onnx_core/ir/op_registry.h"
#include "onnx_core/utils/string_hash.h"

namespace onnxopt::core::ir {

namespace {

// The element type names of type strings, by TensorProto::DataType.
constexpr std::string_view kTypeNames[] = {
    "undefined", "float", "uint8", "int8", "uint16", "int16", "int32", "int64", "string", "bool",
    "float16", "double", "uint32", "uint64", "complex64", "complex128", "bfloat16", "float8e4m3fn",
    "float8e4m3fnuz", "float8e5m2", "float8e5m2fnuz", "uint4", "int4", "float4e2m1", "float8e8m0", "uint2", "int2"};

// Maps keyed by strings, looked up by string_view without building a key.
template <class Value>
using NameMap = std::unordered_map<std::string, Value, utils::StringHash, std::equal_to<>>;

class SchemaRegistry {
 public:
  void Register(std::span<const OpSchema> schemas) {
    std::lock_guard lock(mutex_);
    NewGeneration();
    for (const OpSchema& schema : schemas) {
      Domain& domain = DomainOf(schema.domain);
      std::vector<const OpSchema*>& versions = Entry(domain.operators, schema.op_type);
      auto position = std::lower_bound(versions.begin(), versions.end(), schema.since_version,
                                       [](const OpSchema* s, int version) { return s->since_version < version; });
      if (position != versions.end() && (*position)->since_version == schema.since_version)
        throw BuilderError("operator schema " + schema.Name() + " is registered twice");
      versions.insert(position, &schema);
      domain.newest_version = std::max(domain.newest_version, schema.since_version);
      ++count_;
    }
  }

  void RegisterExtension(std::string_view domain, std::string_view op_type, int first_version, int last_version) {
    std::lock_guard lock(mutex_);
    NewGeneration();
    Entry(DomainOf(domain).extensions, op_type).emplace_back(first_version, last_version);
  }

  // Each thread remembers its recent answers (RecentLookups): a model asks about the same
  // few operators for every node.
  SchemaLookup LookUp(std::string_view domain_name, std::string_view op_type, std::int64_t version) const {
    thread_local RecentLookups<SchemaLookup> recent;
    return recent.Get(generation_.load(std::memory_order_acquire), domain_name, op_type, version,
                      [&] { return LookUpLocked(domain_name, op_type, version); });
  }

  std::size_t Count() const {
    std::lock_guard lock(mutex_);
    return count_;
  }

 private:
  // Under the mutex, before the change: a lookup waiting for the mutex, or made before,
  // is remembered under the old generation (RecentLookups).
  void NewGeneration() { generation_.store(NewRegistryGeneration(), std::memory_order_release); }

  SchemaLookup LookUpLocked(std::string_view domain_name, std::string_view op_type, std::int64_t version) const {
    std::lock_guard lock(mutex_);
    auto domain = domains_.find(NormalizedDomain(domain_name));
    // A version newer than the tables may have changed any operator.
    if (domain == domains_.end() || version > domain->second.newest_version) return {};
    if (auto extension = domain->second.extensions.find(op_type); extension != domain->second.extensions.end())
      for (auto [first, last] : extension->second)
        if (version >= first && version <= last) return {};
    auto it = domain->second.operators.find(op_type);
    if (it == domain->second.operators.end()) return {SchemaLookup::Status::kUnknownOperator, nullptr};
    const std::vector<const OpSchema*>& versions = it->second;
    auto after = std::upper_bound(versions.begin(), versions.end(), version,
                                  [](std::int64_t v, const OpSchema* s) { return v < s->since_version; });
    if (after == versions.begin()) return {SchemaLookup::Status::kNotYetDefined, versions.front()};
    const OpSchema* schema = *(after - 1);
    return {schema->deprecated ? SchemaLookup::Status::kRemoved : SchemaLookup::Status::kFound, schema};
  }

  struct Domain {
    int newest_version = 0;
    NameMap<std::vector<const OpSchema*>> operators;  // versions by increasing since_version
    NameMap<std::vector<std::pair<int, int>>> extensions;  // version ranges
  };

  template <class Value>
  static Value& Entry(NameMap<Value>& map, std::string_view name) {
    auto it = map.find(name);
    return it != map.end() ? it->second : map.emplace(std::string(name), Value()).first->second;
  }
  Domain& DomainOf(std::string_view domain) { return Entry(domains_, NormalizedDomain(domain)); }

  mutable std::mutex mutex_;
  NameMap<Domain> domains_;
  std::size_t count_ = 0;
  std::atomic<std::uint64_t> generation_{NewRegistryGeneration()};
};

SchemaRegistry& TheRegistry() {
  static SchemaRegistry registry;
  return registry;
}

std::string DomainName(std::string_view domain) {
  return NormalizedDomain(domain).empty() ? "ai.onnx" : std::string(domain);
}

std::string Quote(std::string_view text) { return "'" + std::string(text) + "'"; }

std::string DescribeAttributeType(AttributeProto::AttributeType type) {
  switch (type) {
    case AttributeProto::INT: return "an int";
    case AttributeProto::FLOAT: return "a float";
    case AttributeProto::STRING: return "a string";
    case AttributeProto::TENSOR: return "a tensor";
    case AttributeProto::GRAPH: return "a graph";
    case AttributeProto::SPARSE_TENSOR: return "a sparse tensor";
    case AttributeProto::TYPE_PROTO: return "a type";
    case AttributeProto::INTS: return "a list of ints";
    case AttributeProto::FLOATS: return "a list of floats";
    case AttributeProto::STRINGS: return "a list of strings";
    case AttributeProto::TENSORS: return "a list of tensors";
    case AttributeProto::GRAPHS: return "a list of graphs";
    case AttributeProto::SPARSE_TENSORS: return "a list of sparse tensors";
    case AttributeProto::TYPE_PROTOS: return "a list of types";
    default: return "of no type";
  }
}

std::string DescribeCount(int min, int max, std::string_view what) {
  std::string count;
  if (max < 0)
    count = std::to_string(min) + " or more";
  else if (min == max)
    count = std::to_string(min);
  else
    count = std::to_string(min) + " to " + std::to_string(max);
  return count + " " + std::string(what);
}

// The node's arity and omitted arguments against one side (inputs or outputs) of the schema.
std::optional<RuleViolation> CheckArguments(const OpSchema& schema, const google::protobuf::RepeatedPtrField<std::string>& names,
                                            bool inputs) {
  const int min = inputs ? schema.min_inputs : schema.min_outputs;
  const int max = inputs ? schema.max_inputs : schema.max_outputs;
  const std::string_view what = inputs ? "inputs" : "outputs";
  if (names.size() < min || (max >= 0 && names.size() > max))
    return RuleViolation{schema.Name() + " has " + DescribeCount(min, max, what), std::to_string(names.size())};
  for (int i = 0; i < names.size(); ++i) {
    if (!names[i].empty()) continue;
    const FormalParameter* formal = inputs ? schema.Input(i) : schema.Output(i);
    if (formal && formal->option == FormalParameter::Option::kSingle)
      return RuleViolation{std::string(inputs ? "input " : "output ") + std::to_string(i) + " " + Quote(formal->name) +
                               " of " + schema.Name() + " is not optional",
                           "an empty name"};
  }
  return std::nullopt;
}

// Attributes whose names start with "__" are internal to tools; the ONNX checker lets them pass.
bool IsInternalAttribute(std::string_view name) { return name.starts_with("__"); }

// The attribute types HasToleratedAttributeType accepts (op_schema.h).
bool ToleratedAttributeType(std::string_view domain, std::string_view op_type, const AttributeProto& attr) {
  if (op_type != "Constant" || !NormalizedDomain(domain).empty()) return false;
  return (attr.name() == "value_float" && attr.type() == AttributeProto::INT) ||
         (attr.name() == "value_floats" && attr.type() == AttributeProto::INTS);
}

std::optional<RuleViolation> CheckAttribute(const OpSchema& schema, const AttributeProto& attr) {
  auto it = std::find_if(schema.attributes.begin(), schema.attributes.end(),
                         [&](const AttributeSchema& a) { return a.name == attr.name(); });
  if (it == schema.attributes.end()) {
    if (IsInternalAttribute(attr.name())) return std::nullopt;
    return RuleViolation{schema.Name() + " has no attribute " + Quote(attr.name()), "one"};
  }
  const AttributeProto::AttributeType actual = AttributeTypeOf(attr);
  // An empty list without a declared type (very old models) has no field to tell its type from.
  const bool untyped_empty_list = actual == AttributeProto::UNDEFINED &&
                                  (it->type == AttributeProto::INTS || it->type == AttributeProto::FLOATS ||
                                   it->type == AttributeProto::STRINGS);
  if (actual != it->type && !untyped_empty_list && !ToleratedAttributeType(schema.domain, schema.op_type, attr))
    return RuleViolation{"attribute " + Quote(it->name) + " of " + schema.Name() + " is " +
                             DescribeAttributeType(it->type),
                         DescribeAttributeType(actual)};
  if (!attr.ref_attr_name().empty()) return std::nullopt;  // bound when the function is called
  if ((it->type == AttributeProto::GRAPH && !attr.has_g()) || (it->type == AttributeProto::TENSOR && !attr.has_t()))
    return RuleViolation{"attribute " + Quote(it->name) + " of " + schema.Name() + " holds " +
                             DescribeAttributeType(it->type),
                         "an attribute without its value"};
  return std::nullopt;
}

std::optional<RuleViolation> CheckAttributes(const OpSchema& schema, const NodeProto& node) {
  const auto& attributes = node.attribute();
  // Nodes have a few attributes: comparing each with the previous ones is the cheapest.
  for (int i = 0; i < attributes.size(); ++i) {
    const AttributeProto& attr = attributes[i];
    if (attr.name().empty()) return RuleViolation{"every attribute has a name (IR.md)", "an attribute without one"};
    for (int j = 0; j < i; ++j)
      if (attributes[j].name() == attr.name())
        return RuleViolation{"attribute names are unique within a node (IR.md)", Quote(attr.name()) + " twice"};
    if (auto violation = CheckAttribute(schema, attr)) return violation;
  }
  for (const AttributeSchema& attr : schema.attributes) {
    if (!attr.required) continue;
    const bool present = std::any_of(attributes.begin(), attributes.end(),
                                     [&](const AttributeProto& a) { return a.name() == attr.name; });
    if (!present) return RuleViolation{"attribute " + Quote(attr.name) + " of " + schema.Name() + " is required", "none"};
  }
  return std::nullopt;
}

std::optional<RuleViolation> CheckLookup(const SchemaLookup& lookup, const NodeProto& node, std::int64_t version) {
  const std::string imported = "opset " + std::to_string(version) + " of " + DomainName(node.domain()) + " imported";
  switch (lookup.status) {
    case SchemaLookup::Status::kFound:
    case SchemaLookup::Status::kNotCovered:
      return std::nullopt;
    case SchemaLookup::Status::kUnknownOperator:
      return RuleViolation{"the operator set " + DomainName(node.domain()) + " has no operator " + Quote(node.op_type()),
                           imported};
    case SchemaLookup::Status::kNotYetDefined:
      return RuleViolation{node.op_type() + " exists from opset " + std::to_string(lookup.schema->since_version) +
                               " of " + DomainName(node.domain()) + " on",
                           imported};
    case SchemaLookup::Status::kRemoved:
      return RuleViolation{node.op_type() + " is deprecated (removed) from opset " +
                               std::to_string(lookup.schema->since_version) + " of " + DomainName(node.domain()) +
                               " on",
                           imported};
  }
  return std::nullopt;
}

}  // namespace

std::string DescribeTypeSet(const TypeSet& types) {
  std::string text;
  auto add = [&](std::uint32_t bits, std::string_view prefix, std::string_view suffix) {
    for (std::uint32_t rest = bits; rest != 0; rest &= rest - 1) {
      const auto type = static_cast<std::size_t>(std::countr_zero(rest));
      if (!text.empty()) text += ", ";
      const std::string name =
          type < std::size(kTypeNames) ? std::string(kTypeNames[type]) : "element type " + std::to_string(type);
      text += std::string(prefix) + name + std::string(suffix);
    }
  };
  add(types.tensor, "tensor(", ")");
  add(types.sequence, "seq(tensor(", "))");
  add(types.optional, "optional(tensor(", "))");
  add(types.optional_sequence, "optional(seq(tensor(", ")))");
  return text;
}

std::string OpSchema::Name() const {
  const std::string name = std::string(op_type) + "-" + std::to_string(since_version);
  return NormalizedDomain(domain).empty() ? name : std::string(domain) + "::" + name;
}

const FormalParameter* OpSchema::Input(int position) const {
  if (position < static_cast<int>(inputs.size())) return &inputs[static_cast<std::size_t>(position)];
  if (!inputs.empty() && inputs.back().option == FormalParameter::Option::kVariadic) return &inputs.back();
  return nullptr;
}

const FormalParameter* OpSchema::Output(int position) const {
  if (position < static_cast<int>(outputs.size())) return &outputs[static_cast<std::size_t>(position)];
  if (!outputs.empty() && outputs.back().option == FormalParameter::Option::kVariadic) return &outputs.back();
  return nullptr;
}

void RegisterOpSchemas(std::span<const OpSchema> schemas) { TheRegistry().Register(schemas); }

void RegisterOperatorExtension(std::string_view domain, std::string_view op_type, int first_version,
                               int last_version) {
  TheRegistry().RegisterExtension(domain, op_type, first_version, last_version);
}

SchemaLookup LookUpOpSchema(std::string_view domain, std::string_view op_type, std::int64_t version) {
  return TheRegistry().LookUp(domain, op_type, version);
}

const OpSchema* FindOpSchema(std::string_view domain, std::string_view op_type, std::int64_t version) {
  const SchemaLookup lookup = LookUpOpSchema(domain, op_type, version);
  return lookup.status == SchemaLookup::Status::kFound ? lookup.schema : nullptr;
}

std::optional<AttributeProto> DefaultAttribute(const OpSchema& schema, std::string_view name) {
  const auto it = std::find_if(schema.attributes.begin(), schema.attributes.end(),
                               [&](const AttributeSchema& a) { return a.name == name; });
  if (it == schema.attributes.end() || it->default_value.empty()) return std::nullopt;
  const std::string_view text = it->default_value;
  AttributeProto attribute;
  attribute.set_name(std::string(name));
  attribute.set_type(it->type);
  switch (it->type) {
    case AttributeProto::INT: {
      std::int64_t value = 0;
      const auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), value);
      if (error != std::errc() || end != text.data() + text.size()) return std::nullopt;
      attribute.set_i(value);
      return attribute;
    }
    case AttributeProto::FLOAT: {
      // The float nearest to the decimal text, as an exporter writing the default stores it.
      float value = 0;
      const auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), value);
      if (error != std::errc() || end != text.data() + text.size()) return std::nullopt;
      attribute.set_f(value);
      return attribute;
    }
    case AttributeProto::STRING: attribute.set_s(std::string(text)); return attribute;
    default: break;
  }
  return std::nullopt;
}

std::size_t RegisteredOpSchemaCount() { return TheRegistry().Count(); }

bool HasToleratedAttributeType(const NodeProto& node) {
  return std::any_of(node.attribute().begin(), node.attribute().end(), [&](const AttributeProto& attr) {
    return ToleratedAttributeType(node.domain(), node.op_type(), attr);
  });
}

std::optional<RuleViolation> CheckNodeSignature(const NodeProto& node, std::int64_t version,
                                                const LocalFunctions* functions) {
  if (version <= 0) return std::nullopt;
  const SchemaLookup lookup = LookUpOpSchema(node.domain(), node.op_type(), version);
  // A local function may bear a name the operator set does not define (it is then called).
  if (lookup.status != SchemaLookup::Status::kFound && functions && functions->Find(node)) return std::nullopt;
  if (auto violation = CheckLookup(lookup, node, version)) return violation;
  if (lookup.status != SchemaLookup::Status::kFound) return std::nullopt;
  const OpSchema& schema = *lookup.schema;
  if (auto violation = CheckArguments(schema, node.input(), true)) return violation;
  if (auto violation = CheckArguments(schema, node.output(), false)) return violation;
  return CheckAttributes(schema, node);
}

}  // namespace onnxopt::core::ir
