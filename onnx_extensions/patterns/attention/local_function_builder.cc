#include "onnx_extensions/patterns/attention/local_function_builder.h"

#include <utility>

#include "onnx_core/optimizer/match.h"
#include "onnx_extensions/patterns/attention/attention_matchers.h"

namespace onnxopt::onnx_patterns::attention {

FunctionProto NewLocalFunction(std::string_view name, std::initializer_list<std::string_view> inputs,
                               std::initializer_list<std::string_view> outputs, std::int64_t opset) {
  FunctionProto function;
  function.set_domain(std::string(kIntermediateDomain));
  function.set_name(std::string(name));
  for (const std::string_view input : inputs) function.add_input(std::string(input));
  for (const std::string_view output : outputs) function.add_output(std::string(output));
  OperatorSetIdProto& import = *function.add_opset_import();
  import.set_domain("");
  import.set_version(opset);
  return function;
}

NodeProto& AddBodyNode(FunctionProto& function, std::string_view op_type,
                       std::initializer_list<std::string_view> inputs,
                       std::initializer_list<std::string_view> outputs) {
  NodeProto& node = *function.add_node();
  node.set_op_type(std::string(op_type));
  for (const std::string_view input : inputs) node.add_input(std::string(input));
  for (const std::string_view output : outputs) node.add_output(std::string(output));
  return node;
}

void AddBodyConstant(FunctionProto& function, std::string_view output, TensorProto tensor) {
  NodeProto& node = AddBodyNode(function, "Constant", {}, {output});
  AttributeProto& value = *node.add_attribute();
  value.set_name("value");
  value.set_type(AttributeProto::TENSOR);
  *value.mutable_t() = std::move(tensor);
}

void AddBodyInt64Constant(FunctionProto& function, std::string_view output, const std::vector<std::int64_t>& values,
                          const std::vector<std::int64_t>& dims) {
  AddBodyConstant(function, output, core::builder::IntTensor(values, dims));
}

FunctionProto HalfRotaryEmbeddingFunction(std::int64_t opset) {
  FunctionProto f = NewLocalFunction("HalfRotaryEmbedding", {"X", "cos_cache", "sin_cache"}, {"Y"}, opset);
  NodeProto& split = AddBodyNode(f, "Split", {"X"}, {"left", "right"});
  core::builder::AddIntAttribute(split, "axis", -1);
  core::builder::AddIntAttribute(split, "num_outputs", 2);
  AddBodyNode(f, "Neg", {"right"}, {"right_neg"});
  core::builder::AddIntAttribute(AddBodyNode(f, "Concat", {"right_neg", "left"}, {"conc"}), "axis", -1);
  AddBodyNode(f, "Mul", {"X", "cos_cache"}, {"xc"});
  AddBodyNode(f, "Mul", {"conc", "sin_cache"}, {"rs"});
  AddBodyNode(f, "Add", {"xc", "rs"}, {"Y"});
  return f;
}

NodeProto CallLocalFunction(GraphGraph& graph, std::string_view pattern, const NodeProto& origin,
                            FunctionProto function, const std::vector<std::string_view>& inputs,
                            const std::vector<std::string_view>& outputs) {
  const FunctionProto& added = graph.GetOrAddFunction(std::move(function));
  NodeProto call;
  call.set_name(core::builder::DerivedNodeName(graph, pattern, origin));
  call.set_domain(added.domain());
  call.set_op_type(added.name());
  for (const std::string_view input : inputs) call.add_input(std::string(input));
  for (const std::string_view output : outputs) call.add_output(std::string(output));
  return call;
}

const std::string& OtherInput(const NodeProto& node, std::string_view value) {
  return node.input(0) == value ? node.input(1) : node.input(0);
}

}  // namespace onnxopt::onnx_patterns::attention
