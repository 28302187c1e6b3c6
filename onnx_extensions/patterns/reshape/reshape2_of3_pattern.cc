#include "onnx_extensions/patterns/reshape/reshape2_of3_pattern.h"

#include "onnx_core/optimizer/graph_graph.h"
#include "onnx_core/optimizer/match.h"
#include "onnx_extensions/patterns/reshape/reshape_matchers.h"

namespace onnxopt::onnx_patterns {

using core::builder::DerivedNodeName;
using core::builder::HasOneUse;
using core::builder::KnownShape;
using core::shapes::SymShape;

namespace {

// The Reshapes around z = Op(a, b) that the rewrite removes; null where there is none.
struct Neighbours {
  const NodeProto* left = nullptr;   // a = Reshape(x, sa), read by the Op alone
  const NodeProto* right = nullptr;  // b = Reshape(y, sb), read by the Op alone
  const NodeProto* out = nullptr;    // w = Reshape(z, sw), the only reader of z

  int Count() const { return (left ? 1 : 0) + (right ? 1 : 0) + (out ? 1 : 0); }
};

const NodeProto* SideReshape(const GraphGraph& graph, const std::string& operand) {
  const NodeProto* producer = graph.NodeBefore(operand);
  return producer && reshape::IsPlainReshape(*producer) && HasOneUse(graph, operand) ? producer : nullptr;
}

Neighbours FindNeighbours(const GraphGraph& graph, const NodeProto& op) {
  Neighbours found{SideReshape(graph, op.input(0)), SideReshape(graph, op.input(1)), nullptr};
  const std::string& z = op.output(0);
  const std::vector<const NodeProto*>& readers = graph.NextNodes(z);
  if (readers.size() == 1 && reshape::IsPlainReshape(*readers[0]) && readers[0]->input(0) == z &&
      readers[0]->input(1) != z)
    found.out = readers[0];
  return found;
}

// `output = Reshape(input, shape)`, a new node made from `origin`.
NodeProto NewReshape(GraphGraph& graph, const NodeProto& origin, const std::string& input, const std::string& shape,
                     const std::string& output) {
  NodeProto node;
  node.set_op_type("Reshape");
  node.set_name(DerivedNodeName(graph, Reshape2Of3Pattern::kName, origin));
  node.add_input(input);
  node.add_input(shape);
  node.add_output(output);
  return node;
}

}  // namespace

std::set<std::string> Reshape2Of3Pattern::FastOpType() const { return reshape::ReshapableBinaryOps(); }

MatchResult Reshape2Of3Pattern::Match(GraphGraph& graph, const NodeProto& op) const {
  if (!reshape::IsReshapableBinary(op))
    return NoMatch(op, "the node is not a default-domain element-wise binary operator with two inputs");
  // Before opset 7 the operator's `broadcast` and `axis` refer to its inputs' rank, which the
  // rewrite changes: a negative axis (-2: axis 0 of two dims) points elsewhere in three.
  if (!core::builder::BroadcastsMultidirectionally(graph)) return NoMatch(op, "the opset is older than 7");
  if (op.input(0) == op.input(1)) return NoMatch(op, "both inputs are the same value");
  const std::string& z = op.output(0);
  if (graph.NextNodes(z).size() > 1) return NoMatch(op, "the output of the binary operator has several readers");
  if (graph.IsUsedBySubgraph(z)) return NoMatch(op, "the output of the binary operator is read by a nested graph");
  if (!graph.IsUsed(z)) return NoMatch(op, "the output of the binary operator is not used");
  const Neighbours around = FindNeighbours(graph, op);
  if (around.Count() < 2)
    return NoMatch(op, "fewer than two of the inputs and the output go through a Reshape read there alone");
  if (around.Count() == 2 && around.out && graph.IsOutput(z))
    return NoMatch(op, "the rewrite would add back as many Reshapes as it removes (the output is a graph output)");
  const SymShape* a = KnownShape(graph, op.input(0));
  const SymShape* b = KnownShape(graph, op.input(1));
  const SymShape* shape_z = KnownShape(graph, z);
  if (!a || !b || !shape_z) return NoMatch(op, "the shape of an input or of the output is not known");
  if (!(*a == *shape_z) || !(*b == *shape_z))
    return NoMatch(op, "the inputs and the output do not have the same shape (broadcasting)");
  // The shapes before the Reshapes: the Op is computed in that shape after the rewrite.
  const SymShape* before = nullptr;
  for (const std::string* value : {around.left ? &around.left->input(0) : nullptr,
                                   around.right ? &around.right->input(0) : nullptr,
                                   around.out ? &around.out->output(0) : nullptr}) {
    if (!value) continue;
    const SymShape* shape = KnownShape(graph, *value);
    if (!shape) return NoMatch(op, "the shape on the other side of a Reshape is not known");
    if (before && !(*shape == *before)) return NoMatch(op, "the shapes on the other side of the Reshapes differ");
    before = shape;
  }
  return Matched({around.left, around.right, &op, around.out}, around.out ? around.out : &op);
}

utils::RepeatedProtoField<NodeProto> Reshape2Of3Pattern::Apply(GraphGraph& graph,
                                                               const std::vector<const NodeProto*>& nodes) const {
  core::builder::ExpectMatchedNodes(*this, nodes, {"", "", "", ""});
  core::builder::ExpectMatchedNodes(*this, {nodes[2]}, {{"binary operator", reshape::IsReshapableBinary}});
  const NodeProto* left = nodes[0];
  const NodeProto* right = nodes[1];
  const NodeProto& op = *nodes[2];
  const NodeProto* out = nodes[3];
  // compute_shape maps the shape before the Reshapes to z's; final_shape maps z's back.
  const std::string& compute_shape = right ? right->input(1) : left->input(1);
  const std::string& final_shape = out ? out->input(1) : compute_shape;
  utils::RepeatedProtoField<NodeProto> replacement;
  auto operand = [&](const NodeProto* side, int i) {
    if (side) return side->input(0);
    const std::string reshaped = graph.Builder().UniqueName(kName);
    *replacement.Add() = NewReshape(graph, op, op.input(i), final_shape, reshaped);
    return reshaped;
  };
  const std::string lhs = operand(left, 0);
  const std::string rhs = operand(right, 1);
  NodeProto& node = *replacement.Add() = op;
  node.set_name(DerivedNodeName(graph, kName, op));
  node.set_input(0, lhs);
  node.set_input(1, rhs);
  if (out) {
    node.set_output(0, out->output(0));
    if (!core::builder::HasOneUse(graph, op.output(0)))
      *replacement.Add() = NewReshape(graph, op, out->output(0), compute_shape, op.output(0));
  } else {
    node.set_output(0, graph.Builder().UniqueName(kName));
    const std::string computed = node.output(0);
    *replacement.Add() = NewReshape(graph, op, computed, final_shape, op.output(0));
  }
  return replacement;
}

}  // namespace onnxopt::onnx_patterns
