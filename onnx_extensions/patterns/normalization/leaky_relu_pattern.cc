#include "onnx_extensions/patterns/normalization/leaky_relu_pattern.h"

#include <cmath>

#include "onnx_core/optimizer/graph_graph.h"
#include "onnx_core/optimizer/match.h"
#include "onnx_extensions/patterns/normalization/normalization_matchers.h"

namespace onnxopt::onnx_patterns {

using core::builder::ConstantScalar;
using core::builder::HasOneUse;
using core::builder::IsOp;
using core::builder::ProducerOf;
using normalization::ConstantKeepsShape;

std::set<std::string> LeakyReluPattern::FastOpType() const { return {"Where"}; }

MatchResult LeakyReluPattern::Match(GraphGraph& graph, const NodeProto& where) const {
  if (!IsOp(where, "Where") || where.input_size() != 3) return NoMatch(where, "the node is not a default-domain Where");
  if (!normalization::OpsetAtLeast(graph, 6)) return NoMatch(where, "the main opset is below 6");
  const NodeProto* greater = ProducerOf(graph, where.input(0), "Greater");
  if (!greater) return NoMatch(where, "the condition is not produced by a Greater");
  const NodeProto* mul = ProducerOf(graph, where.input(2), "Mul");
  if (!mul) return NoMatch(where, "the false branch is not produced by a Mul");
  const std::string& x = greater->input(0);
  if (where.input(1) != x) return NoMatch(where, "the true branch is not the first input of the Greater");
  if (mul->input(0) != x) return NoMatch(where, "the Mul does not multiply the first input of the Greater");
  if (!HasOneUse(graph, where.input(0)) || !HasOneUse(graph, where.input(2)))
    return NoMatch(where, "the output of the Greater or of the Mul has other readers");
  // LeakyRelu takes every float type, but onnxruntime's CPU provider runs it on float and
  // float16 only: on double the optimized model would not load where the chain runs.
  if (const int type = graph.GetType(x); type != TensorProto::FLOAT && type != TensorProto::FLOAT16)
    return NoMatch(where, "the input is not float or float16 (onnxruntime has no LeakyRelu kernel for other types)");
  if (ConstantScalar(graph, greater->input(1)) != 0.0)
    return NoMatch(where, "the Greater does not compare with a constant scalar 0");
  const std::optional<double> slope = ConstantScalar(graph, mul->input(1));
  if (!slope) return NoMatch(where, "the Mul does not multiply by a constant scalar");
  // LeakyRelu's alpha is a float attribute: x * alpha must be the product the Mul computed.
  if (!std::isfinite(*slope) || static_cast<double>(static_cast<float>(*slope)) != *slope)
    return NoMatch(where, "the slope is not a finite value a float attribute holds exactly");
  if (!ConstantKeepsShape(graph, x, greater->input(1)) || !ConstantKeepsShape(graph, x, mul->input(1)))
    return NoMatch(where, "a constant has a higher rank than the input");
  return Matched({greater, mul, &where}, &where);
}

utils::RepeatedProtoField<NodeProto> LeakyReluPattern::Apply(GraphGraph& graph,
                                                             const std::vector<const NodeProto*>& nodes) const {
  core::builder::ExpectMatchedNodes(*this, nodes, {"Greater", "Mul", "Where"});
  const NodeProto& mul = *nodes[1];
  const NodeProto& where = *nodes[2];
  utils::RepeatedProtoField<NodeProto> out;
  NodeProto& leaky = normalization::AddNode(out, graph, kName, where, "LeakyRelu", {mul.input(0)}, where.output(0));
  normalization::AddFloatAttribute(leaky, "alpha", static_cast<float>(*ConstantScalar(graph, mul.input(1))));
  return out;
}

}  // namespace onnxopt::onnx_patterns
