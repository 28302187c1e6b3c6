#include "onnx_extensions/patterns/matmul/shape_based_mat_mul_to_mul_pattern.h"

#include <cstdint>
#include <optional>
#include <tuple>

#include "onnx_core/optimizer/graph_graph.h"
#include "onnx_core/optimizer/match.h"
#include "onnx_extensions/patterns/matmul/matmul_matchers.h"

namespace onnxopt::onnx_patterns {

using core::builder::AddNode;
using core::builder::IntTensor;
using core::builder::RankOf;
using core::builder::StaticDim;

namespace {

// The Transpose reading p alone that swaps the last two axes; null when there is none.
const NodeProto* SwappingTranspose(const GraphGraph& graph, const NodeProto& product) {
  const NodeProto* transpose = core::builder::SoleConsumer(graph, product.output(0), "Transpose");
  const std::optional<std::size_t> rank = RankOf(graph, product.output(0));
  if (!transpose || !rank) return nullptr;
  const std::optional<matmul::Ints> perm = matmul::TransposePermutation(graph, *transpose);
  return perm && *perm == matmul::LastTwoAxesSwapped(*rank) ? transpose : nullptr;
}

// The Reshape entry of the dim of `value` at `axis` (m of X, n of Y) once it moves past the
// 1: -1 when it can be inferred from the others (the copied batch and the 1, the operand's
// own other dims: an empty batch leaves it undetermined and the Reshape fails), else its
// static value when positive, else nullopt.
std::optional<std::int64_t> MovedDim(const GraphGraph& graph, const std::string& value, std::int64_t axis) {
  const std::size_t rank = *RankOf(graph, value);
  const core::shapes::SymTensor* tensor = graph.FindShape(value);
  if (tensor && core::builder::MinusOneInferableAt(tensor->shape, static_cast<std::size_t>(
                                                                      static_cast<std::int64_t>(rank) + axis)))
    return -1;
  const std::optional<std::int64_t> dim = StaticDim(graph, value, axis);
  if (dim && *dim > 0) return *dim;
  return std::nullopt;
}

// [0, ..., 0, last2, last1] for a tensor of rank `rank`.
matmul::Ints CopyBatch(std::size_t rank, std::int64_t last2, std::int64_t last1) {
  matmul::Ints shape(rank - 2, 0);
  shape.push_back(last2);
  shape.push_back(last1);
  return shape;
}

}  // namespace

MatchResult ShapeBasedMatMulToMulPattern::Match(GraphGraph& graph, const NodeProto& node) const {
  if (!matmul::IsMatMul(node)) return NoMatch(node, "the node is not a default-domain MatMul");
  // Before opset 7 a Mul broadcasts only with its `broadcast` attribute, and one way.
  if (!core::builder::BroadcastsMultidirectionally(graph)) return NoMatch(node, "the opset is older than 7");
  const std::optional<std::size_t> rank_x = RankOf(graph, node.input(0)), rank_y = RankOf(graph, node.input(1));
  if (!rank_x || !rank_y) return NoMatch(node, "the rank of an input is not known");
  if (*rank_x < 2 || *rank_y < 2) return NoMatch(node, "an input has rank lower than 2");
  if (StaticDim(graph, node.input(0), -1) != 1) return NoMatch(node, "the last dimension of the first input is not 1");
  if (StaticDim(graph, node.input(1), -2) != 1)
    return NoMatch(node, "the second-to-last dimension of the second input is not 1");
  const NodeProto* transpose = SwappingTranspose(graph, node);
  if (transpose && MovedDim(graph, node.input(0), -2) && MovedDim(graph, node.input(1), -1))
    return Matched({&node, transpose}, transpose);
  return Matched({&node, nullptr});
}

utils::RepeatedProtoField<NodeProto> ShapeBasedMatMulToMulPattern::Apply(
    GraphGraph& graph, const std::vector<const NodeProto*>& nodes) const {
  core::builder::ExpectMatchedNodes(*this, nodes, {"MatMul", ""});
  const NodeProto& node = *nodes[0];
  const NodeProto* transpose = nodes[1];
  utils::RepeatedProtoField<NodeProto> replacement;
  if (!transpose) {
    AddNode(replacement, graph, kName, node, "Mul", {node.input(0), node.input(1)}, node.output(0));
    return replacement;
  }
  std::vector<std::string> operands;
  const std::int64_t m = *MovedDim(graph, node.input(0), -2), n = *MovedDim(graph, node.input(1), -1);
  for (auto [i, last2, last1] : {std::tuple{0, std::int64_t{1}, m}, std::tuple{1, n, std::int64_t{1}}}) {
    const std::string shape =
        graph.MakeInitializer(kName, IntTensor(CopyBatch(*RankOf(graph, node.input(i)), last2, last1)));
    operands.push_back(graph.Builder().UniqueName(kName));
    AddNode(replacement, graph, kName, node, "Reshape", {node.input(i), shape}, operands.back());
  }
  AddNode(replacement, graph, kName, *transpose, "Mul", operands, transpose->output(0));
  return replacement;
}

}  // namespace onnxopt::onnx_patterns
