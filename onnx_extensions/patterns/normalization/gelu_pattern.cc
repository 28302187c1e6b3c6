#include "onnx_extensions/patterns/normalization/gelu_pattern.h"

#include <cmath>
#include <numbers>

#include "onnx_core/optimizer/graph_graph.h"
#include "onnx_core/optimizer/match.h"
#include "onnx_extensions/patterns/normalization/normalization_matchers.h"

namespace onnxopt::onnx_patterns {

using core::builder::ConstantScalar;
using core::builder::HasOneUse;
using core::builder::IsOp;
using core::builder::OptionalInput;
using core::builder::ProducerOf;

namespace {

// The relative precision of a float type: one unit in the last place at 1.
double Precision(int elem_type) {
  switch (elem_type) {
    case TensorProto::FLOAT16: return 0x1p-10;
    case TensorProto::BFLOAT16: return 0x1p-7;
    case TensorProto::FLOAT: return 0x1p-23;
    default: return 1e-12;  // double: a literal written with a dozen digits
  }
}

// `value` is a constant scalar equal to `expected` as `elem_type` rounds it.
bool IsRoundingOf(GraphGraph& graph, std::string_view value, double expected, int elem_type) {
  const std::optional<double> found = ConstantScalar(graph, value);
  return found && std::fabs(*found - expected) <= Precision(elem_type) * std::fabs(expected);
}

// The node producing input `i` of `node` when it is a default-domain `op`.
const NodeProto* Operand(const GraphGraph& graph, const NodeProto& node, int i, std::string_view op) {
  return ProducerOf(graph, OptionalInput(node, i), op);
}

}  // namespace

std::set<std::string> GeluPattern::FastOpType() const { return {"Mul"}; }

MatchResult GeluPattern::Match(GraphGraph& graph, const NodeProto& y) const {
  if (!IsOp(y, "Mul") || y.input_size() != 2) return NoMatch(y, "the node is not a default-domain Mul");
  if (!normalization::OpsetAtLeast(graph, 20)) return NoMatch(y, "the main opset is below 20 (Gelu)");
  const NodeProto* xh = Operand(graph, y, 0, "Mul");
  if (!xh) return NoMatch(y, "the first input is not produced by a Mul");
  const NodeProto* t5 = Operand(graph, y, 1, "Add");
  if (!t5) return NoMatch(y, "the second input is not produced by an Add");
  const NodeProto* t4 = Operand(graph, *t5, 0, "Tanh");
  if (!t4) return NoMatch(y, "the first input of the Add is not produced by a Tanh");
  const NodeProto* t3 = Operand(graph, *t4, 0, "Mul");
  if (!t3) return NoMatch(y, "the input of the Tanh is not produced by a Mul");
  const NodeProto* t2 = Operand(graph, *t3, 0, "Add");
  if (!t2) return NoMatch(y, "the first input of the Mul before the Tanh is not produced by an Add");
  const NodeProto* t1 = Operand(graph, *t2, 1, "Mul");
  if (!t1) return NoMatch(y, "the second input of the inner Add is not produced by a Mul");
  const NodeProto* x3 = Operand(graph, *t1, 0, "Pow");
  if (!x3) return NoMatch(y, "the first input of the innermost Mul is not produced by a Pow");
  for (const NodeProto* inner : {x3, t1, t2, t3, t4, t5, xh})
    if (!HasOneUse(graph, inner->output(0))) return NoMatch(y, "an intermediate result has other readers");
  const std::string& x = xh->input(0);
  if (t2->input(0) != x || x3->input(0) != x) return NoMatch(y, "the three uses of x are not the same tensor");
  const int type = graph.GetType(x);
  if (!normalization::IsFloatType(type)) return NoMatch(y, "x is not of a known float type");
  if (ConstantScalar(graph, x3->input(1)) != 3.0) return NoMatch(y, "the exponent is not a constant scalar 3");
  if (ConstantScalar(graph, xh->input(1)) != 0.5) return NoMatch(y, "x is not multiplied by a constant scalar 0.5");
  if (ConstantScalar(graph, t5->input(1)) != 1.0) return NoMatch(y, "the Tanh is not added to a constant scalar 1");
  if (!IsRoundingOf(graph, t1->input(1), 0.044715, type))
    return NoMatch(y, "the cube is not multiplied by a constant scalar 0.044715");
  if (!IsRoundingOf(graph, t3->input(1), std::sqrt(2.0 / std::numbers::pi), type))
    return NoMatch(y, "the Tanh argument is not multiplied by a constant scalar sqrt(2/pi)");
  // ConstantScalar accepts shape (1,): Mul(x of shape (), c of shape (1,)) has shape (1,),
  // Gelu(x) has ().
  for (const NodeProto* node : {x3, t1, t3, t5, xh})
    if (!normalization::ConstantKeepsShape(graph, x, node->input(1)))
      return NoMatch(y, "a constant has a higher rank than x");
  return Matched({x3, t1, t2, t3, t4, t5, xh, &y}, &y);
}

utils::RepeatedProtoField<NodeProto> GeluPattern::Apply(GraphGraph& graph,
                                                        const std::vector<const NodeProto*>& nodes) const {
  core::builder::ExpectMatchedNodes(*this, nodes, {"Pow", "Mul", "Add", "Mul", "Tanh", "Add", "Mul", "Mul"});
  const NodeProto& xh = *nodes[6];
  const NodeProto& y = *nodes[7];
  utils::RepeatedProtoField<NodeProto> out;
  NodeProto& gelu = normalization::AddNode(out, graph, kName, y, "Gelu", {xh.input(0)}, y.output(0));
  normalization::AddStringAttribute(gelu, "approximate", "tanh");
  return out;
}

}  // namespace onnxopt::onnx_patterns
