#pragma once
// Helpers used only by the canonicalization patterns. Like the core matchers, they
// return nullopt / false instead of throwing.

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "onnx_core/eval/tensor.h"
#include "onnx_core/ir/onnx_pb.h"
#include "onnx_core/optimizer/graph_graph.h"
#include "onnx_core/optimizer/match.h"
#include "onnx_core/utils/repeated_proto_field.h"

namespace onnxopt::onnx_patterns::canonicalization {

// Input `i` of `node`, or "" when it is absent (past the end or empty).
inline std::string_view OptionalInput(const NodeProto& node, int i) {
  return i < node.input_size() ? std::string_view(node.input(i)) : std::string_view();
}

// FLOAT16, BFLOAT16, FLOAT or DOUBLE.
inline bool IsFloatType(int elem_type) {
  return elem_type == TensorProto::FLOAT16 || elem_type == TensorProto::BFLOAT16 || elem_type == TensorProto::FLOAT ||
         elem_type == TensorProto::DOUBLE;
}

// Candidate for onnx_core/optimizer/match.h
// The elements of a computable numeric constant (booleans read as 0/1) and its dims;
// nullopt when `value` is not a computable constant or holds strings.
struct ConstantValue {
  std::vector<std::int64_t> dims;
  std::vector<double> elements;
};
inline std::optional<ConstantValue> ConstantDoubles(core::builder::GraphGraph& graph, std::string_view value) {
  const TensorProto* tensor = graph.GetComputedConstant(value);
  if (!tensor || tensor->data_type() == TensorProto::STRING) return std::nullopt;
  return ConstantValue{std::vector<std::int64_t>(tensor->dims().begin(), tensor->dims().end()),
                       core::eval::Tensor::FromProto(*tensor).ToDoubleVector()};
}

// Candidate for onnx_core/optimizer/match.h
// The attribute `name` when it is a STRING / FLOAT; nullopt when absent or of another type.
inline std::optional<std::string> StringAttr(const NodeProto& node, std::string_view name) {
  for (const AttributeProto& attr : node.attribute())
    if (attr.name() == name) return attr.type() == AttributeProto::STRING ? std::optional(attr.s()) : std::nullopt;
  return std::nullopt;
}
inline std::optional<float> FloatAttr(const NodeProto& node, std::string_view name) {
  for (const AttributeProto& attr : node.attribute())
    if (attr.name() == name) return attr.type() == AttributeProto::FLOAT ? std::optional(attr.f()) : std::nullopt;
  return std::nullopt;
}

// `node` with the name a pattern gives to a node it rewrites ("<pattern>--<name>").
inline NodeProto& AddDerivedNode(utils::RepeatedProtoField<NodeProto>& replacement, core::builder::GraphGraph& graph,
                                 std::string_view pattern, const NodeProto& from, std::string_view op_type) {
  NodeProto& node = *replacement.Add();
  node.set_op_type(std::string(op_type));
  node.set_name(core::builder::DerivedNodeName(graph, pattern, from));
  return node;
}

// y = Identity(input) where y is the first output of `from`, which the rewrite removes.
inline void AddIdentity(utils::RepeatedProtoField<NodeProto>& replacement, core::builder::GraphGraph& graph,
                        std::string_view pattern, const NodeProto& from, std::string_view input) {
  NodeProto& identity = AddDerivedNode(replacement, graph, pattern, from, "Identity");
  identity.add_input(std::string(input));
  identity.add_output(from.output(0));
  identity.set_doc_string(from.doc_string());
}

}  // namespace onnxopt::onnx_patterns::canonicalization
