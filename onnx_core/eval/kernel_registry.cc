#include "onnx_core/eval/kernel_registry.h"

#include "onnx_core/common/error.h"
#include "onnx_core/ir/attributes.h"
#include "onnx_core/ir/op_registry.h"

namespace onnxopt::core::eval {

namespace {

ir::OpRegistry<Kernel>& TheRegistry() {
  static ir::OpRegistry<Kernel> registry("kernel");
  return registry;
}

std::string CountRange(std::size_t min, std::size_t max, const char* noun) {
  const std::string plural = std::string(noun) + "s";
  if (max == Arity::kAny) return "at least " + std::to_string(min) + " " + (min == 1 ? noun : plural);
  if (min == max) return std::to_string(min) + " " + (min == 1 ? noun : plural);
  return std::to_string(min) + " to " + std::to_string(max) + " " + plural;
}

void CheckArity(const NodeProto& node, const Arity& arity) {
  const auto inputs = static_cast<std::size_t>(node.input_size());
  const auto outputs = static_cast<std::size_t>(node.output_size());
  if (inputs < arity.min_inputs || inputs > arity.max_inputs)
    throw ModelError("expected " + CountRange(arity.min_inputs, arity.max_inputs, "input") + ", found " +
                     std::to_string(inputs));
  if (outputs < arity.min_outputs || outputs > arity.max_outputs)
    throw ModelError("expected " + CountRange(arity.min_outputs, arity.max_outputs, "output") + ", found " +
                     std::to_string(outputs));
}

}  // namespace

// --- Registry ----------------------------------------------------------------------------

void RegisterKernel(std::string_view domain, std::string_view op_type, Kernel kernel) {
  TheRegistry().Register(domain, op_type, std::move(kernel));
}

void RegisterKernel(std::string_view domain, std::string_view op_type, Arity arity, Kernel kernel) {
  if (!kernel) throw BuilderError("registering an empty kernel for " + ir::DescribeOp(domain, op_type));
  TheRegistry().Register(domain, op_type, [arity, kernel = std::move(kernel)](KernelContext& ctx) {
    CheckArity(ctx.Node(), arity);
    return kernel(ctx);
  });
}

const Kernel* FindKernel(std::string_view domain, std::string_view op_type) { return TheRegistry().Find(domain, op_type); }

std::size_t RegisteredKernelCount() { return TheRegistry().Count(); }

bool IsNondeterministicOp(std::string_view domain, std::string_view op_type) {
  if (domain == "com.microsoft")
    return op_type == "BiasDropout" || op_type == "BitmaskDropout" || op_type == "BitmaskBiasDropout";
  if (!ir::NormalizedDomain(domain).empty()) return false;
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

const AttributeProto* KernelContext::Attribute(std::string_view name) const { return ir::FindAttribute(Node(), name); }

std::optional<std::int64_t> KernelContext::IntAttribute(std::string_view name) const {
  const AttributeProto* attr = ir::TypedAttribute(Node(), name, AttributeProto::INT);
  if (!attr) return std::nullopt;
  return attr->i();
}

std::optional<float> KernelContext::FloatAttribute(std::string_view name) const {
  const AttributeProto* attr = ir::TypedAttribute(Node(), name, AttributeProto::FLOAT);
  if (!attr) return std::nullopt;
  return attr->f();
}

std::optional<std::string> KernelContext::StringAttribute(std::string_view name) const {
  const AttributeProto* attr = ir::TypedAttribute(Node(), name, AttributeProto::STRING);
  if (!attr) return std::nullopt;
  return attr->s();
}

std::optional<std::vector<std::int64_t>> KernelContext::IntsAttribute(std::string_view name) const {
  const AttributeProto* attr = ir::TypedAttribute(Node(), name, AttributeProto::INTS);
  if (!attr) return std::nullopt;
  return std::vector<std::int64_t>(attr->ints().begin(), attr->ints().end());
}

std::optional<std::vector<float>> KernelContext::FloatsAttribute(std::string_view name) const {
  const AttributeProto* attr = ir::TypedAttribute(Node(), name, AttributeProto::FLOATS);
  if (!attr) return std::nullopt;
  return std::vector<float>(attr->floats().begin(), attr->floats().end());
}

std::optional<Tensor> KernelContext::TensorAttribute(std::string_view name) const {
  const AttributeProto* attr = ir::TypedAttribute(Node(), name, AttributeProto::TENSOR);
  if (!attr) return std::nullopt;
  return Tensor::FromProto(attr->t());
}

}  // namespace onnxopt::core::eval
