#include "onnx_core/optimizer/match.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>

#include "onnx_core/common/error.h"
#include "onnx_core/eval/tensor.h"

namespace onnxopt::core::builder {

bool IsOp(const NodeProto& node, std::string_view op_type) {
  return node.op_type() == op_type && IsOnnxDomain(node.domain());
}

bool IsPlainReshape(const NodeProto& node) { return WhyNotPlainReshape(node).empty(); }

std::string_view WhyNotPlainReshape(const NodeProto& node) {
  if (!IsOp(node, "Reshape") || node.input_size() != 2 || node.output_size() != 1)
    return "the node is not a default-domain Reshape with two inputs";
  if (IntAttr(node, "allowzero").value_or(0) != 0) return "the Reshape has allowzero=1";
  return {};
}

bool QuantizationRoundTripsExactly(int quantized_type, const TensorProto& scale) {
  switch (quantized_type) {
    case TensorProto::INT8:
    case TensorProto::UINT8:
    case TensorProto::INT16:
    case TensorProto::UINT16: break;
    default: return false;
  }
  if (scale.data_type() != TensorProto::FLOAT) return false;
  constexpr double kLargestDifference = 65535.0;
  const std::vector<double> scales = eval::Tensor::FromProto(scale).ToDoubleVector();
  return std::all_of(scales.begin(), scales.end(), [](double s) {
    return IsNormalIn(s, TensorProto::FLOAT) && IsNormalIn(s * kLargestDifference, TensorProto::FLOAT);
  });
}

bool IsNormalIn(double value, int elem_type) {
  double max = std::numeric_limits<double>::max(), min = std::numeric_limits<double>::min();
  switch (elem_type) {
    case TensorProto::FLOAT16: max = 65504.0, min = 6.103515625e-05; break;
    case TensorProto::FLOAT:
    case TensorProto::BFLOAT16:  // float's exponent range, fewer mantissa bits
      max = elem_type == TensorProto::FLOAT ? std::numeric_limits<float>::max() : 3.3895313892515355e38;
      min = std::numeric_limits<float>::min();
      break;
    default: break;
  }
  const double magnitude = std::fabs(value);
  return std::isfinite(value) && magnitude >= min && magnitude <= max;
}

bool RegroupedProductMayOverflow(GraphGraph& graph, int elem_type, std::string_view first, std::string_view second) {
  if (elem_type != TensorProto::FLOAT16) return false;
  const std::optional<double> a = ConstantScalar(graph, first);
  const std::optional<double> b = ConstantScalar(graph, second);
  return !a || !b || !IsNormalIn(*a * *b, TensorProto::FLOAT16);
}

NodeProto& AddNode(utils::RepeatedProtoField<NodeProto>& replacement, GraphGraph& graph, std::string_view pattern,
                   const NodeProto& from, std::string_view op_type, std::vector<std::string> inputs,
                   std::string output) {
  NodeProto& node = *replacement.Add();
  node.set_op_type(std::string(op_type));
  node.set_name(DerivedNodeName(graph, pattern, from));
  for (std::string& input : inputs) node.add_input(std::move(input));
  node.add_output(output.empty() ? graph.Builder().UniqueName(pattern) : std::move(output));
  return node;
}

const NodeProto* ProducerOf(const GraphGraph& graph, std::string_view value, std::string_view op_type) {
  const NodeProto* producer = graph.NodeBefore(value);
  return producer && IsOp(*producer, op_type) ? producer : nullptr;
}

bool HasOneUse(const GraphGraph& graph, std::string_view value) {
  const std::vector<const NodeProto*>& readers = graph.NextNodes(value);
  if (readers.size() != 1 || graph.IsUsedMoreThanOnce(value)) return false;
  // A reader that takes `value` twice (Conv(xp, xp, B), Div(s, s)) keeps reading it where a
  // rewrite replaces only the slot it matched: two uses, though one node.
  return std::ranges::count(readers.front()->input(), value) == 1;
}

bool IsFirstReader(const GraphGraph& graph, std::string_view value, const NodeProto& node,
                   const std::function<bool(const NodeProto&)>& qualifies) {
  for (const NodeProto* reader : graph.NextNodes(value))
    if (qualifies(*reader)) return reader == &node;
  return false;
}

const NodeProto* SoleConsumer(const GraphGraph& graph, std::string_view value, std::string_view op_type) {
  if (!HasOneUse(graph, value)) return nullptr;
  const NodeProto* consumer = graph.NextNodes(value).front();
  return IsOp(*consumer, op_type) ? consumer : nullptr;
}

std::optional<std::size_t> RankOf(const GraphGraph& graph, std::string_view value) {
  const shapes::SymTensor* tensor = graph.FindShape(value);
  if (!tensor) return std::nullopt;
  return tensor->shape.Rank();
}

namespace {

// The elements of an int64 tensor stored in full (raw_data or int64_data), read without
// the copy into an eval::Tensor: shapes, axes and indices are int64 and patterns read them
// for most candidates. nullopt for any other storage.
std::optional<std::vector<std::int64_t>> StoredInt64s(const TensorProto& tensor) {
  if (tensor.data_type() != TensorProto::INT64) return std::nullopt;
  std::int64_t count = 1;
  for (std::int64_t dim : tensor.dims()) {
    if (dim < 0 || (dim > 0 && count > std::numeric_limits<std::int64_t>::max() / dim)) return std::nullopt;
    count *= dim;
  }
  std::vector<std::int64_t> values;
  if (tensor.has_raw_data()) {
    if (tensor.raw_data().size() != static_cast<std::uint64_t>(count) * sizeof(std::int64_t)) return std::nullopt;
    values.resize(static_cast<std::size_t>(count));
    if (count > 0) std::memcpy(values.data(), tensor.raw_data().data(), tensor.raw_data().size());
    return values;
  }
  if (tensor.int64_data_size() != count) return std::nullopt;
  return std::vector<std::int64_t>(tensor.int64_data().begin(), tensor.int64_data().end());
}

}  // namespace

std::optional<std::vector<std::int64_t>> ConstantInts(GraphGraph& graph, std::string_view value) {
  const TensorProto* tensor = graph.GetComputedConstant(value);
  if (!tensor) return std::nullopt;
  if (std::optional<std::vector<std::int64_t>> stored = StoredInt64s(*tensor)) return stored;
  switch (tensor->data_type()) {
    case TensorProto::INT8:
    case TensorProto::INT16:
    case TensorProto::INT32:
    case TensorProto::INT64:
    case TensorProto::UINT8:
    case TensorProto::UINT16:
    case TensorProto::UINT32:
    case TensorProto::UINT64:
      return eval::Tensor::FromProto(*tensor).ToInt64Vector();
    default:
      return std::nullopt;
  }
}

std::optional<std::vector<shapes::SymDim>> ShapeValue(GraphGraph& graph, std::string_view value) {
  if (const auto ints = ConstantInts(graph, value)) return std::vector<shapes::SymDim>(ints->begin(), ints->end());
  const shapes::SymTensor* tensor = graph.FindShape(value);
  if (!tensor || !tensor->HasValue() || tensor->shape.Rank() != 1) return std::nullopt;
  return tensor->value;
}

bool IsConstantScalarShaped(GraphGraph& graph, std::string_view value) {
  const TensorProto* tensor = graph.GetComputedConstant(value);
  return tensor && (tensor->dims_size() == 0 || (tensor->dims_size() == 1 && tensor->dims(0) == 1));
}

std::optional<double> ConstantScalar(GraphGraph& graph, std::string_view value) {
  if (!IsConstantScalarShaped(graph, value)) return std::nullopt;
  const std::optional<NumericConstant> constant = ConstantDoubles(graph, value);
  if (!constant || constant->elements.size() != 1) return std::nullopt;
  return constant->elements.front();
}

std::optional<std::int64_t> ConstantScalarInt(GraphGraph& graph, std::string_view value) {
  if (!IsConstantScalarShaped(graph, value)) return std::nullopt;
  const std::optional<std::vector<std::int64_t>> ints = ConstantInts(graph, value);
  if (!ints || ints->size() != 1) return std::nullopt;
  return ints->front();
}

std::optional<NumericConstant> ConstantDoubles(GraphGraph& graph, std::string_view value) {
  const TensorProto* tensor = graph.GetComputedConstant(value);
  if (!tensor || tensor->data_type() == TensorProto::STRING) return std::nullopt;
  return NumericConstant{std::vector<std::int64_t>(tensor->dims().begin(), tensor->dims().end()),
                         eval::Tensor::FromProto(*tensor).ToDoubleVector()};
}

namespace {

// Whether every element of `raw` (little-endian elements of type T) converts to `expected`.
template <class T, class Convert>
bool RawAllEqual(std::string_view raw, double expected, Convert convert) {
  if (raw.size() % sizeof(T) != 0) return false;
  for (std::size_t offset = 0; offset < raw.size(); offset += sizeof(T)) {
    T element;
    std::memcpy(&element, raw.data() + offset, sizeof(T));
    if (static_cast<double>(convert(element)) != expected) return false;
  }
  return true;
}

template <class T>
bool RawAllEqual(std::string_view raw, double expected) {
  return RawAllEqual<T>(raw, expected, [](T value) { return value; });
}

}  // namespace

bool AllElementsEqual(const TensorProto& tensor, double expected) {
  if (tensor.data_type() == TensorProto::STRING) return false;
  if (tensor.has_raw_data()) {
    const std::string_view raw = tensor.raw_data();
    switch (tensor.data_type()) {
      case TensorProto::FLOAT: return RawAllEqual<float>(raw, expected);
      case TensorProto::DOUBLE: return RawAllEqual<double>(raw, expected);
      case TensorProto::INT64: return RawAllEqual<std::int64_t>(raw, expected);
      case TensorProto::INT32: return RawAllEqual<std::int32_t>(raw, expected);
      case TensorProto::INT8: return RawAllEqual<std::int8_t>(raw, expected);
      case TensorProto::UINT8:
      case TensorProto::BOOL: return RawAllEqual<std::uint8_t>(raw, expected);
      case TensorProto::FLOAT16: return RawAllEqual<std::uint16_t>(raw, expected, eval::HalfToFloat);
      case TensorProto::BFLOAT16: return RawAllEqual<std::uint16_t>(raw, expected, eval::BFloat16ToFloat);
      default: break;  // rarer types: through the general conversion below
    }
  }
  const std::vector<double> elements = eval::Tensor::FromProto(tensor).ToDoubleVector();
  return std::all_of(elements.begin(), elements.end(), [&](double element) { return element == expected; });
}

bool IsConstantFilledWith(GraphGraph& graph, std::string_view value, double expected) {
  const TensorProto* tensor = graph.GetComputedConstant(value);
  return tensor && AllElementsEqual(*tensor, expected);
}

const shapes::SymShape* KnownShape(const GraphGraph& graph, std::string_view value) {
  const shapes::SymTensor* tensor = graph.FindShape(value);
  return tensor && tensor->shape.IsFullyKnown() ? &tensor->shape : nullptr;
}

bool MinusOneInferableAt(const shapes::SymShape& output, std::size_t position) {
  if (!output.HasRank() || position >= output.Rank()) return false;
  for (std::size_t i = 0; i < output.Rank(); ++i) {
    if (i == position) continue;
    const std::optional<std::int64_t> dim = output[i].Constant();
    if (!dim || *dim <= 0) return false;
  }
  return true;
}

std::optional<std::vector<std::int64_t>> StaticDims(const GraphGraph& graph, std::string_view value) {
  const shapes::SymShape* shape = KnownShape(graph, value);
  if (!shape || !shape->IsStatic()) return std::nullopt;
  std::vector<std::int64_t> dims;
  for (const shapes::SymDim& dim : shape->Dims()) dims.push_back(*dim.Constant());
  return dims;
}

std::optional<std::int64_t> StaticDim(const GraphGraph& graph, std::string_view value, std::int64_t axis) {
  const shapes::SymTensor* tensor = graph.FindShape(value);
  if (!tensor) return std::nullopt;
  const shapes::SymShape& shape = tensor->shape;
  const std::optional<std::int64_t> a = NormalizeAxis(axis, shape.Rank());
  if (!a) return std::nullopt;
  return shape[static_cast<std::size_t>(*a)].Constant();
}

std::optional<std::int64_t> NormalizeAxis(std::int64_t axis, std::size_t rank) {
  const auto r = static_cast<std::int64_t>(rank);
  if (axis < 0) axis += r;
  if (axis < 0 || axis >= r) return std::nullopt;
  return axis;
}

std::vector<shapes::SymDim> PadLeft(const std::vector<shapes::SymDim>& dims, std::size_t rank) {
  std::vector<shapes::SymDim> padded;
  for (std::size_t i = dims.size(); i < rank; ++i) padded.emplace_back(std::int64_t{1});
  padded.insert(padded.end(), dims.begin(), dims.end());
  return padded;
}

std::optional<std::vector<shapes::SymDim>> Broadcast(const std::vector<shapes::SymDim>& a,
                                                     const std::vector<shapes::SymDim>& b) {
  const shapes::SymDim one(1);
  const std::size_t rank = std::max(a.size(), b.size());
  const std::vector<shapes::SymDim> pa = PadLeft(a, rank), pb = PadLeft(b, rank);
  std::vector<shapes::SymDim> out;
  for (std::size_t i = 0; i < rank; ++i) {
    if (pa[i] == pb[i] || pb[i] == one) {
      out.push_back(pa[i]);
    } else if (pa[i] == one) {
      out.push_back(pb[i]);
    } else {
      return std::nullopt;
    }
  }
  return out;
}

std::int64_t OnnxOpset(const GraphGraph& graph) { return graph.Builder().OpsetVersion("").value_or(0); }

bool BroadcastsMultidirectionally(const GraphGraph& graph) { return OnnxOpset(graph) >= 7; }

namespace {

const AttributeProto* Find(const NodeProto& node, std::string_view name, AttributeProto::AttributeType type) {
  for (const AttributeProto& attr : node.attribute())
    if (attr.name() == name) return attr.type() == type ? &attr : nullptr;
  return nullptr;
}

}  // namespace

void AddIntAttribute(NodeProto& node, std::string_view name, std::int64_t value) {
  AttributeProto& attr = *node.add_attribute();
  attr.set_name(std::string(name));
  attr.set_type(AttributeProto::INT);
  attr.set_i(value);
}

void SetIntAttribute(NodeProto& node, std::string_view name, std::int64_t value) {
  for (AttributeProto& attribute : *node.mutable_attribute()) {
    if (attribute.name() != name) continue;
    attribute.Clear();
    attribute.set_name(std::string(name));
    attribute.set_type(AttributeProto::INT);
    attribute.set_i(value);
    return;
  }
  AddIntAttribute(node, name, value);
}

void AddIntsAttribute(NodeProto& node, std::string_view name, const std::vector<std::int64_t>& values) {
  AttributeProto& attr = *node.add_attribute();
  attr.set_name(std::string(name));
  attr.set_type(AttributeProto::INTS);
  for (std::int64_t value : values) attr.add_ints(value);
}

std::optional<std::int64_t> IntAttr(const NodeProto& node, std::string_view name) {
  const AttributeProto* attr = Find(node, name, AttributeProto::INT);
  return attr ? std::optional<std::int64_t>(attr->i()) : std::nullopt;
}

std::optional<std::vector<std::int64_t>> IntsAttr(const NodeProto& node, std::string_view name) {
  const AttributeProto* attr = Find(node, name, AttributeProto::INTS);
  if (!attr) return std::nullopt;
  return std::vector<std::int64_t>(attr->ints().begin(), attr->ints().end());
}

std::optional<float> FloatAttr(const NodeProto& node, std::string_view name) {
  const AttributeProto* attr = Find(node, name, AttributeProto::FLOAT);
  return attr ? std::optional<float>(attr->f()) : std::nullopt;
}

std::optional<std::string> StringAttr(const NodeProto& node, std::string_view name) {
  const AttributeProto* attr = Find(node, name, AttributeProto::STRING);
  return attr ? std::optional<std::string>(attr->s()) : std::nullopt;
}

std::string_view OptionalInput(const NodeProto& node, int i) {
  return i < node.input_size() ? std::string_view(node.input(i)) : std::string_view();
}

TensorProto IntTensor(const std::vector<std::int64_t>& values, const std::vector<std::int64_t>& dims,
                      int elem_type) {
  eval::Tensor tensor(elem_type, dims);
  if (tensor.size() != static_cast<std::int64_t>(values.size()))
    throw BuilderError("IntTensor: " + std::to_string(values.size()) + " values for dims of " +
                       std::to_string(tensor.size()) + " elements");
  for (std::size_t i = 0; i < values.size(); ++i) {
    if (elem_type == TensorProto::INT32)
      tensor.MutableData<std::int32_t>()[i] = static_cast<std::int32_t>(values[i]);
    else
      tensor.MutableData<std::int64_t>()[i] = values[i];
  }
  return tensor.ToProto("");
}

TensorProto IntTensor(const std::vector<std::int64_t>& values) {
  return IntTensor(values, {static_cast<std::int64_t>(values.size())});
}

std::string DerivedNodeName(GraphGraph& graph, std::string_view pattern, const NodeProto& node) {
  std::string base(pattern);
  base += "--";
  base += !node.name().empty() ? node.name() : (node.output_size() > 0 ? node.output(0) : node.op_type());
  return graph.Builder().UniqueName(base);
}

NodeProto IdentityNode(GraphGraph& graph, std::string_view pattern, const NodeProto& replaced, std::string_view input,
                       std::string_view output) {
  NodeProto node;
  node.set_op_type("Identity");
  node.set_name(DerivedNodeName(graph, pattern, replaced));
  node.add_input(std::string(input));
  node.add_output(std::string(output));
  return node;
}

bool IsPermutation(const std::vector<std::int64_t>& perm) {
  const auto size = static_cast<std::int64_t>(perm.size());
  if (size <= 64) {
    // Tensors have few axes: a bit per axis, no allocation (the transpose optimizer
    // checks every perm its handlers produce).
    std::uint64_t seen = 0;
    for (std::int64_t axis : perm) {
      if (axis < 0 || axis >= size || (seen >> axis & 1) != 0) return false;
      seen |= std::uint64_t{1} << axis;
    }
    return true;
  }
  std::vector<bool> seen(perm.size(), false);
  for (std::int64_t axis : perm) {
    if (axis < 0 || axis >= static_cast<std::int64_t>(perm.size()) || seen[static_cast<std::size_t>(axis)])
      return false;
    seen[static_cast<std::size_t>(axis)] = true;
  }
  return true;
}

bool IsIdentityPermutation(const std::vector<std::int64_t>& perm) {
  for (std::size_t i = 0; i < perm.size(); ++i)
    if (perm[i] != static_cast<std::int64_t>(i)) return false;
  return true;
}

std::vector<std::int64_t> InversePermutation(const std::vector<std::int64_t>& perm) {
  std::vector<std::int64_t> inverse(perm.size());
  for (std::size_t i = 0; i < perm.size(); ++i)
    inverse[static_cast<std::size_t>(perm[i])] = static_cast<std::int64_t>(i);
  return inverse;
}

std::vector<std::int64_t> ComposePermutations(const std::vector<std::int64_t>& first, const std::vector<std::int64_t>& second) {
  std::vector<std::int64_t> composite;
  composite.reserve(second.size());
  for (std::int64_t axis : second) composite.push_back(first[static_cast<std::size_t>(axis)]);
  return composite;
}

bool ComposesToIdentity(const std::vector<std::int64_t>& first, const std::vector<std::int64_t>& second) {
  if (first.size() != second.size()) return false;
  for (std::size_t i = 0; i < second.size(); ++i) {
    const std::int64_t axis = second[i];
    if (axis < 0 || static_cast<std::size_t>(axis) >= first.size() ||
        first[static_cast<std::size_t>(axis)] != static_cast<std::int64_t>(i))
      return false;
  }
  return true;
}

}  // namespace onnxopt::core::builder
