#include "onnx_extensions/patterns/normalization/max_relu_pattern.h"

#include "onnx_core/optimizer/graph_graph.h"
#include "onnx_core/optimizer/match.h"
#include "onnx_extensions/patterns/normalization/normalization_matchers.h"

namespace onnxopt::onnx_patterns {

using core::builder::IsOp;

namespace {

// The input of Max(a, b) that is not the constant scalar 0, when exactly one is.
int NonZeroInput(GraphGraph& graph, const NodeProto& max) {
  const bool zero0 = graph.IsConstantScalar(max.input(0), 0.0);
  const bool zero1 = graph.IsConstantScalar(max.input(1), 0.0);
  if (zero0 == zero1) return -1;
  return zero0 ? 1 : 0;
}

}  // namespace

std::set<std::string> MaxReluPattern::FastOpType() const { return {"Max"}; }

MatchResult MaxReluPattern::Match(GraphGraph& graph, const NodeProto& max) const {
  if (!IsOp(max, "Max")) return NoMatch(max, "the node is not a default-domain Max");
  if (max.input_size() != 2) return NoMatch(max, "the Max does not have exactly two inputs");
  const int type = graph.GetType(max.input(0));
  const bool integer = type == TensorProto::INT16 || type == TensorProto::INT32;
  if (type != TensorProto::FLOAT && type != TensorProto::FLOAT16 && !integer)
    return NoMatch(max, "the element type is not float, float16, int16 or int32");
  if (integer && !normalization::OpsetAtLeast(graph, 14))
    return NoMatch(max, "Relu takes int16 and int32 only from opset 14");
  if (graph.IsConstantScalar(max.input(0), 0.0) && graph.IsConstantScalar(max.input(1), 0.0))
    return NoMatch(max, "both inputs are the constant 0");
  const int x = NonZeroInput(graph, max);
  if (x < 0) return NoMatch(max, "no input is a constant scalar 0");
  if (!normalization::ConstantKeepsShape(graph, max.input(x), max.input(1 - x)))
    return NoMatch(max, "the input may have a lower rank than the constant 0");
  return Matched({&max});
}

utils::RepeatedProtoField<NodeProto> MaxReluPattern::Apply(GraphGraph& graph,
                                                           const std::vector<const NodeProto*>& nodes) const {
  core::builder::ExpectMatchedNodes(*this, nodes, {"Max"});
  const NodeProto& max = *nodes[0];
  utils::RepeatedProtoField<NodeProto> out;
  normalization::AddNode(out, graph, kName, max, "Relu", {max.input(NonZeroInput(graph, max))}, max.output(0));
  return out;
}

}  // namespace onnxopt::onnx_patterns
