#include "onnx_extensions/kernels/kernel_call.h"

#include <utility>

#include "onnx_core/common/error.h"

namespace onnxopt::onnx_kernels {

namespace {

using core::eval::Value;

// The context of a kernel called by another kernel: a synthetic node, the given values.
class CallContext final : public core::eval::KernelContext {
 public:
  CallContext(NodeProto node, std::vector<Value> inputs, std::int64_t opset_version)
      : node_(std::move(node)), inputs_(std::move(inputs)), opset_version_(opset_version) {}

  const NodeProto& Node() const override { return node_; }
  std::int64_t OpsetVersion() const override { return opset_version_; }
  const Value& Input(std::size_t i) const override {
    static const Value kNone;
    return i < inputs_.size() ? inputs_[i] : kNone;
  }
  std::vector<Value> RunSubgraph(std::string_view attribute, const std::vector<Value>&) override {
    throw BuilderError("CallKernel: the called " + node_.op_type() + " kernel asked for its subgraph '" +
                       std::string(attribute) + "'");
  }

 private:
  NodeProto node_;
  std::vector<Value> inputs_;
  std::int64_t opset_version_;
};

}  // namespace

std::vector<Value> CallKernel(std::string_view op_type, const std::vector<AttributeProto>& attributes,
                              std::vector<Value> inputs, std::int64_t opset_version, std::size_t outputs) {
  const core::eval::Kernel* kernel = core::eval::FindKernel("", op_type);
  if (!kernel) throw BuilderError("CallKernel: no kernel is registered for " + std::string(op_type));
  NodeProto node;
  node.set_op_type(std::string(op_type));
  for (std::size_t i = 0; i < inputs.size(); ++i)
    node.add_input(std::holds_alternative<core::eval::NoValue>(inputs[i]) ? "" : "input" + std::to_string(i));
  for (std::size_t i = 0; i < outputs; ++i) node.add_output("output" + std::to_string(i));
  for (const AttributeProto& attribute : attributes) *node.add_attribute() = attribute;
  CallContext context(std::move(node), std::move(inputs), opset_version);
  return (*kernel)(context);
}

AttributeProto MakeIntAttribute(const std::string& name, std::int64_t value) {
  AttributeProto attribute;
  attribute.set_name(name);
  attribute.set_type(AttributeProto::INT);
  attribute.set_i(value);
  return attribute;
}

}  // namespace onnxopt::onnx_kernels
