#include "onnx_extensions/patterns/layout/shape_transpose_pattern.h"

#include "onnx_core/optimizer/graph_graph.h"
#include "onnx_core/optimizer/match.h"
#include "onnx_extensions/patterns/layout/layout_matchers.h"

namespace onnxopt::onnx_patterns {

using core::builder::IntsAttr;
using core::builder::IsOp;

namespace {

// p[start:end]: the axes of X whose dims the Shape of the transposed tensor returns.
layout::Ints SelectedAxes(const NodeProto& shape, const layout::Ints& perm) {
  const layout::AxisRange range = layout::ShapeRange(shape, static_cast<std::int64_t>(perm.size()));
  if (range.Empty()) return {};
  return layout::Ints(perm.begin() + range.start, perm.begin() + range.end);
}

}  // namespace

MatchResult ShapeTransposePattern::Match(GraphGraph& graph, const NodeProto& node) const {
  if (!IsOp(node, "Shape") || node.input_size() != 1 || node.output_size() != 1)
    return NoMatch(node, "the node is not a default-domain Shape with one input");
  const NodeProto* transpose = core::builder::ProducerOf(graph, node.input(0), "Transpose");
  if (!transpose) return NoMatch(node, "the input is not produced by a Transpose");
  std::string_view why;
  const auto perm = layout::TransposePerm(graph, *transpose, &why);
  if (!perm) return NoMatch(node, why);
  if (SelectedAxes(node, *perm).empty()) return NoMatch(node, "the Shape selects no dimension");
  return Matched({transpose, &node});
}

utils::RepeatedProtoField<NodeProto> ShapeTransposePattern::Apply(GraphGraph& graph,
                                                                  const std::vector<const NodeProto*>& nodes) const {
  core::builder::ExpectMatchedNodes(*this, nodes, {"Transpose", "Shape"});
  const NodeProto& transpose = *nodes[0];
  const NodeProto& shape = *nodes[1];
  const std::string index =
      graph.MakeInitializer(kName, core::builder::IntTensor(SelectedAxes(shape, *IntsAttr(transpose, "perm"))));
  utils::RepeatedProtoField<NodeProto> replacement;
  if (!core::builder::HasOneUse(graph, transpose.output(0))) *replacement.Add() = transpose;
  const std::string input_shape = graph.Builder().UniqueName(kName);
  layout::AddNode(replacement, graph, kName, shape, "Shape", {transpose.input(0)}, input_shape);
  NodeProto& gather =
      layout::AddNode(replacement, graph, kName, shape, "Gather", {input_shape, index}, shape.output(0));
  core::builder::AddIntAttribute(gather, "axis", 0);
  return replacement;
}

}  // namespace onnxopt::onnx_patterns
