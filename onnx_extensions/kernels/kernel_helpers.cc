#include "onnx_extensions/kernels/kernel_helpers.h"

#include <algorithm>
#include <cstdint>

#include "onnx_core/ir/tensor_data.h"

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

// ir::ElementTypeName also names the types newer than onnx 1.12's enum (FLOAT4E2M1, ...).
std::string ElemTypeName(int elem_type) {
  if (TensorProto::DataType_IsValid(elem_type) || core::ir::ElementBits(elem_type))
    return core::ir::ElementTypeName(elem_type);
  return "elem_type " + std::to_string(elem_type);
}

std::int64_t ShapeSize(const Shape& shape) { return ShapeSize(shape, 0); }

std::int64_t ShapeSize(const Shape& shape, std::size_t from, std::size_t to) {
  // A dim of 0 makes the product 0 whatever the others, whose product may pass int64 in
  // an empty tensor's shape; a product that overflows without one is refused.
  std::int64_t n = 1;
  bool overflow = false;
  for (std::size_t i = from; i < std::min(to, shape.size()); ++i) {
    if (shape[i] == 0) return 0;
    overflow = __builtin_mul_overflow(n, shape[i], &n) || overflow;
  }
  if (overflow) Fail("the dims " + ShapeToString(shape) + " multiply past int64");
  return n;
}

Shape Strides(const Shape& shape) {
  Shape strides(shape.size(), 1);
  // Strides never pass the element count, but in an empty tensor's shape the dims right of
  // a 0 may: no element is read through those, so they saturate instead of overflowing.
  for (std::size_t i = shape.size(); i-- > 1;)
    if (__builtin_mul_overflow(strides[i], shape[i], &strides[i - 1])) strides[i - 1] = INT64_MAX;
  return strides;
}

std::int64_t CheckedMul(std::int64_t a, std::int64_t b, std::string_view what) {
  std::int64_t r;
  if (__builtin_mul_overflow(a, b, &r))
    Fail(std::string(what) + ": " + std::to_string(a) + " * " + std::to_string(b) + " does not fit in 64 bits");
  return r;
}

std::int64_t CheckedAdd(std::int64_t a, std::int64_t b, std::string_view what) {
  std::int64_t r;
  if (__builtin_add_overflow(a, b, &r))
    Fail(std::string(what) + ": " + std::to_string(a) + " + " + std::to_string(b) + " does not fit in 64 bits");
  return r;
}

StringCopies::StringCopies(std::string_view what) : limit_(core::ir::MaxTensorBytes()), what_(what) {}

void StringCopies::Add(std::size_t characters) {
  characters_ += characters;
  if (characters_ > limit_) core::ir::CheckTensorBytes(characters_, what_);
}

std::uint64_t MaxHeldTensors() { return core::ir::MaxTensorBytes() / kBytesPerHeldTensor; }

void RefuseHeldTensors(std::uint64_t count, std::string_view what) {
  const std::optional<std::uint64_t> bytes =
      count <= UINT64_MAX / kBytesPerHeldTensor ? std::optional(count * kBytesPerHeldTensor) : std::nullopt;
  core::ir::CheckTensorBytes(bytes, what);
  // Within the limit after all (count <= MaxHeldTensors() should not have come here).
  Fail(std::string(what) + ": " + std::to_string(count) + " tensors held at once, more than the limit allows");
}

std::int64_t MaxElementCount() {
  return static_cast<std::int64_t>(std::min<std::uint64_t>(core::ir::MaxTensorBytes(), INT64_MAX));
}

std::int64_t CheckedShapeSize(const Shape& shape, std::string_view what) {
  for (auto d : shape)
    if (d < 0) Fail(std::string(what) + " " + ShapeToString(shape) + " has a negative dimension");
  const std::optional<std::int64_t> count = core::ir::ElementCount(shape);
  if (!count) Fail(std::string(what) + " " + ShapeToString(shape) + ": the number of elements overflows int64");
  // Kernels compute in buffers of at most 8 bytes per element (double, int64).
  std::uint64_t bytes = 0;
  const bool overflow = __builtin_mul_overflow(static_cast<std::uint64_t>(*count), std::uint64_t{8}, &bytes);
  core::ir::CheckTensorBytes(overflow ? std::nullopt : std::optional<std::uint64_t>(bytes),
                             std::string(what) + " " + ShapeToString(shape));
  return *count;
}

std::int64_t NormalizeAxis(std::int64_t axis, std::int64_t rank, std::string_view what) {
  if (axis < -rank || axis >= rank)
    Fail(std::string(what) + " " + std::to_string(axis) + " is out of range for rank " + std::to_string(rank) +
         " (expected [" + std::to_string(-rank) + ", " + std::to_string(rank - 1) + "])");
  return axis < 0 ? axis + rank : axis;
}

std::vector<std::int64_t> NormalizeAxes(const std::vector<std::int64_t>& axes, std::int64_t rank,
                                        std::string_view what, bool merge_duplicates) {
  std::vector<std::int64_t> out;
  out.reserve(axes.size());
  // A mark per axis of the rank, not a search among the axes before: an axes input of 10^6
  // entries (an Unsqueeze to rank 10^6) made 10^12 comparisons.
  std::vector<bool> seen(static_cast<std::size_t>(std::max<std::int64_t>(rank, 0)), false);
  for (auto a : axes) {
    auto n = NormalizeAxis(a, rank, what);
    if (seen[static_cast<std::size_t>(n)]) {
      if (merge_duplicates) continue;
      Fail(std::string(what) + " contains axis " + std::to_string(n) + " twice (given as " + std::to_string(a) + ")");
    }
    seen[static_cast<std::size_t>(n)] = true;
    out.push_back(n);
  }
  return out;
}

std::vector<bool> AxisMarks(const std::vector<std::int64_t>& axes, std::int64_t rank) {
  std::vector<bool> marks(static_cast<std::size_t>(std::max<std::int64_t>(rank, 0)), false);
  for (const std::int64_t axis : axes) marks[static_cast<std::size_t>(axis)] = true;
  return marks;
}

void CheckPermutation(const std::vector<std::int64_t>& perm, std::size_t rank, std::string_view what) {
  if (perm.size() != rank)
    Fail(std::string(what) + " has " + std::to_string(perm.size()) + " entries for rank " + std::to_string(rank));
  std::vector<bool> seen(rank, false);
  for (auto p : perm) {
    if (p < 0 || p >= static_cast<std::int64_t>(rank))
      Fail(std::string(what) + " " + ShapeToString(perm) + " is not a permutation of [0, " + std::to_string(rank) +
           "): " + std::to_string(p) + " is out of range");
    if (seen[static_cast<std::size_t>(p)])
      Fail(std::string(what) + " " + ShapeToString(perm) + " is not a permutation: " + std::to_string(p) + " repeats");
    seen[static_cast<std::size_t>(p)] = true;
  }
}

std::string InputLabel(const KernelContext& ctx, std::size_t i) {
  const std::string name = i < ctx.InputCount() ? ctx.Node().input(static_cast<int>(i)) : std::string();
  return "input " + std::to_string(i) + (name.empty() ? "" : " ('" + name + "')");
}

void ExpectElemType(const Tensor& t, int elem_type, std::string_view what) {
  if (t.elem_type() != elem_type)
    Fail(std::string(what) + " must be " + ElemTypeName(elem_type) + ", found " + ElemTypeName(t.elem_type()));
}

bool IsIndexType(int elem_type) { return elem_type == TensorProto::INT32 || elem_type == TensorProto::INT64; }

void ExpectIndexType(const Tensor& t, std::string_view what) {
  if (!IsIndexType(t.elem_type()))
    Fail(std::string(what) + " must be INT32 or INT64, found " + ElemTypeName(t.elem_type()));
}

void ExpectSameElemType(const Tensor& t, const Tensor& reference, std::string_view what,
                        std::string_view reference_what) {
  if (t.elem_type() != reference.elem_type())
    Fail(std::string(what) + " is " + ElemTypeName(t.elem_type()) + ", expected the element type of " +
         std::string(reference_what) + " (" + ElemTypeName(reference.elem_type()) + ")");
}

void ExpectRank(const Tensor& t, std::size_t min_rank, std::size_t max_rank, std::string_view what) {
  if (t.rank() >= min_rank && t.rank() <= max_rank) return;
  std::string expected = min_rank == max_rank ? "rank " + std::to_string(min_rank)
                         : max_rank == static_cast<std::size_t>(-1) ? "rank >= " + std::to_string(min_rank)
                                                                   : "rank " + std::to_string(min_rank) + " to " +
                                                                         std::to_string(max_rank);
  Fail(std::string(what) + " must have " + expected + ", found " + t.Describe());
}

bool IsFloatType(int elem_type) {
  return IsHalfType(elem_type) || elem_type == TensorProto::FLOAT || elem_type == TensorProto::DOUBLE;
}

void ExpectFloatType(const Tensor& t, std::string_view what) {
  if (!IsFloatType(t.elem_type()))
    Fail(std::string(what) + " must be FLOAT, DOUBLE, FLOAT16 or BFLOAT16, found " + ElemTypeName(t.elem_type()));
}

std::vector<std::int64_t> InputInts(const KernelContext& ctx, std::size_t i) {
  const Tensor& t = ctx.TensorInput(i);
  const std::string what = InputLabel(ctx, i);
  ExpectIndexType(t, what);
  ExpectRank(t, 0, 1, what);
  return t.ToInt64Vector();
}

std::optional<std::vector<std::int64_t>> OptionalInputInts(const KernelContext& ctx, std::size_t i) {
  if (!ctx.HasInput(i)) return std::nullopt;
  return InputInts(ctx, i);
}

const Tensor& OneElementInput(const KernelContext& ctx, std::size_t i) {
  const Tensor& t = ctx.TensorInput(i);
  if (t.size() != 1 || t.rank() > 1)
    Fail(InputLabel(ctx, i) + " must be a scalar (or a one-element vector), found " + t.Describe());
  return t;
}

std::int64_t InputIntScalar(const KernelContext& ctx, std::size_t i) {
  const Tensor& t = OneElementInput(ctx, i);
  ExpectIndexType(t, InputLabel(ctx, i));
  return t.ToInt64Vector()[0];
}

double InputScalar(const KernelContext& ctx, std::size_t i) {
  const Tensor& t = OneElementInput(ctx, i);
  if (t.elem_type() == TensorProto::STRING) Fail(InputLabel(ctx, i) + " must be numeric, found " + t.Describe());
  return t.ToDoubleVector()[0];
}

std::int64_t RequiredIntAttribute(const KernelContext& ctx, std::string_view name) {
  const auto value = ctx.IntAttribute(name);
  if (!value) Fail("attribute '" + std::string(name) + "' is required");
  return *value;
}

std::int64_t IntAttributeIn(const KernelContext& ctx, std::string_view name, std::int64_t def, std::int64_t lo,
                            std::int64_t hi) {
  const std::int64_t value = ctx.IntAttribute(name).value_or(def);
  if (value < lo || value > hi)
    Fail("attribute '" + std::string(name) + "' is " + std::to_string(value) + ", expected a value in [" +
         std::to_string(lo) + ", " + std::to_string(hi) + "]");
  return value;
}

std::string StringAttributeIn(const KernelContext& ctx, std::string_view name, std::string_view def,
                              std::initializer_list<std::string_view> choices) {
  std::string value = ctx.StringAttribute(name).value_or(std::string(def));
  std::string list;
  for (std::string_view choice : choices) {
    if (value == choice) return value;
    list += (list.empty() ? "" : ", ") + std::string(choice);
  }
  Fail("attribute '" + std::string(name) + "' is \"" + value + "\", expected one of " + list);
}

void ExpectAtLeast(const std::vector<std::int64_t>& values, std::int64_t min, std::string_view what) {
  for (auto v : values)
    if (v < min)
      Fail(std::string(what) + " " + ShapeToString(values) + " has the value " + std::to_string(v) + ", expected >= " +
           std::to_string(min));
}

bool IsHalfType(int elem_type) {
  return elem_type == TensorProto::FLOAT16 || elem_type == TensorProto::BFLOAT16;
}

float RoundToHalfType(float value, int half_type) {
  return half_type == TensorProto::FLOAT16 ? core::eval::HalfToFloat(core::eval::FloatToHalf(value))
                                           : core::eval::BFloat16ToFloat(core::eval::FloatToBFloat16(value));
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
