#include "onnx_core/ir/tensor_data.h"

#include <unistd.h>

#include <algorithm>
#include <array>
#include <atomic>
#include <bit>
#include <cstdio>
#include <cstring>

#include "onnx_core/common/error.h"

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

// Size of the typed field TypedFieldBytes converts, in the raw_data layout (the same
// cases); nullopt for types without a typed field.
std::optional<std::uint64_t> TypedFieldRawDataBytes(const TensorProto& tensor, int bits) {
  const auto values = [](int count, std::uint64_t bytes_per_value) {
    return static_cast<std::uint64_t>(count) * bytes_per_value;
  };
  switch (tensor.data_type()) {
    case TensorProto::FLOAT:
    case TensorProto::COMPLEX64: return values(tensor.float_data_size(), 4);
    case TensorProto::INT32: return values(tensor.int32_data_size(), 4);
    case TensorProto::INT64: return values(tensor.int64_data_size(), 8);
    case TensorProto::DOUBLE:
    case TensorProto::COMPLEX128: return values(tensor.double_data_size(), 8);
    case TensorProto::UINT64: return values(tensor.uint64_data_size(), 8);
    case TensorProto::UINT32: return values(tensor.uint64_data_size(), 4);
    case TensorProto::STRING:
    case TensorProto::UNDEFINED: return std::nullopt;
    default: return values(tensor.int32_data_size(), bits == 16 ? 2 : 1);
  }
}

// --- The limit on tensor sizes ----------------------------------------------------------

std::atomic<std::uint64_t> max_tensor_bytes{0};  // 0: the default
thread_local ScopedTensorLimit* innermost_scoped_limit = nullptr;

// "8000000000 bytes (7.5 GiB)".
std::string DescribeBytes(std::uint64_t bytes) {
  std::string text = std::to_string(bytes) + " bytes";
  if (bytes < (std::uint64_t{1} << 20)) return text;
  const bool gib = bytes >= (std::uint64_t{1} << 30);
  const double scaled = static_cast<double>(bytes) / static_cast<double>(gib ? 1u << 30 : 1u << 20);
  char buffer[32];
  std::snprintf(buffer, sizeof buffer, " (%.1f %s)", scaled, gib ? "GiB" : "MiB");
  return text + buffer;
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

std::optional<std::int64_t> ElementCount(std::span<const std::int64_t> dims) {
  bool empty = false;
  for (std::int64_t dim : dims) {
    if (dim < 0) return std::nullopt;
    empty = empty || dim == 0;
  }
  if (empty) return 0;  // whatever the other dims: their product may overflow, the count does not
  std::int64_t count = 1;
  for (std::int64_t dim : dims)
    if (__builtin_mul_overflow(count, dim, &count)) return std::nullopt;
  return count;
}

std::optional<std::int64_t> ElementCount(const TensorProto& tensor) {
  return ElementCount(std::span<const std::int64_t>(tensor.dims().data(), static_cast<std::size_t>(tensor.dims_size())));
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

std::optional<std::uint64_t> StoredRawDataBytes(const TensorProto& tensor) {
  const std::optional<int> bits = ElementBits(tensor.data_type());
  if (!bits || HasExternalData(tensor)) return std::nullopt;
  if (tensor.has_raw_data()) return tensor.raw_data().size();
  return TypedFieldRawDataBytes(tensor, *bits);
}

std::optional<std::string> DataSizeMismatch(const TensorProto& tensor) {
  if (HasExternalData(tensor)) return std::nullopt;
  const std::optional<std::int64_t> count = ElementCount(tensor);
  if (!count) {
    for (std::int64_t dim : tensor.dims())
      if (dim < 0) return "has a negative dimension (" + std::to_string(dim) + ")";
    return "declares more elements than int64 can count";
  }
  const std::string declared = "declares " + std::to_string(*count) + " elements of " +
                               ElementTypeName(tensor.data_type());
  if (tensor.data_type() == TensorProto::STRING) {
    if (tensor.string_data_size() == *count) return std::nullopt;
    return declared + " but holds " + std::to_string(tensor.string_data_size()) + " strings";
  }
  const std::optional<std::uint64_t> expected = RawDataBytes(tensor);
  const std::optional<std::uint64_t> stored = StoredRawDataBytes(tensor);
  if (!expected || !stored) return "has an element type without a fixed size (" + ElementTypeName(tensor.data_type()) + ")";
  if (*stored == *expected) return std::nullopt;
  return declared + " (" + std::to_string(*expected) + " bytes) but holds " + std::to_string(*stored) +
         " bytes of data";
}

std::optional<std::string> RawBytes(const TensorProto& tensor) {
  const std::optional<std::uint64_t> expected = RawDataBytes(tensor);
  // Sizes first: a hostile tensor declaring a huge shape must not make us copy anything.
  if (!expected || StoredRawDataBytes(tensor) != expected) return std::nullopt;
  if (tensor.has_raw_data()) return tensor.raw_data();
  return TypedFieldBytes(tensor, *ElementBits(tensor.data_type()));
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

std::uint64_t DefaultMaxTensorBytes() {
  static const std::uint64_t default_bytes = [] {
    const long pages = sysconf(_SC_PHYS_PAGES);
    const long page_size = sysconf(_SC_PAGESIZE);
    // Unknown physical memory (never seen on Linux): 4 GiB, a quarter of a small machine's.
    if (pages <= 0 || page_size <= 0) return std::uint64_t{4} << 30;
    return static_cast<std::uint64_t>(pages) * static_cast<std::uint64_t>(page_size) / 4;
  }();
  return default_bytes;
}

std::uint64_t MaxTensorBytes() {
  const std::uint64_t set = max_tensor_bytes.load(std::memory_order_relaxed);
  const std::uint64_t global = set != 0 ? set : DefaultMaxTensorBytes();
  return innermost_scoped_limit ? std::min(global, innermost_scoped_limit->bytes_) : global;
}

void SetMaxTensorBytes(std::uint64_t bytes) { max_tensor_bytes.store(bytes, std::memory_order_relaxed); }

ScopedTensorLimit::ScopedTensorLimit(std::uint64_t bytes, std::string_view name)
    : enclosing_(innermost_scoped_limit), bytes_(bytes), name_(name) {
  if (enclosing_ && enclosing_->bytes_ <= bytes_) {  // the enclosing limit stays the binding one
    bytes_ = enclosing_->bytes_;
    name_ = enclosing_->name_;
  }
  innermost_scoped_limit = this;
}

ScopedTensorLimit::~ScopedTensorLimit() { innermost_scoped_limit = enclosing_; }

std::optional<std::string> TensorSizeProblem(std::optional<std::uint64_t> bytes, std::string_view what) {
  const std::uint64_t limit = MaxTensorBytes();
  if (bytes && *bytes <= limit) return std::nullopt;
  const std::string size = bytes ? "needs " + DescribeBytes(*bytes) : std::string("needs more than 2^64 bytes");
  ScopedTensorLimit* scoped = innermost_scoped_limit;
  if (scoped && scoped->bytes_ == limit) {
    scoped->refused_bytes_ = bytes.value_or(UINT64_MAX);
    return std::string(what) + " " + size + ", more than " + std::string(scoped->name_) + " of " + DescribeBytes(limit);
  }
  return std::string(what) + " " + size + ", more than the limit on tensor sizes of " + DescribeBytes(limit) +
         " (by default a quarter of the physical memory; raise it with the option --max-tensor-bytes, or "
         "onnxopt.set_max_tensor_bytes in Python)";
}

void CheckTensorBytes(std::optional<std::uint64_t> bytes, std::string_view what) {
  if (std::optional<std::string> problem = TensorSizeProblem(bytes, what)) throw ModelError(*problem);
}

}  // namespace onnxopt::core::ir
