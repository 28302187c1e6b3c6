#include "onnx_extensions/patterns/collections/collections_matchers.h"

#include "onnx_core/eval/tensor.h"
#include "onnx_core/optimizer/match.h"

namespace onnxopt::onnx_patterns::collections {

using core::builder::ConstantInts;
using core::builder::DerivedNodeName;
using core::builder::OnnxOpset;

std::optional<std::int64_t> NormalizeAxis(std::int64_t axis, std::size_t rank) {
  const auto r = static_cast<std::int64_t>(rank);
  if (axis < 0) axis += r;
  if (axis < 0 || axis >= r) return std::nullopt;
  return axis;
}

std::optional<std::int64_t> StaticDim(const GraphGraph& graph, std::string_view value, std::int64_t axis) {
  if (!graph.HasShape(value)) return std::nullopt;
  const auto& shape = graph.GetShape(value).shape;
  if (!shape.HasRank()) return std::nullopt;
  const std::optional<std::int64_t> a = NormalizeAxis(axis, shape.Rank());
  if (!a) return std::nullopt;
  return shape[static_cast<std::size_t>(*a)].Constant();
}

std::optional<std::size_t> ConstantRank(GraphGraph& graph, std::string_view value) {
  const TensorProto* tensor = graph.GetComputedConstant(value);
  if (!tensor) return std::nullopt;
  return static_cast<std::size_t>(tensor->dims_size());
}

bool IsConstantScalarShaped(GraphGraph& graph, std::string_view value) {
  const TensorProto* tensor = graph.GetComputedConstant(value);
  return tensor && (tensor->dims_size() == 0 || (tensor->dims_size() == 1 && tensor->dims(0) == 1));
}

std::optional<std::int64_t> ConstantScalarInt(GraphGraph& graph, std::string_view value) {
  if (!IsConstantScalarShaped(graph, value)) return std::nullopt;
  const std::optional<std::vector<std::int64_t>> ints = ConstantInts(graph, value);
  if (!ints || ints->size() != 1) return std::nullopt;
  return ints->front();
}

TensorProto IntTensor(const std::vector<std::int64_t>& values, const std::vector<std::int64_t>& dims,
                      int elem_type) {
  core::eval::Tensor tensor(elem_type, dims);
  for (std::size_t i = 0; i < values.size(); ++i) {
    if (elem_type == TensorProto::INT32)
      tensor.MutableData<std::int32_t>()[i] = static_cast<std::int32_t>(values[i]);
    else
      tensor.MutableData<std::int64_t>()[i] = values[i];
  }
  return tensor.ToProto("");
}

void SetSplitSizes(GraphGraph& graph, std::string_view prefix, NodeProto& split,
                   const std::vector<std::int64_t>& sizes) {
  if (OnnxOpset(graph) >= 13) {
    split.add_input(graph.MakeInitializer(prefix, IntTensor(sizes, {static_cast<std::int64_t>(sizes.size())})));
    return;
  }
  AttributeProto& attr = *split.add_attribute();
  attr.set_name("split");
  attr.set_type(AttributeProto::INTS);
  for (std::int64_t size : sizes) attr.add_ints(size);
}

void SetSplitOnes(GraphGraph& graph, std::string_view prefix, NodeProto& split, std::int64_t count) {
  if (OnnxOpset(graph) < 18) {
    SetSplitSizes(graph, prefix, split, std::vector<std::int64_t>(static_cast<std::size_t>(count), 1));
    return;
  }
  AttributeProto& attr = *split.add_attribute();
  attr.set_name("num_outputs");
  attr.set_type(AttributeProto::INT);
  attr.set_i(count);
}

void AddSqueeze(GraphGraph& graph, std::string_view prefix, const NodeProto& origin,
                utils::RepeatedProtoField<NodeProto>& nodes, const std::string& input, const std::string& output,
                std::int64_t axis) {
  NodeProto& squeeze = *nodes.Add();
  squeeze.set_op_type("Squeeze");
  squeeze.set_name(DerivedNodeName(graph, prefix, origin));
  squeeze.add_input(input);
  squeeze.add_output(output);
  if (OnnxOpset(graph) >= 13) {
    squeeze.add_input(graph.MakeInitializer(prefix, IntTensor({axis}, {1})));
    return;
  }
  AttributeProto& attr = *squeeze.add_attribute();
  attr.set_name("axes");
  attr.set_type(AttributeProto::INTS);
  attr.add_ints(axis);
}

}  // namespace onnxopt::onnx_patterns::collections
