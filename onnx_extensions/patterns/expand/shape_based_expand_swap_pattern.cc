#include "onnx_extensions/patterns/expand/shape_based_expand_swap_pattern.h"

#include "onnx_core/optimizer/graph_graph.h"
#include "onnx_core/optimizer/match.h"
#include "onnx_extensions/patterns/expand/expand_matchers.h"

namespace onnxopt::onnx_patterns {

using core::builder::Broadcast;
using core::builder::DerivedNodeName;
using core::builder::ProducerOf;
using core::shapes::SymDim;
using core::shapes::SymShape;

namespace {

// The broadcast of the two shapes when it exists and each operand provably gives it.
bool ProvableBroadcast(const SymShape& a, const SymShape& b, std::vector<SymDim>* out) {
  auto bc = Broadcast(a.Dims(), b.Dims());
  if (!bc || !expand::BroadcastGivesShape(a.Dims(), b.Dims(), *bc)) return false;
  *out = std::move(*bc);
  return true;
}

}  // namespace

MatchResult ShapeBasedExpandSwapPattern::Match(GraphGraph& graph, const NodeProto& node) const {
  if (!expand::IsBinaryElementwise(node)) return NoMatch(node, "the node is not a binary elementwise node");
  std::string_view why;
  const std::optional<expand::ExpandedOperands> operands = expand::FindExpandedOperands(graph, node, &why);
  if (!operands) return NoMatch(node, why);
  const NodeProto* left = operands->left;
  const NodeProto* right = operands->right;
  const SymShape* z = operands->output;
  const SymShape* a = operands->inputs[0];
  const SymShape* b = operands->inputs[1];
  const SymShape* xl = operands->sources[0];
  const SymShape* xr = operands->sources[1];
  std::vector<SymDim> bc;
  if (left && right) {
    if (left->input(1) != right->input(1)) return NoMatch(node, "the two Expands use different shape tensors");
    if (!(*a == *z) || !(*b == *z)) return NoMatch(node, "an Expand output does not have the output shape");
    if (xl->Rank() != xr->Rank()) return NoMatch(node, "the Expand inputs have different ranks");
    if (*xl == *a || *xr == *a) return NoMatch(node, "an Expand does not change the shape of its input");
    if (!ProvableBroadcast(*xl, *xr, &bc)) return NoMatch(node, "the Expand inputs do not provably broadcast");
    if (SymShape(bc) == *z) return NoMatch(node, "the Expand inputs broadcast to the output shape");
    return Matched({&node});
  }
  const SymShape& e = left ? *a : *b;
  const SymShape& x = left ? *xl : *xr;
  const SymShape& o = left ? *b : *a;
  if (x == e) return NoMatch(node, "the Expand does not change the shape of its input");
  if (e == o) return NoMatch(node, "the other operand already has the expanded shape");
  if (!(*z == e)) return NoMatch(node, "the output is larger than the Expand output");
  if (!ProvableBroadcast(x, o, &bc)) return NoMatch(node, "the Expand input and the other operand do not provably broadcast");
  return Matched({&node});
}

utils::RepeatedProtoField<NodeProto> ShapeBasedExpandSwapPattern::Apply(GraphGraph& graph,
                                                                        const std::vector<const NodeProto*>& nodes) const {
  core::builder::ExpectMatchedNodes(*this, nodes, {{"binary elementwise node", expand::IsBinaryElementwise}});
  const NodeProto& op = *nodes[0];
  const std::string t = graph.Builder().UniqueName(kName);
  utils::RepeatedProtoField<NodeProto> replacement;
  NodeProto& swapped = *replacement.Add() = op;
  swapped.set_name(DerivedNodeName(graph, kName, op));
  swapped.set_output(0, t);
  const NodeProto* expand = nullptr;
  for (int i = 0; i < 2; ++i) {
    if (const NodeProto* e = ProducerOf(graph, op.input(i), "Expand")) {
      swapped.set_input(i, e->input(0));
      expand = e;
    }
  }
  NodeProto& node = *replacement.Add() = *expand;
  node.set_name(DerivedNodeName(graph, kName, op));
  node.set_input(0, t);
  node.set_output(0, op.output(0));
  return replacement;
}

}  // namespace onnxopt::onnx_patterns
