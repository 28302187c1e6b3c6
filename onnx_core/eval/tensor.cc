#include "onnx_core/eval/tensor.h"

#include <algorithm>
#include <bit>
#include <cctype>
#include <cmath>
#include <cstring>
#include <limits>

#include "onnx_core/common/error.h"
#include "onnx_core/eval/float8.h"
#include "onnx_core/ir/constant_values.h"
#include "onnx_core/ir/tensor_data.h"

namespace onnxopt::core::eval {

namespace {

std::string TensorLabel(const TensorProto& tensor) {
  return tensor.name().empty() ? std::string("tensor") : "tensor '" + tensor.name() + "'";
}

std::string LowerTypeName(int elem_type) {
  std::string name = ir::ElementTypeName(elem_type);
  for (char& c : name) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return name;
}

// Calls f(T{}) with the storage type of `elem_type` for types whose values ToInt64Vector
// and ToDoubleVector read directly (integers, bool, float, double).
template <class F>
bool VisitPlain(int elem_type, F&& f) {
  switch (elem_type) {
    case TensorProto::FLOAT: f(float{}); return true;
    case TensorProto::DOUBLE: f(double{}); return true;
    case TensorProto::INT8:
    case kInt4:
    case kInt2: f(std::int8_t{}); return true;
    case TensorProto::INT16: f(std::int16_t{}); return true;
    case TensorProto::INT32: f(std::int32_t{}); return true;
    case TensorProto::INT64: f(std::int64_t{}); return true;
    case TensorProto::UINT8:
    case kUint4:
    case kUint2: f(std::uint8_t{}); return true;
    case TensorProto::UINT16: f(std::uint16_t{}); return true;
    case TensorProto::UINT32: f(std::uint32_t{}); return true;
    case TensorProto::UINT64: f(std::uint64_t{}); return true;
    case TensorProto::BOOL: f(bool{}); return true;
    default: return false;
  }
}

std::int64_t DoubleToInt64(double value) {
  if (std::isnan(value)) return 0;
  if (value >= 9.2233720368547758e18) return std::numeric_limits<std::int64_t>::max();
  if (value <= -9.2233720368547758e18) return std::numeric_limits<std::int64_t>::min();
  return static_cast<std::int64_t>(value);
}

}  // namespace

int PackedBits(int elem_type) {
  switch (elem_type) {
    case kInt4:
    case kUint4:
    case kFloat4E2M1: return 4;
    case kInt2:
    case kUint2: return 2;
    default: return 0;
  }
}

int ByteIntegerOf(int elem_type) {
  switch (elem_type) {
    case kInt4:
    case kInt2: return TensorProto::INT8;
    case kUint4:
    case kUint2: return TensorProto::UINT8;
    default: return 0;
  }
}

std::optional<std::pair<std::int64_t, std::int64_t>> SubByteIntegerRange(int elem_type) {
  const int bits = PackedBits(elem_type);
  switch (ByteIntegerOf(elem_type)) {
    case TensorProto::INT8: return std::pair{-(std::int64_t{1} << (bits - 1)), (std::int64_t{1} << (bits - 1)) - 1};
    case TensorProto::UINT8: return std::pair{std::int64_t{0}, (std::int64_t{1} << bits) - 1};
    default: return std::nullopt;
  }
}

std::size_t StorageBytes(int elem_type) {
  switch (elem_type) {
    case TensorProto::DOUBLE:
    case TensorProto::INT64:
    case TensorProto::UINT64: return 8;
    case TensorProto::FLOAT:
    case TensorProto::INT32:
    case TensorProto::UINT32: return 4;
    case TensorProto::FLOAT16:
    case TensorProto::BFLOAT16:
    case TensorProto::INT16:
    case TensorProto::UINT16: return 2;
    case TensorProto::INT8:
    case TensorProto::UINT8:
    case TensorProto::BOOL:
    case kFloat8E4M3FN:
    case kFloat8E4M3FNUZ:
    case kFloat8E5M2:
    case kFloat8E5M2FNUZ:
    case kUint4:
    case kInt4:
    case kFloat4E2M1:
    case kFloat8E8M0:
    case kUint2:
    case kInt2: return 1;
    default: return 0;
  }
}

// --- float16 / bfloat16 --------------------------------------------------------------

float HalfToFloat(std::uint16_t bits) {
  const std::uint32_t sign = static_cast<std::uint32_t>(bits & 0x8000u) << 16;
  const std::uint32_t exponent = (bits >> 10) & 0x1Fu;
  const std::uint32_t mantissa = bits & 0x3FFu;
  if (exponent == 0) {
    // Zero or subnormal: mantissa * 2^-24, exact in float.
    const float magnitude = static_cast<float>(mantissa) * 0x1p-24f;
    return std::bit_cast<float>(std::bit_cast<std::uint32_t>(magnitude) | sign);
  }
  if (exponent == 0x1F) return std::bit_cast<float>(sign | 0x7F800000u | (mantissa << 13));
  return std::bit_cast<float>(sign | ((exponent + 112) << 23) | (mantissa << 13));
}

std::uint16_t FloatToHalf(float value) {
  const std::uint32_t bits = std::bit_cast<std::uint32_t>(value);
  const auto sign = static_cast<std::uint16_t>((bits >> 16) & 0x8000u);
  std::uint32_t magnitude = bits & 0x7FFFFFFFu;
  if (magnitude >= 0x7F800000u) {  // inf or NaN (NaN stays quiet NaN, payload kept when it fits)
    if (magnitude == 0x7F800000u) return static_cast<std::uint16_t>(sign | 0x7C00u);
    return static_cast<std::uint16_t>(sign | 0x7E00u | ((magnitude >> 13) & 0x3FFu));
  }
  if (magnitude >= 0x477FF000u) return static_cast<std::uint16_t>(sign | 0x7C00u);  // rounds to inf
  if (magnitude < 0x38800000u) {
    // Half subnormal (or zero): adding 0.5f aligns the float's ulp (2^-24) with the half's,
    // so the FPU rounds to nearest even; the low bits are the half's mantissa.
    const float shifted = std::bit_cast<float>(magnitude) + 0.5f;
    return static_cast<std::uint16_t>(sign | (std::bit_cast<std::uint32_t>(shifted) - 0x3F000000u));
  }
  const std::uint32_t odd = (magnitude >> 13) & 1u;
  magnitude = magnitude - (112u << 23) + 0xFFFu + odd;
  return static_cast<std::uint16_t>(sign | (magnitude >> 13));
}

float BFloat16ToFloat(std::uint16_t bits) { return std::bit_cast<float>(static_cast<std::uint32_t>(bits) << 16); }

std::uint16_t FloatToBFloat16(float value) {
  const std::uint32_t bits = std::bit_cast<std::uint32_t>(value);
  if ((bits & 0x7FFFFFFFu) > 0x7F800000u) return static_cast<std::uint16_t>((bits >> 16) | 0x40u);  // quiet NaN
  const std::uint32_t rounded = bits + 0x7FFFu + ((bits >> 16) & 1u);
  return static_cast<std::uint16_t>(rounded >> 16);
}

// --- Tensor ----------------------------------------------------------------------------

namespace {

// Bytes of the buffer of a tensor of `count` elements of `elem_type` (a STRING element
// counts as the std::string holding it); nullopt when it overflows.
std::optional<std::uint64_t> BufferBytes(int elem_type, std::int64_t count) {
  const std::size_t element_bytes = elem_type == TensorProto::STRING ? sizeof(std::string) : StorageBytes(elem_type);
  std::uint64_t bytes = 0;
  if (__builtin_mul_overflow(static_cast<std::uint64_t>(count), element_bytes, &bytes)) return std::nullopt;
  return bytes;
}

std::string DescribeShape(int elem_type, const std::vector<std::int64_t>& shape) {
  std::string text = elem_type == 0 ? std::string("undefined") : LowerTypeName(elem_type);
  text += '[';
  for (std::size_t i = 0; i < shape.size(); ++i) {
    if (i > 0) text += ',';
    text += std::to_string(shape[i]);
  }
  return text + ']';
}

// An empty tensor's other dims, multiplied, bound the rows kernels loop over (a
// Softmax over the last axis of [2^40, 0] visits 2^40 empty rows): they are held to the
// limit on tensor sizes as elements of one byte would be.
void CheckEmptyShape(int elem_type, const std::vector<std::int64_t>& shape) {
  std::uint64_t rows = 1;
  for (std::int64_t dim : shape)
    if (dim != 0 && __builtin_mul_overflow(rows, static_cast<std::uint64_t>(dim), &rows)) rows = UINT64_MAX;
  if (rows > ir::MaxTensorBytes())
    throw ModelError("tensor " + DescribeShape(elem_type, shape) + " holds no element, but its other dimensions " +
                     "multiply to " + (rows == UINT64_MAX ? std::string("more than 2^64") : std::to_string(rows)) +
                     ", more than the " + std::to_string(ir::MaxTensorBytes()) +
                     " the limit on tensor sizes allows (kernels loop over them)");
}

}  // namespace

void Tensor::CheckShape(int elem_type, const std::vector<std::int64_t>& shape) {
  if (elem_type != TensorProto::STRING && StorageBytes(elem_type) == 0)
    throw ModelError("unsupported tensor element type " + ir::ElementTypeName(elem_type));
  for (std::int64_t dim : shape)
    if (dim < 0) throw ModelError("negative dimension in tensor shape " + DescribeShape(elem_type, shape));
  const std::optional<std::int64_t> count = ir::ElementCount(shape);
  if (!count)
    throw ModelError("tensor " + DescribeShape(elem_type, shape) +
                     ": its number of elements (product of the dimensions) overflows int64");
  ir::CheckTensorBytes(BufferBytes(elem_type, *count), "tensor " + DescribeShape(elem_type, shape));
  if (*count == 0) CheckEmptyShape(elem_type, shape);
}

Tensor::Tensor(int elem_type, std::vector<std::int64_t> shape, Unfilled)
    : elem_type_(elem_type), shape_(std::move(shape)) {
  CheckShape(elem_type, shape_);
  size_ = *ir::ElementCount(shape_);
  if (elem_type == TensorProto::STRING)
    strings_ = std::make_shared<std::vector<std::string>>(static_cast<std::size_t>(size_));
  else
    bytes_ = std::make_shared<Bytes>(static_cast<std::size_t>(*BufferBytes(elem_type, size_)));
}

Tensor::Tensor(int elem_type, std::vector<std::int64_t> shape) : Tensor(elem_type, std::move(shape), Unfilled{}) {
  if (bytes_) std::fill(bytes_->begin(), bytes_->end(), std::byte{0});
}

Tensor Tensor::ForOverwrite(int elem_type, std::vector<std::int64_t> shape) {
  return Tensor(elem_type, std::move(shape), Unfilled{});
}

const std::byte* Tensor::RawData() const {
  if (elem_type_ == TensorProto::STRING) TypeMismatch("raw bytes");
  return bytes_ ? bytes_->data() : nullptr;
}

std::byte* Tensor::MutableRawData() {
  if (elem_type_ == TensorProto::STRING) TypeMismatch("raw bytes");
  if (bytes_ && bytes_.use_count() > 1) bytes_ = std::make_shared<Bytes>(*bytes_);
  return bytes_ ? bytes_->data() : nullptr;
}

std::size_t Tensor::ByteSize() const { return bytes_ ? bytes_->size() : 0; }

Tensor Tensor::Reshaped(std::vector<std::int64_t> shape) const {
  const std::optional<std::int64_t> count = ir::ElementCount(shape);
  if (!count) {
    const bool negative = std::any_of(shape.begin(), shape.end(), [](std::int64_t dim) { return dim < 0; });
    throw ModelError("cannot reshape " + Describe() + ": " +
                     (negative ? "a dimension is negative" : "the product of the new dimensions overflows int64"));
  }
  if (*count != size_)
    throw ModelError("cannot reshape " + Describe() + " to " + std::to_string(*count) + " elements");
  if (*count == 0) CheckEmptyShape(elem_type_, shape);
  Tensor result = *this;
  result.shape_ = std::move(shape);
  return result;
}

std::vector<std::int64_t> Tensor::ToInt64Vector() const {
  std::vector<std::int64_t> out(static_cast<std::size_t>(size_));
  const bool plain = VisitPlain(elem_type_, [&](auto tag) {
    using T = decltype(tag);
    const T* data = Data<T>();
    for (std::size_t i = 0; i < out.size(); ++i) {
      if constexpr (std::is_floating_point_v<T>) out[i] = DoubleToInt64(static_cast<double>(data[i]));
      else out[i] = static_cast<std::int64_t>(data[i]);
    }
  });
  if (plain) return out;
  if (elem_type_ == TensorProto::FLOAT16 || elem_type_ == TensorProto::BFLOAT16 || IsByteCodedFloat(elem_type_)) {
    const std::vector<double> values = ToDoubleVector();
    for (std::size_t i = 0; i < out.size(); ++i) out[i] = DoubleToInt64(values[i]);
    return out;
  }
  throw ModelError("cannot read a " + Describe() + " tensor as integers");
}

std::vector<double> Tensor::ToDoubleVector() const { return ToDoubleVector(0, size_); }

std::vector<double> Tensor::ToDoubleVector(std::int64_t first, std::int64_t count) const {
  if (first < 0 || count < 0 || first > size_ - count)
    throw BuilderError("elements [" + std::to_string(first) + ", +" + std::to_string(count) + ") of " + Describe() +
                       " asked for");
  std::vector<double> out(static_cast<std::size_t>(count));
  const auto start = static_cast<std::size_t>(first);
  const bool plain = VisitPlain(elem_type_, [&](auto tag) {
    using T = decltype(tag);
    const T* data = Data<T>() + start;
    for (std::size_t i = 0; i < out.size(); ++i) out[i] = static_cast<double>(data[i]);
  });
  if (plain) return out;
  if (elem_type_ == TensorProto::FLOAT16 || elem_type_ == TensorProto::BFLOAT16) {
    const std::uint16_t* data = Data<std::uint16_t>() + start;
    const bool half = elem_type_ == TensorProto::FLOAT16;
    for (std::size_t i = 0; i < out.size(); ++i) out[i] = half ? HalfToFloat(data[i]) : BFloat16ToFloat(data[i]);
    return out;
  }
  if (IsByteCodedFloat(elem_type_)) {
    const std::uint8_t* data = Data<std::uint8_t>() + start;
    for (std::size_t i = 0; i < out.size(); ++i) out[i] = ByteCodedFloatToFloat(data[i], elem_type_);
    return out;
  }
  throw ModelError("cannot read a " + Describe() + " tensor as numbers");
}

Tensor Tensor::FromProto(const TensorProto& proto) {
  const int elem_type = proto.data_type();
  if (elem_type != TensorProto::STRING && StorageBytes(elem_type) == 0)
    throw ModelError(TensorLabel(proto) + " has unsupported element type " + ir::ElementTypeName(elem_type));
  if (ir::HasExternalData(proto))
    throw ModelError(TensorLabel(proto) + " has external data that was not loaded");
  // Before allocating: the shape may claim far more than the data holds.
  if (const std::optional<std::string> mismatch = ir::DataSizeMismatch(proto))
    throw ModelError(TensorLabel(proto) + " " + *mismatch);
  Tensor tensor = ForOverwrite(elem_type, std::vector<std::int64_t>(proto.dims().begin(), proto.dims().end()));
  const auto count = static_cast<std::size_t>(tensor.size());
  if (elem_type == TensorProto::STRING) {
    std::copy(proto.string_data().begin(), proto.string_data().end(), tensor.strings_->begin());
    return tensor;
  }
  // raw_data is read in place; only the typed fields are converted to that layout.
  std::optional<std::string> converted;
  if (!proto.has_raw_data()) converted = ir::RawBytes(proto);
  const std::string& raw = converted ? *converted : proto.raw_data();
  std::byte* out = tensor.bytes_->data();
  if (const int bits = PackedBits(elem_type)) {
    const std::size_t per_byte = 8 / static_cast<std::size_t>(bits);
    const auto mask = static_cast<std::uint8_t>((1u << bits) - 1);
    const bool is_signed = ByteIntegerOf(elem_type) == TensorProto::INT8;
    for (std::size_t i = 0; i < count; ++i) {
      const auto byte = static_cast<std::uint8_t>(raw[i / per_byte]);
      auto value = static_cast<std::uint8_t>((byte >> (i % per_byte * bits)) & mask);
      if (is_signed && (value >> (bits - 1))) value |= static_cast<std::uint8_t>(~mask);  // sign-extend
      out[i] = static_cast<std::byte>(value);
    }
  } else if (elem_type == TensorProto::BOOL) {
    for (std::size_t i = 0; i < count; ++i) out[i] = static_cast<std::byte>(raw[i] != 0 ? 1 : 0);
  } else {
    // DataSizeMismatch proved that raw holds the whole buffer; were it short, the rest
    // would read as zeros, not as whatever the allocation held.
    const std::size_t bytes = tensor.bytes_->size(), copied = std::min(raw.size(), bytes);
    if (copied > 0) std::memcpy(out, raw.data(), copied);
    std::fill(out + copied, out + bytes, std::byte{0});
  }
  return tensor;
}

Tensor Tensor::FromSparseProto(const SparseTensorProto& sparse) {
  std::string why;
  std::optional<TensorProto> dense = ir::Densify(sparse, &why);
  if (!dense) throw ModelError("sparse " + TensorLabel(sparse.values()) + ": " + why);
  return FromProto(*dense);
}

TensorProto Tensor::ToProto(const std::string& name) const {
  TensorProto proto;
  proto.set_name(name);
  proto.set_data_type(elem_type_);
  for (std::int64_t dim : shape_) proto.add_dims(dim);
  if (elem_type_ == TensorProto::STRING) {
    for (std::int64_t i = 0; i < size_; ++i) proto.add_string_data((*strings_)[static_cast<std::size_t>(i)]);
    return proto;
  }
  std::string* raw = proto.mutable_raw_data();
  if (const int bits = PackedBits(elem_type_)) {
    const auto count = static_cast<std::size_t>(size_);
    const std::size_t per_byte = 8 / static_cast<std::size_t>(bits);
    const auto mask = static_cast<std::uint8_t>((1u << bits) - 1);
    raw->assign((count + per_byte - 1) / per_byte, '\0');
    for (std::size_t i = 0; i < count; ++i) {
      const auto value = static_cast<std::uint8_t>(static_cast<std::uint8_t>((*bytes_)[i]) & mask);
      char& byte = (*raw)[i / per_byte];
      byte = static_cast<char>(static_cast<std::uint8_t>(byte) | (value << (i % per_byte * bits)));
    }
  } else if (bytes_ && !bytes_->empty()) {
    raw->assign(reinterpret_cast<const char*>(bytes_->data()), bytes_->size());
  }
  return proto;
}

bool operator==(const Tensor& a, const Tensor& b) {
  if (a.elem_type_ != b.elem_type_ || a.shape_ != b.shape_) return false;
  if (a.elem_type_ == TensorProto::STRING) {
    if (!a.strings_ || !b.strings_) return a.strings_ == b.strings_;
    return *a.strings_ == *b.strings_;
  }
  if (!a.bytes_ || !b.bytes_) return a.ByteSize() == b.ByteSize();
  return *a.bytes_ == *b.bytes_;
}

std::string Tensor::Describe() const { return DescribeShape(elem_type_, shape_); }

void Tensor::TypeMismatch(const char* wanted) const {
  throw BuilderError(std::string("Tensor: ") + wanted + " requested from a " + Describe() + " tensor");
}

const Tensor& AsTensor(const Value& value, const std::string& what) {
  if (const Tensor* tensor = std::get_if<Tensor>(&value)) return *tensor;
  if (std::holds_alternative<NoValue>(value)) throw ModelError(what + " has no value (expected a tensor)");
  throw ModelError(what + " is a sequence, expected a tensor");
}

}  // namespace onnxopt::core::eval
