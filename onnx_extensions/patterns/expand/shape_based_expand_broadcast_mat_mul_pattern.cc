#include "onnx_extensions/patterns/expand/shape_based_expand_broadcast_mat_mul_pattern.h"

#include "onnx_core/optimizer/graph_graph.h"
#include "onnx_core/optimizer/match.h"
#include "onnx_extensions/patterns/expand/expand_matchers.h"

namespace onnxopt::onnx_patterns {

using core::builder::DerivedNodeName;
using core::builder::IsOp;
using core::builder::ProducerOf;
using core::shapes::SymDim;
using core::shapes::SymShape;

namespace {

std::vector<SymDim> BatchDims(const SymShape& shape) {
  return {shape.Dims().begin(), shape.Dims().end() - 2};
}

// The Expand keeps the last two (matrix) dimensions of its input.
bool KeepsMatrixDims(const SymShape& in, const SymShape& out) {
  return out.Rank() >= 2 && in[in.Rank() - 1] == out[out.Rank() - 1] && in[in.Rank() - 2] == out[out.Rank() - 2];
}

}  // namespace

MatchResult ShapeBasedExpandBroadcastMatMulPattern::Match(GraphGraph& graph, const NodeProto& node) const {
  if (!IsOp(node, "MatMul") || node.input_size() != 2)
    return NoMatch(node, "the node is not a default-domain MatMul with two inputs");
  std::string_view why;
  const std::optional<expand::ExpandedOperands> operands = expand::FindExpandedOperands(graph, node, &why);
  if (!operands) return NoMatch(node, why);
  const NodeProto* left = operands->left;
  const NodeProto* right = operands->right;
  const SymShape* z = operands->output;
  const SymShape* a = operands->inputs[0];
  const SymShape* b = operands->inputs[1];
  const SymShape* l = operands->sources[0];
  const SymShape* r = operands->sources[1];
  if (l->Rank() < 2 || r->Rank() < 2 || z->Rank() < 2) return NoMatch(node, "an operand or the output has rank below 2");
  if ((left && !KeepsMatrixDims(*l, *a)) || (right && !KeepsMatrixDims(*r, *b)))
    return NoMatch(node, "an Expand changes a matrix dimension");
  if (!expand::BroadcastGivesShape(BatchDims(*l), BatchDims(*r), BatchDims(*z)))
    return NoMatch(node, "broadcasting without the Expand does not give the batch dimensions");
  return Matched({&node});
}

utils::RepeatedProtoField<NodeProto> ShapeBasedExpandBroadcastMatMulPattern::Apply(
    GraphGraph& graph, const std::vector<const NodeProto*>& nodes) const {
  core::builder::ExpectMatchedNodes(*this, nodes, {"MatMul"});
  const NodeProto& matmul = *nodes[0];
  utils::RepeatedProtoField<NodeProto> replacement;
  NodeProto& node = *replacement.Add() = matmul;
  node.set_name(DerivedNodeName(graph, kName, matmul));
  for (int i = 0; i < 2; ++i)
    if (const NodeProto* expand = ProducerOf(graph, matmul.input(i), "Expand")) node.set_input(i, expand->input(0));
  return replacement;
}

}  // namespace onnxopt::onnx_patterns
