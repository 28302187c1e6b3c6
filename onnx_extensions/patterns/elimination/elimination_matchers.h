#pragma once
// Helpers shared by the no-op elimination patterns (docs/classic-fusions.md).

#include <string_view>

#include "onnx_core/ir/onnx_pb.h"
#include "onnx_core/optimizer/graph_graph.h"
#include "onnx_core/utils/repeated_proto_field.h"

namespace onnxopt::onnx_patterns::elimination {

// The replacement of a no-op `node`: `node.output(0) = Identity(node.input(0))`, which the
// driver's cleanup then removes.
utils::RepeatedProtoField<NodeProto> IdentityOfFirstInput(core::builder::GraphGraph& graph, std::string_view pattern,
                                                          const NodeProto& node);

}  // namespace onnxopt::onnx_patterns::elimination
