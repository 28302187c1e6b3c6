#include "onnx_extensions/kernels/kernel_helpers.h"

#include <algorithm>

namespace onnxopt::onnx_kernels {

void Fail(const std::string& message) { throw ModelError(message); }

std::string ShapeToString(const Shape& shape) {
  std::string s = "[";
  for (std::size_t i = 0; i < shape.size(); ++i) {
    if (i) s += ",";
    s += std::to_string(shape[i]);
  }
  return s + "]";
}

std::string ElemTypeName(int elem_type) {
  if (TensorProto::DataType_IsValid(elem_type))
    return TensorProto::DataType_Name(static_cast<TensorProto::DataType>(elem_type));
  return "elem_type " + std::to_string(elem_type);
}

std::int64_t ShapeSize(const Shape& shape) {
  std::int64_t n = 1;
  for (auto d : shape) n *= d;
  return n;
}

Shape Strides(const Shape& shape) {
  Shape strides(shape.size(), 1);
  for (std::size_t i = shape.size(); i-- > 1;) strides[i - 1] = strides[i] * shape[i];
  return strides;
}

std::int64_t NormalizeAxis(std::int64_t axis, std::int64_t rank, std::string_view what) {
  if (axis < -rank || axis >= rank)
    Fail(std::string(what) + " " + std::to_string(axis) + " is out of range for rank " + std::to_string(rank));
  return axis < 0 ? axis + rank : axis;
}

std::vector<std::int64_t> NormalizeAxes(const std::vector<std::int64_t>& axes, std::int64_t rank,
                                        std::string_view what) {
  std::vector<std::int64_t> out;
  out.reserve(axes.size());
  for (auto a : axes) {
    auto n = NormalizeAxis(a, rank, what);
    if (std::find(out.begin(), out.end(), n) != out.end())
      Fail(std::string(what) + " contains axis " + std::to_string(a) + " twice");
    out.push_back(n);
  }
  return out;
}

std::vector<std::int64_t> InputInts(const KernelContext& ctx, std::size_t i) {
  return ctx.TensorInput(i).ToInt64Vector();
}

std::optional<std::vector<std::int64_t>> OptionalInputInts(const KernelContext& ctx, std::size_t i) {
  if (!ctx.HasInput(i)) return std::nullopt;
  return ctx.TensorInput(i).ToInt64Vector();
}

double InputScalar(const KernelContext& ctx, std::size_t i) {
  auto v = ctx.TensorInput(i).ToDoubleVector();
  if (v.size() != 1) Fail("input " + std::to_string(i) + " must be a scalar, found " + std::to_string(v.size()) + " elements");
  return v[0];
}

bool IsHalfType(int elem_type) {
  return elem_type == TensorProto::FLOAT16 || elem_type == TensorProto::BFLOAT16;
}

Tensor ToComputeType(const Tensor& t) {
  if (!IsHalfType(t.elem_type())) return t;
  Tensor out(TensorProto::FLOAT, t.shape());
  const auto* src = t.Data<std::uint16_t>();
  float* dst = out.MutableData<float>();
  const bool half = t.elem_type() == TensorProto::FLOAT16;
  for (std::int64_t i = 0; i < t.size(); ++i)
    dst[i] = half ? core::eval::HalfToFloat(src[i]) : core::eval::BFloat16ToFloat(src[i]);
  return out;
}

Tensor FromComputeType(const Tensor& t, int elem_type) {
  if (!IsHalfType(elem_type) || t.elem_type() != TensorProto::FLOAT) return t;
  Tensor out(elem_type, t.shape());
  const float* src = t.Data<float>();
  auto* dst = out.MutableData<std::uint16_t>();
  const bool half = elem_type == TensorProto::FLOAT16;
  for (std::int64_t i = 0; i < t.size(); ++i)
    dst[i] = half ? core::eval::FloatToHalf(src[i]) : core::eval::FloatToBFloat16(src[i]);
  return out;
}

Shape BroadcastShapes(const std::vector<Shape>& shapes) {
  std::size_t rank = 0;
  for (const auto& s : shapes) rank = std::max(rank, s.size());
  Shape out(rank, 1);
  for (const auto& s : shapes) {
    for (std::size_t i = 0; i < s.size(); ++i) {
      std::int64_t& o = out[rank - s.size() + i];
      std::int64_t d = s[i];
      if (d == o || d == 1) continue;
      if (o == 1) {
        o = d;
        continue;
      }
      std::string all;
      for (const auto& t : shapes) all += (all.empty() ? "" : " and ") + ShapeToString(t);
      Fail("incompatible broadcast between shapes " + all);
    }
  }
  return out;
}

Shape BroadcastStrides(const Shape& shape, const Shape& out_shape) {
  Shape strides(out_shape.size(), 0);
  Shape own = Strides(shape);
  const std::size_t shift = out_shape.size() - shape.size();
  for (std::size_t i = 0; i < shape.size(); ++i) strides[shift + i] = shape[i] == 1 ? 0 : own[i];
  return strides;
}

namespace detail {
void UnsupportedType(int elem_type, std::string_view what) {
  Fail("unsupported element type " + ElemTypeName(elem_type) + " (expected " + std::string(what) + ")");
}
}  // namespace detail

}  // namespace onnxopt::onnx_kernels
