#include "onnx_extensions/patterns/elimination/elimination_matchers.h"

#include "onnx_core/optimizer/match.h"

namespace onnxopt::onnx_patterns::elimination {

utils::RepeatedProtoField<NodeProto> IdentityOfFirstInput(core::builder::GraphGraph& graph, std::string_view pattern,
                                                          const NodeProto& node) {
  utils::RepeatedProtoField<NodeProto> replacement;
  *replacement.Add() = core::builder::IdentityNode(graph, pattern, node, node.input(0), node.output(0));
  return replacement;
}

}  // namespace onnxopt::onnx_patterns::elimination
