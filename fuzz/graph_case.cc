// Random small graphs from the operator schemas, and the checks they must pass
// (graph_case.h).

#include "fuzz/graph_case.h"

#include <algorithm>
#include <array>
#include <bit>
#include <cmath>
#include <limits>
#include <set>
#include <stdexcept>
#include <string_view>
#include <typeinfo>
#include <vector>

#include "onnx_core/builder/graph_builder.h"
#include "onnx_core/common/error.h"
#include "onnx_core/eval/float8.h"
#include "onnx_core/eval/random_seed.h"
#include "onnx_core/eval/value_comparison.h"
#include "onnx_core/ir/graph_check.h"
#include "onnx_core/ir/model_io.h"
#include "onnx_core/ir/op_schema.h"
#include "onnx_core/ir/tensor_data.h"
#include "onnx_core/memory/inplace_run.h"
#include "onnx_core/optimizer/graph_graph.h"
#include "onnx_core/optimizer/local_rewriting.h"
#include "onnx_core/optimizer/rewrite_file.h"
#include "onnx_core/shapes/model_validity.h"
#include "onnx_extensions/kernels/register_kernels.h"
#include "onnx_extensions/patterns/dispatch_table.h"
#include "onnx_extensions/schemas/onnx_schemas_table.h"
#include "onnx_extensions/shapes/register_shape_functions.h"

namespace onnxopt::fuzz {

namespace {

using core::eval::Tensor;
using core::ir::AttributeSchema;
using core::ir::FormalParameter;
using core::ir::OpSchema;

constexpr int kMaxNodes = 6;
// Arguments of an unbounded variadic parameter beyond its minimum.
constexpr int kMaxExtraVariadic = 3;
constexpr int kMaxRecordEdits = 4;
constexpr const char* kSymbol = "N";

// The kind of value a parameter takes (the four fields of ir::TypeSet).
enum class Kind { kTensor, kSequence, kOptional, kOptionalSequence };

struct ValueType {
  Kind kind = Kind::kTensor;
  int elem = 0;
};

std::uint32_t KindBits(const core::ir::TypeSet& types, Kind kind) {
  switch (kind) {
    case Kind::kTensor: return types.tensor;
    case Kind::kSequence: return types.sequence;
    case Kind::kOptional: return types.optional;
    case Kind::kOptionalSequence: return types.optional_sequence;
  }
  return 0;
}

// The ai.onnx schemas in force at each opset (index: version), in table order.
const std::vector<const OpSchema*>& SchemasInForce(int opset) {
  constexpr int kNewestOpset = kNewestGraphCaseRange.newest_opset;
  static const std::array<std::vector<const OpSchema*>, kNewestOpset + 1> table = [] {
    std::array<std::vector<const OpSchema*>, kNewestOpset + 1> result;
    std::set<std::string_view> op_types;
    for (const OpSchema& schema : onnx_schemas::OnnxOpSchemas())
      if (schema.domain.empty()) op_types.insert(schema.op_type);
    for (int version = 1; version <= kNewestOpset; ++version)
      for (std::string_view op_type : op_types)
        if (const OpSchema* schema = core::ir::FindOpSchema("", op_type, version)) result[version].push_back(schema);
    return result;
  }();
  return table[static_cast<std::size_t>(opset)];
}

void SetTensorType(TypeProto::Tensor& type, int elem, const std::vector<std::int64_t>& dims, int symbolic_dim) {
  type.set_elem_type(elem);
  auto* shape = type.mutable_shape();
  for (std::size_t i = 0; i < dims.size(); ++i) {
    if (static_cast<int>(i) == symbolic_dim) shape->add_dim()->set_dim_param(kSymbol);
    else shape->add_dim()->set_dim_value(dims[i]);
  }
}

class Generator {
 public:
  Generator(FuzzedDataProvider& data, GraphCaseRange range, const std::set<std::string>& favoured_op_types)
      : data_(data), range_(range), favoured_op_types_(favoured_op_types) {}

  GraphCase Generate() {
    opset_ = Chance(5) ? data_.ConsumeIntegralInRange(1, 12) : data_.ConsumeIntegralInRange(13, range_.newest_opset);
    // Bytes are drawn for the favoured operators only when there are some: without them
    // the reproducers build what they were found with.
    if (!favoured_op_types_.empty() && Chance(2)) opset_ = range_.newest_opset;
    symbol_value_ = data_.ConsumeIntegralInRange<std::int64_t>(0, 3);
    ModelProto& model = case_.model;
    model.set_ir_version(Chance(10) ? data_.ConsumeIntegralInRange(3, 11) : 10);
    auto* opset = model.add_opset_import();
    opset->set_domain("");
    opset->set_version(opset_);
    model.set_producer_name("graph_fuzzer");
    graph_ = model.mutable_graph();
    graph_->set_name("fuzz");
    const int node_count = data_.ConsumeIntegralInRange(1, kMaxNodes);
    for (int i = 0; i < node_count; ++i) AddNode(PickSchema());
    AddGraphOutputs();
    // Drawn last, so that the bytes of earlier findings still make the same graph.
    if (!Chance(2)) {
      const int edits = data_.ConsumeIntegralInRange(1, kMaxRecordEdits);
      for (int i = 0; i < edits; ++i)
        case_.record_edits.push_back({data_.ConsumeIntegral<std::uint32_t>(), data_.ConsumeIntegral<std::uint8_t>()});
    }
    return std::move(case_);
  }

 private:
  struct KnownValue {
    std::string name;
    std::optional<ValueType> type;  // unknown for outputs whose type depends on values
  };

  bool Chance(int one_in) { return data_.ConsumeIntegralInRange(0, one_in - 1) == 0; }

  const OpSchema& PickSchema() {
    const std::vector<const OpSchema*>& schemas = SchemasInForce(opset_);
    if (!favoured_op_types_.empty() && Chance(2)) {
      std::vector<const OpSchema*> favoured;
      for (const OpSchema* schema : schemas)
        if (favoured_op_types_.contains(std::string(schema->op_type))) favoured.push_back(schema);
      if (!favoured.empty()) return *PickFrom(favoured);
    }
    return *PickFrom(schemas);
  }

  template <class T>
  const T& PickFrom(const std::vector<T>& items) {
    return items[data_.ConsumeIntegralInRange<std::size_t>(0, items.size() - 1)];
  }

  std::string NewName(std::string_view prefix) { return std::string(prefix) + std::to_string(counter_++); }

  // --- Types, shapes and values ----------------------------------------------------

  int PickElemType(std::uint32_t bits) {
    std::vector<int> types;
    for (int elem = 1; elem <= range_.newest_elem_type; ++elem)
      if (bits & (1u << elem)) types.push_back(elem);
    if (types.empty()) return data_.ConsumeIntegralInRange(1, range_.newest_elem_type);
    return PickFrom(types);
  }

  Kind PickKind(const core::ir::TypeSet& types) {
    std::vector<Kind> kinds;
    for (Kind kind : {Kind::kTensor, Kind::kSequence, Kind::kOptional, Kind::kOptionalSequence})
      if (KindBits(types, kind)) kinds.push_back(kind);
    if (kinds.empty()) return Kind::kTensor;
    // Tensors first: most parameters that also take sequences are tensors in practice.
    if (kinds.front() == Kind::kTensor && !Chance(4)) return Kind::kTensor;
    return PickFrom(kinds);
  }

  std::vector<std::int64_t> RandomDims() {
    const int rank = Chance(8) ? 4 : data_.ConsumeIntegralInRange(0, 3);
    std::vector<std::int64_t> dims;
    for (int i = 0; i < rank; ++i) dims.push_back(Chance(8) ? 0 : data_.ConsumeIntegralInRange(1, 4));
    return dims;
  }

  double InterestingFloat() {
    static constexpr double kValues[] = {0.0, -0.0, 1.0, -1.0, 0.5, 2.0, 3.0, -2.5, 1e-7,
                                         std::numeric_limits<double>::quiet_NaN(),
                                         std::numeric_limits<double>::infinity(),
                                         -std::numeric_limits<double>::infinity(),
                                         std::numeric_limits<float>::max(), std::numeric_limits<float>::lowest(),
                                         std::numeric_limits<float>::denorm_min(), 65504.0, 1e30};
    if (Chance(2)) return data_.ConsumeFloatingPointInRange(-4.0, 4.0);
    return kValues[data_.ConsumeIntegralInRange<std::size_t>(0, std::size(kValues) - 1)];
  }

  template <class T>
  T InterestingInteger() {
    using Limits = std::numeric_limits<T>;
    const int choice = data_.ConsumeIntegralInRange(0, 9);
    if (choice < 6) return static_cast<T>(data_.ConsumeIntegralInRange<int>(Limits::is_signed ? -3 : 0, 4));
    if (choice == 6) return Limits::min();
    if (choice == 7) return Limits::max();
    if constexpr (sizeof(T) == 8) {
      static constexpr std::int64_t kHuge[] = {std::int64_t{1} << 40, -(std::int64_t{1} << 40), std::int64_t{1} << 31,
                                               -(std::int64_t{1} << 31)};
      return static_cast<T>(kHuge[data_.ConsumeIntegralInRange<std::size_t>(0, std::size(kHuge) - 1)]);
    }
    return data_.ConsumeIntegral<T>();
  }

  template <class T>
  void FillIntegers(Tensor& tensor) {
    T* values = tensor.MutableData<T>();
    for (std::int64_t i = 0; i < tensor.size(); ++i) values[i] = InterestingInteger<T>();
  }

  // A tensor of `elem` and `dims` holding edge values: zeros of both signs, ±1, NaN,
  // infinities, the type's extremes, huge and negative counts.
  Tensor RandomTensor(int elem, const std::vector<std::int64_t>& dims) {
    Tensor tensor(elem, dims);
    const std::int64_t count = tensor.size();
    switch (elem) {
      case TensorProto::FLOAT: {
        float* values = tensor.MutableData<float>();
        for (std::int64_t i = 0; i < count; ++i) values[i] = static_cast<float>(InterestingFloat());
        break;
      }
      case TensorProto::DOUBLE: {
        double* values = tensor.MutableData<double>();
        for (std::int64_t i = 0; i < count; ++i) values[i] = InterestingFloat();
        break;
      }
      case TensorProto::FLOAT16:
      case TensorProto::BFLOAT16: {
        auto* values = tensor.MutableData<std::uint16_t>();
        for (std::int64_t i = 0; i < count; ++i) {
          const auto value = static_cast<float>(InterestingFloat());
          values[i] = elem == TensorProto::FLOAT16 ? core::eval::FloatToHalf(value) : core::eval::FloatToBFloat16(value);
        }
        break;
      }
      case TensorProto::INT8: FillIntegers<std::int8_t>(tensor); break;
      case TensorProto::INT16: FillIntegers<std::int16_t>(tensor); break;
      case TensorProto::INT32: FillIntegers<std::int32_t>(tensor); break;
      case TensorProto::INT64: FillIntegers<std::int64_t>(tensor); break;
      case TensorProto::UINT16: FillIntegers<std::uint16_t>(tensor); break;
      case TensorProto::UINT32: FillIntegers<std::uint32_t>(tensor); break;
      case TensorProto::UINT64: FillIntegers<std::uint64_t>(tensor); break;
      case TensorProto::UINT8: FillIntegers<std::uint8_t>(tensor); break;
      case TensorProto::BOOL: {
        bool* values = tensor.MutableData<bool>();
        for (std::int64_t i = 0; i < count; ++i) values[i] = data_.ConsumeBool();
        break;
      }
      case TensorProto::STRING: {
        static const std::vector<std::string> kStrings = {"", "a", "Hello World", "0", "-1.5", "\xff\xfe", "ABC abc"};
        std::string* values = tensor.MutableData<std::string>();
        for (std::int64_t i = 0; i < count; ++i) values[i] = PickFrom(kStrings);
        break;
      }
      case core::eval::kInt4: {
        auto* values = tensor.MutableData<std::int8_t>();
        for (std::int64_t i = 0; i < count; ++i) values[i] = data_.ConsumeIntegralInRange<std::int8_t>(-8, 7);
        break;
      }
      case core::eval::kUint4:
      case core::eval::kFloat4E2M1: {
        auto* values = tensor.MutableData<std::uint8_t>();
        for (std::int64_t i = 0; i < count; ++i) values[i] = data_.ConsumeIntegralInRange<std::uint8_t>(0, 15);
        break;
      }
      case core::eval::kInt2: {
        auto* values = tensor.MutableData<std::int8_t>();
        for (std::int64_t i = 0; i < count; ++i) values[i] = data_.ConsumeIntegralInRange<std::int8_t>(-2, 1);
        break;
      }
      case core::eval::kUint2: {
        auto* values = tensor.MutableData<std::uint8_t>();
        for (std::int64_t i = 0; i < count; ++i) values[i] = data_.ConsumeIntegralInRange<std::uint8_t>(0, 3);
        break;
      }
      default: {  // the float8 formats: any code (NaN codes included)
        if (core::eval::StorageBytes(elem) != 1) break;
        auto* values = tensor.MutableData<std::uint8_t>();
        for (std::int64_t i = 0; i < count; ++i) values[i] = data_.ConsumeIntegral<std::uint8_t>();
        break;
      }
    }
    return tensor;
  }

  static bool IsComplex(int elem) { return elem == TensorProto::COMPLEX64 || elem == TensorProto::COMPLEX128; }

  // RandomTensor's proto; complex tensors (which the evaluator does not compute with) get
  // raw bytes of float edge values.
  TensorProto RandomTensorProto(int elem, const std::vector<std::int64_t>& dims, const std::string& name) {
    if (!IsComplex(elem)) return RandomTensor(elem, dims).ToProto(name);
    std::vector<std::int64_t> parts = dims;
    parts.push_back(2);  // real and imaginary parts
    const int part_type = elem == TensorProto::COMPLEX64 ? TensorProto::FLOAT : TensorProto::DOUBLE;
    TensorProto proto = RandomTensor(part_type, parts).ToProto(name);
    proto.set_data_type(elem);
    proto.clear_dims();
    for (std::int64_t dim : dims) proto.add_dims(dim);
    return proto;
  }

  static void SetType(TypeProto& type, const ValueType& value_type, const std::vector<std::int64_t>& dims,
                      int symbolic_dim) {
    switch (value_type.kind) {
      case Kind::kTensor:
        SetTensorType(*type.mutable_tensor_type(), value_type.elem, dims, symbolic_dim);
        break;
      case Kind::kSequence:
        type.mutable_sequence_type()->mutable_elem_type()->mutable_tensor_type()->set_elem_type(value_type.elem);
        break;
      case Kind::kOptional:
        SetTensorType(*type.mutable_optional_type()->mutable_elem_type()->mutable_tensor_type(), value_type.elem, dims,
                      symbolic_dim);
        break;
      case Kind::kOptionalSequence:
        type.mutable_optional_type()->mutable_elem_type()->mutable_sequence_type()->mutable_elem_type()
            ->mutable_tensor_type()->set_elem_type(value_type.elem);
        break;
    }
  }

  core::eval::Sequence RandomSequence(int elem) {
    core::eval::Sequence sequence;
    const int length = data_.ConsumeIntegralInRange(0, 2);
    const std::vector<std::int64_t> dims = RandomDims();
    for (int i = 0; i < length; ++i) sequence.push_back(RandomTensor(elem, dims));
    return sequence;
  }

  // --- Sources of node inputs ------------------------------------------------------

  std::string AddGraphInput(const ValueType& type) {
    const std::string name = NewName("x");
    const std::vector<std::int64_t> dims = RandomDims();
    const int symbolic_dim = !dims.empty() && Chance(4) ? data_.ConsumeIntegralInRange<int>(0, static_cast<int>(dims.size()) - 1) : -1;
    ValueInfoProto* input = graph_->add_input();
    input->set_name(name);
    SetType(*input->mutable_type(), type, dims, symbolic_dim);
    std::vector<std::int64_t> value_dims = dims;
    if (symbolic_dim >= 0) value_dims[static_cast<std::size_t>(symbolic_dim)] = symbol_value_;
    core::eval::Value value;
    if (IsComplex(type.elem)) {  // no value: the evaluator refuses the model
      values_.push_back({name, type});
      return name;
    }
    switch (type.kind) {
      case Kind::kTensor: value = RandomTensor(type.elem, value_dims); break;
      case Kind::kSequence: value = RandomSequence(type.elem); break;
      case Kind::kOptional:
        if (!Chance(3)) value = RandomTensor(type.elem, value_dims);
        break;
      case Kind::kOptionalSequence:
        if (!Chance(3)) value = RandomSequence(type.elem);
        break;
    }
    case_.inputs.emplace(name, std::move(value));
    values_.push_back({name, type});
    return name;
  }

  std::string AddInitializer(int elem) {
    const std::string name = NewName("w");
    *graph_->add_initializer() = RandomTensorProto(elem, RandomDims(), name);
    values_.push_back({name, ValueType{Kind::kTensor, elem}});
    return name;
  }

  std::string AddConstant(int elem) {
    const std::string name = NewName("c");
    NodeProto* node = graph_->add_node();
    node->set_op_type("Constant");
    node->set_name(name + "_node");
    node->add_output(name);
    AttributeProto* value = node->add_attribute();
    value->set_name("value");
    value->set_type(AttributeProto::TENSOR);
    *value->mutable_t() = RandomTensorProto(elem, RandomDims(), name);
    values_.push_back({name, ValueType{Kind::kTensor, elem}});
    return name;
  }

  // An input for `param`: an earlier value of a fitting type, or a new graph input,
  // initializer or Constant. `bound` holds the element type chosen for each type
  // variable of the node (0: not yet chosen). A node that breaks a rule on purpose
  // sometimes gets a type outside the allowed ones.
  std::string InputFor(const FormalParameter& param, std::vector<int>& bound, bool break_rule) {
    const bool shares_variable = param.variable >= 0 && !param.heterogeneous;
    int* binding = shares_variable ? &bound[static_cast<std::size_t>(param.variable)] : nullptr;
    if (!values_.empty() && Chance(12)) return PickFrom(values_).name;  // any type

    const Kind kind = PickKind(param.allowed);
    const std::uint32_t bits = KindBits(param.allowed, kind);
    std::vector<const KnownValue*> fitting;
    for (const KnownValue& value : values_) {
      if (!value.type || value.type->kind != kind) continue;
      if (binding && *binding ? value.type->elem == *binding : (bits & (1u << value.type->elem)) != 0)
        fitting.push_back(&value);
    }
    if (!fitting.empty() && data_.ConsumeIntegralInRange(0, 4) < 2) {
      const KnownValue& value = *PickFrom(fitting);
      if (binding && !*binding) *binding = value.type->elem;
      return value.name;
    }
    int elem = binding && *binding ? *binding : PickElemType(bits);
    if (break_rule && Chance(3)) elem = data_.ConsumeIntegralInRange(1, range_.newest_elem_type);
    if (binding && !*binding) *binding = elem;
    if (kind == Kind::kTensor) {
      const int source = data_.ConsumeIntegralInRange(0, 5);
      if (source < 2) return AddInitializer(elem);
      if (source == 2) return AddConstant(elem);
    }
    return AddGraphInput({kind, elem});
  }

  // --- Attributes ------------------------------------------------------------------

  std::int64_t InterestingInt() { return InterestingInteger<std::int64_t>(); }

  std::int64_t ElemTypeCode() {
    static const std::vector<std::int64_t> kInvalidCodes = {0, -1, 99};
    if (Chance(10)) return PickFrom(kInvalidCodes);
    return data_.ConsumeIntegralInRange(1, Chance(4) ? range_.newest_elem_type : 16);
  }

  std::string InterestingString() {
    static const std::vector<std::string> kStrings = {
        "", "NOTSET", "SAME_UPPER", "SAME_LOWER", "VALID", "constant", "reflect", "edge", "wrap", "nearest",
        "linear", "cubic", "bilinear", "half_pixel", "asymmetric", "align_corners", "pytorch_half_pixel",
        "tf_crop_and_resize", "half_pixel_symmetric", "round_prefer_floor", "round_prefer_ceil", "floor", "ceil",
        "Sigmoid", "Tanh", "Relu", "forward", "reverse", "bidirectional", "mean", "sum", "none", "max", "min", "avg",
        "add", "mul", "LOWER", "UPPER", "zeros", "border", "reflection", "i,j->ij", "ij,jk->ik", "...ii->...i",
        "ab,bc", "a", "\xff\xfe", "left", "right", "not_larger", "not_smaller", "stretch", "tanh", "exact"};
    return PickFrom(kStrings);
  }

  TensorProto SmallTensorProto(const std::string& name) {
    return RandomTensorProto(data_.ConsumeIntegralInRange(1, 16), RandomDims(), name);
  }

  // A random permutation of 0..rank-1 (Transpose's perm), sometimes broken.
  std::vector<std::int64_t> Permutation() {
    std::vector<std::int64_t> perm(static_cast<std::size_t>(data_.ConsumeIntegralInRange(0, 4)));
    for (std::size_t i = 0; i < perm.size(); ++i) perm[i] = static_cast<std::int64_t>(i);
    for (std::size_t i = perm.size(); i > 1; --i)
      std::swap(perm[i - 1], perm[data_.ConsumeIntegralInRange<std::size_t>(0, i - 1)]);
    return perm;
  }

  void FillAttribute(AttributeProto& attribute, AttributeProto::AttributeType type) {
    const std::string& name = attribute.name();
    const bool is_type_code = name == "to" || name == "dtype" || name == "output_dtype" || name == "stash_type";
    attribute.set_type(type);
    const int length = data_.ConsumeIntegralInRange(0, 4);
    switch (type) {
      case AttributeProto::INT: attribute.set_i(is_type_code ? ElemTypeCode() : InterestingInt()); break;
      case AttributeProto::FLOAT: attribute.set_f(static_cast<float>(InterestingFloat())); break;
      case AttributeProto::STRING: attribute.set_s(InterestingString()); break;
      case AttributeProto::INTS:
        if (name == "perm" && !Chance(4)) {
          for (std::int64_t axis : Permutation()) attribute.add_ints(axis);
          break;
        }
        for (int i = 0; i < length; ++i) attribute.add_ints(InterestingInt());
        break;
      case AttributeProto::FLOATS:
        for (int i = 0; i < length; ++i) attribute.add_floats(static_cast<float>(InterestingFloat()));
        break;
      case AttributeProto::STRINGS:
        for (int i = 0; i < length; ++i) attribute.add_strings(InterestingString());
        break;
      case AttributeProto::TENSOR: *attribute.mutable_t() = SmallTensorProto(""); break;
      case AttributeProto::TENSORS:
        for (int i = 0; i < length; ++i) *attribute.add_tensors() = SmallTensorProto("");
        break;
      case AttributeProto::SPARSE_TENSOR: FillSparseTensor(*attribute.mutable_sparse_tensor()); break;
      case AttributeProto::SPARSE_TENSORS:
        for (int i = 0; i < length; ++i) FillSparseTensor(*attribute.add_sparse_tensors());
        break;
      case AttributeProto::TYPE_PROTO:
        attribute.mutable_tp()->mutable_tensor_type()->set_elem_type(static_cast<int>(ElemTypeCode()));
        break;
      case AttributeProto::TYPE_PROTOS:
        for (int i = 0; i < length; ++i)
          attribute.add_type_protos()->mutable_tensor_type()->set_elem_type(static_cast<int>(ElemTypeCode()));
        break;
      case AttributeProto::GRAPH: attribute.mutable_g()->set_name(NewName("empty")); break;  // bodies: AddBodies
      case AttributeProto::GRAPHS:
        for (int i = 0; i < length; ++i) attribute.add_graphs()->set_name(NewName("empty"));
        break;
      default: break;
    }
  }

  // A 1-D sparse tensor whose indices are sometimes out of range or unsorted.
  void FillSparseTensor(SparseTensorProto& sparse) {
    const std::int64_t dim = data_.ConsumeIntegralInRange(0, 6);
    sparse.add_dims(dim);
    const int count = data_.ConsumeIntegralInRange(0, 3);
    *sparse.mutable_values() = RandomTensor(TensorProto::FLOAT, {count}).ToProto("sparse_values");
    Tensor indices(TensorProto::INT64, {count});
    for (int i = 0; i < count; ++i)
      indices.MutableData<std::int64_t>()[i] = Chance(6) ? InterestingInt() : data_.ConsumeIntegralInRange<std::int64_t>(0, dim);
    *sparse.mutable_indices() = indices.ToProto("sparse_indices");
  }

  void AddAttributes(NodeProto& node, const OpSchema& schema) {
    for (const AttributeSchema& attribute_schema : schema.attributes) {
      if (attribute_schema.required ? Chance(20) : !Chance(2)) continue;
      AttributeProto& attribute = *node.add_attribute();
      attribute.set_name(std::string(attribute_schema.name));
      auto type = attribute_schema.type;
      if (Chance(25)) type = static_cast<AttributeProto::AttributeType>(data_.ConsumeIntegralInRange(1, 14));
      FillAttribute(attribute, type);
    }
    if (Chance(30)) {
      AttributeProto& unknown = *node.add_attribute();
      unknown.set_name("fuzz_unknown");
      FillAttribute(unknown, AttributeProto::INT);
    }
  }

  // --- Nested graphs -------------------------------------------------------------------

  std::optional<ValueType> TypeOf(const std::string& name) const {
    for (const KnownValue& value : values_)
      if (value.name == name) return value.type;
    return std::nullopt;
  }

  // A body with the given inputs (types when known) and `output_count` outputs. Output j
  // is usually the Identity of input j + `offset` (a Loop body passes its condition and
  // carried values through), otherwise of another body input or of a value of the
  // enclosing graph, or a Constant.
  GraphProto Body(const std::vector<std::optional<ValueType>>& input_types, int output_count, int offset) {
    GraphProto body;
    const std::string prefix = NewName("body");
    body.set_name(prefix);
    std::vector<std::string> visible;
    for (std::size_t i = 0; i < input_types.size(); ++i) {
      ValueInfoProto* input = body.add_input();
      input->set_name(prefix + "_in" + std::to_string(i));
      if (input_types[i]) SetType(*input->mutable_type(), *input_types[i], {}, -1);
      visible.push_back(input->name());
    }
    for (const KnownValue& value : values_) visible.push_back(value.name);
    for (int j = 0; j < output_count; ++j) {
      const std::string output = prefix + "_out" + std::to_string(j);
      body.add_output()->set_name(output);
      NodeProto* node = body.add_node();
      node->add_output(output);
      node->set_op_type("Identity");
      if (j + offset < body.input_size() && !Chance(4)) node->add_input(body.input(j + offset).name());
      else if (!visible.empty() && !Chance(3)) node->add_input(PickFrom(visible));
      else SetConstantValue(*node, SmallTensorProto(output));
    }
    return body;
  }

  static void SetConstantValue(NodeProto& node, TensorProto value) {
    node.set_op_type("Constant");
    node.clear_input();
    AttributeProto* attribute = node.add_attribute();
    attribute->set_name("value");
    attribute->set_type(AttributeProto::TENSOR);
    *attribute->mutable_t() = std::move(value);
  }

  // Fills the GRAPH attributes of If, Loop, Scan and SequenceMap with tiny bodies whose
  // signatures follow the node's inputs and outputs (sometimes not quite).
  void AddBodies(NodeProto& node) {
    const int inputs = node.input_size(), outputs = node.output_size();
    for (AttributeProto& attribute : *node.mutable_attribute()) {
      if (attribute.type() != AttributeProto::GRAPH) continue;
      std::vector<std::optional<ValueType>> body_inputs;
      int body_outputs = outputs, offset = 0;
      const bool loop = node.op_type() == "Loop";
      if (loop) {
        body_inputs = {ValueType{Kind::kTensor, TensorProto::INT64}, ValueType{Kind::kTensor, TensorProto::BOOL}};
        for (int i = 2; i < inputs; ++i) body_inputs.push_back(TypeOf(node.input(i)));
        body_outputs = 1 + outputs;
        offset = 1;
      } else if (node.op_type() == "Scan" || node.op_type() == "SequenceMap") {
        for (int i = 0; i < inputs; ++i) body_inputs.push_back(TypeOf(node.input(i)));
      }
      if (Chance(8)) body_outputs += Chance(2) ? 1 : -1;
      *attribute.mutable_g() = Body(body_inputs, std::max(body_outputs, 0), offset);
      // A Loop's trip count is often huge (INT64_MAX, 2^40): its body mostly stops after
      // the first iteration, so that evaluating the model takes no longer than a moment.
      if (loop && attribute.g().node_size() > 0 && !Chance(4)) {
        NodeProto& condition = *attribute.mutable_g()->mutable_node(0);
        SetConstantValue(condition, MakeBoolScalar(condition.output(0)));
      }
    }
  }

  static TensorProto MakeBoolScalar(const std::string& name) {
    TensorProto value;
    value.set_name(name);
    value.set_data_type(TensorProto::BOOL);
    value.add_int32_data(0);
    return value;
  }

  // --- Nodes and outputs ---------------------------------------------------------------

  int PickCount(int min_count, int max_count) {
    if (max_count < 0) max_count = min_count + kMaxExtraVariadic;
    return data_.ConsumeIntegralInRange(min_count, std::max(min_count, max_count));
  }

  void AddNode(const OpSchema& schema) {
    NodeProto node;
    node.set_op_type(std::string(schema.op_type));
    node.set_name(NewName("n"));
    const bool break_rule = Chance(16);
    int input_count = PickCount(schema.min_inputs, schema.max_inputs);
    if (break_rule && Chance(2)) input_count = std::max(0, input_count + (data_.ConsumeBool() ? 1 : -1));
    std::vector<int> bound(schema.variables.size(), 0);
    for (int i = 0; i < input_count; ++i) {
      const FormalParameter* param = schema.Input(i);
      if (!param) node.add_input(values_.empty() ? AddInitializer(TensorProto::FLOAT) : PickFrom(values_).name);
      else if (param->option == FormalParameter::Option::kOptional && Chance(4)) node.add_input("");
      else node.add_input(InputFor(*param, bound, break_rule));
    }
    AddAttributes(node, schema);
    AddBodies(node);
    const int output_count = PickCount(schema.min_outputs, schema.max_outputs);
    for (int j = 0; j < output_count; ++j) {
      const FormalParameter* param = schema.Output(j);
      if (param && param->option == FormalParameter::Option::kOptional && j + 1 < output_count && Chance(4)) {
        node.add_output("");
        continue;
      }
      node.add_output(node.name() + "_y" + std::to_string(j));
      outputs_.push_back(node.output(j));
      values_.push_back({node.output(j), OutputType(param, bound)});
    }
    *graph_->add_node() = std::move(node);
  }

  // The output's type when the schema fixes it or binds it to an input's type variable.
  static std::optional<ValueType> OutputType(const FormalParameter* param, const std::vector<int>& bound) {
    if (!param || param->heterogeneous) return std::nullopt;
    const auto& types = param->allowed;
    const int kinds = (types.tensor != 0) + (types.sequence != 0) + (types.optional != 0) +
                      (types.optional_sequence != 0);
    if (kinds != 1) return std::nullopt;
    const Kind kind = types.tensor ? Kind::kTensor
                      : types.sequence ? Kind::kSequence
                      : types.optional ? Kind::kOptional
                                       : Kind::kOptionalSequence;
    const std::uint32_t bits = KindBits(types, kind);
    if (param->variable >= 0 && bound[static_cast<std::size_t>(param->variable)])
      return ValueType{kind, bound[static_cast<std::size_t>(param->variable)]};
    if (std::has_single_bit(bits)) return ValueType{kind, std::countr_zero(bits)};
    return std::nullopt;
  }

  void AddGraphOutputs() {
    std::vector<std::string> chosen;
    for (const std::string& name : outputs_)
      if (Chance(2)) chosen.push_back(name);
    if (chosen.empty() && !outputs_.empty()) chosen.push_back(outputs_.back());
    if (chosen.empty()) chosen.push_back(values_.empty() ? AddInitializer(TensorProto::FLOAT) : values_.back().name);
    for (const std::string& name : chosen) graph_->add_output()->set_name(name);
  }

  FuzzedDataProvider& data_;
  GraphCase case_;
  GraphProto* graph_ = nullptr;
  const GraphCaseRange range_;
  const std::set<std::string>& favoured_op_types_;
  int opset_ = range_.newest_opset;
  std::int64_t symbol_value_ = 2;
  int counter_ = 0;
  std::vector<KnownValue> values_;    // what a node input may read, in definition order
  std::vector<std::string> outputs_;  // node outputs (graph output candidates)
};

// --- The pipeline ----------------------------------------------------------------------

// How a step ended: it succeeded, refused the model with a user-facing error (exit 2 on
// the command line), or failed in a way no model may cause (exit 3, a crash-like error).
struct StepResult {
  bool refused = false;
  std::string message;                 // of the refusal
  std::optional<std::string> finding;  // of the failure
};

template <class Body>
StepResult RunStep(std::string_view step, Body&& body) {
  const std::string prefix = std::string(step) + ": ";
  try {
    body();
    return {};
  } catch (const ModelError& error) {
    return {true, error.what(), std::nullopt};
  } catch (const IoError& error) {
    return {true, error.what(), std::nullopt};
  } catch (const BuilderError& error) {
    return {false, "", prefix + "BuilderError (internal error, exit 3): " + error.what()};
  } catch (const std::bad_alloc&) {
    return {false, "", prefix + "out of memory (std::bad_alloc, exit 3)"};
  } catch (const std::exception& error) {
    return {false, "", prefix + "unexpected exception " + typeid(error).name() + " (exit 3): " + error.what()};
  }
}

// `optimize --record` then `replay`, as the command line runs them: the rewrite file,
// written and read back, must give the optimized model again, byte for byte. Edited by
// `edits` (its checksum made right), it must be refused with a user-facing error (replay
// exits 2 on a BuilderError of Replay: a record that does not fit), or give a model that
// passes the model checks.
std::optional<std::string> FindReplayProblem(const ModelProto& original, std::vector<core::builder::LocalRewriting> records,
                                             const ModelProto& optimized, const std::vector<RecordEdit>& edits) {
  const std::string fingerprint = core::builder::ModelFingerprint(original);
  std::string file;
  StepResult step = RunStep("record", [&] {
    core::builder::DescribeRemovedNodes(core::builder::ReplaySkeleton(original), records);
    file = core::builder::SerializeRewrites(records, fingerprint);
  });
  if (step.refused) return "optimize cannot record its rewrites: " + step.message;
  if (step.finding) return step.finding;
  step = RunStep("replay", [&] {
    core::builder::GraphBuilder builder{ModelProto(original)};
    core::builder::Replay(builder, core::builder::ParseRewriteFile(file).rewrites);
    if (core::ir::SerializeDeterministic(std::move(builder).TakeModel()) != core::ir::SerializeDeterministic(optimized))
      throw std::logic_error("replaying the rewrite file gives another model than optimize saved");
  });
  if (step.refused) return "replay refuses the rewrite file optimize wrote: " + step.message;
  if (step.finding || edits.empty()) return step.finding;

  // The header (signature, version, fingerprint, input shapes) is left as it is: edits
  // there are refused before any record is read.
  const std::size_t checksum_bytes = core::builder::RewriteFileChecksum("").size();
  const std::size_t header = core::builder::SerializeRewrites({}, fingerprint).size() - 1 - checksum_bytes;
  std::string edited = file.substr(0, file.size() - checksum_bytes);
  for (const RecordEdit& edit : edits)
    edited[header + edit.offset % (edited.size() - header)] = static_cast<char>(edit.value);
  edited += core::builder::RewriteFileChecksum(edited);
  ModelProto replayed;
  step = RunStep("replay an edited rewrite file", [&] {
    const core::builder::RewriteFile parsed = core::builder::ParseRewriteFile(edited);
    core::builder::GraphBuilder builder{ModelProto(original)};
    try {
      core::builder::Replay(builder, parsed.rewrites);
    } catch (const BuilderError& error) {
      throw ModelError(error.what());
    }
    replayed = std::move(builder).TakeModel();
  });
  if (step.refused || step.finding) return step.finding;
  step = RunStep("check the model replayed from an edited rewrite file", [&] { core::ir::CheckModel(replayed); });
  if (step.refused) return "replay turns an edited rewrite file into a model that fails the model checks: " + step.message;
  return step.finding;
}

constexpr std::uint64_t kEvaluationSeed = 7;

// The evaluator's budget of nested node runs while fuzzing. The default (2^24 runs: a
// loop that never ends is refused after about 10 s in a release build) takes minutes under
// the sanitizers, past libFuzzer's timeout.
core::eval::RunOptions FuzzRunOptions() {
  core::eval::RunOptions options;
  options.max_nested_node_runs = std::uint64_t{1} << 16;
  return options;
}

}  // namespace

GraphCase GenerateGraphCase(FuzzedDataProvider& data, GraphCaseRange range,
                            const std::set<std::string>& favoured_op_types) {
  return Generator(data, range, favoured_op_types).Generate();
}

void PrepareGraphFuzzing(std::uint64_t max_tensor_bytes) {
  onnx_shapes::RegisterShapeFunctions();
  onnx_kernels::RegisterKernels();
  onnx_patterns::RegisterPatterns();
  core::ir::SetMaxTensorBytes(max_tensor_bytes);
}

std::optional<std::string> FindGraphCaseProblem(const GraphCase& graph_case, GraphCaseOutcome* outcome) {
  GraphCaseOutcome ignored;
  GraphCaseOutcome& reached = outcome ? *outcome : ignored;
  reached = GraphCaseOutcome::kRefusedAtLoad;
  // Loading: what `onnxopt optimize` and `verify` do with the file.
  ModelProto original;
  StepResult step = RunStep("load", [&] {
    original = core::ir::ParseModel(graph_case.model.SerializeAsString(), "fuzz-graph");
  });
  if (step.refused || step.finding) return step.finding;

  // `verify` validates (shape inference with type checks); `optimize` infers shapes too.
  step = RunStep("validate", [&] { core::shapes::ValidateModel(original, "fuzz-graph"); });
  if (step.finding) return step.finding;
  const bool valid = !step.refused;
  reached = valid ? GraphCaseOutcome::kRefusedAtEvaluation : GraphCaseOutcome::kRefusedAtValidation;

  // `optimize` with the default patterns, folding first.
  ModelProto optimized;
  std::vector<core::builder::LocalRewriting> records;
  core::builder::OptimizationReport report;
  step = RunStep("optimize", [&] {
    core::builder::GraphBuilder builder(original);
    core::builder::OptimizerOptions options;
    options.fold_constants_first = true;
    records = core::builder::GraphGraph(builder, {}, std::move(options)).Optimize(-1, &report);
    optimized = std::move(builder).TakeModel();
  });
  if (step.finding) return step.finding;
  // The driver refuses a replacement its opset cannot hold; a built-in pattern should have
  // rejected the match itself (pattern.h). Only a finding when the original runs (checked
  // below): folding makes values known that validation could not judge, and a copy of a
  // node the original cannot run is refused for what that node fails by too.
  std::optional<std::string> refused_rewrite;
  if (!report.refused_rewrites.empty())
    refused_rewrite = "a built-in rewrite was refused: " + report.refused_rewrites.front();
  // Optimizing may refuse what validation could not see (folding makes values and shapes
  // known): only a refusal of a model whose original runs is a finding (below).
  std::optional<std::string> refusal = step.refused ? std::optional<std::string>("optimize refuses it: " + step.message)
                                                    : std::nullopt;
  if (refusal && !valid) return std::nullopt;
  if (!refusal) {
    step = RunStep("check the optimized model", [&] { core::ir::CheckModel(optimized); });
    if (step.refused) return "the optimized model fails the model checks: " + step.message;
    if (step.finding) return step.finding;
    if (std::optional<std::string> problem =
            FindReplayProblem(original, std::move(records), optimized, graph_case.record_edits))
      return problem;
    if (valid) {
      step = RunStep("validate the optimized model", [&] { core::shapes::ValidateModel(optimized, "optimized"); });
      if (step.refused) refusal = "the optimized model is refused: " + step.message;
      if (step.finding) return step.finding;
    }
  }
  if (!valid) return std::nullopt;

  // `verify`: both models on the same inputs with the same evaluation seed.
  const core::eval::RunOptions run_options = FuzzRunOptions();
  core::eval::SetEvaluationSeed(kEvaluationSeed);
  core::eval::ValueMap expected;
  step = RunStep("evaluate the original", [&] { expected = core::eval::Run(original, graph_case.inputs, run_options); });
  if (step.refused || step.finding) return step.finding;
  if (refusal) return "the original validates and runs, but " + *refusal;
  if (refused_rewrite) return "the original validates and runs, but " + *refused_rewrite;

  core::eval::ValueMap optimized_inputs;
  for (const ValueInfoProto& input : optimized.graph().input())
    if (auto it = graph_case.inputs.find(input.name()); it != graph_case.inputs.end()) optimized_inputs.insert(*it);
  core::eval::SetEvaluationSeed(kEvaluationSeed);
  core::eval::ValueMap actual;
  step = RunStep("evaluate the optimized model", [&] { actual = core::eval::Run(optimized, optimized_inputs, run_options); });
  if (step.refused) return "the optimized model fails to run while the original runs: " + step.message;
  if (step.finding) return step.finding;
  reached = GraphCaseOutcome::kCompared;
  for (const ValueInfoProto& output : original.graph().output()) {
    auto it = actual.find(output.name());
    if (it == actual.end()) return "output '" + output.name() + "' is missing from the optimized model";
    const core::eval::Comparison comparison = core::eval::CompareValues(expected.at(output.name()), it->second);
    if (!comparison.ok) return "output '" + output.name() + "' differs after optimization: " + comparison.reason;
  }

  // `memory --run`: the original again, with the writers the memory plan lets write into
  // their data input's buffer doing so, gives the same outputs.
  core::eval::ValueMap in_place;
  step = RunStep("evaluate the original in place", [&] {
    core::eval::RunOptions options = core::memory::InPlaceRunOptions(original, {});
    options.max_nested_node_runs = run_options.max_nested_node_runs;
    core::eval::SetEvaluationSeed(kEvaluationSeed);
    in_place = core::eval::Run(original, graph_case.inputs, options);
  });
  if (step.refused) return "the original fails to run in place while it runs: " + step.message;
  if (step.finding) return step.finding;
  for (const ValueInfoProto& output : original.graph().output()) {
    const core::eval::Comparison comparison = core::eval::CompareValues(expected.at(output.name()), in_place.at(output.name()));
    if (!comparison.ok) return "output '" + output.name() + "' differs when run in place: " + comparison.reason;
  }
  return std::nullopt;
}

}  // namespace onnxopt::fuzz
