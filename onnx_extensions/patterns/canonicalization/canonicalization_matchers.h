#pragma once
// Helpers used only by the canonicalization patterns. Like the core matchers, they
// return nullopt / false instead of throwing.

#include <string>
#include <string_view>

#include "onnx_core/ir/onnx_pb.h"
#include "onnx_core/optimizer/graph_graph.h"
#include "onnx_core/optimizer/match.h"
#include "onnx_core/utils/repeated_proto_field.h"

namespace onnxopt::onnx_patterns::canonicalization {

// FLOAT16, BFLOAT16, FLOAT or DOUBLE.
inline bool IsFloatType(int elem_type) {
  return elem_type == TensorProto::FLOAT16 || elem_type == TensorProto::BFLOAT16 || elem_type == TensorProto::FLOAT ||
         elem_type == TensorProto::DOUBLE;
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
