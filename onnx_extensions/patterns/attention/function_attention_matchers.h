#pragma once
// Helpers of the attention patterns that fold a subgraph into a call of a model-local
// function (../../../../shared/docs/patterns/attention.md, "Local-function conventions").
// Bodies are built deterministically, with fixed names: GraphGraph::GetOrAddFunction
// compares a function added again with the stored one byte for byte.

#include <cstdint>
#include <initializer_list>
#include <optional>
#include <set>
#include <string>
#include <string_view>

#include "onnx_core/ir/onnx_pb.h"
#include "onnx_core/optimizer/graph_graph.h"
#include "onnx_extensions/patterns/attention/local_function_builder.h"
#include "onnx_core/utils/repeated_proto_field.h"

namespace onnxopt::onnx_patterns::attention {

using core::builder::GraphGraph;

// A 1-D tensor of `elem_type` (float, float16, double or bfloat16) holding `value`.
TensorProto FloatVector1(int elem_type, double value);

// Why the key-value tensor `kv` and its head expansion `expanded` are not both known 4-D
// shapes that agree on the dims 0, 2 and 3 (dims compared as shape inference names them);
// empty when they are.
std::string_view WhyNotSameDims(const GraphGraph& graph, std::string_view kv, std::string_view expanded);

// The element types a LocalAttention function can be built for: float, float16, double,
// bfloat16.
bool IsAttentionElementType(int elem_type);

// The variants of the LocalAttention functions.
struct LocalAttentionVariant {
  bool switched = false;  // SW: the mask names the masked-out positions
  bool fused = false;     // NoT: matched on a FusedMatMul (same body)
  bool gqa = false;       // the head expansion of the keys and values is inside
  bool squeeze = false;   // sQ: the expansion ends with a Squeeze instead of a Reshape
  int elem_type = TensorProto::FLOAT;
};

// "LocalAttention[GQA][SW][sQ][NoT]_to<elem_type>" (SW before sQ, as AttentionGQAFromFunctionPattern
// reads the GQA names).
std::string LocalAttentionName(const LocalAttentionVariant& variant);

// A non-GQA name "LocalAttention[SW][NoT]_to<digits>", parsed; nullopt for anything else.
std::optional<LocalAttentionVariant> ParseLocalAttentionName(std::string_view op_type);

// The op types ParseLocalAttentionName accepts for the element types of
// IsAttentionElementType.
std::set<std::string> LocalAttentionOpTypes();

// The function LocalAttentionName(variant) at main opset `opset`:
//   (query, keys, values, mask | not_mask, scale_sqrt[, expand_shape, gqa_shape]) => (Y)
// scaling Q and K by scale_sqrt, masking the scores with -inf, Softmax on the last axis,
// NaN rows replaced by 0, and the product with the values.
FunctionProto LocalAttentionFunction(const LocalAttentionVariant& variant, std::int64_t opset);

}  // namespace onnxopt::onnx_patterns::attention
