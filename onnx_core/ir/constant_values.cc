#include "onnx_core/ir/constant_values.h"

#include <bit>
#include <climits>
#include <cstring>
#include <vector>

#include "onnx_core/ir/graph_queries.h"
#include "onnx_core/ir/tensor_data.h"

namespace onnxopt::core::ir {

namespace {

// A protobuf message cannot hold 2 GiB or more: a larger densified tensor could never be
// saved, and a hostile sparse constant must not make us allocate without bound.
constexpr std::int64_t kMaxDenseBytes = INT32_MAX;

static_assert(std::endian::native == std::endian::little,
              "raw_data is little-endian; reading indices with memcpy assumes the same host order");

TensorProto ScalarOrVector(int data_type, std::optional<int> length) {
  TensorProto tensor;
  tensor.set_data_type(data_type);
  if (length) tensor.add_dims(*length);
  return tensor;
}

// Linear position in the dense tensor of every stored value, from 1-D linear indices
// [NNZ] or 2-D coordinates [NNZ, rank]; nullopt when malformed or out of bounds.
// `nnz` <= `count` <= kMaxDenseBytes, so the sizes below cannot overflow.
std::optional<std::vector<std::int64_t>> SparsePositions(const SparseTensorProto& sparse, std::int64_t nnz,
                                                         std::int64_t count) {
  std::vector<std::int64_t> positions;
  if (nnz == 0) return positions;
  const TensorProto& indices = sparse.indices();
  if (indices.data_type() != TensorProto::INT64) return std::nullopt;
  if (indices.dims_size() < 1 || indices.dims_size() > 2 || indices.dims(0) != nnz) return std::nullopt;
  const bool linear = indices.dims_size() == 1;
  const std::int64_t width = linear ? 1 : sparse.dims_size();
  if (!linear && (indices.dims(1) != width || width == 0)) return std::nullopt;
  const std::optional<std::string> bytes = RawBytes(indices);
  if (!bytes || static_cast<std::int64_t>(bytes->size()) != nnz * width * 8) return std::nullopt;
  positions.resize(nnz);
  for (std::int64_t i = 0; i < nnz; ++i) {
    std::int64_t position = 0;
    for (std::int64_t j = 0; j < width; ++j) {
      std::int64_t index = 0;
      std::memcpy(&index, bytes->data() + (i * width + j) * 8, 8);
      const std::int64_t bound = linear ? count : sparse.dims(j);
      if (index < 0 || index >= bound) return std::nullopt;
      position = linear ? index : position * bound + index;
    }
    positions[i] = position;
  }
  return positions;
}

// Bytes per element of a dense tensor of `data_type` we can build; nullopt for unknown
// types and for sub-byte types (INT4, ...), which pack two values per byte. STRING counts
// as one byte per element, only to bound the number of elements.
std::optional<std::int64_t> DenseElementBytes(int data_type) {
  if (data_type == TensorProto::STRING) return 1;
  const std::optional<int> bits = ElementBits(data_type);
  if (!bits || *bits % 8 != 0) return std::nullopt;
  return *bits / 8;
}

}  // namespace

std::optional<TensorProto> Densify(const SparseTensorProto& sparse, std::string* why) {
  const auto fail = [why](std::string reason) -> std::optional<TensorProto> {
    if (why) *why = std::move(reason);
    return std::nullopt;
  };
  const TensorProto& values = sparse.values();
  TensorProto dense;
  dense.set_data_type(values.data_type());
  for (std::int64_t dim : sparse.dims()) {
    if (dim < 0) return fail("negative dimension " + std::to_string(dim));
    dense.add_dims(dim);
  }
  const std::optional<std::int64_t> count = ElementCount(dense);
  const std::optional<std::int64_t> element_bytes = DenseElementBytes(values.data_type());
  if (!element_bytes) return fail("element type " + ElementTypeName(values.data_type()) + " cannot be densified");
  std::int64_t dense_bytes = 0;
  const bool overflow = !count || __builtin_mul_overflow(*count, *element_bytes, &dense_bytes);
  if (const std::optional<std::string> problem = TensorSizeProblem(
          overflow ? std::nullopt : std::optional<std::uint64_t>(dense_bytes), "its dense form"))
    return fail(*problem);
  if (dense_bytes > kMaxDenseBytes)
    return fail("its dense form needs " + std::to_string(dense_bytes) + " bytes, more than a protobuf message holds");
  if (values.dims_size() != 1 || values.dims(0) < 0 || values.dims(0) > *count)
    return fail("its values are not a vector of at most as many elements as the dense tensor has");
  const std::int64_t nnz = values.dims(0);
  const std::optional<std::vector<std::int64_t>> positions = SparsePositions(sparse, nnz, *count);
  if (!positions) return fail("its indices are out of range, of the wrong type or of the wrong shape");

  if (values.data_type() == TensorProto::STRING) {
    if (values.string_data_size() != nnz) return fail("its values hold the wrong number of strings");
    for (std::int64_t i = 0; i < *count; ++i) dense.add_string_data();
    for (std::int64_t i = 0; i < nnz; ++i) *dense.mutable_string_data((*positions)[i]) = values.string_data(i);
    return dense;
  }
  const std::optional<std::string> value_bytes = RawBytes(values);
  if (!value_bytes || static_cast<std::int64_t>(value_bytes->size()) != nnz * *element_bytes)
    return fail("its values do not match their declared shape");
  std::string& raw = *dense.mutable_raw_data();
  raw.assign(static_cast<std::size_t>(*count * *element_bytes), '\0');
  for (std::int64_t i = 0; i < nnz; ++i)
    std::memcpy(raw.data() + (*positions)[i] * *element_bytes, value_bytes->data() + i * *element_bytes,
                *element_bytes);
  return dense;
}

namespace {

std::optional<TensorProto> ConstantAttributeValue(const AttributeProto& attr) {
  using A = AttributeProto;
  const std::string& name = attr.name();
  // Inside a function body the value may refer to an attribute of the call: not constant.
  if (!attr.ref_attr_name().empty()) return std::nullopt;
  if (name == "value" && attr.type() == A::TENSOR) return attr.t();
  if (name == "sparse_value" && attr.type() == A::SPARSE_TENSOR) return Densify(attr.sparse_tensor());
  // The scalar and list forms take their element type from the attribute's declared
  // type, not from its name: some exporters write value_float with type INT, and
  // onnxruntime then produces an int64 constant. Following the declared type computes
  // what the runtime computes.
  const bool scalar_form = name == "value_float" || name == "value_int";
  const bool list_form = name == "value_floats" || name == "value_ints";
  if (scalar_form && attr.type() == A::FLOAT) {
    TensorProto tensor = ScalarOrVector(TensorProto::FLOAT, std::nullopt);
    tensor.add_float_data(attr.f());
    return tensor;
  }
  if (list_form && attr.type() == A::FLOATS) {
    TensorProto tensor = ScalarOrVector(TensorProto::FLOAT, attr.floats_size());
    *tensor.mutable_float_data() = attr.floats();
    return tensor;
  }
  if (scalar_form && attr.type() == A::INT) {
    TensorProto tensor = ScalarOrVector(TensorProto::INT64, std::nullopt);
    tensor.add_int64_data(attr.i());
    return tensor;
  }
  if (list_form && attr.type() == A::INTS) {
    TensorProto tensor = ScalarOrVector(TensorProto::INT64, attr.ints_size());
    *tensor.mutable_int64_data() = attr.ints();
    return tensor;
  }
  if (name == "value_string" && attr.type() == A::STRING) {
    TensorProto tensor = ScalarOrVector(TensorProto::STRING, std::nullopt);
    tensor.add_string_data(attr.s());
    return tensor;
  }
  if (name == "value_strings" && attr.type() == A::STRINGS) {
    TensorProto tensor = ScalarOrVector(TensorProto::STRING, attr.strings_size());
    *tensor.mutable_string_data() = attr.strings();
    return tensor;
  }
  return std::nullopt;
}

}  // namespace

const SparseTensorProto* SparseConstantValue(const NodeProto& node) {
  if (node.op_type() != "Constant" || !IsOnnxDomain(node.domain()) || node.attribute_size() != 1) return nullptr;
  const AttributeProto& attr = node.attribute(0);
  if (attr.name() != "sparse_value" || attr.type() != AttributeProto::SPARSE_TENSOR) return nullptr;
  return &attr.sparse_tensor();
}

std::optional<TensorProto> ConstantNodeValue(const NodeProto& node) {
  if (node.op_type() != "Constant" || !IsOnnxDomain(node.domain())) return std::nullopt;
  if (node.input_size() != 0 || node.output_size() != 1 || node.attribute_size() != 1) return std::nullopt;
  std::optional<TensorProto> tensor = ConstantAttributeValue(node.attribute(0));
  if (tensor) tensor->set_name(node.output(0));
  return tensor;
}

}  // namespace onnxopt::core::ir
