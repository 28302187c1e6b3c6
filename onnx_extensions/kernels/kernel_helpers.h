#pragma once
// Helpers shared by the kernel files: errors, type dispatch, broadcasting, axes, checked
// size arithmetic, and the validating readers of inputs and attributes every kernel uses
// before it touches the data (a model can give any count, type, rank or value).
//
// Type dispatch calls a generic lambda with std::type_identity<T> for the C++ type of an
// element type:
//
//   DispatchNumeric(x.elem_type(), [&]<class T>(std::type_identity<T>) { ... });
//
// float16 and bfloat16 are computed through float32: kernels call ToComputeType() on
// their inputs (float16/bfloat16 become float, other types are returned unchanged) and
// FromComputeType() on their results. DispatchStorage covers every type by its storage
// type (uint16_t for float16, uint8_t for float8, std::string, bool) for kernels that
// only move elements.

#include <array>
#include <concepts>
#include <cstdint>
#include <initializer_list>
#include <limits>
#include <optional>
#include <utility>
#include <string>
#include <string_view>
#include <type_traits>
#include <vector>

#include "onnx_core/common/error.h"
#include "onnx_core/eval/kernel_registry.h"
#include "onnx_core/eval/tensor.h"
#include "onnx_core/eval/undefined_results.h"
#include "onnx_core/eval/work_budget.h"

namespace onnxopt::onnx_kernels {

// Kernels whose work grows faster than their inputs and outputs charge it first.
using core::eval::ChargeWork;
using core::eval::KernelContext;
using core::eval::Tensor;
using core::eval::Value;
using Shape = std::vector<std::int64_t>;

// Throws ModelError with `message` (the evaluator adds the node).
[[noreturn]] void Fail(const std::string& message);

// "[2,3]".
std::string ShapeToString(const Shape& shape);
std::string ElemTypeName(int elem_type);
std::int64_t ShapeSize(const Shape& shape);
// Product of the dims [from, to) of `shape` (`to` clamped to its rank; 1 when empty).
std::int64_t ShapeSize(const Shape& shape, std::size_t from, std::size_t to = static_cast<std::size_t>(-1));
// Row-major strides of `shape`.
Shape Strides(const Shape& shape);
// Number of elements of a shape computed from inputs or attributes, before anything is
// allocated for it: ModelError (naming `what`) for a negative dim, an overflow, or a
// buffer of that many 8-byte elements over the tensor size limit (ir::MaxTensorBytes).
std::int64_t CheckedShapeSize(const Shape& shape, std::string_view what);
// The characters a kernel copies into a STRING output, held to the limit on tensor sizes,
// which counts a string element, not its characters: one string of 10 MB expanded to
// [1000] would take 10 GB. Count each element before copying it (nothing for other
// types); ModelError naming `what` past the limit.
class StringCopies {
 public:
  explicit StringCopies(std::string_view what);
  template <class T>
  void Count(const T& element) {
    if constexpr (std::is_same_v<T, std::string>) Add(element.size());
  }
  template <class T>
  void Count(const T* begin, const T* end) {
    if constexpr (std::is_same_v<T, std::string>)
      for (const T* element = begin; element != end; ++element) Add(element->size());
  }

 private:
  void Add(std::size_t characters);
  std::uint64_t characters_ = 0;
  std::uint64_t limit_;
  std::string_view what_;
};

// Every tensor takes memory of its own however small it is: the object, its shape, its
// buffer's bookkeeping (10^8 one-byte tensors split from 100 MB took over 20 GB). A kernel
// that holds many tensors at once (a sequence, scan slices to stack) counts each as
// kBytesPerHeldTensor against the limit on tensor sizes, before making them: ModelError
// past it, naming the tensors with `what()` ("a sequence of 10 tensors"), called only
// then (a Loop checks at every iteration).
inline constexpr std::uint64_t kBytesPerHeldTensor = 256;
std::uint64_t MaxHeldTensors();
[[noreturn]] void RefuseHeldTensors(std::uint64_t count, std::string_view what);
template <class What>
void CheckHeldTensors(std::uint64_t count, What&& what) {
  if (count > MaxHeldTensors()) RefuseHeldTensors(count, what());
}

// The largest element count a tensor can have under the size limit (ir::MaxTensorBytes;
// every element takes at least one byte): a bound for counts read from inputs or
// attributes before they are converted or used.
std::int64_t MaxElementCount();
// a * b and a + b; ModelError naming `what` when the result does not fit in int64.
std::int64_t CheckedMul(std::int64_t a, std::int64_t b, std::string_view what);
std::int64_t CheckedAdd(std::int64_t a, std::int64_t b, std::string_view what);

// Axis in [-rank, rank-1] to [0, rank-1]; ModelError otherwise (`what` names the attribute).
std::int64_t NormalizeAxis(std::int64_t axis, std::int64_t rank, std::string_view what = "axis");
// Same for a list. Duplicates are an error, unless `merge_duplicates` (operators whose
// spec does not forbid them: Squeeze, the reductions), where they count once.
std::vector<std::int64_t> NormalizeAxes(const std::vector<std::int64_t>& axes, std::int64_t rank,
                                        std::string_view what = "axes", bool merge_duplicates = false);
// Which of the `rank` axes `axes` (normalized) lists: a lookup per axis instead of a
// search, where the rank may be as large as the data (a shape of 10^6 ones).
std::vector<bool> AxisMarks(const std::vector<std::int64_t>& axes, std::int64_t rank);
// `perm` must be a permutation of [0, rank) (Transpose, attribute `what`).
void CheckPermutation(const std::vector<std::int64_t>& perm, std::size_t rank, std::string_view what = "perm");

// Validating readers -------------------------------------------------------------------
// Each names what it reads in its message ("input 1 ('shape')", "attribute 'axis'") and
// says what was expected and what was found.

// "input 1 ('shape')".
std::string InputLabel(const KernelContext& ctx, std::size_t i);
// Element-type checks of tensor `t`, named `what`.
void ExpectElemType(const Tensor& t, int elem_type, std::string_view what);
bool IsIndexType(int elem_type);  // int32 or int64
void ExpectIndexType(const Tensor& t, std::string_view what);
bool IsFloatType(int elem_type);  // float16, bfloat16, float, double
void ExpectFloatType(const Tensor& t, std::string_view what);
void ExpectSameElemType(const Tensor& t, const Tensor& reference, std::string_view what,
                        std::string_view reference_what);
// Rank within [min_rank, max_rank].
void ExpectRank(const Tensor& t, std::size_t min_rank, std::size_t max_rank, std::string_view what);

// --- Arithmetic without undefined behaviour ------------------------------------------
// Integer arithmetic wraps around (two's complement, as onnxruntime computes): done in an
// unsigned type at least as wide as unsigned int, since a signed overflow (or int8/int16
// promoted to int) is undefined in C++. Floats and bool compute as they are.
template <class T>
struct WrappingTypeOf {
  using type = T;
};
template <std::integral T>
  requires(!std::is_same_v<T, bool>)
struct WrappingTypeOf<T> {
  using type = std::conditional_t<(sizeof(T) < sizeof(unsigned)), unsigned, std::make_unsigned_t<T>>;
};
template <class T>
using WrappingType = typename WrappingTypeOf<T>::type;
template <class T>
T WrappingAdd(T a, T b) { return static_cast<T>(static_cast<WrappingType<T>>(a) + static_cast<WrappingType<T>>(b)); }
template <class T>
T WrappingSub(T a, T b) { return static_cast<T>(static_cast<WrappingType<T>>(a) - static_cast<WrappingType<T>>(b)); }
template <class T>
T WrappingMul(T a, T b) { return static_cast<T>(static_cast<WrappingType<T>>(a) * static_cast<WrappingType<T>>(b)); }
template <class T>
T WrappingNeg(T a) { return WrappingSub(T(0), a); }

inline constexpr std::string_view kFloatOutOfIntegerRange =
    "a float converted to an integer type whose range does not hold it, or NaN";

// `v` converted to D; a float out of D's range saturates and NaN becomes 0 (the C++
// conversion is undefined there, and so is Cast's): noted with NoteUndefinedResult when
// truncating it toward zero gives no value of D. The values within D's range, the common
// case, take no test beyond the two comparisons saturation needs anyway.
template <class D, class S>
D ConvertNumber(S v) {
  if constexpr (std::is_same_v<D, bool>) {
    return v != S(0);
  } else if constexpr (std::is_floating_point_v<D> || !std::is_floating_point_v<S>) {
    return static_cast<D>(v);
  } else {
    // Truncation gives a value of D for -2^digits - 1 < v < 2^digits (signed; -1 < v for
    // unsigned): the powers of two are exact in S, the bound below -2^digits may round to
    // it (int64 in double), hence the two tests.
    constexpr S limit = [] {
      S power = 1;
      for (int i = 0; i < std::numeric_limits<D>::digits; ++i) power *= 2;
      return power;
    }();
    if (v != v) {
      core::eval::NoteUndefinedResult(kFloatOutOfIntegerRange);
      return D(0);
    }
    if (v <= static_cast<S>(std::numeric_limits<D>::lowest())) {
      if (!(std::is_signed_v<D> ? v >= -limit || v > -limit - S(1) : v > S(-1)))
        core::eval::NoteUndefinedResult(kFloatOutOfIntegerRange);
      return std::numeric_limits<D>::lowest();
    }
    if (v >= static_cast<S>(std::numeric_limits<D>::max())) {
      if (!(v < limit)) core::eval::NoteUndefinedResult(kFloatOutOfIntegerRange);
      return std::numeric_limits<D>::max();
    }
    return static_cast<D>(v);
  }
}

// Integer list from input `i`: int32 or int64, rank 0 or 1. The optional form gives
// nullopt when the input is omitted.
std::vector<std::int64_t> InputInts(const KernelContext& ctx, std::size_t i);
std::optional<std::vector<std::int64_t>> OptionalInputInts(const KernelContext& ctx, std::size_t i);
// One int32/int64 value: rank 0 or a one-element vector.
std::int64_t InputIntScalar(const KernelContext& ctx, std::size_t i);
// One numeric value (any numeric type, converted): rank 0 or a one-element vector.
double InputScalar(const KernelContext& ctx, std::size_t i);
// Input `i`, checked to hold one value (rank 0 or a one-element vector), for a caller that
// reads it in its own type (an int64 beyond 2^53 does not survive InputScalar's double).
const Tensor& OneElementInput(const KernelContext& ctx, std::size_t i);

// Attributes: a required int; an int within [lo, hi] (default `def` when absent); a
// string among `choices` (default `def`).
std::int64_t RequiredIntAttribute(const KernelContext& ctx, std::string_view name);
std::int64_t IntAttributeIn(const KernelContext& ctx, std::string_view name, std::int64_t def, std::int64_t lo,
                            std::int64_t hi);
std::string StringAttributeIn(const KernelContext& ctx, std::string_view name, std::string_view def,
                              std::initializer_list<std::string_view> choices);
// Every value at least `min` (strides, dilations, kernel sizes: 1; pads: 0).
void ExpectAtLeast(const std::vector<std::int64_t>& values, std::int64_t min, std::string_view what);

// float16 / bfloat16 -> float tensor; other tensors unchanged.
bool IsHalfType(int elem_type);
// `value` rounded to `half_type` (float16 or bfloat16, to nearest even) and read back: what a
// value of that type computed in float holds.
float RoundToHalfType(float value, int half_type);
Tensor ToComputeType(const Tensor& t);
// float tensor -> `elem_type` when it is float16 / bfloat16; otherwise unchanged.
Tensor FromComputeType(const Tensor& t, int elem_type);

// Multidirectional (NumPy) broadcast of shapes; ModelError when incompatible.
Shape BroadcastShapes(const std::vector<Shape>& shapes);
// Strides of `shape` seen as `out_shape` (right-aligned, 0 on broadcast dims).
Shape BroadcastStrides(const Shape& shape, const Shape& out_shape);

// Calls f(out_index, offsets) for every element of out_shape in row-major order, where
// offsets[k] is the flat index in input k (of shape in_shapes[k], broadcast to out_shape).
template <std::size_t N, class F>
void ForEachBroadcast(const Shape& out_shape, const std::array<const Shape*, N>& in_shapes, F&& f) {
  const std::size_t rank = out_shape.size();
  std::int64_t total = ShapeSize(out_shape);
  if (total == 0) return;
  std::array<Shape, N> strides;
  bool all_same = true;
  for (std::size_t k = 0; k < N; ++k) {
    strides[k] = BroadcastStrides(*in_shapes[k], out_shape);
    if (*in_shapes[k] != out_shape) all_same = false;
  }
  std::array<std::int64_t, N> off{};
  if (all_same) {
    for (std::int64_t i = 0; i < total; ++i) {
      off.fill(i);
      f(i, off);
    }
    return;
  }
  if (rank == 0) {
    f(std::int64_t{0}, off);
    return;
  }
  const std::int64_t inner = out_shape[rank - 1];
  std::array<std::int64_t, N> inner_stride{};
  for (std::size_t k = 0; k < N; ++k) inner_stride[k] = strides[k][rank - 1];
  Shape index(rank, 0);
  std::array<std::int64_t, N> base{};
  for (std::int64_t i = 0; i < total; i += inner) {
    for (std::int64_t j = 0; j < inner; ++j) {
      for (std::size_t k = 0; k < N; ++k) off[k] = base[k] + j * inner_stride[k];
      f(i + j, off);
    }
    // Advance the odometer over the outer dims.
    for (std::size_t d = rank - 1; d-- > 0;) {
      ++index[d];
      for (std::size_t k = 0; k < N; ++k) base[k] += strides[k][d];
      if (index[d] < out_shape[d]) break;
      for (std::size_t k = 0; k < N; ++k) base[k] -= strides[k][d] * index[d];
      index[d] = 0;
    }
  }
}

// Dispatch -------------------------------------------------------------------------

namespace detail {
[[noreturn]] void UnsupportedType(int elem_type, std::string_view what);
}

// float, double.
template <class F>
decltype(auto) DispatchFloat(int elem_type, F&& f) {
  switch (elem_type) {
    case TensorProto::FLOAT: return f(std::type_identity<float>{});
    case TensorProto::DOUBLE: return f(std::type_identity<double>{});
    default: detail::UnsupportedType(elem_type, "a float type");
  }
}

// Signed and unsigned integers (not bool).
template <class F>
decltype(auto) DispatchInteger(int elem_type, F&& f) {
  switch (elem_type) {
    case TensorProto::INT8: return f(std::type_identity<std::int8_t>{});
    case TensorProto::INT16: return f(std::type_identity<std::int16_t>{});
    case TensorProto::INT32: return f(std::type_identity<std::int32_t>{});
    case TensorProto::INT64: return f(std::type_identity<std::int64_t>{});
    case TensorProto::UINT8: return f(std::type_identity<std::uint8_t>{});
    case TensorProto::UINT16: return f(std::type_identity<std::uint16_t>{});
    case TensorProto::UINT32: return f(std::type_identity<std::uint32_t>{});
    case TensorProto::UINT64: return f(std::type_identity<std::uint64_t>{});
    default: detail::UnsupportedType(elem_type, "an integer type");
  }
}

// Unsigned integers (BitShift).
template <class F>
decltype(auto) DispatchUnsigned(int elem_type, F&& f) {
  switch (elem_type) {
    case TensorProto::UINT8: return f(std::type_identity<std::uint8_t>{});
    case TensorProto::UINT16: return f(std::type_identity<std::uint16_t>{});
    case TensorProto::UINT32: return f(std::type_identity<std::uint32_t>{});
    case TensorProto::UINT64: return f(std::type_identity<std::uint64_t>{});
    default: detail::UnsupportedType(elem_type, "an unsigned integer type");
  }
}

// float, double and integers (float16/bfloat16 must go through ToComputeType first).
template <class F>
decltype(auto) DispatchNumeric(int elem_type, F&& f) {
  switch (elem_type) {
    case TensorProto::FLOAT: return f(std::type_identity<float>{});
    case TensorProto::DOUBLE: return f(std::type_identity<double>{});
    case TensorProto::INT8: return f(std::type_identity<std::int8_t>{});
    case TensorProto::INT16: return f(std::type_identity<std::int16_t>{});
    case TensorProto::INT32: return f(std::type_identity<std::int32_t>{});
    case TensorProto::INT64: return f(std::type_identity<std::int64_t>{});
    case TensorProto::UINT8: return f(std::type_identity<std::uint8_t>{});
    case TensorProto::UINT16: return f(std::type_identity<std::uint16_t>{});
    case TensorProto::UINT32: return f(std::type_identity<std::uint32_t>{});
    case TensorProto::UINT64: return f(std::type_identity<std::uint64_t>{});
    default: detail::UnsupportedType(elem_type, "a numeric type");
  }
}

// Numeric types and bool.
template <class F>
decltype(auto) DispatchNumericOrBool(int elem_type, F&& f) {
  if (elem_type == TensorProto::BOOL) return f(std::type_identity<bool>{});
  return DispatchNumeric(elem_type, std::forward<F>(f));
}

// Every type, by storage type.
template <class F>
decltype(auto) DispatchStorage(int elem_type, F&& f) {
  switch (core::eval::StorageBytes(elem_type)) {
    case 1:
      if (elem_type == TensorProto::BOOL) return f(std::type_identity<bool>{});
      if (elem_type == TensorProto::INT8 || core::eval::ByteIntegerOf(elem_type) == TensorProto::INT8)
        return f(std::type_identity<std::int8_t>{});
      return f(std::type_identity<std::uint8_t>{});
    default: break;
  }
  switch (elem_type) {
    case TensorProto::STRING: return f(std::type_identity<std::string>{});
    case TensorProto::FLOAT16:
    case TensorProto::BFLOAT16: return f(std::type_identity<std::uint16_t>{});
    default: return DispatchNumeric(elem_type, std::forward<F>(f));
  }
}

}  // namespace onnxopt::onnx_kernels
