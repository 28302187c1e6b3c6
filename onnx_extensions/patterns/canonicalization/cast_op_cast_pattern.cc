#include "onnx_extensions/patterns/canonicalization/cast_op_cast_pattern.h"

#include <array>

#include "onnx_core/optimizer/graph_graph.h"
#include "onnx_core/optimizer/match.h"
#include "onnx_extensions/patterns/canonicalization/canonicalization_matchers.h"

namespace onnxopt::onnx_patterns {

namespace {

using canonicalization::IsFloatType;
using core::builder::IsOp;

// A supported operator with its number of inputs.
bool IsSupportedOp(const NodeProto& node) {
  if (node.input_size() == 2) return IsOp(node, "Add") || IsOp(node, "Sub") || IsOp(node, "Mul") || IsOp(node, "Div");
  if (node.input_size() != 1) return false;
  if (node.op_type() == "MulSigmoid") return node.domain() == CastOpCastPattern::kMulSigmoidDomain;
  return IsOp(node, "Neg") || IsOp(node, "Sigmoid") || IsOp(node, "Softmax");
}

NodeProto& AddCast(utils::RepeatedProtoField<NodeProto>& replacement, GraphGraph& graph, const NodeProto& from,
                   const std::string& input, const std::string& output) {
  NodeProto& cast = canonicalization::AddDerivedNode(replacement, graph, CastOpCastPattern::kName, from, "Cast");
  cast.add_input(input);
  cast.add_output(output);
  return cast;
}

}  // namespace

MatchResult CastOpCastPattern::Match(GraphGraph& graph, const NodeProto& op) const {
  if (!IsSupportedOp(op) || op.output_size() != 1)
    return NoMatch(op, "the node is not a supported operator with its number of inputs");
  const std::vector<const NodeProto*>& readers = graph.NextNodes(op.output(0));
  if (readers.size() != 1 || !IsOp(*readers[0], "Cast")) return NoMatch(op, "the output is not read by a single Cast");
  const NodeProto& cast_out = *readers[0];
  const std::optional<std::int64_t> to = core::builder::IntAttr(cast_out, "to");
  if (!to || cast_out.input_size() != 1) return NoMatch(op, "the output Cast has no integer 'to' attribute");
  if (op.input_size() == 2 && op.input(0) == op.input(1)) return NoMatch(op, "both inputs are the same value");
  std::array<const NodeProto*, 2> casts{nullptr, nullptr};
  for (int i = 0; i < op.input_size(); ++i) casts[i] = core::builder::ProducerOf(graph, op.input(i), "Cast");
  if (!casts[0] && !casts[1]) return NoMatch(op, "no input is produced by a Cast");
  for (int i = 0; i < op.input_size(); ++i)
    if (casts[i] && !core::builder::HasOneUse(graph, op.input(i)))
      return NoMatch(op, "a Cast output has another reader");
  if (!IsFloatType(graph.GetType(op.output(0)))) return NoMatch(op, "the computation type is not a float type");
  if (!IsFloatType(static_cast<int>(*to))) return NoMatch(op, "the output Cast does not convert to a float type");
  for (const NodeProto* cast : casts)
    if (cast && (cast->input_size() != 1 || graph.GetType(cast->input(0)) != *to))
      return NoMatch(op, "a bypassed Cast's input is not of the output type");
  return Matched({casts[0], casts[1], &op, &cast_out}, &op);
}

utils::RepeatedProtoField<NodeProto> CastOpCastPattern::Apply(GraphGraph& graph,
                                                              const std::vector<const NodeProto*>& nodes) const {
  core::builder::ExpectMatchedNodes(*this, nodes, {"", "", "", "Cast"});
  const NodeProto& op = *nodes[2];
  const NodeProto& cast_out = *nodes[3];
  utils::RepeatedProtoField<NodeProto> replacement;
  std::vector<std::string> inputs;
  for (int i = 0; i < op.input_size(); ++i) {
    if (nodes[i]) {
      inputs.push_back(nodes[i]->input(0));
      continue;
    }
    inputs.push_back(graph.Builder().UniqueName(kName));
    *AddCast(replacement, graph, op, op.input(i), inputs.back()).mutable_attribute() = cast_out.attribute();
  }
  NodeProto& computed = canonicalization::AddDerivedNode(replacement, graph, kName, op, op.op_type());
  computed.set_domain(op.domain());
  for (const std::string& input : inputs) computed.add_input(input);
  computed.add_output(cast_out.output(0));
  *computed.mutable_attribute() = op.attribute();
  computed.set_doc_string(op.doc_string());
  if (!core::builder::HasOneUse(graph, op.output(0))) {
    NodeProto& back = AddCast(replacement, graph, op, cast_out.output(0), op.output(0));
    core::builder::AddIntAttribute(back, "to", graph.GetType(op.output(0)));
  }
  return replacement;
}

}  // namespace onnxopt::onnx_patterns
