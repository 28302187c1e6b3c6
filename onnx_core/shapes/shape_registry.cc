#include "onnx_core/shapes/shape_registry.h"

#include <mutex>
#include <unordered_map>

#include "onnx_core/common/error.h"

namespace onnxopt::core::shapes {

namespace {

std::string_view NormalizedDomain(std::string_view domain) { return domain == "ai.onnx" ? std::string_view() : domain; }

// "domain\0op_type": neither part can hold a NUL byte that would make two keys collide
// in a model we care about, and a key is built once per lookup.
std::string Key(std::string_view domain, std::string_view op_type) {
  const std::string_view normalized = NormalizedDomain(domain);
  std::string key;
  key.reserve(normalized.size() + 1 + op_type.size());
  key.append(normalized);
  key.push_back('\0');
  key.append(op_type);
  return key;
}

struct Registry {
  std::mutex mutex;
  // Elements of an unordered_map never move: FindShapeFunction hands out pointers.
  std::unordered_map<std::string, ShapeFunction> functions;
};

Registry& TheRegistry() {
  static Registry registry;
  return registry;
}

std::string Describe(std::string_view domain, std::string_view op_type) {
  const std::string_view normalized = NormalizedDomain(domain);
  return normalized.empty() ? std::string(op_type) : std::string(normalized) + "::" + std::string(op_type);
}

// The attribute's declared type, or the one its fields imply when `type` is unset (very
// old models).
AttributeProto::AttributeType TypeOf(const AttributeProto& attr) {
  using A = AttributeProto;
  if (attr.type() != A::UNDEFINED) return attr.type();
  if (attr.has_i()) return A::INT;
  if (attr.has_f()) return A::FLOAT;
  if (attr.has_s()) return A::STRING;
  if (attr.has_t()) return A::TENSOR;
  if (attr.has_g()) return A::GRAPH;
  if (attr.ints_size() > 0) return A::INTS;
  if (attr.floats_size() > 0) return A::FLOATS;
  if (attr.strings_size() > 0) return A::STRINGS;
  return A::UNDEFINED;
}

const char* TypeName(AttributeProto::AttributeType type) {
  const std::string& name = AttributeProto::AttributeType_Name(type);
  return name.empty() ? "UNDEFINED" : name.c_str();
}

}  // namespace

// --- Registry ------------------------------------------------------------------------

void RegisterShapeFunction(std::string_view domain, std::string_view op_type, ShapeFunction function) {
  if (op_type.empty()) throw BuilderError("RegisterShapeFunction: empty op_type");
  if (!function) throw BuilderError("RegisterShapeFunction: empty function for " + Describe(domain, op_type));
  Registry& registry = TheRegistry();
  std::lock_guard lock(registry.mutex);
  auto [it, inserted] = registry.functions.try_emplace(Key(domain, op_type), std::move(function));
  if (!inserted)
    throw BuilderError("RegisterShapeFunction: a shape function is already registered for " +
                       Describe(domain, op_type));
}

const ShapeFunction* FindShapeFunction(std::string_view domain, std::string_view op_type) {
  Registry& registry = TheRegistry();
  const std::string key = Key(domain, op_type);
  std::lock_guard lock(registry.mutex);
  auto it = registry.functions.find(key);
  return it == registry.functions.end() ? nullptr : &it->second;
}

std::size_t RegisteredShapeFunctionCount() {
  Registry& registry = TheRegistry();
  std::lock_guard lock(registry.mutex);
  return registry.functions.size();
}

// --- InferenceContext: attributes ----------------------------------------------------

const AttributeProto* InferenceContext::Attribute(std::string_view name) const {
  for (const AttributeProto& attr : Node().attribute())
    if (attr.name() == name) return &attr;
  return nullptr;
}

namespace {

// The attribute `name` of `context`'s node when it has type `expected`; null when absent.
// A present attribute of another type is a malformed model: ModelError, which the driver
// turns into a diagnostic and unknown outputs (a default value must not be assumed).
const AttributeProto* Typed(const InferenceContext& context, std::string_view name,
                            AttributeProto::AttributeType expected) {
  const AttributeProto* attr = context.Attribute(name);
  if (!attr) return nullptr;
  const AttributeProto::AttributeType actual = TypeOf(*attr);
  if (actual == expected) return attr;
  // An empty list has no field to tell its type from.
  if (attr->type() == AttributeProto::UNDEFINED && actual == AttributeProto::UNDEFINED &&
      (expected == AttributeProto::INTS || expected == AttributeProto::FLOATS || expected == AttributeProto::STRINGS))
    return attr;
  throw ModelError("attribute '" + std::string(name) + "' is " + TypeName(actual) + ", expected " +
                   TypeName(expected));
}

}  // namespace

std::optional<std::int64_t> InferenceContext::IntAttribute(std::string_view name) const {
  const AttributeProto* attr = Typed(*this, name, AttributeProto::INT);
  if (!attr) return std::nullopt;
  return attr->i();
}

std::optional<float> InferenceContext::FloatAttribute(std::string_view name) const {
  const AttributeProto* attr = Typed(*this, name, AttributeProto::FLOAT);
  if (!attr) return std::nullopt;
  return attr->f();
}

std::optional<std::string> InferenceContext::StringAttribute(std::string_view name) const {
  const AttributeProto* attr = Typed(*this, name, AttributeProto::STRING);
  if (!attr) return std::nullopt;
  return attr->s();
}

std::optional<std::vector<std::int64_t>> InferenceContext::IntsAttribute(std::string_view name) const {
  const AttributeProto* attr = Typed(*this, name, AttributeProto::INTS);
  if (!attr) return std::nullopt;
  return std::vector<std::int64_t>(attr->ints().begin(), attr->ints().end());
}

}  // namespace onnxopt::core::shapes
