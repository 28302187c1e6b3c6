#include "onnx_extensions/patterns/matmul/gemm_transpose_pattern.h"

#include "onnx_core/optimizer/graph_graph.h"
#include "onnx_core/optimizer/match.h"
#include "onnx_core/passes/constant_folding.h"
#include "onnx_extensions/patterns/matmul/matmul_matchers.h"

namespace onnxopt::onnx_patterns {

using core::builder::AddNode;

MatchResult GemmTransposePattern::Match(GraphGraph& graph, const NodeProto& node) const {
  if (!matmul::IsGemm(node)) return NoMatch(node, "the node is not a default-domain Gemm");
  const matmul::GemmAttributes attributes = matmul::GemmAttributesOf(node);
  if (attributes.trans_b) return NoMatch(node, "the Gemm already has transB=1");
  if (attributes.trans_a) return NoMatch(node, "the Gemm has transA=1");
  if (attributes.beta != 1.0f) return NoMatch(node, "the Gemm has a beta other than 1");
  if (!graph.IsConstant(node.input(1))) return NoMatch(node, "the second input of the Gemm is not a constant");
  // Without folding, the rewrite would add a Transpose that runs at every inference.
  const TensorProto* weights = graph.GetComputedConstant(node.input(1));
  if (!weights || weights->ByteSizeLong() > graph.Folding().max_output_bytes)
    return NoMatch(node, "the second input of the Gemm is too large for its Transpose to be folded");
  // Gemm needs a matrix; an invalid model may give it another rank, which shape inference
  // only diagnoses: the Transpose {1, 0} would then be an invalid node.
  if (weights->dims_size() != 2) return NoMatch(node, "the second input of the Gemm is not a matrix");
  return Matched({&node});
}

utils::RepeatedProtoField<NodeProto> GemmTransposePattern::Apply(GraphGraph& graph,
                                                                 const std::vector<const NodeProto*>& nodes) const {
  core::builder::ExpectMatchedNodes(*this, nodes, {"Gemm"});
  const NodeProto& gemm = *nodes[0];
  utils::RepeatedProtoField<NodeProto> replacement;
  NodeProto& transpose = AddNode(replacement, graph, kName, gemm, "Transpose", {gemm.input(1)},
                                         graph.Builder().UniqueName(kName));
  core::builder::AddIntsAttribute(transpose, "perm", {1, 0});
  NodeProto& product = *replacement.Add() = gemm;
  product.set_name(core::builder::DerivedNodeName(graph, kName, gemm));
  product.set_input(1, transpose.output(0));
  core::builder::SetIntAttribute(product, "transB", 1);
  return replacement;
}

}  // namespace onnxopt::onnx_patterns
