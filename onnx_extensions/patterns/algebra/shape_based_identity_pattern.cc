#include "onnx_extensions/patterns/algebra/shape_based_identity_pattern.h"

#include <algorithm>

#include "onnx_core/optimizer/graph_graph.h"
#include "onnx_core/optimizer/match.h"

namespace onnxopt::onnx_patterns {

using core::builder::ConstantInts;
using core::builder::IsOp;
using core::builder::KnownShape;
using core::builder::OptionalInput;

MatchResult ShapeBasedIdentityPattern::Match(GraphGraph& graph, const NodeProto& node) const {
  if (!IsOp(node, "Slice") || node.input_size() == 0 || node.output_size() != 1)
    return NoMatch(node, "the node is not a default-domain Slice");
  if (const std::string_view steps = OptionalInput(node, 4); !steps.empty()) {
    const auto values = ConstantInts(graph, steps);
    if (!values || !std::all_of(values->begin(), values->end(), [](std::int64_t step) { return step == 1; }))
      return NoMatch(node, "the steps are not the constant 1");
  }
  const core::shapes::SymShape* x = KnownShape(graph, node.input(0));
  const core::shapes::SymShape* y = KnownShape(graph, node.output(0));
  if (!x || !y) return NoMatch(node, "the shape of the input or of the output is not known");
  if (!(*x == *y)) return NoMatch(node, "the Slice changes the shape");
  return Matched({&node});
}

utils::RepeatedProtoField<NodeProto> ShapeBasedIdentityPattern::Apply(GraphGraph& graph,
                                                                      const std::vector<const NodeProto*>& nodes) const {
  core::builder::ExpectMatchedNodes(*this, nodes, {"Slice"});
  const NodeProto& slice = *nodes[0];
  utils::RepeatedProtoField<NodeProto> replacement;
  *replacement.Add() = core::builder::IdentityNode(graph, kName, slice, slice.input(0), slice.output(0));
  return replacement;
}

}  // namespace onnxopt::onnx_patterns
