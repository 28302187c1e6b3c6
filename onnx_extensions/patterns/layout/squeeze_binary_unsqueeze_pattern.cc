#include "onnx_extensions/patterns/layout/squeeze_binary_unsqueeze_pattern.h"

#include "onnx_core/optimizer/graph_graph.h"
#include "onnx_core/optimizer/match.h"
#include "onnx_extensions/patterns/layout/layout_matchers.h"

namespace onnxopt::onnx_patterns {

using core::builder::HasOneUse;
using core::builder::IsOp;
using core::builder::RankOf;

namespace {

// A default-domain Add, Sub, Mul or Div with two inputs: q = Op(s, c) computes the same
// scalar whether s and c are shaped () or (1,).
bool IsScalarArithmetic(const NodeProto& node) {
  return (IsOp(node, "Add") || IsOp(node, "Sub") || IsOp(node, "Mul") || IsOp(node, "Div")) && node.input_size() == 2 &&
         node.output_size() == 1;
}

// Whether the Squeeze of a static (1,) removes axis 0: without axes input, or with axes
// [0] or [-1].
bool SqueezesAxisZero(GraphGraph& graph, const NodeProto& squeeze) {
  std::string_view why;
  const std::optional<layout::Ints> axes = layout::SqueezedAxes(graph, squeeze, &why);
  return axes && layout::NormalizeAxes(*axes, 1) == layout::Ints{0};
}

}  // namespace

MatchResult SqueezeBinaryUnsqueezePattern::Match(GraphGraph& graph, const NodeProto& node) const {
  if (!IsOp(node, "Unsqueeze") || node.input_size() != 2 || node.output_size() != 1)
    return NoMatch(node, "the node is not a default-domain Unsqueeze with an axes input");
  if (core::builder::OnnxOpset(graph) < 13) return NoMatch(node, "the opset is older than 13");
  // The output has rank 1: axis -1 is axis 0.
  const std::optional<std::int64_t> axis = core::builder::ConstantScalarInt(graph, node.input(1));
  if (!axis || core::builder::NormalizeAxis(*axis, 1) != 0)
    return NoMatch(node, "the axes of the Unsqueeze are not the constant scalar 0 or -1");
  const NodeProto* binary = graph.NodeBefore(node.input(0));
  if (!binary || !IsScalarArithmetic(*binary))
    return NoMatch(node, "the input is not produced by an Add, Sub, Mul or Div");
  if (!HasOneUse(graph, node.input(0))) return NoMatch(node, "the output of the binary node has other readers");
  if (!HasOneUse(graph, binary->input(0))) return NoMatch(node, "the first input of the binary node has other readers");
  if (RankOf(graph, binary->input(1)) != 0u)
    return NoMatch(node, "the second input of the binary node does not have the known rank 0");
  const NodeProto* squeeze = core::builder::ProducerOf(graph, binary->input(0), "Squeeze");
  if (!squeeze || squeeze->input_size() < 1)
    return NoMatch(node, "the first input of the binary node is not produced by a Squeeze");
  if (core::builder::StaticDims(graph, squeeze->input(0)) != layout::Ints{1})
    return NoMatch(node, "the input of the Squeeze is not of shape (1,)");
  if (!SqueezesAxisZero(graph, *squeeze)) return NoMatch(node, "the Squeeze does not remove axis 0 alone");
  return Matched({squeeze, binary, &node}, &node);
}

utils::RepeatedProtoField<NodeProto> SqueezeBinaryUnsqueezePattern::Apply(
    GraphGraph& graph, const std::vector<const NodeProto*>& nodes) const {
  using core::builder::ExpectedNode;
  core::builder::ExpectMatchedNodes(
      *this, nodes,
      {ExpectedNode{"Squeeze", [](const NodeProto& n) { return IsOp(n, "Squeeze"); }},
       ExpectedNode{"Add, Sub, Mul or Div", IsScalarArithmetic},
       ExpectedNode{"Unsqueeze", [](const NodeProto& n) { return IsOp(n, "Unsqueeze"); }}});
  const NodeProto& squeeze = *nodes[0];
  const NodeProto& binary = *nodes[1];
  const NodeProto& unsqueeze = *nodes[2];
  utils::RepeatedProtoField<NodeProto> replacement;
  const std::string operand = graph.Builder().UniqueName(kName);
  layout::AddNode(replacement, graph, kName, unsqueeze, "Unsqueeze", {binary.input(1), unsqueeze.input(1)}, operand);
  layout::AddNode(replacement, graph, kName, binary, binary.op_type(), {squeeze.input(0), operand},
                  unsqueeze.output(0));
  return replacement;
}

}  // namespace onnxopt::onnx_patterns
