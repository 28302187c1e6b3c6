#include "onnx_core/ir/tensor_data.h"

#include <array>
#include <bit>
#include <cstring>

namespace onnxopt::core::ir {
namespace {

// raw_data is little-endian; the typed fields are converted with memcpy.
static_assert(std::endian::native == std::endian::little, "onnxopt assumes a little-endian host");

struct ElementTypeInfo {
  const char* name;
  int bits;  // 0: variable size (STRING) or no data (UNDEFINED)
};

// Indexed by TensorProto::DataType. Types after BFLOAT16 (16) are newer than onnx 1.12's
// enum, hence the plain numbers.
constexpr std::array<ElementTypeInfo, 27> kElementTypes = {{
    {"UNDEFINED", 0},        // 0
    {"FLOAT", 32},           // 1
    {"UINT8", 8},            // 2
    {"INT8", 8},             // 3
    {"UINT16", 16},          // 4
    {"INT16", 16},           // 5
    {"INT32", 32},           // 6
    {"INT64", 64},           // 7
    {"STRING", 0},           // 8
    {"BOOL", 8},             // 9
    {"FLOAT16", 16},         // 10
    {"DOUBLE", 64},          // 11
    {"UINT32", 32},          // 12
    {"UINT64", 64},          // 13
    {"COMPLEX64", 64},       // 14
    {"COMPLEX128", 128},     // 15
    {"BFLOAT16", 16},        // 16
    {"FLOAT8E4M3FN", 8},     // 17
    {"FLOAT8E4M3FNUZ", 8},   // 18
    {"FLOAT8E5M2", 8},       // 19
    {"FLOAT8E5M2FNUZ", 8},   // 20
    {"UINT4", 4},            // 21
    {"INT4", 4},             // 22
    {"FLOAT4E2M1", 4},       // 23
    {"FLOAT8E8M0", 8},       // 24
    {"UINT2", 2},            // 25
    {"INT2", 2},             // 26
}};

const ElementTypeInfo* FindElementType(int elem_type) {
  if (elem_type < 0 || elem_type >= static_cast<int>(kElementTypes.size())) return nullptr;
  return &kElementTypes[elem_type];
}

template <typename Source>
std::string CopyBytes(const Source& values) {
  std::string bytes(values.size() * sizeof(values[0]), '\0');
  if (!bytes.empty()) std::memcpy(bytes.data(), values.data(), bytes.size());
  return bytes;
}

// int32_data holds one element per value for 8- and 16-bit types, and one packed byte
// (two 4-bit or four 2-bit elements) per value for sub-byte types.
std::string NarrowInt32(const google::protobuf::RepeatedField<std::int32_t>& values, int bits) {
  const int bytes_per_value = bits == 16 ? 2 : 1;
  std::string bytes(values.size() * bytes_per_value, '\0');
  for (int i = 0; i < values.size(); ++i) {
    const auto value = static_cast<std::uint32_t>(values[i]);
    bytes[i * bytes_per_value] = static_cast<char>(value & 0xFF);
    if (bytes_per_value == 2) bytes[i * 2 + 1] = static_cast<char>((value >> 8) & 0xFF);
  }
  return bytes;
}

// The content of the typed field that holds the tensor's data type, as raw bytes;
// nullopt for types without a typed field.
std::optional<std::string> TypedFieldBytes(const TensorProto& tensor, int bits) {
  switch (tensor.data_type()) {
    case TensorProto::FLOAT:
    case TensorProto::COMPLEX64:
      return CopyBytes(tensor.float_data());
    case TensorProto::INT32:
      return CopyBytes(tensor.int32_data());
    case TensorProto::INT64:
      return CopyBytes(tensor.int64_data());
    case TensorProto::DOUBLE:
    case TensorProto::COMPLEX128:
      return CopyBytes(tensor.double_data());
    case TensorProto::UINT64:
      return CopyBytes(tensor.uint64_data());
    case TensorProto::UINT32: {
      std::string bytes(tensor.uint64_data_size() * 4, '\0');
      for (int i = 0; i < tensor.uint64_data_size(); ++i) {
        const auto value = static_cast<std::uint32_t>(tensor.uint64_data(i));
        std::memcpy(bytes.data() + i * 4, &value, 4);
      }
      return bytes;
    }
    case TensorProto::STRING:
    case TensorProto::UNDEFINED:
      return std::nullopt;
    default:  // every other known type has at most 16 bits and lives in int32_data
      return NarrowInt32(tensor.int32_data(), bits);
  }
}

}  // namespace

std::string ElementTypeName(int elem_type) {
  if (const ElementTypeInfo* info = FindElementType(elem_type)) return info->name;
  return "UNDEFINED(" + std::to_string(elem_type) + ")";
}

std::optional<int> ElementBits(int elem_type) {
  const ElementTypeInfo* info = FindElementType(elem_type);
  if (info == nullptr || info->bits == 0) return std::nullopt;
  return info->bits;
}

std::optional<std::int64_t> ElementCount(const TensorProto& tensor) {
  std::int64_t count = 1;
  for (std::int64_t dim : tensor.dims()) {
    if (dim < 0 || __builtin_mul_overflow(count, dim, &count)) return std::nullopt;
  }
  return count;
}

std::optional<std::uint64_t> RawDataBytes(const TensorProto& tensor) {
  const std::optional<int> bits = ElementBits(tensor.data_type());
  const std::optional<std::int64_t> count = ElementCount(tensor);
  std::uint64_t total_bits = 0;
  if (!bits || !count ||
      __builtin_mul_overflow(static_cast<std::uint64_t>(*count), static_cast<std::uint64_t>(*bits), &total_bits))
    return std::nullopt;
  return total_bits / 8 + (total_bits % 8 != 0 ? 1 : 0);
}

bool HasExternalData(const TensorProto& tensor) {
  return tensor.data_location() == TensorProto::EXTERNAL;
}

std::optional<std::string> RawBytes(const TensorProto& tensor) {
  const std::optional<std::uint64_t> expected = RawDataBytes(tensor);
  if (!expected || HasExternalData(tensor)) return std::nullopt;
  std::optional<std::string> bytes = tensor.has_raw_data()
                                         ? std::optional<std::string>(tensor.raw_data())
                                         : TypedFieldBytes(tensor, *ElementBits(tensor.data_type()));
  if (!bytes || bytes->size() != *expected) return std::nullopt;
  return bytes;
}

std::uint64_t StoredDataBytes(const TensorProto& tensor) {
  if (HasExternalData(tensor)) return 0;
  std::uint64_t bytes = tensor.raw_data().size();
  bytes += 4 * static_cast<std::uint64_t>(tensor.float_data_size() + tensor.int32_data_size());
  bytes += 8 * static_cast<std::uint64_t>(tensor.int64_data_size() + tensor.double_data_size() +
                                          tensor.uint64_data_size());
  for (const std::string& value : tensor.string_data()) bytes += value.size();
  return bytes;
}

}  // namespace onnxopt::core::ir
