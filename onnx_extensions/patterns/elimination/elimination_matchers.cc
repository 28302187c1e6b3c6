#include "onnx_extensions/patterns/elimination/elimination_matchers.h"

#include <string>

#include "onnx_core/optimizer/match.h"

namespace onnxopt::onnx_patterns::elimination {

using core::builder::IsOp;

utils::RepeatedProtoField<NodeProto> IdentityOfFirstInput(core::builder::GraphGraph& graph, std::string_view pattern,
                                                          const NodeProto& node) {
  utils::RepeatedProtoField<NodeProto> replacement;
  *replacement.Add() = core::builder::IdentityNode(graph, pattern, node, node.input(0), node.output(0));
  return replacement;
}

bool IsArgMaxOrArgMin(const NodeProto& node) { return IsOp(node, "ArgMax") || IsOp(node, "ArgMin"); }

const NodeProto* ArgInputProducer(const core::builder::GraphGraph& graph, const NodeProto& arg,
                                  std::string_view* why) {
  if (!IsArgMaxOrArgMin(arg) || arg.input_size() != 1 || arg.output_size() != 1) {
    *why = "the node is not a default-domain ArgMax or ArgMin with one input and one output";
    return nullptr;
  }
  const NodeProto* producer = graph.NodeBefore(arg.input(0));
  if (!producer || !core::ir::IsOnnxDomain(producer->domain()) || producer->input_size() != 1 ||
      producer->output_size() != 1) {
    *why = "the input is not produced by a default-domain node with one input and one output";
    return nullptr;
  }
  if (!core::builder::HasOneUse(graph, arg.input(0))) {
    *why = "the input of the ArgMax or ArgMin has another reader";
    return nullptr;
  }
  return producer;
}

utils::RepeatedProtoField<NodeProto> ArgOf(core::builder::GraphGraph& graph, std::string_view pattern,
                                           const NodeProto& arg, const std::string& input, std::string_view op_type) {
  utils::RepeatedProtoField<NodeProto> replacement;
  NodeProto& node = *replacement.Add() = arg;
  node.set_name(core::builder::DerivedNodeName(graph, pattern, arg));
  node.set_op_type(std::string(op_type));
  node.set_input(0, input);
  return replacement;
}

}  // namespace onnxopt::onnx_patterns::elimination
