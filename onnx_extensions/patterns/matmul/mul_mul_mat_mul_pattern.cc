#include "onnx_extensions/patterns/matmul/mul_mul_mat_mul_pattern.h"

#include <cmath>
#include <limits>

#include "onnx_core/eval/value_comparison.h"
#include "onnx_core/optimizer/graph_graph.h"
#include "onnx_core/optimizer/match.h"
#include "onnx_extensions/patterns/matmul/matmul_matchers.h"

namespace onnxopt::onnx_patterns {

using core::builder::AddNode;
using core::builder::ConstantScalar;
using core::builder::HasOneUse;
using core::builder::IsConstantScalarShaped;
using core::builder::IsNormalIn;
using core::builder::IsOp;
using core::builder::RegroupedProductMayOverflow;

namespace {

bool IsMul(const NodeProto& node) { return IsOp(node, "Mul") && node.input_size() == 2 && node.output_size() == 1; }

// The index (0 or 1) of the constant operand of `mul`, when exactly one is constant.
std::optional<int> ConstantOperand(const GraphGraph& graph, const NodeProto& mul) {
  const bool first = graph.IsConstant(mul.input(0)), second = graph.IsConstant(mul.input(1));
  if (first == second) return std::nullopt;
  return first ? 0 : 1;
}

}  // namespace

MatchResult MulMulMatMulPattern::Match(GraphGraph& graph, const NodeProto& node) const {
  if (!matmul::IsMatMul(node)) return NoMatch(node, "the node is not a default-domain MatMul");
  // Before opset 7 a Mul broadcasts only with its `broadcast` attribute.
  if (!core::builder::BroadcastsMultidirectionally(graph)) return NoMatch(node, "the opset is older than 7");
  if (node.input(0) == node.input(1)) return NoMatch(node, "both inputs are the same value");
  const NodeProto* left = graph.NodeBefore(node.input(0));
  const NodeProto* right = graph.NodeBefore(node.input(1));
  if (!left || !right || !IsMul(*left) || !IsMul(*right))
    return NoMatch(node, "an input of the MatMul is not produced by a Mul");
  if (!HasOneUse(graph, node.input(0)) || !HasOneUse(graph, node.input(1)))
    return NoMatch(node, "the output of a Mul has other readers");
  const std::optional<int> i = ConstantOperand(graph, *left), j = ConstantOperand(graph, *right);
  if (!i || !j) return NoMatch(node, "a Mul does not have exactly one constant operand");
  const std::string& c = left->input(*i);
  const std::string& d = right->input(*j);
  if (!IsConstantScalarShaped(graph, c) || !IsConstantScalarShaped(graph, d))
    return NoMatch(node, "the constant of a Mul is not of shape () or (1,)");
  if (graph.GetComputedConstant(c)->dims_size() + graph.GetComputedConstant(d)->dims_size() > 0) {
    const std::optional<std::size_t> rank = core::builder::RankOf(graph, node.output(0));
    if (!rank || *rank == 0) return NoMatch(node, "a constant has shape (1,) and the MatMul output may be a scalar");
  }
  const int type = graph.GetComputedConstant(c)->data_type();
  if (RegroupedProductMayOverflow(graph, type, left->input(1 - *i), right->input(1 - *j)))
    return NoMatch(node, "the element type is float16, where the unscaled product can overflow");
  if (core::eval::IsFloatingPointType(type)) {
    const std::optional<double> vc = ConstantScalar(graph, c), vd = ConstantScalar(graph, d);
    if (!vc || !vd) return NoMatch(node, "a constant cannot be read as a number");
    if (!IsNormalIn(*vc * *vd, type)) return NoMatch(node, "the combined factor is not a normal number of the element type");
  }
  return Matched({left, right, &node}, &node);
}

utils::RepeatedProtoField<NodeProto> MulMulMatMulPattern::Apply(GraphGraph& graph,
                                                                const std::vector<const NodeProto*>& nodes) const {
  core::builder::ExpectMatchedNodes(*this, nodes, {"Mul", "Mul", "MatMul"});
  const NodeProto& left = *nodes[0];
  const NodeProto& right = *nodes[1];
  const NodeProto& node = *nodes[2];
  const int i = *ConstantOperand(graph, left), j = *ConstantOperand(graph, right);
  utils::RepeatedProtoField<NodeProto> replacement;
  NodeProto& product = *replacement.Add() = node;
  product.set_name(core::builder::DerivedNodeName(graph, kName, node));
  product.set_input(0, left.input(1 - i));
  product.set_input(1, right.input(1 - j));
  product.set_output(0, graph.Builder().UniqueName(kName));
  // All-constant: the driver folds it into an initializer of the constants' type.
  const NodeProto& factor = AddNode(replacement, graph, kName, node, "Mul", {left.input(i), right.input(j)},
                                            graph.Builder().UniqueName(kName));
  AddNode(replacement, graph, kName, node, "Mul", {product.output(0), factor.output(0)}, node.output(0));
  return replacement;
}

}  // namespace onnxopt::onnx_patterns
