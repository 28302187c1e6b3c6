#include "onnx_core/eval/kernel_registry.h"

#include <mutex>
#include <unordered_map>

#include "onnx_core/common/error.h"

namespace onnxopt::core::eval {

namespace {

std::string_view NormalizedDomain(std::string_view domain) { return domain == "ai.onnx" ? std::string_view() : domain; }

// "domain\0op_type", as in shapes/shape_registry.cc.
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
  // Elements of an unordered_map never move: FindKernel hands out pointers.
  std::unordered_map<std::string, Kernel> kernels;
};

Registry& TheRegistry() {
  static Registry registry;
  return registry;
}

std::string Describe(std::string_view domain, std::string_view op_type) {
  const std::string_view normalized = NormalizedDomain(domain);
  return normalized.empty() ? std::string(op_type) : std::string(normalized) + "::" + std::string(op_type);
}

// The attribute's declared type, or the one its fields imply when `type` is unset.
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

const AttributeProto* Typed(const KernelContext& context, std::string_view name, AttributeProto::AttributeType expected) {
  const AttributeProto* attr = context.Attribute(name);
  if (!attr) return nullptr;
  const AttributeProto::AttributeType actual = TypeOf(*attr);
  if (actual == expected) return attr;
  // An empty list has no field to tell its type from.
  if (attr->type() == AttributeProto::UNDEFINED && actual == AttributeProto::UNDEFINED &&
      (expected == AttributeProto::INTS || expected == AttributeProto::FLOATS || expected == AttributeProto::STRINGS))
    return attr;
  throw ModelError("attribute '" + std::string(name) + "' is " + TypeName(actual) + ", expected " + TypeName(expected));
}

}  // namespace

// --- Registry ----------------------------------------------------------------------------

void RegisterKernel(std::string_view domain, std::string_view op_type, Kernel kernel) {
  if (op_type.empty()) throw BuilderError("RegisterKernel: empty op_type");
  if (!kernel) throw BuilderError("RegisterKernel: empty kernel for " + Describe(domain, op_type));
  Registry& registry = TheRegistry();
  std::lock_guard lock(registry.mutex);
  auto [it, inserted] = registry.kernels.try_emplace(Key(domain, op_type), std::move(kernel));
  if (!inserted) throw BuilderError("RegisterKernel: a kernel is already registered for " + Describe(domain, op_type));
}

const Kernel* FindKernel(std::string_view domain, std::string_view op_type) {
  Registry& registry = TheRegistry();
  const std::string key = Key(domain, op_type);
  std::lock_guard lock(registry.mutex);
  auto it = registry.kernels.find(key);
  return it == registry.kernels.end() ? nullptr : &it->second;
}

std::size_t RegisteredKernelCount() {
  Registry& registry = TheRegistry();
  std::lock_guard lock(registry.mutex);
  return registry.kernels.size();
}

bool IsNondeterministicOp(std::string_view domain, std::string_view op_type) {
  if (domain == "com.microsoft")
    return op_type == "BiasDropout" || op_type == "BitmaskDropout" || op_type == "BitmaskBiasDropout";
  if (!NormalizedDomain(domain).empty()) return false;
  // Dropout is deterministic only in inference mode (training_mode is an input since
  // opset 12): never folded, to be safe.
  return op_type == "RandomNormal" || op_type == "RandomUniform" || op_type == "RandomNormalLike" ||
         op_type == "RandomUniformLike" || op_type == "Multinomial" || op_type == "Bernoulli" || op_type == "Dropout";
}

// --- KernelContext -----------------------------------------------------------------------

const Tensor& KernelContext::TensorInput(std::size_t i) const {
  if (!HasInput(i)) throw ModelError("input " + std::to_string(i) + " is missing");
  return AsTensor(Input(i), "input " + std::to_string(i) + " ('" + Node().input(static_cast<int>(i)) + "')");
}

const AttributeProto* KernelContext::Attribute(std::string_view name) const {
  for (const AttributeProto& attr : Node().attribute())
    if (attr.name() == name) return &attr;
  return nullptr;
}

std::optional<std::int64_t> KernelContext::IntAttribute(std::string_view name) const {
  const AttributeProto* attr = Typed(*this, name, AttributeProto::INT);
  if (!attr) return std::nullopt;
  return attr->i();
}

std::optional<float> KernelContext::FloatAttribute(std::string_view name) const {
  const AttributeProto* attr = Typed(*this, name, AttributeProto::FLOAT);
  if (!attr) return std::nullopt;
  return attr->f();
}

std::optional<std::string> KernelContext::StringAttribute(std::string_view name) const {
  const AttributeProto* attr = Typed(*this, name, AttributeProto::STRING);
  if (!attr) return std::nullopt;
  return attr->s();
}

std::optional<std::vector<std::int64_t>> KernelContext::IntsAttribute(std::string_view name) const {
  const AttributeProto* attr = Typed(*this, name, AttributeProto::INTS);
  if (!attr) return std::nullopt;
  return std::vector<std::int64_t>(attr->ints().begin(), attr->ints().end());
}

std::optional<std::vector<float>> KernelContext::FloatsAttribute(std::string_view name) const {
  const AttributeProto* attr = Typed(*this, name, AttributeProto::FLOATS);
  if (!attr) return std::nullopt;
  return std::vector<float>(attr->floats().begin(), attr->floats().end());
}

std::optional<Tensor> KernelContext::TensorAttribute(std::string_view name) const {
  const AttributeProto* attr = Typed(*this, name, AttributeProto::TENSOR);
  if (!attr) return std::nullopt;
  return Tensor::FromProto(attr->t());
}

}  // namespace onnxopt::core::eval
