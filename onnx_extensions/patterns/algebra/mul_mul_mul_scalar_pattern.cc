#include "onnx_extensions/patterns/algebra/mul_mul_mul_scalar_pattern.h"

#include <cmath>
#include <limits>

#include "onnx_core/eval/value_comparison.h"
#include "onnx_core/optimizer/graph_graph.h"
#include "onnx_core/optimizer/match.h"
#include "onnx_extensions/patterns/algebra/algebra_matchers.h"

namespace onnxopt::onnx_patterns {

using core::builder::ConstantScalar;
using core::builder::DerivedNodeName;
using core::builder::HasOneUse;
using core::builder::IsConstantScalarShaped;
using core::builder::IsNormalIn;
using core::builder::IsOp;
using core::builder::RegroupedProductMayOverflow;

namespace {

// A default-domain Mul or Div with two inputs and one output.
bool IsMulOrDiv(const NodeProto& node) {
  return (IsOp(node, "Mul") || IsOp(node, "Div")) && node.input_size() == 2 && node.output_size() == 1;
}

// How the constants combine: Z = outer(Op(X, Y), f) with f = inner(first, second).
struct Factor {
  std::string_view outer;  // "Mul", or "Div" when both constants divide
  std::string_view inner;  // "Mul" (a*b) or "Div" (first/second)
  bool b_first;            // f = b/a instead of a/b
};

// Z = Op(Opl(X, a), Opr(Y, b)) = Op(X, Y) * a^sa * b^sb with sa = +1 under a Mul and -1
// under a Div, and sb flipped once more when Op divides by R. Each case needs one
// operation on the constants, never a reciprocal rounded on its own.
Factor CombinedFactor(const NodeProto& node, const NodeProto& left, const NodeProto& right) {
  const bool a_divides = left.op_type() == "Div";
  const bool b_divides = (right.op_type() == "Div") != (node.op_type() == "Div");
  if (a_divides == b_divides) return {a_divides ? "Div" : "Mul", "Mul", false};
  return {"Mul", "Div", a_divides};
}

// The factor's value as the kernels compute it (one rounding in the element type).
double FactorValue(const Factor& factor, double a, double b) {
  if (factor.inner == "Mul") return a * b;
  return factor.b_first ? b / a : a / b;
}

}  // namespace

MatchResult MulMulMulScalarPattern::Match(GraphGraph& graph, const NodeProto& node) const {
  if (!IsMulOrDiv(node)) return NoMatch(node, "the node is not a default-domain Mul or Div with two inputs");
  // Before opset 7, Mul and Div broadcast only with broadcast=1: the Mul by the folded
  // factor of shape (1,) would be invalid without it.
  if (!core::builder::BroadcastsMultidirectionally(graph)) return NoMatch(node, "the opset is older than 7");
  if (node.input(0) == node.input(1)) return NoMatch(node, "the node reads the same value twice");
  const NodeProto* left = graph.NodeBefore(node.input(0));
  const NodeProto* right = graph.NodeBefore(node.input(1));
  if (!left || !right || !IsMulOrDiv(*left) || !IsMulOrDiv(*right))
    return NoMatch(node, "an input is not produced by a default-domain Mul or Div");
  if (!HasOneUse(graph, node.input(0)) || !HasOneUse(graph, node.input(1)))
    return NoMatch(node, "the output of an inner Mul or Div has other readers");
  const std::string& a = left->input(1);
  const std::string& b = right->input(1);
  if (!IsConstantScalarShaped(graph, a) || !IsConstantScalarShaped(graph, b))
    return NoMatch(node, "the second input of an inner node is not a constant of shape () or (1,)");
  const int type = graph.GetComputedConstant(a)->data_type();
  if (graph.GetComputedConstant(b)->data_type() != type)
    return NoMatch(node, "the two constants have different element types");
  const bool floating = core::eval::IsFloatingPointType(type);
  if (!floating && (left->op_type() == "Div" || right->op_type() == "Div" || node.op_type() == "Div"))
    return NoMatch(node, "a division on integers does not commute with the products");
  if (floating) {
    const std::optional<double> va = ConstantScalar(graph, a), vb = ConstantScalar(graph, b);
    if (!va || !vb) return NoMatch(node, "a constant cannot be read as a number");
    if (!IsNormalIn(FactorValue(CombinedFactor(node, *left, *right), *va, *vb), type))
      return NoMatch(node, "the combined factor is not a normal number of the element type");
    // Op(X, Y) of the unscaled operands (a quotient as a product).
    if (RegroupedProductMayOverflow(graph, type, left->input(0), right->input(0)))
      return NoMatch(node, "Op(X, Y) of unscaled float16 operands can overflow where the original does not");
  }
  return Matched({left, right, &node}, &node);
}

utils::RepeatedProtoField<NodeProto> MulMulMulScalarPattern::Apply(GraphGraph& graph,
                                                                   const std::vector<const NodeProto*>& nodes) const {
  const core::builder::ExpectedNode mul_or_div{"default-domain Mul or Div", IsMulOrDiv};
  core::builder::ExpectMatchedNodes(*this, nodes, {mul_or_div, mul_or_div, mul_or_div});
  const NodeProto& left = *nodes[0];
  const NodeProto& right = *nodes[1];
  const NodeProto& node = *nodes[2];
  const Factor factor = CombinedFactor(node, left, right);
  utils::RepeatedProtoField<NodeProto> replacement;
  NodeProto& product = *replacement.Add() = node;
  product.set_name(DerivedNodeName(graph, kName, node));
  product.set_input(0, left.input(0));
  product.set_input(1, right.input(0));
  product.set_output(0, graph.Builder().UniqueName(kName));
  // All-constant: the driver folds it into an initializer computed by the kernel.
  const NodeProto& constant =
      algebra::AddNode(replacement, graph, kName, node, factor.inner,
                       factor.b_first ? std::vector{right.input(1), left.input(1)}
                                      : std::vector{left.input(1), right.input(1)});
  NodeProto& scaled = algebra::AddNode(replacement, graph, kName, node, factor.outer,
                                       {product.output(0), constant.output(0)});
  scaled.set_output(0, node.output(0));
  return replacement;
}

}  // namespace onnxopt::onnx_patterns
