#pragma once
// What the stage-1 patterns (Function*) share to fold a subgraph into a call to a local
// function of the `intermediate` domain (../../../../shared/docs/patterns/attention.md,
// "Local-function conventions"): building the function bodies and the calls.

#include <cstdint>
#include <initializer_list>
#include <string>
#include <string_view>
#include <vector>

#include "onnx_core/ir/onnx_pb.h"
#include "onnx_core/optimizer/graph_graph.h"
#include "onnx_core/utils/repeated_proto_field.h"

namespace onnxopt::onnx_patterns::attention {

using core::builder::GraphGraph;

// An empty body `name (inputs) => (outputs)` in the `intermediate` domain, importing the
// main opset `opset`, without attributes.
FunctionProto NewLocalFunction(std::string_view name, std::initializer_list<std::string_view> inputs,
                               std::initializer_list<std::string_view> outputs, std::int64_t opset);

// Appends `outputs = op_type(inputs)` (default domain, no node name) to the body.
NodeProto& AddBodyNode(FunctionProto& function, std::string_view op_type,
                       std::initializer_list<std::string_view> inputs, std::initializer_list<std::string_view> outputs);

// Appends `output = Constant<value = tensor>()` to the body.
void AddBodyConstant(FunctionProto& function, std::string_view output, TensorProto tensor);

// Appends `output = Constant<value = int64[dims] {values}>()` to the body (dims empty: a scalar).
void AddBodyInt64Constant(FunctionProto& function, std::string_view output, const std::vector<std::int64_t>& values,
                          const std::vector<std::int64_t>& dims);

// intermediate.HalfRotaryEmbedding (X, cos_cache, sin_cache) => (Y) importing the main opset
// `opset`: the body FunctionHalfRotaryEmbeddingPattern adds and RotaryEmbeddingPattern
// requires of the function a call runs.
FunctionProto HalfRotaryEmbeddingFunction(std::int64_t opset);

// Adds `function` to the model when missing and returns the call `outputs =
// intermediate.<name>(inputs)`, named after `origin`.
NodeProto CallLocalFunction(GraphGraph& graph, std::string_view pattern, const NodeProto& origin,
                            FunctionProto function, const std::vector<std::string_view>& inputs,
                            const std::vector<std::string_view>& outputs);

// The other input of a two-input node, given one of them (input 1 when both are `value`).
const std::string& OtherInput(const NodeProto& node, std::string_view value);

}  // namespace onnxopt::onnx_patterns::attention
