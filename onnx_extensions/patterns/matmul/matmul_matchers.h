#pragma once
// Helpers shared by the matmul patterns (../../../../shared/docs/patterns/matmul.md): the
// attributes of Gemm, the permutation that swaps the two matrix axes, and small node
// builders. Like the core matchers, the queries return nullopt / false instead of throwing.

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "onnx_core/ir/onnx_pb.h"
#include "onnx_core/optimizer/graph_graph.h"
#include "onnx_core/optimizer/match.h"
#include "onnx_core/utils/repeated_proto_field.h"

namespace onnxopt::onnx_patterns::matmul {

using core::builder::AddNode;
using core::builder::GraphGraph;
using core::builder::IsPlainReshape;
using core::builder::Reject;
using Ints = std::vector<std::int64_t>;

// A default-domain MatMul with two inputs and one output.
bool IsMatMul(const NodeProto& node);
// A default-domain Gemm with two or three inputs (C may be absent or empty) and one output.
bool IsGemm(const NodeProto& node);
// Whether a Gemm has a third input C.
bool HasGemmC(const NodeProto& gemm);

// Whether a MatMul producing `value` may become a Gemm: its element type is float or
// double. Gemm allows more types, but runtimes do not compute them alike: onnxruntime's
// CPU Gemm has no integer kernel, and its float16 Gemm rounds differently from its float16
// MatMul (the corpus model noopt-llama-custom__0 then differs by up to 3e-2).
bool GemmComputesLikeMatMul(const GraphGraph& graph, std::string_view value);

// Gemm's attributes with their defaults (transA = transB = 0, alpha = beta = 1).
struct GemmAttributes {
  bool trans_a = false;
  bool trans_b = false;
  float alpha = 1.0f;
  float beta = 1.0f;
};
GemmAttributes GemmAttributesOf(const NodeProto& gemm);

// [0, 1, ..., rank-3, rank-1, rank-2]: the permutation of a Transpose that transposes each
// matrix of a batch (rank >= 2).
Ints LastTwoAxesSwapped(std::size_t rank);

// The permutation of a default-domain Transpose with one input: its perm attribute, or,
// without one, the reversal of the axes when the input rank is known.
std::optional<Ints> TransposePermutation(const GraphGraph& graph, const NodeProto& transpose);

// The node producing `value` when it is a Reshape the family may bypass or rewrite
// (IsPlainReshape: default domain, shape as input, allowzero=0); null otherwise.
const NodeProto* PlainReshapeProducer(const GraphGraph& graph, std::string_view value);

// The product of `dims` (1 when empty); nullopt on overflow.
std::optional<std::int64_t> Product(const Ints& dims);

// dims[:-2] and dims[-2:] of a shape of rank >= 2: the batch and the matrix dimensions.
Ints BatchDims(const Ints& dims);
Ints MatrixDims(const Ints& dims);

}  // namespace onnxopt::onnx_patterns::matmul
