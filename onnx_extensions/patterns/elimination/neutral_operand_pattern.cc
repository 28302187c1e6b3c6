#include "onnx_extensions/patterns/elimination/neutral_operand_pattern.h"

#include "onnx_core/optimizer/graph_graph.h"
#include "onnx_core/optimizer/match.h"

namespace onnxopt::onnx_patterns {

using core::builder::IsConstantFilledWith;
using core::builder::IsOp;
using core::builder::KnownShape;

namespace {

bool IsNeutralBinary(const NodeProto& node) {
  return IsOp(node, "Add") || IsOp(node, "Sub") || IsOp(node, "Mul") || IsOp(node, "Div");
}

// Which input of `node` is the neutral constant (0 for Add/Sub, 1 for Mul/Div; on the left
// only for the commutative Add and Mul), or -1.
int NeutralSide(GraphGraph& graph, const NodeProto& node) {
  const double neutral = node.op_type() == "Add" || node.op_type() == "Sub" ? 0.0 : 1.0;
  if (IsConstantFilledWith(graph, node.input(1), neutral)) return 1;
  const bool commutative = node.op_type() == "Add" || node.op_type() == "Mul";
  if (commutative && IsConstantFilledWith(graph, node.input(0), neutral)) return 0;
  return -1;
}

// Whether broadcasting `constant` against `data` gives `data`'s shape.
bool KeepsShape(const core::shapes::SymShape& data, const core::shapes::SymShape& constant) {
  if (constant.Rank() > data.Rank()) return false;
  const std::size_t offset = data.Rank() - constant.Rank();
  for (std::size_t d = 0; d < constant.Rank(); ++d)
    if (!(constant[d] == core::shapes::SymDim(1)) && !(constant[d] == data[offset + d])) return false;
  return true;
}

}  // namespace

MatchResult NeutralOperandPattern::Match(GraphGraph& graph, const NodeProto& node) const {
  if (!IsNeutralBinary(node) || node.input_size() != 2 || node.output_size() != 1)
    return NoMatch(node, "the node is not a default-domain Add, Sub, Mul or Div with two inputs");
  const int side = NeutralSide(graph, node);
  if (side < 0) return NoMatch(node, "no operand is a constant filled with the neutral element");
  const core::shapes::SymShape* constant = KnownShape(graph, node.input(side));
  if (!constant || constant->Rank() < 2) return NoMatch(node, "the constant has rank below 2 (IdentityPattern's case)");
  const core::shapes::SymShape* data = KnownShape(graph, node.input(1 - side));
  if (!data) return NoMatch(node, "the shape of the other operand is unknown");
  if (!KeepsShape(*data, *constant))
    return NoMatch(node, "the constant broadcasts the other operand to a larger shape");
  return Matched({&node});
}

utils::RepeatedProtoField<NodeProto> NeutralOperandPattern::Apply(GraphGraph& graph,
                                                                  const std::vector<const NodeProto*>& nodes) const {
  core::builder::ExpectMatchedNodes(*this, nodes, {{"Add, Sub, Mul or Div", IsNeutralBinary}});
  const NodeProto& node = *nodes[0];
  const int side = NeutralSide(graph, node);
  utils::RepeatedProtoField<NodeProto> replacement;
  *replacement.Add() = core::builder::IdentityNode(graph, kName, node, node.input(1 - side), node.output(0));
  return replacement;
}

}  // namespace onnxopt::onnx_patterns
