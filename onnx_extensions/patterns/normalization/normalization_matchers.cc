#include "onnx_extensions/patterns/normalization/normalization_matchers.h"

#include <cmath>
#include <limits>
#include <utility>

#include "onnx_core/common/error.h"
#include "onnx_core/eval/tensor.h"
#include "onnx_core/optimizer/match.h"

namespace onnxopt::onnx_patterns::normalization {

using core::builder::ConstantDoubles;
using core::builder::DerivedNodeName;
using core::builder::NormalizeAxis;
using core::builder::RankOf;
using core::builder::StaticDim;

bool IsFloatType(int elem_type) {
  return elem_type == TensorProto::FLOAT16 || elem_type == TensorProto::BFLOAT16 || elem_type == TensorProto::FLOAT ||
         elem_type == TensorProto::DOUBLE;
}

std::string_view OtherInput(const NodeProto& binary, std::string_view value) {
  if (binary.input_size() != 2 || binary.input(0) == binary.input(1)) return {};
  if (binary.input(0) == value) return binary.input(1);
  if (binary.input(1) == value) return binary.input(0);
  return {};
}

std::optional<double> BroadcastScalar(GraphGraph& graph, std::string_view value) {
  const std::optional<core::builder::NumericConstant> constant = ConstantDoubles(graph, value);
  if (!constant || constant->elements.size() != 1) return std::nullopt;
  return constant->elements.front();
}

bool ConstantKeepsShape(const GraphGraph& graph, std::string_view x, std::string_view constant) {
  const std::optional<std::size_t> rank_c = RankOf(graph, constant);
  if (!rank_c) return false;
  if (*rank_c == 0) return true;
  const std::optional<std::size_t> rank_x = RankOf(graph, x);
  return rank_x && *rank_c <= *rank_x;
}

bool FitsFloat(double value) {
  const double magnitude = std::fabs(value);
  return value == 0 ||
         (magnitude >= std::numeric_limits<float>::min() && magnitude <= std::numeric_limits<float>::max());
}

bool OpsetAtLeast(const GraphGraph& graph, std::int64_t version) {
  return core::builder::OnnxOpset(graph) >= version;
}

bool NormalizesFewerThanTwoElements(const GraphGraph& graph, std::string_view x, std::int64_t axis) {
  const std::optional<std::size_t> rank = RankOf(graph, x);
  const std::optional<std::int64_t> first = rank ? NormalizeAxis(axis, *rank) : std::nullopt;
  if (!first) return false;
  bool all_static_and_one = true;
  for (std::int64_t i = *first; i < static_cast<std::int64_t>(*rank); ++i) {
    const std::optional<std::int64_t> dim = StaticDim(graph, x, i);
    if (dim == 0) return true;
    all_static_and_one = all_static_and_one && dim == 1;
  }
  return all_static_and_one;
}

void AddFloatAttribute(NodeProto& node, std::string_view name, float value) {
  AttributeProto& attr = *node.add_attribute();
  attr.set_name(std::string(name));
  attr.set_type(AttributeProto::FLOAT);
  attr.set_f(value);
}

void AddStringAttribute(NodeProto& node, std::string_view name, std::string_view value) {
  AttributeProto& attr = *node.add_attribute();
  attr.set_name(std::string(name));
  attr.set_type(AttributeProto::STRING);
  attr.set_s(std::string(value));
}

void AddTensorAttribute(NodeProto& node, std::string_view name, TensorProto value) {
  AttributeProto& attr = *node.add_attribute();
  attr.set_name(std::string(name));
  attr.set_type(AttributeProto::TENSOR);
  *attr.mutable_t() = std::move(value);
}

TensorProto FilledTensor(int elem_type, const std::vector<std::int64_t>& dims, double value) {
  core::eval::Tensor tensor(elem_type, dims);
  for (std::int64_t i = 0; i < tensor.size(); ++i) {
    switch (elem_type) {
      case TensorProto::FLOAT: tensor.MutableData<float>()[i] = static_cast<float>(value); break;
      case TensorProto::DOUBLE: tensor.MutableData<double>()[i] = value; break;
      case TensorProto::FLOAT16:
        tensor.MutableData<std::uint16_t>()[i] = core::eval::FloatToHalf(static_cast<float>(value));
        break;
      case TensorProto::BFLOAT16:
        tensor.MutableData<std::uint16_t>()[i] = core::eval::FloatToBFloat16(static_cast<float>(value));
        break;
      default:
        throw BuilderError("FilledTensor: element type " + std::to_string(elem_type) +
                                          " is not a float type");
    }
  }
  return tensor.ToProto("filled");
}

TensorProto ScalarAttributeTensor(int elem_type, double value) {
  TensorProto tensor;
  tensor.set_name("");  // present and empty, as the text parser writes it
  tensor.set_data_type(elem_type);
  tensor.add_dims(1);
  switch (elem_type) {
    case TensorProto::FLOAT: tensor.add_float_data(static_cast<float>(value)); break;
    case TensorProto::DOUBLE: tensor.add_double_data(value); break;
    case TensorProto::FLOAT16: tensor.add_int32_data(core::eval::FloatToHalf(static_cast<float>(value))); break;
    case TensorProto::BFLOAT16: tensor.add_int32_data(core::eval::FloatToBFloat16(static_cast<float>(value))); break;
    default:
      throw BuilderError("ScalarAttributeTensor: element type " + std::to_string(elem_type) + " is not a float type");
  }
  return tensor;
}

std::string FilledLike(utils::RepeatedProtoField<NodeProto>& replacement, GraphGraph& graph, std::string_view pattern,
                       const NodeProto& from, std::string_view x, std::int64_t start, std::optional<std::int64_t> end,
                       int elem_type, double value) {
  if (const std::optional<std::size_t> rank = RankOf(graph, x)) {
    const std::optional<std::int64_t> first = NormalizeAxis(start, *rank);
    const auto r = static_cast<std::int64_t>(*rank);
    const std::int64_t last = !end ? r : (*end < 0 ? *end + r : *end);
    std::vector<std::int64_t> dims;
    bool known = first.has_value();
    for (std::int64_t axis = first.value_or(0); known && axis < last; ++axis) {
      const std::optional<std::int64_t> dim = StaticDim(graph, x, axis);
      known = dim.has_value();
      if (dim) dims.push_back(*dim);
    }
    if (known) return graph.MakeInitializer(pattern, FilledTensor(elem_type, dims, value));
  }
  NodeProto& shape = AddNode(replacement, graph, pattern, from, "Shape", {std::string(x)});
  core::builder::AddIntAttribute(shape, "start", start);
  if (end) core::builder::AddIntAttribute(shape, "end", *end);
  NodeProto& filled = AddNode(replacement, graph, pattern, from, "ConstantOfShape", {shape.output(0)});
  AddTensorAttribute(filled, "value", ScalarAttributeTensor(elem_type, value));
  return filled.output(0);
}

}  // namespace onnxopt::onnx_patterns::normalization
