#include "onnx_extensions/patterns/matmul/mat_mul_add_pattern.h"

#include "onnx_core/optimizer/graph_graph.h"
#include "onnx_core/optimizer/match.h"
#include "onnx_extensions/patterns/matmul/matmul_matchers.h"

namespace onnxopt::onnx_patterns {

using core::builder::AddNode;
using core::builder::IsOp;
using core::builder::KnownShape;
using core::builder::RankOf;
using core::shapes::SymShape;

namespace {

// The Add operand that is not the product.
const std::string& Bias(const NodeProto& add, const std::string& product) {
  return add.input(0) == product ? add.input(1) : add.input(0);
}

}  // namespace

MatchResult MatMulAddPattern::Match(GraphGraph& graph, const NodeProto& node) const {
  const bool gemm = matmul::IsGemm(node);
  if (!gemm && !matmul::IsMatMul(node)) return NoMatch(node, "the node is not a default-domain MatMul or Gemm");
  // Before opset 7 Add and Gemm broadcast only with their `broadcast` attribute, Add along
  // its `axis` (axis 0 adds the bias to rows, where Gemm's C goes to columns).
  if (!core::builder::BroadcastsMultidirectionally(graph)) return NoMatch(node, "the opset is older than 7");
  if (gemm && matmul::GemmAttributesOf(node).beta != 1.0f) return NoMatch(node, "the Gemm has a beta other than 1");
  if (!gemm && !matmul::GemmComputesLikeMatMul(graph, node.output(0)))
    return NoMatch(node, "the MatMul is not in float or double, where a runtime's Gemm computes like its MatMul");
  const std::optional<std::size_t> rank_a = RankOf(graph, node.input(0)), rank_b = RankOf(graph, node.input(1));
  if (!rank_a || !rank_b) return NoMatch(node, "the rank of an input is not known");
  if (*rank_a != 2 || *rank_b != 2) return NoMatch(node, "an input does not have rank 2");
  const std::string& product = node.output(0);
  if (graph.IsOutput(product)) return NoMatch(node, "the output of the product is a graph output");
  const std::vector<const NodeProto*>& readers = graph.NextNodes(product);
  if (readers.size() != 1 || graph.IsUsedBySubgraph(product))
    return NoMatch(node, "the output of the product does not have exactly one reader");
  const NodeProto& add = *readers[0];
  if (!IsOp(add, "Add") || add.input_size() != 2) return NoMatch(node, "the product is not read by an Add");
  if (add.input(0) == add.input(1)) return NoMatch(node, "the Add adds the product to itself");
  const std::string& bias = Bias(add, product);
  const SymShape* shape_b = KnownShape(graph, node.input(1));
  const SymShape* shape_bias = KnownShape(graph, bias);
  if (!shape_b || !shape_bias) return NoMatch(node, "the shape of the second input or of the bias is not known");
  if (shape_bias->Rank() == 0) return NoMatch(node, "the bias is a scalar");
  if (shape_bias->Rank() > 1) return NoMatch(node, "the bias has more than one dimension");
  const bool trans_b = gemm && matmul::GemmAttributesOf(node).trans_b;
  if (!((*shape_bias)[shape_bias->Rank() - 1] == (*shape_b)[trans_b ? 0 : 1]))
    return NoMatch(node, "the last dimension of the bias is not the column count of the product");
  if (gemm && matmul::HasGemmC(node)) {
    const SymShape* shape_c = KnownShape(graph, node.input(2));
    if (!shape_c || !(*shape_c == *shape_bias))
      return NoMatch(node, "the Gemm has an input C whose shape is not known to equal the bias's");
  }
  // At the Add: the bias may be computed after the product.
  return Matched({&node, &add}, &add);
}

utils::RepeatedProtoField<NodeProto> MatMulAddPattern::Apply(GraphGraph& graph,
                                                             const std::vector<const NodeProto*>& nodes) const {
  core::builder::ExpectMatchedNodes(*this, nodes, {{"MatMul or Gemm", [](const NodeProto& node) {
                                                      return matmul::IsMatMul(node) || matmul::IsGemm(node);
                                                    }},
                                                   {"Add", [](const NodeProto& node) { return IsOp(node, "Add"); }}});
  const NodeProto& product = *nodes[0];
  const NodeProto& add = *nodes[1];
  std::string bias = Bias(add, product.output(0));
  utils::RepeatedProtoField<NodeProto> replacement;
  if (matmul::IsGemm(product) && matmul::HasGemmC(product)) {
    NodeProto& sum = AddNode(replacement, graph, kName, add, "Add", {bias, product.input(2)},
                                     graph.Builder().UniqueName(kName));
    bias = sum.output(0);
  }
  NodeProto& gemm = *replacement.Add();
  gemm.set_op_type("Gemm");
  gemm.set_name(core::builder::DerivedNodeName(graph, kName, product));
  gemm.add_input(product.input(0));
  gemm.add_input(product.input(1));
  gemm.add_input(bias);
  gemm.add_output(add.output(0));
  if (matmul::IsGemm(product)) *gemm.mutable_attribute() = product.attribute();
  return replacement;
}

}  // namespace onnxopt::onnx_patterns
