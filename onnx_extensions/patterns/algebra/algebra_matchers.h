#pragma once
// Helpers shared by the algebra family (../../../../shared/docs/patterns/algebra.md).

#include <string>
#include <string_view>
#include <vector>

#include "onnx_core/ir/onnx_pb.h"
#include "onnx_core/optimizer/graph_graph.h"
#include "onnx_core/utils/repeated_proto_field.h"

namespace onnxopt::onnx_patterns::algebra {

// Appends a default-domain `op_type` node reading `inputs`, named after `from`, with one
// fresh output (returned through the node's output(0)).
NodeProto& AddNode(utils::RepeatedProtoField<NodeProto>& replacement, core::builder::GraphGraph& graph,
                   std::string_view pattern, const NodeProto& from, std::string_view op_type,
                   std::vector<std::string> inputs);

}  // namespace onnxopt::onnx_patterns::algebra
