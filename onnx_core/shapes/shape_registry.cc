#include "onnx_core/shapes/shape_registry.h"

#include "onnx_core/common/error.h"
#include "onnx_core/ir/attributes.h"
#include "onnx_core/ir/op_registry.h"

namespace onnxopt::core::shapes {

namespace {

ir::OpRegistry<ShapeFunction>& TheRegistry() {
  static ir::OpRegistry<ShapeFunction> registry("shape function");
  return registry;
}

}  // namespace

// --- Registry ------------------------------------------------------------------------

void RegisterShapeFunction(std::string_view domain, std::string_view op_type, ShapeFunction function) {
  TheRegistry().Register(domain, op_type, std::move(function));
}

const ShapeFunction* FindShapeFunction(std::string_view domain, std::string_view op_type) {
  return TheRegistry().Find(domain, op_type);
}

std::size_t RegisteredShapeFunctionCount() { return TheRegistry().Count(); }

// --- InferenceContext: attributes ----------------------------------------------------

// A present attribute of another type raises ModelError, which the driver turns into a
// diagnostic and unknown outputs (a default value must not be assumed).
const AttributeProto* InferenceContext::Attribute(std::string_view name) const {
  return ir::FindAttribute(Node(), name);
}

std::optional<std::int64_t> InferenceContext::IntAttribute(std::string_view name) const {
  const AttributeProto* attr = ir::TypedAttribute(Node(), name, AttributeProto::INT);
  if (!attr) return std::nullopt;
  return attr->i();
}

std::optional<float> InferenceContext::FloatAttribute(std::string_view name) const {
  const AttributeProto* attr = ir::TypedAttribute(Node(), name, AttributeProto::FLOAT);
  if (!attr) return std::nullopt;
  return attr->f();
}

std::optional<std::string> InferenceContext::StringAttribute(std::string_view name) const {
  const AttributeProto* attr = ir::TypedAttribute(Node(), name, AttributeProto::STRING);
  if (!attr) return std::nullopt;
  return attr->s();
}

std::optional<std::vector<std::int64_t>> InferenceContext::IntsAttribute(std::string_view name) const {
  const AttributeProto* attr = ir::TypedAttribute(Node(), name, AttributeProto::INTS);
  if (!attr) return std::nullopt;
  return std::vector<std::int64_t>(attr->ints().begin(), attr->ints().end());
}

}  // namespace onnxopt::core::shapes
