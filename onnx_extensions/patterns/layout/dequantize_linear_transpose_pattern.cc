#include "onnx_extensions/patterns/layout/dequantize_linear_transpose_pattern.h"

#include <algorithm>

#include "onnx_core/optimizer/graph_graph.h"
#include "onnx_core/optimizer/match.h"
#include "onnx_extensions/patterns/layout/layout_matchers.h"

namespace onnxopt::onnx_patterns {

using core::builder::AddIntsAttribute;
using core::builder::AddNode;
using core::builder::IsOp;

MatchResult DequantizeLinearTransposePattern::Match(GraphGraph& graph, const NodeProto& node) const {
  if (!IsOp(node, "Transpose") || node.input_size() != 1 || node.output_size() != 1)
    return NoMatch(node, "the node is not a default-domain Transpose with one input and one output");
  std::string_view why;
  const NodeProto* dequantize = layout::DequantizedConstantInput(graph, node, &why);
  if (!dequantize) return NoMatch(node, why);
  const TensorProto* value = graph.GetComputedConstant(dequantize->input(0));
  const std::optional<layout::Ints> perm = layout::TransposePerm(graph, node, &why);
  if (!perm) return NoMatch(node, why);
  if (static_cast<std::size_t>(value->dims_size()) != perm->size())
    return NoMatch(node, "the perm does not have the rank of the quantized constant");
  if (!layout::QuantizationOf(graph, *dequantize, perm->size(), &why)) return NoMatch(node, why);
  return Matched({dequantize, &node});
}

utils::RepeatedProtoField<NodeProto> DequantizeLinearTransposePattern::Apply(
    GraphGraph& graph, const std::vector<const NodeProto*>& nodes) const {
  core::builder::ExpectMatchedNodes(*this, nodes, {"DequantizeLinear", "Transpose"});
  const NodeProto& dequantize = *nodes[0];
  const NodeProto& transpose = *nodes[1];
  const layout::Ints perm = *core::builder::IntsAttr(transpose, "perm");
  std::string_view why;
  const layout::Quantization quantization = *layout::QuantizationOf(graph, dequantize, perm.size(), &why);
  utils::RepeatedProtoField<NodeProto> replacement;
  NodeProto& moved = AddNode(replacement, graph, kName, transpose, "Transpose", {dequantize.input(0)});
  AddIntsAttribute(moved, "perm", perm);
  NodeProto& result = *replacement.Add() = dequantize;
  result.set_name(core::builder::DerivedNodeName(graph, kName, dequantize));
  result.set_input(0, moved.output(0));
  result.set_output(0, transpose.output(0));
  if (quantization.axis) {
    // Output axis j of the Transpose is its input's axis perm[j].
    const auto j = std::find(perm.begin(), perm.end(), *quantization.axis) - perm.begin();
    core::builder::SetIntAttribute(result, "axis", j);
  }
  return replacement;
}

}  // namespace onnxopt::onnx_patterns
