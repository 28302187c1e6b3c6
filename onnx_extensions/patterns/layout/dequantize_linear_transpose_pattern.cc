#include "onnx_extensions/patterns/layout/dequantize_linear_transpose_pattern.h"

#include <algorithm>
#include <optional>

#include "onnx_core/optimizer/graph_graph.h"
#include "onnx_core/optimizer/match.h"
#include "onnx_extensions/patterns/layout/layout_matchers.h"

namespace onnxopt::onnx_patterns {

using core::builder::AddIntAttribute;
using core::builder::AddIntsAttribute;
using core::builder::AddNode;
using core::builder::IntAttr;
using core::builder::IsOp;
using core::builder::ProducerOf;

namespace {

// The axis a DequantizeLinear of a rank-`rank` input quantizes along (normalized), or
// nullopt for a per-tensor one; `*why` says why neither applies.
struct Quantization {
  std::optional<std::int64_t> axis;
};

std::optional<Quantization> QuantizationOf(GraphGraph& graph, const NodeProto& dequantize, std::size_t rank,
                                           std::string_view* why) {
  if (IntAttr(dequantize, "block_size").value_or(0) != 0) {
    *why = "the DequantizeLinear quantizes by blocks";
    return std::nullopt;
  }
  const core::shapes::SymTensor* scale = graph.FindShape(dequantize.input(1));
  if (!scale || !scale->shape.HasRank()) {
    *why = "the rank of the scale is unknown";
    return std::nullopt;
  }
  if (scale->shape.Rank() == 0) return Quantization{};
  // A 1-D scale quantizes along `axis` (opset 13); before, the scale is a scalar.
  if (scale->shape.Rank() != 1 || core::builder::OnnxOpset(graph) < 13) {
    *why = "the scale is neither a scalar nor a 1-D tensor of an opset with axis";
    return std::nullopt;
  }
  const std::optional<std::int64_t> axis =
      core::builder::NormalizeAxis(IntAttr(dequantize, "axis").value_or(1), rank);
  if (!axis) {
    *why = "the axis of the DequantizeLinear is out of range";
    return std::nullopt;
  }
  return Quantization{axis};
}

}  // namespace

MatchResult DequantizeLinearTransposePattern::Match(GraphGraph& graph, const NodeProto& node) const {
  if (!IsOp(node, "Transpose") || node.input_size() != 1 || node.output_size() != 1)
    return NoMatch(node, "the node is not a default-domain Transpose with one input and one output");
  const NodeProto* dequantize = ProducerOf(graph, node.input(0), "DequantizeLinear");
  if (!dequantize || dequantize->input_size() < 2 || dequantize->output_size() != 1)
    return NoMatch(node, "the input is not produced by a DequantizeLinear");
  if (!core::builder::HasOneUse(graph, node.input(0)))
    return NoMatch(node, "the DequantizeLinear has other readers");
  const std::string& quantized = dequantize->input(0);
  if (!graph.IsConstant(quantized)) return NoMatch(node, "the quantized input is not a constant");
  // Without folding, the rewrite would move the Transpose, not remove it.
  const TensorProto* value = graph.GetComputedConstant(quantized);
  if (!value || value->ByteSizeLong() > graph.Folding().max_output_bytes)
    return NoMatch(node, "the quantized constant is too large for its Transpose to be folded");
  std::string_view why;
  const std::optional<layout::Ints> perm = layout::TransposePerm(graph, node, &why);
  if (!perm) return NoMatch(node, why);
  if (static_cast<std::size_t>(value->dims_size()) != perm->size())
    return NoMatch(node, "the perm does not have the rank of the quantized constant");
  if (!QuantizationOf(graph, *dequantize, perm->size(), &why)) return NoMatch(node, why);
  return Matched({dequantize, &node});
}

utils::RepeatedProtoField<NodeProto> DequantizeLinearTransposePattern::Apply(
    GraphGraph& graph, const std::vector<const NodeProto*>& nodes) const {
  core::builder::ExpectMatchedNodes(*this, nodes, {"DequantizeLinear", "Transpose"});
  const NodeProto& dequantize = *nodes[0];
  const NodeProto& transpose = *nodes[1];
  const layout::Ints perm = *core::builder::IntsAttr(transpose, "perm");
  std::string_view why;
  const Quantization quantization = *QuantizationOf(graph, dequantize, perm.size(), &why);
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
    bool given = false;
    for (AttributeProto& attribute : *result.mutable_attribute())
      if (attribute.name() == "axis") {
        attribute.set_i(j);
        given = true;
      }
    if (!given) AddIntAttribute(result, "axis", j);
  }
  return replacement;
}

}  // namespace onnxopt::onnx_patterns
