#include "onnx_extensions/patterns/layout/transpose_transpose_pattern.h"

#include "onnx_core/optimizer/graph_graph.h"
#include "onnx_core/optimizer/match.h"
#include "onnx_extensions/patterns/layout/layout_matchers.h"

namespace onnxopt::onnx_patterns {

using core::builder::AddIntsAttribute;
using core::builder::IntsAttr;
using core::builder::IsOp;

MatchResult TransposeTransposePattern::Match(GraphGraph& graph, const NodeProto& node) const {
  if (!IsOp(node, "Transpose") || node.input_size() != 1 || node.output_size() != 1)
    return NoMatch(node, "the node is not a default-domain Transpose with one input and one output");
  const std::vector<const NodeProto*> seconds = layout::DataConsumers(graph, node.output(0), "Transpose");
  if (seconds.empty()) return NoMatch(node, "no Transpose reads the output");
  const NodeProto& second = *seconds.back();
  std::string_view why;
  const auto p1 = layout::TransposePerm(graph, node, &why);
  if (!p1) return NoMatch(node, why);
  const auto p2 = layout::TransposePerm(graph, second, &why);
  if (!p2) return NoMatch(node, why);
  if (p1->size() != p2->size()) return NoMatch(node, "the perms of the two Transposes have different lengths");
  if (!layout::ComposesToIdentity(*p1, *p2) && !core::builder::HasOneUse(graph, node.output(0)))
    return NoMatch(node, "the first Transpose has other readers and the composite is not the identity");
  return Matched({&node, &second});
}

utils::RepeatedProtoField<NodeProto> TransposeTransposePattern::Apply(
    GraphGraph& graph, const std::vector<const NodeProto*>& nodes) const {
  core::builder::ExpectMatchedNodes(*this, nodes, {"Transpose", "Transpose"});
  const NodeProto& first = *nodes[0];
  const NodeProto& second = *nodes[1];
  const layout::Ints composite = layout::ComposePermutations(*IntsAttr(first, "perm"), *IntsAttr(second, "perm"));
  utils::RepeatedProtoField<NodeProto> replacement;
  if (!core::builder::HasOneUse(graph, first.output(0))) *replacement.Add() = first;
  if (layout::IsIdentityPermutation(composite)) {
    layout::AddNode(replacement, graph, kName, second, "Identity", {first.input(0)}, second.output(0));
  } else {
    NodeProto& transpose =
        layout::AddNode(replacement, graph, kName, second, "Transpose", {first.input(0)}, second.output(0));
    AddIntsAttribute(transpose, "perm", composite);
  }
  return replacement;
}

}  // namespace onnxopt::onnx_patterns
