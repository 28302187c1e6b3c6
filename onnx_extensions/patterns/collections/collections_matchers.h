#pragma once
// Helpers shared by the collections patterns (Concat, Gather, Slice, Split, sequences).

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "onnx_core/ir/onnx_pb.h"
#include "onnx_core/optimizer/graph_graph.h"
#include "onnx_core/utils/repeated_proto_field.h"

namespace onnxopt::onnx_patterns::collections {

using core::builder::GraphGraph;

// Candidate for onnx_core/optimizer/match.h
// The rank of a computable constant; nullopt when `value` is not one.
std::optional<std::size_t> ConstantRank(GraphGraph& graph, std::string_view value);

// Whether a Gather index of this tensor's type is allowed (int64 or int32).
inline bool IsIndexType(const TensorProto& tensor) {
  return tensor.data_type() == TensorProto::INT64 || tensor.data_type() == TensorProto::INT32;
}

// Gives `split` the sizes of its outputs along its axis: a `split` input (opset >= 13)
// or attribute (below 13).
void SetSplitSizes(GraphGraph& graph, std::string_view prefix, NodeProto& split,
                   const std::vector<std::int64_t>& sizes);

// Makes `split` produce `count` equal pieces of size 1: num_outputs (opset >= 18), else
// explicit sizes of ones.
void SetSplitOnes(GraphGraph& graph, std::string_view prefix, NodeProto& split, std::int64_t count);

// Appends `output = Squeeze(input, axes={axis})` to `nodes`: axes input from opset 13,
// attribute below.
void AddSqueeze(GraphGraph& graph, std::string_view prefix, const NodeProto& origin,
                utils::RepeatedProtoField<NodeProto>& nodes, const std::string& input, const std::string& output,
                std::int64_t axis);

}  // namespace onnxopt::onnx_patterns::collections
