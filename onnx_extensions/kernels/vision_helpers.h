#pragma once
// Helpers of the vision and spatial kernels (vision_kernels.cc, spatial_kernels.cc,
// fused_kernels.cc, image_kernels.cc): overflow-checked sizes, and the conversion of
// computed values to any numeric type.

#include <cmath>
#include <cstdint>
#include <limits>
#include <string>
#include <string_view>
#include <type_traits>
#include <vector>

#include "onnx_extensions/kernels/kernel_helpers.h"

namespace onnxopt::onnx_kernels::vision {

// A computed value stored into an element of type T: floating types as they are,
// integers truncated toward zero and saturated (NaN gives 0), bool as value != 0. This is
// the "computed as floating point and cast to integer at the end" of GridSample, without
// the undefined behaviour of an out-of-range conversion.
template <class T>
T FromDouble(double v) {
  if constexpr (std::is_same_v<T, bool>) {
    return v != 0.0;
  } else if constexpr (std::is_floating_point_v<T>) {
    return static_cast<T>(v);
  } else {
    if (std::isnan(v)) return T{0};
    const double t = std::trunc(v);
    // The bounds as doubles: lowest() is exact; max() rounds up to 2^bits, hence >=.
    if (t <= static_cast<double>(std::numeric_limits<T>::lowest())) return std::numeric_limits<T>::lowest();
    if (t >= static_cast<double>(std::numeric_limits<T>::max())) return std::numeric_limits<T>::max();
    return static_cast<T>(t);
  }
}

// The tensor of input `i` with a float element type (float, double, float16, bfloat16);
// ModelError naming `name` otherwise.
inline const Tensor& FloatInput(const KernelContext& ctx, std::size_t i, std::string_view name) {
  const Tensor& t = ctx.TensorInput(i);
  const int type = t.elem_type();
  if (type != TensorProto::FLOAT && type != TensorProto::DOUBLE && !IsHalfType(type))
    Fail(std::string(name) + " has element type " + ElemTypeName(type) + ", expected a float type");
  return t;
}

// float, double, float16, bfloat16, the 8- to 64-bit integers and bool.
inline bool IsNumericOrBool(int elem_type) {
  switch (elem_type) {
    case TensorProto::FLOAT: case TensorProto::DOUBLE: case TensorProto::FLOAT16: case TensorProto::BFLOAT16:
    case TensorProto::INT8: case TensorProto::INT16: case TensorProto::INT32: case TensorProto::INT64:
    case TensorProto::UINT8: case TensorProto::UINT16: case TensorProto::UINT32: case TensorProto::UINT64:
    case TensorProto::BOOL: return true;
    default: return false;
  }
}

// Throws ModelError unless `t` has rank `rank`.
inline void RequireRank(const Tensor& t, std::size_t rank, std::string_view name) {
  if (t.rank() != rank)
    Fail(std::string(name) + " must have rank " + std::to_string(rank) + ", found " + t.Describe());
}

// A DOUBLE tensor converted to `elem_type` (any numeric type or bool) with FromDouble;
// float16/bfloat16 are rounded once, from the double through float.
inline Tensor DoublesToType(const Tensor& values, int elem_type) {
  if (elem_type == TensorProto::DOUBLE) return values;
  const double* src = values.Data<double>();
  Tensor out(IsHalfType(elem_type) ? TensorProto::FLOAT : elem_type, values.shape());
  DispatchNumericOrBool(out.elem_type(), [&]<class T>(std::type_identity<T>) {
    T* dst = out.MutableData<T>();
    for (std::int64_t i = 0; i < out.size(); ++i) dst[i] = FromDouble<T>(src[i]);
  });
  return FromComputeType(out, elem_type);
}

// Integer attribute list of length `rank`, `fallback` everywhere when absent or empty;
// ModelError naming the attribute when the length differs or a value is below `min`.
inline std::vector<std::int64_t> SpatialAttribute(const KernelContext& ctx, const char* name, std::size_t rank,
                                                  std::int64_t fallback, std::int64_t min) {
  std::vector<std::int64_t> values = ctx.IntsAttribute(name).value_or(std::vector<std::int64_t>{});
  if (values.empty()) return std::vector<std::int64_t>(rank, fallback);
  if (values.size() != rank)
    Fail(std::string("attribute ") + name + " has " + std::to_string(values.size()) + " values, expected " +
         std::to_string(rank));
  for (std::int64_t v : values)
    if (v < min)
      Fail(std::string("attribute ") + name + " " + ShapeToString(values) + " has a value below " +
           std::to_string(min));
  return values;
}

}  // namespace onnxopt::onnx_kernels::vision
