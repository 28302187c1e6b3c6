#include "onnx_extensions/patterns/layout/dequantize_linear_reshape_pattern.h"

#include <algorithm>
#include <optional>

#include "onnx_core/optimizer/graph_graph.h"
#include "onnx_core/optimizer/match.h"
#include "onnx_extensions/patterns/layout/layout_matchers.h"

namespace onnxopt::onnx_patterns {

using core::builder::IsOp;

namespace {

bool RelabelsPositions(const NodeProto& node) {
  return IsOp(node, "Reshape") || IsOp(node, "Flatten") || IsOp(node, "Squeeze") || IsOp(node, "Unsqueeze");
}

// The output axis that holds input axis `axis` whole when a tensor of dims `in` is given
// dims `out` in row-major order: the first j with out[j] == in[axis] and as many elements
// before it as before `axis`. Nullopt when the axis is split or merged. Dims are positive.
std::optional<std::int64_t> AxisAfterReshape(const layout::Ints& in, std::int64_t axis, const layout::Ints& out) {
  std::int64_t before = 1;
  for (std::int64_t i = 0; i < axis; ++i) before *= in[static_cast<std::size_t>(i)];
  std::int64_t elements = 1;
  for (std::size_t j = 0; j < out.size() && elements <= before; ++j) {
    if (elements == before && out[j] == in[static_cast<std::size_t>(axis)]) return static_cast<std::int64_t>(j);
    elements *= out[j];
  }
  return std::nullopt;
}

// The quantization axis of the moved DequantizeLinear (nullopt: per-tensor), or why the
// quantization does not move through `node`.
struct MovedQuantization {
  std::optional<std::int64_t> axis;
  std::string_view why;
};

MovedQuantization MoveQuantization(GraphGraph& graph, const NodeProto& dequantize, const NodeProto& node) {
  const TensorProto* value = graph.GetComputedConstant(dequantize.input(0));
  std::string_view why;
  const std::optional<layout::Quantization> quantization =
      layout::QuantizationOf(graph, dequantize, static_cast<std::size_t>(value->dims_size()), &why);
  if (!quantization) return {std::nullopt, why};
  if (!quantization->axis) return {};
  const std::optional<layout::Ints> out = core::builder::StaticDims(graph, node.output(0));
  if (!out) return {std::nullopt, "the output shape is not static"};
  const layout::Ints in(value->dims().begin(), value->dims().end());
  const auto has_elements = [](const layout::Ints& dims) {
    return std::all_of(dims.begin(), dims.end(), [](std::int64_t dim) { return dim > 0; });
  };
  if (!has_elements(in) || !has_elements(*out)) return {std::nullopt, "the quantized constant is empty"};
  const std::optional<std::int64_t> axis = AxisAfterReshape(in, *quantization->axis, *out);
  if (!axis) return {std::nullopt, "the node splits or merges the quantization axis"};
  return {axis, {}};
}

}  // namespace

MatchResult DequantizeLinearReshapePattern::Match(GraphGraph& graph, const NodeProto& node) const {
  if (!RelabelsPositions(node) || node.input_size() < 1 || node.output_size() != 1)
    return NoMatch(node, "the node is not a default-domain Reshape, Flatten, Squeeze or Unsqueeze with one output");
  std::string_view why;
  const NodeProto* dequantize = layout::DequantizedConstantInput(graph, node, &why);
  if (!dequantize) return NoMatch(node, why);
  // Moved onto the constant, the node folds only if its shape or axes are constant too.
  for (int i = 1; i < node.input_size(); ++i)
    if (!node.input(i).empty() && !graph.IsConstant(node.input(i)))
      return NoMatch(node, "the shape or axes input is not constant");
  const MovedQuantization moved = MoveQuantization(graph, *dequantize, node);
  if (!moved.why.empty()) return NoMatch(node, moved.why);
  return Matched({dequantize, &node});
}

utils::RepeatedProtoField<NodeProto> DequantizeLinearReshapePattern::Apply(
    GraphGraph& graph, const std::vector<const NodeProto*>& nodes) const {
  core::builder::ExpectMatchedNodes(*this, nodes,
                                    {{"DequantizeLinear", [](const NodeProto& n) { return IsOp(n, "DequantizeLinear"); }},
                                     {"Reshape, Flatten, Squeeze or Unsqueeze", RelabelsPositions}});
  const NodeProto& dequantize = *nodes[0];
  const NodeProto& node = *nodes[1];
  const MovedQuantization quantization = MoveQuantization(graph, dequantize, node);
  utils::RepeatedProtoField<NodeProto> replacement;
  NodeProto& moved = *replacement.Add() = node;
  moved.set_name(core::builder::DerivedNodeName(graph, kName, node));
  moved.set_input(0, dequantize.input(0));
  moved.set_output(0, graph.Builder().UniqueName(kName));
  NodeProto& result = *replacement.Add() = dequantize;
  result.set_name(core::builder::DerivedNodeName(graph, kName, dequantize));
  result.set_input(0, moved.output(0));
  result.set_output(0, node.output(0));
  if (quantization.axis) core::builder::SetIntAttribute(result, "axis", *quantization.axis);
  return replacement;
}

}  // namespace onnxopt::onnx_patterns
