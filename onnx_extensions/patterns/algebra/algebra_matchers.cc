#include "onnx_extensions/patterns/algebra/algebra_matchers.h"

#include "onnx_core/optimizer/match.h"

namespace onnxopt::onnx_patterns::algebra {

NodeProto& AddNode(utils::RepeatedProtoField<NodeProto>& replacement, core::builder::GraphGraph& graph,
                   std::string_view pattern, const NodeProto& from, std::string_view op_type,
                   std::vector<std::string> inputs) {
  NodeProto& node = *replacement.Add();
  node.set_op_type(std::string(op_type));
  node.set_name(core::builder::DerivedNodeName(graph, pattern, from));
  for (std::string& input : inputs) node.add_input(std::move(input));
  node.add_output(graph.Builder().UniqueName(pattern));
  return node;
}

}  // namespace onnxopt::onnx_patterns::algebra
