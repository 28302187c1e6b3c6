#include "onnx_extensions/patterns/matmul/transpose_mat_mul_pattern.h"

#include <array>

#include "onnx_core/optimizer/graph_graph.h"
#include "onnx_core/optimizer/match.h"
#include "onnx_extensions/patterns/matmul/matmul_matchers.h"

namespace onnxopt::onnx_patterns {

using core::builder::HasOneUse;
using core::builder::ProducerOf;
using core::builder::RankOf;

namespace {

bool IsMatMulOrGemm(const NodeProto& node) { return matmul::IsMatMul(node) || matmul::IsGemm(node); }

// The Transposes producing the two inputs (null where an input has none).
std::array<const NodeProto*, 2> InputTransposes(const GraphGraph& graph, const NodeProto& node) {
  return {ProducerOf(graph, node.input(0), "Transpose"), ProducerOf(graph, node.input(1), "Transpose")};
}

}  // namespace

MatchResult TransposeMatMulPattern::Match(GraphGraph& graph, const NodeProto& node) const {
  if (!IsMatMulOrGemm(node)) return NoMatch(node, "the node is not a default-domain MatMul or Gemm");
  if (matmul::IsMatMul(node) && !matmul::GemmComputesLikeMatMul(graph, node.output(0)))
    return NoMatch(node, "the MatMul is not in float or double, where a runtime's Gemm computes like its MatMul");
  // A MatMul becomes a Gemm of two inputs: C is optional from opset 11 on.
  if (matmul::IsMatMul(node) && core::builder::OnnxOpset(graph) < 11)
    return NoMatch(node, "the opset is older than 11, where Gemm needs its input C");
  const std::optional<std::size_t> rank_a = RankOf(graph, node.input(0)), rank_b = RankOf(graph, node.input(1));
  if (!rank_a || !rank_b) return NoMatch(node, "the rank of an input is not known");
  if (*rank_a != 2 || *rank_b != 2) return NoMatch(node, "an input does not have rank 2");
  const std::array<const NodeProto*, 2> transposes = InputTransposes(graph, node);
  if (!transposes[0] && !transposes[1]) return NoMatch(node, "no input is produced by a Transpose");
  for (const NodeProto* transpose : transposes)
    if (transpose && matmul::TransposePermutation(graph, *transpose) != matmul::Ints{1, 0})
      return NoMatch(node, "a Transpose producing an input does not have perm [1, 0]");
  if (matmul::IsGemm(node)) {
    const matmul::GemmAttributes attributes = matmul::GemmAttributesOf(node);
    for (int i : {0, 1})
      if (transposes[i] && attributes.trans_a != attributes.trans_b && graph.IsConstant(node.input(i)))
        return NoMatch(node, "the Gemm reads a transposed constant with transA != transB (GemmTransposePattern)");
  }
  // A Transpose with other readers stays.
  const NodeProto* first = transposes[0] && HasOneUse(graph, node.input(0)) ? transposes[0] : nullptr;
  const NodeProto* second = transposes[1] && HasOneUse(graph, node.input(1)) ? transposes[1] : nullptr;
  return Matched({first, second, &node}, &node);
}

utils::RepeatedProtoField<NodeProto> TransposeMatMulPattern::Apply(GraphGraph& graph,
                                                                   const std::vector<const NodeProto*>& nodes) const {
  core::builder::ExpectMatchedNodes(*this, nodes, {"", "", ""});
  core::builder::ExpectMatchedNodes(*this, {nodes[2]}, {{"MatMul or Gemm", IsMatMulOrGemm}});
  const NodeProto& node = *nodes[2];
  const std::array<const NodeProto*, 2> transposes = InputTransposes(graph, node);
  const matmul::GemmAttributes attributes = matmul::GemmAttributesOf(node);
  utils::RepeatedProtoField<NodeProto> replacement;
  NodeProto& gemm = *replacement.Add() = node;
  gemm.set_op_type("Gemm");
  gemm.set_name(core::builder::DerivedNodeName(graph, kName, node));
  const std::array<std::pair<const char*, bool>, 2> flags = {std::pair{"transA", attributes.trans_a},
                                                             std::pair{"transB", attributes.trans_b}};
  for (int i : {0, 1}) {
    if (transposes[i]) gemm.set_input(i, transposes[i]->input(0));
    // A MatMul becomes a Gemm with both flags written; a Gemm changes the folded ones.
    if (transposes[i] || matmul::IsMatMul(node))
      core::builder::SetIntAttribute(gemm, flags[i].first, (flags[i].second != (transposes[i] != nullptr)) ? 1 : 0);
  }
  return replacement;
}

}  // namespace onnxopt::onnx_patterns
