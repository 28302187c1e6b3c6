#pragma once
// Helpers shared by the no-op elimination patterns (docs/classic-fusions.md).

#include <string_view>

#include "onnx_core/ir/onnx_pb.h"
#include "onnx_core/optimizer/graph_graph.h"
#include "onnx_core/optimizer/pattern.h"
#include "onnx_core/utils/repeated_proto_field.h"

namespace onnxopt::onnx_patterns::elimination {

// The replacement of a no-op `node`: `node.output(0) = Identity(node.input(0))`, which the
// driver's cleanup then removes.
utils::RepeatedProtoField<NodeProto> IdentityOfFirstInput(core::builder::GraphGraph& graph, std::string_view pattern,
                                                          const NodeProto& node);

// A default-domain ArgMax or ArgMin (for ExpectMatchedNodes).
bool IsArgMaxOrArgMin(const NodeProto& node);
inline constexpr core::builder::ExpectedNode kArgMaxOrArgMin{"ArgMax or ArgMin", IsArgMaxOrArgMin};

// The node whose output a default-domain ArgMax or ArgMin `arg` reads, when that node is
// a default-domain node with one input and one output that nothing else reads (the node
// the rewrite removes); null with the reason in `*why` otherwise.
const NodeProto* ArgInputProducer(const core::builder::GraphGraph& graph, const NodeProto& arg, std::string_view* why);

// The replacement `arg.output(0) = op_type(input)` ("ArgMax" or "ArgMin"), with the
// attributes of `arg` (axis, keepdims, select_last_index).
utils::RepeatedProtoField<NodeProto> ArgOf(core::builder::GraphGraph& graph, std::string_view pattern,
                                           const NodeProto& arg, const std::string& input, std::string_view op_type);

}  // namespace onnxopt::onnx_patterns::elimination
