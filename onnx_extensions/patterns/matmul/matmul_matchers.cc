#include "onnx_extensions/patterns/matmul/matmul_matchers.h"

#include <algorithm>

#include "onnx_core/optimizer/match.h"

namespace onnxopt::onnx_patterns::matmul {

using core::builder::FloatAttr;
using core::builder::IntAttr;
using core::builder::IntsAttr;
using core::builder::IsOp;

bool IsMatMul(const NodeProto& node) {
  return IsOp(node, "MatMul") && node.input_size() == 2 && node.output_size() == 1;
}

bool IsGemm(const NodeProto& node) {
  return IsOp(node, "Gemm") && (node.input_size() == 2 || node.input_size() == 3) && node.output_size() == 1;
}

bool HasGemmC(const NodeProto& gemm) { return gemm.input_size() == 3 && !gemm.input(2).empty(); }

bool GemmComputesLikeMatMul(const GraphGraph& graph, std::string_view value) {
  const int type = graph.GetType(value);
  return type == TensorProto::FLOAT || type == TensorProto::DOUBLE;
}

GemmAttributes GemmAttributesOf(const NodeProto& gemm) {
  return {IntAttr(gemm, "transA").value_or(0) != 0, IntAttr(gemm, "transB").value_or(0) != 0,
          FloatAttr(gemm, "alpha").value_or(1.0f), FloatAttr(gemm, "beta").value_or(1.0f)};
}

Ints LastTwoAxesSwapped(std::size_t rank) {
  Ints perm(rank);
  for (std::size_t i = 0; i < rank; ++i) perm[i] = static_cast<std::int64_t>(i);
  if (rank >= 2) std::swap(perm[rank - 1], perm[rank - 2]);
  return perm;
}

std::optional<Ints> TransposePermutation(const GraphGraph& graph, const NodeProto& transpose) {
  if (!IsOp(transpose, "Transpose") || transpose.input_size() != 1) return std::nullopt;
  if (std::optional<Ints> perm = IntsAttr(transpose, "perm")) return perm;
  const std::optional<std::size_t> rank = core::builder::RankOf(graph, transpose.input(0));
  if (!rank) return std::nullopt;
  Ints reversed(*rank);
  for (std::size_t i = 0; i < *rank; ++i) reversed[i] = static_cast<std::int64_t>(*rank - 1 - i);
  return reversed;
}

const NodeProto* PlainReshapeProducer(const GraphGraph& graph, std::string_view value) {
  const NodeProto* producer = graph.NodeBefore(value);
  return producer && IsPlainReshape(*producer) ? producer : nullptr;
}

std::optional<std::int64_t> Product(const Ints& dims) {
  std::int64_t product = 1;
  for (std::int64_t d : dims)
    if (__builtin_mul_overflow(product, d, &product)) return std::nullopt;
  return product;
}

Ints BatchDims(const Ints& dims) { return Ints(dims.begin(), dims.end() - 2); }
Ints MatrixDims(const Ints& dims) { return Ints(dims.end() - 2, dims.end()); }

}  // namespace onnxopt::onnx_patterns::matmul
