#include "onnx_extensions/patterns/layout/layout_matchers.h"

#include <algorithm>

#include "onnx_core/optimizer/match.h"

namespace onnxopt::onnx_patterns::layout {

using core::builder::IntAttr;
using core::builder::IntsAttr;
using core::builder::IsOp;

std::optional<Ints> ConstantAxes(GraphGraph& graph, std::string_view value) {
  const TensorProto* tensor = graph.GetComputedConstant(value);
  if (!tensor || tensor->dims_size() != 1) return std::nullopt;
  return core::builder::ConstantInts(graph, value);
}

bool HasNegativeAxis(const Ints& axes) {
  return std::any_of(axes.begin(), axes.end(), [](std::int64_t axis) { return axis < 0; });
}

std::optional<Ints> NormalizeAxes(const Ints& axes, std::optional<std::size_t> rank) {
  Ints normalized;
  for (std::int64_t axis : axes) {
    if (rank) {
      const std::optional<std::int64_t> a = core::builder::NormalizeAxis(axis, *rank);
      if (!a) return std::nullopt;
      axis = *a;
    } else if (axis < 0) {
      return std::nullopt;
    }
    if (std::find(normalized.begin(), normalized.end(), axis) != normalized.end()) return std::nullopt;
    normalized.push_back(axis);
  }
  return normalized;
}

std::optional<Ints> SqueezedAxes(GraphGraph& graph, const NodeProto& squeeze, std::string_view* why) {
  if (squeeze.input_size() < 1) return Reject(why, "a Squeeze has no data input");
  if (core::builder::OptionalInput(squeeze, 1).empty()) {
    const std::optional<Ints> dims = core::builder::StaticDims(graph, squeeze.input(0));
    if (!dims) return Reject(why, "a Squeeze has no axes input and the shape of its input is not static");
    Ints ones;
    for (std::size_t i = 0; i < dims->size(); ++i)
      if ((*dims)[i] == 1) ones.push_back(static_cast<std::int64_t>(i));
    return ones;
  }
  std::optional<Ints> axes = ConstantAxes(graph, squeeze.input(1));
  if (!axes) return Reject(why, "the axes of a Squeeze are not a constant 1-D tensor");
  if (axes->empty()) return Reject(why, "the axes of a Squeeze are empty");
  return axes;
}

std::optional<Ints> ComposeUnsqueezeAxes(const Ints& a1, const Ints& a2) {
  Ints taken = a2;  // by the second Unsqueeze
  std::sort(taken.begin(), taken.end());
  Ints result = taken;
  for (std::int64_t k : a1) {
    // The k-th position of the output that the second Unsqueeze does not take: k, moved
    // right past every taken position at or before it (counted, not walked: with an unknown
    // rank, k is bounded by nothing).
    std::int64_t position = k;
    for (std::int64_t t : taken)
      if (t <= position && __builtin_add_overflow(position, 1, &position)) return std::nullopt;
    result.push_back(position);
  }
  std::sort(result.begin(), result.end());
  return result;
}

std::optional<Ints> TransposePerm(const GraphGraph& graph, const NodeProto& transpose, std::string_view* why) {
  if (transpose.input_size() != 1 || transpose.output_size() != 1)
    return Reject(why, "a Transpose does not have one input and one output");
  std::optional<Ints> perm = IntsAttr(transpose, "perm");
  if (!perm) return Reject(why, "a Transpose has no perm attribute");
  const std::optional<std::size_t> rank = core::builder::RankOf(graph, transpose.input(0));
  if (!IsPermutation(*perm) || (rank && *rank != perm->size()))
    return Reject(why, "the perm of a Transpose is not a permutation of its input axes");
  return perm;
}

AxisRange ShapeRange(const NodeProto& shape, std::int64_t rank) {
  const auto resolve = [rank](std::int64_t axis) {
    return std::clamp<std::int64_t>(axis < 0 ? axis + rank : axis, 0, rank);
  };
  return AxisRange{resolve(IntAttr(shape, "start").value_or(0)), resolve(IntAttr(shape, "end").value_or(rank))};
}

std::vector<const NodeProto*> DataConsumers(const GraphGraph& graph, std::string_view value, std::string_view op_type) {
  std::vector<const NodeProto*> consumers;
  for (const NodeProto* node : graph.NextNodes(value))
    if (IsOp(*node, op_type) && node->input_size() > 0 && node->input(0) == value) consumers.push_back(node);
  return consumers;
}

bool DefinedBefore(const GraphGraph& graph, std::string_view value, const NodeProto& node) {
  const NodeProto* producer = graph.NodeBefore(value);
  return !producer || graph.Position(*producer) < graph.Position(node);
}

const NodeProto* DequantizedConstantInput(GraphGraph& graph, const NodeProto& node, std::string_view* why) {
  const NodeProto* dequantize = core::builder::ProducerOf(graph, node.input(0), "DequantizeLinear");
  if (!dequantize || dequantize->input_size() < 2 || dequantize->output_size() != 1) {
    *why = "the input is not produced by a DequantizeLinear";
    return nullptr;
  }
  if (!core::builder::HasOneUse(graph, node.input(0))) {
    *why = "the DequantizeLinear has other readers";
    return nullptr;
  }
  const std::string& quantized = dequantize->input(0);
  if (!graph.IsConstant(quantized)) {
    *why = "the quantized input is not a constant";
    return nullptr;
  }
  // Without folding, the rewrite would move the node, not remove it.
  const TensorProto* value = graph.GetComputedConstant(quantized);
  if (!value || value->ByteSizeLong() > graph.Folding().max_output_bytes) {
    *why = "the quantized constant is too large to be folded";
    return nullptr;
  }
  return dequantize;
}

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
  const std::optional<std::int64_t> axis = core::builder::NormalizeAxis(IntAttr(dequantize, "axis").value_or(1), rank);
  if (!axis) {
    *why = "the axis of the DequantizeLinear is out of range";
    return std::nullopt;
  }
  return Quantization{axis};
}

}  // namespace onnxopt::onnx_patterns::layout
