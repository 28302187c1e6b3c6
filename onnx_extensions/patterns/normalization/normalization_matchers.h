#pragma once
// Helpers shared by the normalization patterns (../../../../shared/docs/patterns/normalization.md).

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "onnx_core/ir/onnx_pb.h"
#include "onnx_core/optimizer/graph_graph.h"
#include "onnx_core/optimizer/match.h"
#include "onnx_core/utils/repeated_proto_field.h"

namespace onnxopt::onnx_patterns::normalization {

using core::builder::GraphGraph;

// float16, bfloat16, float or double: the element types of the normalizations and of the
// activations this family emits.
bool IsFloatType(int elem_type);

// The other input of a two-input node reading `value` once; "" when the node does not
// read `value` or reads it twice.
std::string_view OtherInput(const NodeProto& binary, std::string_view value);

// The element of a computable constant whose dimensions are all 1 (any rank, or a
// scalar); nullopt otherwise.
std::optional<double> BroadcastScalar(GraphGraph& graph, std::string_view value);

// Whether broadcasting `x` with the constant `constant` keeps x's shape as far as the
// constant is concerned: the constant's rank is 0, or at most rank(x) (rank(x) known).
// Max(x, zero) with x of shape () and zero of shape (1,) has shape (1,); Relu(x) has ().
bool ConstantKeepsShape(const GraphGraph& graph, std::string_view x, std::string_view constant);

// Whether a float holds `value` to within a float's rounding (relative 2^-24): zero or a
// normal float magnitude; NaN and infinities do not. A FLOAT attribute of a fused operator
// then carries the constant of a double graph rounded, not lost: a double epsilon of 1e-50
// would become 0, one of 1e-5 becomes 1e-5 to 7 digits.
bool FitsFloat(double value);

// The default ONNX opset of the model is at least `version`.
bool OpsetAtLeast(const GraphGraph& graph, std::int64_t version);

// Whether the dims of `x` from `axis` on are known to hold fewer than two elements (a static
// 0 among them, or all static with a product of 1). onnxruntime refuses LayerNormalization
// and RMSNormalization over fewer ("Size of X.shape[axis:] must be larger than 1") where the
// chains they replace run (all zeros for one element). A symbolic normalized dim is taken to
// be 2 or more, as a hidden size is: were it 0 or 1 at run time, onnxruntime would refuse the
// fused operator (`--check-with onnxruntime` shows it with the dim 0).
bool NormalizesFewerThanTwoElements(const GraphGraph& graph, std::string_view x, std::int64_t axis);

using core::builder::AddNode;

// Appends a FLOAT / STRING / TENSOR attribute to a node a pattern builds.
void AddFloatAttribute(NodeProto& node, std::string_view name, float value);
void AddStringAttribute(NodeProto& node, std::string_view name, std::string_view value);
void AddTensorAttribute(NodeProto& node, std::string_view name, TensorProto value);

// A tensor of `elem_type` (a float type) and `dims`, every element `value`.
TensorProto FilledTensor(int elem_type, const std::vector<std::int64_t>& dims, double value);

// The tensor of shape (1,) holding `value` in the typed field of `elem_type` (a float type),
// as the ONNX text parser writes a tensor attribute: ConstantOfShape's value.
TensorProto ScalarAttributeTensor(int elem_type, double value);

// A tensor of `elem_type` with `value` filling the dimensions of `x` from `start` up to
// `end` (to the last one when absent): a new initializer when those dimensions are
// static integers, else ConstantOfShape<value>(Shape<start, end>(x)) added to
// `replacement`. Returns the name of the value. The scale and bias of a fused
// normalization.
std::string FilledLike(utils::RepeatedProtoField<NodeProto>& replacement, GraphGraph& graph, std::string_view pattern,
                       const NodeProto& from, std::string_view x, std::int64_t start, std::optional<std::int64_t> end,
                       int elem_type, double value);

}  // namespace onnxopt::onnx_patterns::normalization
