#include "onnx_extensions/patterns/canonicalization/cast_cast_binary_pattern.h"

#include "onnx_core/optimizer/graph_graph.h"
#include "onnx_core/optimizer/match.h"
#include "onnx_extensions/patterns/canonicalization/canonicalization_matchers.h"

namespace onnxopt::onnx_patterns {

namespace {

using canonicalization::IsFloatType;

bool IsArithmetic(const NodeProto& node) {
  using core::builder::IsOp;
  return IsOp(node, "Add") || IsOp(node, "Sub") || IsOp(node, "Mul") || IsOp(node, "Div");
}

int FloatBytes(int elem_type) {
  switch (elem_type) {
    case TensorProto::DOUBLE: return 8;
    case TensorProto::FLOAT: return 4;
    default: return 2;  // FLOAT16, BFLOAT16
  }
}

// Both float types. Computing in `source` and rounding to `target` once loses nothing against rounding the
// operands to `target` first: same type, or strictly wider (float16/bfloat16 have the same
// size but neither holds the other).
bool IsAtLeastAsPrecise(int source, int target) {
  return source == target || FloatBytes(source) > FloatBytes(target);
}

}  // namespace

MatchResult CastCastBinaryPattern::Match(GraphGraph& graph, const NodeProto& op) const {
  if (!IsArithmetic(op) || op.input_size() != 2 || op.output_size() != 1)
    return NoMatch(op, "the node is not a default-domain Add, Sub, Mul or Div with two inputs");
  if (op.input(0) == op.input(1)) return NoMatch(op, "both operands are the same value");
  const NodeProto* left = core::builder::ProducerOf(graph, op.input(0), "Cast");
  const NodeProto* right = core::builder::ProducerOf(graph, op.input(1), "Cast");
  if (!left || !right) return NoMatch(op, "an operand is not produced by a Cast");
  if (left->input_size() != 1 || right->input_size() != 1) return NoMatch(op, "a Cast does not have one input");
  if (!core::builder::HasOneUse(graph, op.input(0)) || !core::builder::HasOneUse(graph, op.input(1)))
    return NoMatch(op, "a Cast output has another reader");
  const int target = graph.GetType(op.input(0));
  if (!IsFloatType(target) || graph.GetType(op.input(1)) != target)
    return NoMatch(op, "the operands are not of one float type");
  const int source = graph.GetType(left->input(0));
  if (source == 0 || graph.GetType(right->input(0)) == 0)
    return NoMatch(op, "the element type of a Cast input is unknown");
  if (graph.GetType(right->input(0)) != source) return NoMatch(op, "the Cast inputs have different element types");
  if (!IsFloatType(source)) return NoMatch(op, "the Cast inputs are not of a float type");
  if (!IsAtLeastAsPrecise(source, target)) return NoMatch(op, "the casts widen the operands");
  return Matched({left, right, &op}, &op);
}

utils::RepeatedProtoField<NodeProto> CastCastBinaryPattern::Apply(GraphGraph& graph,
                                                                  const std::vector<const NodeProto*>& nodes) const {
  core::builder::ExpectMatchedNodes(*this, nodes, {"Cast", "Cast", ""});
  const NodeProto& left = *nodes[0];
  const NodeProto& op = *nodes[2];
  utils::RepeatedProtoField<NodeProto> replacement;
  NodeProto& computed = canonicalization::AddDerivedNode(replacement, graph, kName, op, op.op_type());
  computed.set_domain(op.domain());
  computed.add_input(left.input(0));
  computed.add_input(nodes[1]->input(0));
  const std::string result = graph.Builder().UniqueName(kName);
  computed.add_output(result);
  *computed.mutable_attribute() = op.attribute();
  NodeProto& cast = canonicalization::AddDerivedNode(replacement, graph, kName, left, "Cast");
  cast.set_domain(left.domain());
  cast.add_input(result);
  cast.add_output(op.output(0));
  *cast.mutable_attribute() = left.attribute();
  cast.set_doc_string(op.doc_string());
  return replacement;
}

}  // namespace onnxopt::onnx_patterns
