#pragma once
// Tensor and Value: the data the evaluator computes with.
//
// A Tensor owns a contiguous row-major buffer of its element type's storage: the C++
// type of ElementTraits for numeric types (float16 and bfloat16 as their 16-bit
// patterns, float8 formats as bytes, int4/uint4/float4 one element per byte, unpacked),
// std::string for STRING, bool as one byte. Copies share the buffer (copy-on-write is
// not needed: kernels never modify their inputs; MutableData() on a shared buffer clones
// it first).

#include <cstddef>
#include <cstdint>
#include <memory>
#include <new>
#include <optional>
#include <type_traits>
#include <typeinfo>
#include <string>
#include <utility>
#include <variant>
#include <vector>

#include "onnx_core/eval/buffer_recycling.h"
#include "onnx_core/ir/onnx_pb.h"

namespace onnxopt::core::eval {

// Storage type of each element type. Unpacked sub-byte types use one byte per element.
template <int ElemType> struct ElementTraits;
#define ONNXOPT_ELEMENT(ELEM, CTYPE) \
  template <> struct ElementTraits<ELEM> { using type = CTYPE; };
ONNXOPT_ELEMENT(TensorProto::FLOAT, float)
ONNXOPT_ELEMENT(TensorProto::DOUBLE, double)
ONNXOPT_ELEMENT(TensorProto::FLOAT16, std::uint16_t)
ONNXOPT_ELEMENT(TensorProto::BFLOAT16, std::uint16_t)
ONNXOPT_ELEMENT(TensorProto::INT8, std::int8_t)
ONNXOPT_ELEMENT(TensorProto::INT16, std::int16_t)
ONNXOPT_ELEMENT(TensorProto::INT32, std::int32_t)
ONNXOPT_ELEMENT(TensorProto::INT64, std::int64_t)
ONNXOPT_ELEMENT(TensorProto::UINT8, std::uint8_t)
ONNXOPT_ELEMENT(TensorProto::UINT16, std::uint16_t)
ONNXOPT_ELEMENT(TensorProto::UINT32, std::uint32_t)
ONNXOPT_ELEMENT(TensorProto::UINT64, std::uint64_t)
ONNXOPT_ELEMENT(TensorProto::BOOL, bool)
ONNXOPT_ELEMENT(TensorProto::STRING, std::string)
#undef ONNXOPT_ELEMENT

// Element types newer than onnx 1.12's enum, by number.
inline constexpr int kFloat8E4M3FN = 17, kFloat8E4M3FNUZ = 18, kFloat8E5M2 = 19, kFloat8E5M2FNUZ = 20,
                     kUint4 = 21, kInt4 = 22, kFloat4E2M1 = 23, kFloat8E8M0 = 24, kUint2 = 25, kInt2 = 26;

// Whether T is the storage type of `elem_type`: ElementTraits above, std::int8_t for
// INT4 and INT2, std::uint8_t for UINT4, UINT2 and the float8/float4 bit patterns.
template <class T>
constexpr bool IsStorageOf(int elem_type) {
  switch (elem_type) {
    case TensorProto::FLOAT: return std::is_same_v<T, float>;
    case TensorProto::DOUBLE: return std::is_same_v<T, double>;
    case TensorProto::FLOAT16:
    case TensorProto::BFLOAT16:
    case TensorProto::UINT16: return std::is_same_v<T, std::uint16_t>;
    case TensorProto::INT8:
    case kInt4:
    case kInt2: return std::is_same_v<T, std::int8_t>;
    case TensorProto::INT16: return std::is_same_v<T, std::int16_t>;
    case TensorProto::INT32: return std::is_same_v<T, std::int32_t>;
    case TensorProto::INT64: return std::is_same_v<T, std::int64_t>;
    case TensorProto::UINT8:
    case kUint4:
    case kUint2:
    case kFloat8E4M3FN:
    case kFloat8E4M3FNUZ:
    case kFloat8E5M2:
    case kFloat8E5M2FNUZ:
    case kFloat4E2M1:
    case kFloat8E8M0: return std::is_same_v<T, std::uint8_t>;
    case TensorProto::UINT32: return std::is_same_v<T, std::uint32_t>;
    case TensorProto::UINT64: return std::is_same_v<T, std::uint64_t>;
    case TensorProto::BOOL: return std::is_same_v<T, bool>;
    case TensorProto::STRING: return std::is_same_v<T, std::string>;
    default: return false;
  }
}

// Bytes per element in a Tensor's buffer (1 for the unpacked 2- and 4-bit types and the
// 8-bit float types); 0 for STRING and unknown types.
std::size_t StorageBytes(int elem_type);
// The bits of an element that a TensorProto stores packed, several to a byte, the first in
// the lowest bits (4 for INT4, UINT4 and FLOAT4E2M1, 2 for INT2 and UINT2); 0 for the types
// stored a byte or more each.
int PackedBits(int elem_type);
// The 8-bit integer type that holds a 2- or 4-bit integer type's values as a Tensor stores
// them: INT8 for INT4 and INT2, UINT8 for UINT4 and UINT2; 0 for every other type.
int ByteIntegerOf(int elem_type);
// The least and greatest value of a 2- or 4-bit integer type (INT4 [-8, 7], UINT2 [0, 3]);
// nullopt for every other type.
std::optional<std::pair<std::int64_t, std::int64_t>> SubByteIntegerRange(int elem_type);

// float16 / bfloat16 conversions (round to nearest even).
float HalfToFloat(std::uint16_t bits);
std::uint16_t FloatToHalf(float value);
float BFloat16ToFloat(std::uint16_t bits);
std::uint16_t FloatToBFloat16(float value);

class Tensor {
 public:
  Tensor() = default;
  // Zero-filled (empty strings for STRING). Throws ModelError for a negative dim, an
  // unknown element type, an element count that overflows int64, or a size above the
  // limit on tensor sizes (ir::MaxTensorBytes; a STRING element counts as the size of a
  // std::string). A tensor with no element is held whatever its other dims, but they must
  // multiply to a count the limit allows (as if its zeros were ones): kernels loop over
  // the rows of an empty tensor, and [2^40, 0] would keep one busy for hours.
  Tensor(int elem_type, std::vector<std::int64_t> shape);
  // The same, with the numeric buffer left unfilled (STRING elements are still empty
  // strings): for a caller that writes every element before anything reads one. Zeroing
  // a buffer about to be overwritten was 2 % of the instructions of optimizing the
  // 8-layer decoder (constant folding copies its large weights).
  static Tensor ForOverwrite(int elem_type, std::vector<std::int64_t> shape);
  // The constructor's checks without allocating anything: for kernels that compute into
  // buffers of their own before building the output (call it before sizing them).
  static void CheckShape(int elem_type, const std::vector<std::int64_t>& shape);

  int elem_type() const { return elem_type_; }
  const std::vector<std::int64_t>& shape() const { return shape_; }
  std::size_t rank() const { return shape_.size(); }
  std::int64_t size() const { return size_; }  // number of elements
  bool defined() const { return elem_type_ != 0; }

  // Typed access; throws BuilderError when T is not the storage type of elem_type().
  template <class T> const T* Data() const;
  template <class T> T* MutableData();
  // Untyped access to numeric buffers (not STRING).
  const std::byte* RawData() const;
  std::byte* MutableRawData();
  std::size_t ByteSize() const;

  // The same data with another shape of the same element count (shares the buffer).
  Tensor Reshaped(std::vector<std::int64_t> shape) const;
  // Scalar helpers for kernels reading small inputs (axes, shapes, k...): every integer
  // type and bool, and float types converted.
  std::vector<std::int64_t> ToInt64Vector() const;
  std::vector<double> ToDoubleVector() const;
  // Elements [first, first + count) only (BuilderError outside the tensor): for a caller
  // that walks a large tensor in pieces instead of holding 8 bytes for each element.
  std::vector<double> ToDoubleVector(std::int64_t first, std::int64_t count) const;

  // From an initializer or a Constant value: raw_data or typed fields, 2- and 4-bit types
  // unpacked. Throws ModelError (naming the tensor) when the data does not match the
  // shape (checked before allocating anything), when the tensor is above the limit on
  // tensor sizes, or when it is external data that was not loaded.
  static Tensor FromProto(const TensorProto& tensor);
  // From a sparse tensor (sparse initializer, Constant's sparse_value), made dense.
  // Throws ModelError naming the tensor when it is malformed or when its dense form is
  // above the limit on tensor sizes (checked before it is built).
  static Tensor FromSparseProto(const SparseTensorProto& sparse);
  // Serializes with raw_data (typed string_data for STRING), 2- and 4-bit types packed.
  TensorProto ToProto(const std::string& name) const;

  // Element-wise equality of type, shape and bytes (NaN payloads compared bitwise).
  friend bool operator==(const Tensor& a, const Tensor& b);
  // "float[2,3]".
  std::string Describe() const;

 private:
  // Throws BuilderError: a kernel asked for the wrong storage type.
  [[noreturn]] void TypeMismatch(const char* wanted) const;
  // An allocator that leaves the elements a vector is sized with uninitialized (it
  // default-initializes them: nothing, for std::byte); filling ones are still filled.
  // Its buffers are recycled during an evaluation (buffer_recycling.h).
  template <class T>
  struct UnfilledAllocator : std::allocator<T> {
    template <class U>
    struct rebind {
      using other = UnfilledAllocator<U>;
    };
    T* allocate(std::size_t n) {
      if (n > std::size_t(-1) / sizeof(T)) throw std::bad_array_new_length();
      return static_cast<T*>(AllocateTensorBuffer(n * sizeof(T)));
    }
    void deallocate(T* data, std::size_t n) noexcept { FreeTensorBuffer(data, n * sizeof(T)); }
    template <class U>
    void construct(U* element) noexcept(std::is_nothrow_default_constructible_v<U>) {
      ::new (static_cast<void*>(element)) U;
    }
    template <class U, class... Args>
    void construct(U* element, Args&&... args) {
      ::new (static_cast<void*>(element)) U(std::forward<Args>(args)...);
    }
  };
  using Bytes = std::vector<std::byte, UnfilledAllocator<std::byte>>;
  struct Unfilled {};
  Tensor(int elem_type, std::vector<std::int64_t> shape, Unfilled);

  int elem_type_ = 0;
  std::vector<std::int64_t> shape_;
  std::int64_t size_ = 0;
  std::shared_ptr<Bytes> bytes_;                       // numeric types
  std::shared_ptr<std::vector<std::string>> strings_;  // STRING
};

// A value flowing through a graph: a tensor, a sequence of tensors, or an optional
// without a value (an optional holding a value is represented by the value itself).
using Sequence = std::vector<Tensor>;
struct NoValue {};
using Value = std::variant<NoValue, Tensor, Sequence>;

// The Tensor in `value`; throws ModelError naming `what` when it holds something else.
const Tensor& AsTensor(const Value& value, const std::string& what);

// Template definitions --------------------------------------------------------------

namespace detail {
template <class T> constexpr bool kIsString = std::is_same_v<T, std::string>;
}

template <class T>
const T* Tensor::Data() const {
  if (!IsStorageOf<T>(elem_type_)) TypeMismatch(typeid(T).name());
  if constexpr (detail::kIsString<T>) return strings_ ? strings_->data() : nullptr;
  else return bytes_ ? reinterpret_cast<const T*>(bytes_->data()) : nullptr;
}

template <class T>
T* Tensor::MutableData() {
  if (!IsStorageOf<T>(elem_type_)) TypeMismatch(typeid(T).name());
  if constexpr (detail::kIsString<T>) {
    if (strings_ && strings_.use_count() > 1) strings_ = std::make_shared<std::vector<std::string>>(*strings_);
    return strings_ ? strings_->data() : nullptr;
  } else {
    if (bytes_ && bytes_.use_count() > 1) bytes_ = std::make_shared<Bytes>(*bytes_);
    return bytes_ ? reinterpret_cast<T*>(bytes_->data()) : nullptr;
  }
}

}  // namespace onnxopt::core::eval
