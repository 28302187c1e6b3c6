#pragma once
// The matcher vocabulary shared by every pattern family: short queries that return null
// or nullopt instead of throwing, so that Match reads as a list of conditions.

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string_view>
#include <vector>

#include "onnx_core/ir/onnx_pb.h"
#include "onnx_core/optimizer/graph_graph.h"

namespace onnxopt::core::builder {

// `node` is `op_type` in the default ONNX domain.
bool IsOp(const NodeProto& node, std::string_view op_type);

// The node producing `value` when it is a default-domain `op_type`; null otherwise.
const NodeProto* ProducerOf(const GraphGraph& graph, std::string_view value, std::string_view op_type);

// Read by exactly one node, and not a graph output nor read by a nested graph.
bool HasOneUse(const GraphGraph& graph, std::string_view value);

// The only reader of `value` when HasOneUse holds and it is a default-domain `op_type`.
const NodeProto* SoleConsumer(const GraphGraph& graph, std::string_view value, std::string_view op_type);

// The rank of `value` when shape inference knows it.
std::optional<std::size_t> RankOf(const GraphGraph& graph, std::string_view value);

// The elements of a constant integer tensor (any integer type), e.g. axes, shapes,
// indices; nullopt when `value` is not a computable integer constant.
std::optional<std::vector<std::int64_t>> ConstantInts(GraphGraph& graph, std::string_view value);

// The version of the default ONNX opset the model imports (0 when none).
std::int64_t OnnxOpset(const GraphGraph& graph);

// The attribute `name` when it is an INT / INTS; nullopt when absent or of another type.
std::optional<std::int64_t> IntAttr(const NodeProto& node, std::string_view name);
std::optional<std::vector<std::int64_t>> IntsAttr(const NodeProto& node, std::string_view name);

// "<pattern>--<node name or first output>": the name of a node a pattern creates from
// `node`, made unique in the model.
std::string DerivedNodeName(GraphGraph& graph, std::string_view pattern, const NodeProto& node);

}  // namespace onnxopt::core::builder
