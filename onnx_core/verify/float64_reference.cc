#include "onnx_core/verify/float64_reference.h"

#include <algorithm>
#include <cmath>

#include "onnx_core/eval/tensor.h"
#include "onnx_core/ir/constant_values.h"
#include "onnx_core/ir/graph_queries.h"
#include "onnx_core/ir/renames.h"
#include "onnx_core/ir/tensor_data.h"

namespace onnxopt::core::verify {

namespace {

using eval::Tensor;

// The types the float64 model computes in float64 instead (float8 and float4 types are
// left: their kernels and casts are too particular to be a reference).
bool IsPromoted(int elem_type) {
  return elem_type == TensorProto::FLOAT || elem_type == TensorProto::FLOAT16 ||
         elem_type == TensorProto::BFLOAT16;
}

Tensor ToFloat64(const Tensor& tensor) {
  if (!IsPromoted(tensor.elem_type())) return tensor;
  Tensor promoted = Tensor::ForOverwrite(TensorProto::DOUBLE, tensor.shape());
  const std::vector<double> values = tensor.ToDoubleVector();
  std::copy(values.begin(), values.end(), promoted.MutableData<double>());
  return promoted;
}

// Converts the tensors and types of one graph, its nested graphs included; false (with
// `why`) when a tensor cannot be converted.
class Promoter {
 public:
  explicit Promoter(std::string* why) : why_(why) {}

  bool Graph(GraphProto& graph) {
    for (TensorProto& initializer : *graph.mutable_initializer())
      if (!TensorValue(initializer)) return false;
    for (const SparseTensorProto& sparse : graph.sparse_initializer())
      if (IsPromoted(sparse.values().data_type())) return Fail("the sparse initializer '" + sparse.values().name() + "'");
    for (auto* infos : {graph.mutable_input(), graph.mutable_output(), graph.mutable_value_info()})
      for (ValueInfoProto& info : *infos) Type(*info.mutable_type());
    return Nodes(*graph.mutable_node());
  }

  bool Nodes(google::protobuf::RepeatedPtrField<NodeProto>& nodes) {
    for (NodeProto& node : nodes)
      if (!Node(node)) return false;
    return true;
  }

 private:
  bool Node(NodeProto& node) {
    const bool onnx_domain = ir::IsOnnxDomain(node.domain());
    if (onnx_domain && node.op_type() == "Constant") {
      // value_float and value_floats hold float32 values: the value becomes a tensor.
      std::optional<TensorProto> value = ir::ConstantNodeValue(node);
      if (value && IsPromoted(value->data_type())) {
        if (!TensorValue(*value)) return false;
        node.clear_attribute();
        AttributeProto* attribute = node.add_attribute();
        attribute->set_name("value");
        attribute->set_type(AttributeProto::TENSOR);
        *attribute->mutable_t() = std::move(*value);
        return true;
      }
    }
    bool converted = true;
    ir::ForEachMutableSubgraph(node, [&](GraphProto& graph) { converted = converted && Graph(graph); });
    if (!converted) return false;
    for (AttributeProto& attribute : *node.mutable_attribute()) {
      if (attribute.has_t() && !TensorValue(*attribute.mutable_t())) return false;
      for (TensorProto& tensor : *attribute.mutable_tensors())
        if (!TensorValue(tensor)) return false;
      // Cast's target and the element type of the generators (EyeLike, RandomNormal...).
      const bool type_attribute =
          onnx_domain && ((node.op_type() == "Cast" && attribute.name() == "to") || attribute.name() == "dtype");
      if (type_attribute && attribute.type() == AttributeProto::INT && IsPromoted(static_cast<int>(attribute.i())))
        attribute.set_i(TensorProto::DOUBLE);
    }
    return true;
  }

  bool TensorValue(TensorProto& tensor) {
    if (!IsPromoted(tensor.data_type())) return true;
    if (ir::HasExternalData(tensor)) return Fail("the tensor '" + tensor.name() + "' (external data)");
    tensor = ToFloat64(Tensor::FromProto(tensor)).ToProto(tensor.name());
    return true;
  }

  void Type(TypeProto& type) {
    if (type.has_tensor_type() && IsPromoted(type.tensor_type().elem_type()))
      type.mutable_tensor_type()->set_elem_type(TensorProto::DOUBLE);
    if (type.has_sparse_tensor_type() && IsPromoted(type.sparse_tensor_type().elem_type()))
      type.mutable_sparse_tensor_type()->set_elem_type(TensorProto::DOUBLE);
    if (type.has_sequence_type()) Type(*type.mutable_sequence_type()->mutable_elem_type());
    if (type.has_optional_type()) Type(*type.mutable_optional_type()->mutable_elem_type());
    if (type.has_map_type()) Type(*type.mutable_map_type()->mutable_value_type());
  }

  bool Fail(const std::string& what) {
    *why_ = what + " cannot be converted to float64";
    return false;
  }

  std::string* why_;
};

}  // namespace

std::optional<ModelProto> PromoteToFloat64(const ModelProto& model, std::string* why) {
  ModelProto promoted = model;
  Promoter promoter(why);
  if (!promoter.Graph(*promoted.mutable_graph())) return std::nullopt;
  for (FunctionProto& function : *promoted.mutable_functions())
    if (!promoter.Nodes(*function.mutable_node())) return std::nullopt;
  return promoted;
}

eval::ValueMap ToFloat64(const eval::ValueMap& values) {
  eval::ValueMap promoted;
  for (const auto& [name, value] : values) {
    if (const auto* tensor = std::get_if<Tensor>(&value)) {
      promoted.emplace(name, ToFloat64(*tensor));
    } else if (const auto* sequence = std::get_if<eval::Sequence>(&value)) {
      eval::Sequence converted;
      for (const Tensor& element : *sequence) converted.push_back(ToFloat64(element));
      promoted.emplace(name, std::move(converted));
    } else {
      promoted.emplace(name, value);
    }
  }
  return promoted;
}

std::optional<ErrorInTolerances> MeasureError(const eval::Value& value, const eval::Value& exact,
                                              const eval::ToleranceOptions& tolerances) {
  const auto* tensor = std::get_if<Tensor>(&value);
  const auto* reference = std::get_if<Tensor>(&exact);
  if (!tensor || !reference || !eval::IsFloatingPointType(tensor->elem_type()) ||
      reference->elem_type() != TensorProto::DOUBLE || tensor->shape() != reference->shape())
    return std::nullopt;
  const eval::Tolerance tolerance = eval::ToleranceOf(tensor->elem_type(), tolerances);
  const std::vector<double> x = tensor->ToDoubleVector();
  const double* r = reference->Data<double>();
  ErrorInTolerances error;
  double squares = 0;
  for (std::size_t i = 0; i < x.size(); ++i) {
    if (!std::isfinite(x[i]) || !std::isfinite(r[i])) return std::nullopt;
    const double difference = std::abs(x[i] - r[i]);
    if (difference == 0) continue;
    const double scale = tolerance.atol + tolerance.rtol * std::abs(r[i]);
    if (scale == 0) return std::nullopt;  // a zero tolerance accepts exact agreement only
    error.largest = std::max(error.largest, difference / scale);
    squares += (difference / scale) * (difference / scale);
  }
  if (!x.empty()) error.rms = std::sqrt(squares / static_cast<double>(x.size()));
  return error;
}

RoundingVerdict AsAccurateAs(const eval::Value& candidate, const eval::Value& original, const eval::Value& exact,
                             const eval::ToleranceOptions& tolerances) {
  RoundingVerdict verdict;
  verdict.original_error = MeasureError(original, exact, tolerances);
  verdict.candidate_error = MeasureError(candidate, exact, tolerances);
  if (!verdict.original_error || !verdict.candidate_error) return verdict;
  const ErrorInTolerances& a = *verdict.original_error;
  const ErrorInTolerances& b = *verdict.candidate_error;
  verdict.as_accurate = b.rms <= 2 * std::max(a.rms, 0.5) && b.largest <= 5 * std::max(a.largest, 0.5);
  return verdict;
}

}  // namespace onnxopt::core::verify
