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

// --- InvalidNodeError ----------------------------------------------------------------

InvalidNodeError::InvalidNodeError(std::string rule, std::string found)
    : ModelError(rule + "; found " + found), rule_(std::move(rule)), found_(std::move(found)) {}

InvalidNodeError::InvalidNodeError(std::string message, std::string rule, std::string found)
    : ModelError(message), rule_(std::move(rule)), found_(std::move(found)) {}

InvalidNodeError InvalidNodeError::Located(const std::string& label, const std::string& op_type) const {
  if (located_) return *this;
  // Unnamed nodes are labelled "#3 (Add)" already.
  const std::string suffix = " (" + op_type + ")";
  const bool has_op = label.size() >= suffix.size() && label.ends_with(suffix);
  const std::string node = has_op ? label : "'" + label + "'" + suffix;
  InvalidNodeError located("node " + node + ": " + what(), rule_, found_);
  located.located_ = true;
  return located;
}

void InferenceContext::Refuse(std::string rule, std::string found) const {
  throw InvalidNodeError(std::move(rule), std::move(found));
}

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
