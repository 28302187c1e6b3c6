// Quantized operators: ConvInteger, QLinearConv, QLinearMatMul, DynamicQuantizeLinear, and
// the com.microsoft products that quantized exports contain (MatMulNBits,
// DynamicQuantizeMatMul, MatMulIntegerToFloat).
//
// The integer products are computed exactly: the zero points are subtracted first, the
// shifted values (at most 9 bits) are multiplied in double, whose 53-bit mantissa holds
// every sum of the products an 8-bit model can produce, by the Conv and MatMul code of
// nn_kernels.cc. Requantization then follows onnxruntime's order of float operations:
// multiplier = float(scale_a * scale_b) / scale_y, y = round_half_even(float(acc) *
// multiplier) + zero_point, saturated.

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdint>
#include <limits>
#include <string>
#include <utility>
#include <vector>

#include "onnx_core/eval/kernel_registry.h"
#include "onnx_extensions/kernels/kernel_call.h"
#include "onnx_extensions/kernels/kernel_groups.h"
#include "onnx_extensions/kernels/kernel_helpers.h"
#include "onnx_extensions/kernels/nn_helpers.h"

namespace onnxopt::onnx_kernels {
namespace {

constexpr const char* kMs = "com.microsoft";

bool IsInt8Type(int t) { return t == TensorProto::INT8 || t == TensorProto::UINT8; }

bool IsFloat8Type(int t) {
  return t == core::eval::kFloat8E4M3FN || t == core::eval::kFloat8E4M3FNUZ || t == core::eval::kFloat8E5M2 ||
         t == core::eval::kFloat8E5M2FNUZ;
}

void RequireInt8(const Tensor& t, const std::string& what) {
  if (!IsInt8Type(t.elem_type())) Fail(what + " must be int8 or uint8, found " + ElemTypeName(t.elem_type()));
}

// A zero point has the element type of the tensor it belongs to.
void RequireSameType(const Tensor& zero_point, const Tensor& of, const std::string& what, const std::string& of_name) {
  if (zero_point.elem_type() != of.elem_type())
    Fail(what + " must have the element type of " + of_name + " (" + ElemTypeName(of.elem_type()) + "), found " +
         ElemTypeName(zero_point.elem_type()));
}

void RequireScalar(const Tensor& t, const std::string& what) {
  if (t.size() != 1) Fail(what + " must be a scalar, found shape " + ShapeToString(t.shape()));
}

// Scales are float tensors (float16 and bfloat16 too where the operator allows them) of
// finite values.
std::vector<float> ReadScales(const Tensor& scale, const std::string& what) {
  if (!IsFloatType(scale.elem_type()) || scale.elem_type() == TensorProto::DOUBLE)
    Fail(what + " must be a float tensor, found " + ElemTypeName(scale.elem_type()));
  std::vector<float> values = nn::ReadAs<float>(scale);
  for (float v : values)
    if (!std::isfinite(v)) Fail(what + " must be finite, found " + std::to_string(v));
  return values;
}

float ReadScalarScale(const Tensor& scale, const std::string& what) {
  RequireScalar(scale, what);
  return ReadScales(scale, what)[0];
}

// The multiplier taking an accumulator to the output's quantized units (per element of
// the larger outputs: `what` stays a literal until a message needs it).
float OutputMultiplier(float input_scale, float weight_scale, float output_scale, const char* what) {
  if (output_scale == 0) Fail(std::string(what) + " must not be zero");
  const float multiplier = input_scale * weight_scale / output_scale;
  if (!std::isfinite(multiplier))
    Fail(std::string("the ratio of the input scales to ") + what + " is not finite (" + std::to_string(multiplier) + ")");
  return multiplier;
}

std::pair<double, double> Int8Range(int t) {
  return t == TensorProto::INT8 ? std::pair{-128.0, 127.0} : std::pair{0.0, 255.0};
}

// round_half_even(value) + zero_point, saturated to [lo, hi]. NaN (a float8 NaN input)
// gives lo, so that the conversion stays defined.
std::int64_t Saturate(float value, double zero_point, double lo, double hi) {
  if (std::isnan(value)) return static_cast<std::int64_t>(lo);
  return static_cast<std::int64_t>(std::clamp(static_cast<double>(std::nearbyint(value)) + zero_point, lo, hi));
}

Tensor WriteInt8(int elem_type, Shape shape, const std::vector<std::int64_t>& values) {
  Tensor out(elem_type, std::move(shape));
  DispatchInteger(elem_type, [&]<class T>(std::type_identity<T>) {
    T* p = out.MutableData<T>();
    for (std::size_t i = 0; i < values.size(); ++i) p[i] = static_cast<T>(values[i]);
  });
  return out;
}

// Element values as doubles: integers exactly, float8 through Cast.
std::vector<double> ReadQuantized(const Tensor& t) {
  if (!IsFloat8Type(t.elem_type())) return t.ToDoubleVector();
  const Tensor decoded = core::eval::AsTensor(
      CallKernel("Cast", {MakeIntAttribute("to", TensorProto::FLOAT)}, {t}, 21)[0], "the decoded float8 tensor");
  return decoded.ToDoubleVector();
}

// q - zero_point as a double tensor; zero point k applies to flat index i when
// k = (i / inner) % count (a scalar zero point: count 1).
Tensor MinusZeroPoint(const Tensor& q, const std::vector<double>& zero_points, std::int64_t inner) {
  Tensor out(TensorProto::DOUBLE, q.shape());
  const std::vector<double> values = ReadQuantized(q);
  double* p = out.MutableData<double>();
  const auto count = static_cast<std::int64_t>(zero_points.size());
  for (std::int64_t i = 0; i < out.size(); ++i)
    p[i] = values[static_cast<std::size_t>(i)] - (count == 0 ? 0.0 : zero_points[static_cast<std::size_t>(i / inner % count)]);
  return out;
}

// ---------------------------------------------------------------------------------
// ConvInteger and QLinearConv: Conv over the zero-point-shifted tensors.

// Per-output-channel parameters (w_scale, w_zero_point): one value, or one per output
// channel M.
void RequirePerChannel(const Tensor& t, std::int64_t channels, const std::string& what) {
  if (t.size() == 1 && t.rank() <= 1) return;
  if (t.rank() != 1 || t.shape()[0] != channels)
    Fail(what + " must be a scalar or a 1-D tensor of " + std::to_string(channels) +
         " elements (one per output channel), found shape " + ShapeToString(t.shape()));
}

struct ShiftedConvInputs {
  Tensor x, w;
  std::int64_t channels = 0;  // M
};

ShiftedConvInputs ShiftConvInputs(const Tensor& x, const Tensor* x_zero_point, const Tensor& w,
                                  const Tensor* w_zero_point) {
  RequireInt8(x, "x");
  RequireInt8(w, "w");
  ShiftedConvInputs shifted;
  shifted.channels = w.rank() > 0 ? w.shape()[0] : 0;
  std::vector<double> xz, wz;
  if (x_zero_point) {
    RequireSameType(*x_zero_point, x, "x_zero_point", "x");
    RequireScalar(*x_zero_point, "x_zero_point");
    xz = x_zero_point->ToDoubleVector();
  }
  if (w_zero_point) {
    RequireSameType(*w_zero_point, w, "w_zero_point", "w");
    RequirePerChannel(*w_zero_point, shifted.channels, "w_zero_point");
    wz = w_zero_point->ToDoubleVector();
  }
  shifted.x = MinusZeroPoint(x, xz, 1);
  shifted.w = MinusZeroPoint(w, wz, shifted.channels > 0 ? w.size() / shifted.channels : 1);
  return shifted;
}

// Conv (its attributes are ConvInteger's and QLinearConv's) of shifted tensors: exact
// integer accumulators as doubles, [N, M, spatial...].
Tensor IntegerConv(KernelContext& ctx, const ShiftedConvInputs& in) {
  const auto& attributes = ctx.Node().attribute();
  return core::eval::AsTensor(
      CallKernel("Conv", std::vector<AttributeProto>(attributes.begin(), attributes.end()), {in.x, in.w}, 11)[0],
      "the convolution");
}

std::vector<Value> ConvIntegerKernel(KernelContext& ctx) {
  const Tensor* x_zero_point = ctx.HasInput(2) ? &ctx.TensorInput(2) : nullptr;
  const Tensor* w_zero_point = ctx.HasInput(3) ? &ctx.TensorInput(3) : nullptr;
  const Tensor acc = IntegerConv(ctx, ShiftConvInputs(ctx.TensorInput(0), x_zero_point, ctx.TensorInput(1), w_zero_point));
  Tensor y(TensorProto::INT32, acc.shape());
  const double* a = acc.Data<double>();
  auto* p = y.MutableData<std::int32_t>();
  // The spec lets the accumulation wrap around in 32 bits.
  for (std::int64_t i = 0; i < y.size(); ++i) p[i] = static_cast<std::int32_t>(static_cast<std::int64_t>(a[i]));
  return {y};
}

// QLinearConv(x, x_scale, x_zero_point, w, w_scale, w_zero_point, y_scale, y_zero_point, B)
std::vector<Value> QLinearConvKernel(KernelContext& ctx) {
  const Tensor& w = ctx.TensorInput(3);
  const ShiftedConvInputs shifted = ShiftConvInputs(ctx.TensorInput(0), &ctx.TensorInput(2), w, &ctx.TensorInput(5));
  const float x_scale = ReadScalarScale(ctx.TensorInput(1), "x_scale");
  const Tensor& w_scale_tensor = ctx.TensorInput(4);
  RequirePerChannel(w_scale_tensor, shifted.channels, "w_scale");
  const std::vector<float> w_scale = ReadScales(w_scale_tensor, "w_scale");
  const float y_scale = ReadScalarScale(ctx.TensorInput(6), "y_scale");
  const Tensor& y_zero_point = ctx.TensorInput(7);
  RequireInt8(y_zero_point, "y_zero_point");
  RequireScalar(y_zero_point, "y_zero_point");
  std::vector<double> bias;
  if (ctx.HasInput(8)) {
    const Tensor& b = ctx.TensorInput(8);
    if (b.elem_type() != TensorProto::INT32) Fail("B must be int32, found " + ElemTypeName(b.elem_type()));
    if (b.rank() != 1 || b.shape()[0] != shifted.channels)
      Fail("B must be a 1-D tensor of " + std::to_string(shifted.channels) + " elements, found shape " +
           ShapeToString(b.shape()));
    bias = b.ToDoubleVector();
  }
  std::vector<float> multipliers;
  for (float ws : w_scale) multipliers.push_back(OutputMultiplier(x_scale, ws, y_scale, "y_scale"));

  const Tensor acc = IntegerConv(ctx, shifted);
  const std::int64_t M = acc.shape()[1];
  const std::int64_t spatial = ShapeSize(Shape(acc.shape().begin() + 2, acc.shape().end()));
  const double zero_point = y_zero_point.ToDoubleVector()[0];
  const auto [lo, hi] = Int8Range(y_zero_point.elem_type());
  const double* a = acc.Data<double>();
  std::vector<std::int64_t> q(static_cast<std::size_t>(acc.size()));
  for (std::int64_t i = 0; i < acc.size(); ++i) {
    const auto m = static_cast<std::size_t>(i / spatial % M);
    const double total = a[i] + (bias.empty() ? 0.0 : bias[m]);
    q[static_cast<std::size_t>(i)] =
        Saturate(static_cast<float>(total) * multipliers[multipliers.size() == 1 ? 0 : m], zero_point, lo, hi);
  }
  return {WriteInt8(y_zero_point.elem_type(), acc.shape(), q)};
}

// ---------------------------------------------------------------------------------
// Quantized matrix products: per-tensor, per-row (of a) or per-column (of b) parameters.

bool BroadcastsTo(const Shape& from, const Shape& to) {
  if (from.size() > to.size()) return false;
  for (std::size_t i = 0; i < from.size(); ++i) {
    const std::int64_t f = from[from.size() - 1 - i], t = to[to.size() - 1 - i];
    if (f != t && f != 1) return false;
  }
  return true;
}

enum class MatMulSide { kRows, kColumns };  // a's parameters go per row, b's per column

// The shape a quantization parameter of `operand` takes once aligned with it: [] for a
// per-tensor one, [..., M, 1] per row of a (a 1-D [M] becomes [M, 1]), [..., 1, N] per
// column of b. ModelError when it fits neither.
Shape AlignedParamShape(const Tensor& param, const Tensor& operand, MatMulSide side, const std::string& what) {
  if (param.size() == 1) return {};
  if (operand.rank() < 2)
    Fail(what + " must be a scalar when its operand is 1-D, found shape " + ShapeToString(param.shape()));
  Shape aligned = param.shape();
  Shape target = operand.shape();
  if (side == MatMulSide::kRows) {
    if (aligned.size() == 1) aligned.push_back(1);
    target.back() = 1;
  } else {
    target[target.size() - 2] = 1;
  }
  if (!BroadcastsTo(aligned, target))
    Fail(what + " of shape " + ShapeToString(param.shape()) + " is neither a scalar nor per " +
         (side == MatMulSide::kRows ? "row" : "column") + " of an operand of shape " + ShapeToString(operand.shape()) +
         " (expected a shape broadcasting to " + ShapeToString(target) + ")");
  return aligned;
}

// Values of a parameter of shape `from` repeated over `to` (both aligned to the right;
// `from` has no more dims than `to`).
template <class T>
std::vector<T> Expand(const std::vector<T>& values, const Shape& from, const Shape& to) {
  std::vector<T> out(static_cast<std::size_t>(ShapeSize(to)));
  ForEachBroadcast<1>(to, {&from}, [&](std::int64_t i, const std::array<std::int64_t, 1>& off) {
    out[static_cast<std::size_t>(i)] = values[static_cast<std::size_t>(off[0])];
  });
  return out;
}

// The shape of the product a x b before MatMul drops the dims it added to a 1-D operand
// ([K] is [1, K] as a, [K, 1] as b): the rows and columns that the aligned parameters
// (AlignedParamShape) index. Same elements, in the same order, as `product`.
Shape ProductRowsColumns(const Tensor& a, const Tensor& b, const Tensor& product) {
  Shape shape = product.shape();
  if (a.rank() == 1) shape.insert(shape.end() - (b.rank() == 1 ? 0 : 1), 1);
  if (b.rank() == 1) shape.push_back(1);
  return shape;
}

// The spec gives a scale and its zero point the same shape (one value each per tensor,
// row or column).
void RequireMatchingShapes(const Tensor& scale, const Tensor& zero_point, const std::string& scale_name,
                           const std::string& zero_point_name) {
  if ((scale.size() != 1 || zero_point.size() != 1) && scale.shape() != zero_point.shape())
    Fail(scale_name + " " + ShapeToString(scale.shape()) + " and " + zero_point_name + " " +
         ShapeToString(zero_point.shape()) + " must have the same shape");
}

// operand - zero_point (element-wise, the zero point aligned as AlignedParamShape says).
Tensor ShiftOperand(const Tensor& operand, const Tensor* zero_point, MatMulSide side, const std::string& what) {
  if (!zero_point) return MinusZeroPoint(operand, {}, 1);
  const Shape aligned = AlignedParamShape(*zero_point, operand, side, what);
  // The shifted operand is doubles; checked before the zero points are expanded to as
  // many (8 times an int8 operand, which the limit allows as large as itself).
  Tensor::CheckShape(TensorProto::DOUBLE, operand.shape());
  return MinusZeroPoint(operand, Expand(ReadQuantized(*zero_point), aligned, operand.shape()), 1);
}

// QLinearMatMul(a, a_scale, a_zero_point, b, b_scale, b_zero_point, y_scale, y_zero_point)
std::vector<Value> QLinearMatMulKernel(KernelContext& ctx) {
  const Tensor& a = ctx.TensorInput(0);
  const Tensor& b = ctx.TensorInput(3);
  const Tensor& y_zero_point = ctx.TensorInput(7);
  const bool float8_allowed = ctx.OpsetVersion() >= 21;
  for (const auto& [t, what] : {std::pair{&a, "a"}, {&b, "b"}, {&y_zero_point, "y_zero_point"}})
    if (!IsInt8Type(t->elem_type()) && !(float8_allowed && IsFloat8Type(t->elem_type())))
      Fail(std::string(what) + " must be int8 or uint8" + (float8_allowed ? " or a float8 type" : "") + ", found " +
           ElemTypeName(t->elem_type()));
  RequireSameType(ctx.TensorInput(2), a, "a_zero_point", "a");
  RequireSameType(ctx.TensorInput(5), b, "b_zero_point", "b");
  RequireMatchingShapes(ctx.TensorInput(1), ctx.TensorInput(2), "a_scale", "a_zero_point");
  RequireMatchingShapes(ctx.TensorInput(4), ctx.TensorInput(5), "b_scale", "b_zero_point");
  RequireScalar(y_zero_point, "y_zero_point");
  for (const std::size_t i : {1, 4, 6})
    if (ctx.OpsetVersion() < 21 && ctx.TensorInput(i).elem_type() != TensorProto::FLOAT)
      Fail("the scales must be float before opset 21, found " + ElemTypeName(ctx.TensorInput(i).elem_type()));
  const Shape a_param = AlignedParamShape(ctx.TensorInput(1), a, MatMulSide::kRows, "a_scale");
  const Shape b_param = AlignedParamShape(ctx.TensorInput(4), b, MatMulSide::kColumns, "b_scale");
  const std::vector<float> a_scale = ReadScales(ctx.TensorInput(1), "a_scale");
  const std::vector<float> b_scale = ReadScales(ctx.TensorInput(4), "b_scale");
  const float y_scale = ReadScalarScale(ctx.TensorInput(6), "y_scale");

  const Tensor acc = MatMulTensors(ShiftOperand(a, &ctx.TensorInput(2), MatMulSide::kRows, "a_zero_point"),
                                   ShiftOperand(b, &ctx.TensorInput(5), MatMulSide::kColumns, "b_zero_point"), false,
                                   false, 1.0, "QLinearMatMul");
  const Shape rows_columns = ProductRowsColumns(a, b, acc);
  const std::vector<float> as = Expand(a_scale, a_param, rows_columns);
  const std::vector<float> bs = Expand(b_scale, b_param, rows_columns);
  const double* c = acc.Data<double>();
  const double zero_point = ReadQuantized(y_zero_point)[0];
  std::vector<float> scaled(static_cast<std::size_t>(acc.size()));
  for (std::size_t i = 0; i < scaled.size(); ++i)
    scaled[i] = static_cast<float>(c[i]) * OutputMultiplier(as[i], bs[i], y_scale, "y_scale");
  if (IsFloat8Type(y_zero_point.elem_type())) {
    // float8 outputs are not rounded to integers: value / y_scale + zero point, converted
    // with saturation.
    for (float& v : scaled) v = static_cast<float>(v + zero_point);
    Tensor real = nn::WriteAs(TensorProto::FLOAT, acc.shape(), scaled);
    return CallKernel("Cast", {MakeIntAttribute("to", y_zero_point.elem_type())}, {real}, 21);
  }
  const auto [lo, hi] = Int8Range(y_zero_point.elem_type());
  std::vector<std::int64_t> q(scaled.size());
  for (std::size_t i = 0; i < q.size(); ++i) q[i] = Saturate(scaled[i], zero_point, lo, hi);
  return {WriteInt8(y_zero_point.elem_type(), acc.shape(), q)};
}

// ---------------------------------------------------------------------------------
// DynamicQuantizeLinear and the dynamically quantized products

struct DynamicQuantization {
  float scale = 1;
  double zero_point = 0;
  std::vector<std::int64_t> values;
};

// uint8 quantization of x over a range including 0: scale = (max - min) / 255 (1 when the
// range is empty, as onnxruntime does: the spec's formula would divide by zero), zero
// point = round_half_even(saturate(-min / scale)). NaN values are left out of the range
// and quantize to 0. An infinite range gives an infinite scale and, where -min / scale
// is NaN, the zero point 255 (onnxruntime's saturation of NaN).
DynamicQuantization QuantizeDynamically(const Tensor& x, const std::string& what) {
  if (x.elem_type() != TensorProto::FLOAT) Fail(what + " must be float, found " + ElemTypeName(x.elem_type()));
  const float* p = x.Data<float>();
  float lo = 0, hi = 0;
  for (std::int64_t i = 0; i < x.size(); ++i) {
    if (std::isnan(p[i])) continue;
    lo = std::min(lo, p[i]);
    hi = std::max(hi, p[i]);
  }
  DynamicQuantization q;
  q.scale = hi == lo ? 1.0f : (hi - lo) / 255.0f;
  const float zero_point = 0.0f - lo / q.scale;
  q.zero_point = std::isnan(zero_point) ? 255.0 : std::nearbyint(std::clamp(zero_point, 0.0f, 255.0f));
  q.values.resize(static_cast<std::size_t>(x.size()));
  for (std::int64_t i = 0; i < x.size(); ++i)
    q.values[static_cast<std::size_t>(i)] = std::isnan(p[i]) ? 0 : Saturate(p[i] / q.scale, q.zero_point, 0, 255);
  return q;
}

std::vector<Value> DynamicQuantizeLinearKernel(KernelContext& ctx) {
  const Tensor& x = ctx.TensorInput(0);
  const DynamicQuantization q = QuantizeDynamically(x, "x");
  Tensor scale(TensorProto::FLOAT, {});
  *scale.MutableData<float>() = q.scale;
  Tensor zero_point(TensorProto::UINT8, {});
  *zero_point.MutableData<std::uint8_t>() = static_cast<std::uint8_t>(q.zero_point);
  return {WriteInt8(TensorProto::UINT8, x.shape(), q.values), scale, zero_point};
}

// (a - a_zero_point) x (b - b_zero_point) * (a_scale * b_scale) + bias in `out_type`
// (float or float16), as com.microsoft's MatMulIntegerToFloat and DynamicQuantizeMatMul
// compute it: a per tensor, b per tensor or per column.
Tensor IntegerMatMulToFloat(const Tensor& a_shifted, float a_scale, const Tensor& b, const Tensor& b_scale,
                            const Tensor* b_zero_point, const Tensor* bias, int out_type, const char* op) {
  RequireInt8(b, "B");
  if (b_zero_point) {
    RequireSameType(*b_zero_point, b, "b_zero_point", "B");
    RequireMatchingShapes(b_scale, *b_zero_point, "b_scale", "b_zero_point");
  }
  const Shape b_param = AlignedParamShape(b_scale, b, MatMulSide::kColumns, "b_scale");
  const std::vector<float> b_scales = ReadScales(b_scale, "b_scale");
  const Tensor acc = MatMulTensors(a_shifted, ShiftOperand(b, b_zero_point, MatMulSide::kColumns, "b_zero_point"),
                                   false, false, 1.0, op);
  std::vector<float> bias_values;
  if (bias) {
    if (bias->elem_type() != out_type)
      Fail(std::string("bias must have the element type ") + ElemTypeName(out_type) + ", found " +
           ElemTypeName(bias->elem_type()));
    if (b.rank() < 2) Fail("bias needs B of rank 2 or more, found shape " + ShapeToString(b.shape()));
    const std::int64_t n = b.shape().back();
    if (bias->rank() != 1 || bias->shape()[0] != n)
      Fail("bias must be a 1-D tensor of " + std::to_string(n) + " elements, found shape " +
           ShapeToString(bias->shape()));
    bias_values = nn::ReadAs<float>(*bias);
  }
  const std::vector<float> bs = Expand(b_scales, b_param, ProductRowsColumns(a_shifted, b, acc));
  const double* c = acc.Data<double>();
  std::vector<float> y(static_cast<std::size_t>(acc.size()));
  for (std::size_t i = 0; i < y.size(); ++i) {
    y[i] = static_cast<float>(c[i]) * (a_scale * bs[i]);
    if (!bias_values.empty()) y[i] += bias_values[i % bias_values.size()];
  }
  return nn::WriteAs(out_type, acc.shape(), y);
}

// MatMulIntegerToFloat(A, B, a_scale, b_scale, a_zero_point, b_zero_point, bias)
std::vector<Value> MatMulIntegerToFloatKernel(KernelContext& ctx) {
  const Tensor& a = ctx.TensorInput(0);
  RequireInt8(a, "A");
  const Tensor& a_scale = ctx.TensorInput(2);
  const int out_type = a_scale.elem_type();
  if (out_type != TensorProto::FLOAT && out_type != TensorProto::FLOAT16)
    Fail("a_scale must be float or float16, found " + ElemTypeName(out_type));
  if (ctx.TensorInput(3).elem_type() != out_type)
    Fail("b_scale must have the element type of a_scale (" + ElemTypeName(out_type) + "), found " +
         ElemTypeName(ctx.TensorInput(3).elem_type()));
  // A per-column (along K) scale of A cannot be taken out of the integer product.
  const float scale = ReadScalarScale(a_scale, "a_scale");
  std::vector<double> a_zero_point;
  if (ctx.HasInput(4)) {
    RequireSameType(ctx.TensorInput(4), a, "a_zero_point", "A");
    RequireScalar(ctx.TensorInput(4), "a_zero_point");
    a_zero_point = ctx.TensorInput(4).ToDoubleVector();
  }
  return {IntegerMatMulToFloat(MinusZeroPoint(a, a_zero_point, 1), scale, ctx.TensorInput(1), ctx.TensorInput(3),
                               ctx.HasInput(5) ? &ctx.TensorInput(5) : nullptr,
                               ctx.HasInput(6) ? &ctx.TensorInput(6) : nullptr, out_type, "MatMulIntegerToFloat")};
}

// DynamicQuantizeMatMul(A, B, b_scale, b_zero_point, bias): A quantized to uint8 like
// DynamicQuantizeLinear, then MatMulIntegerToFloat.
std::vector<Value> DynamicQuantizeMatMulKernel(KernelContext& ctx) {
  const Tensor& a = ctx.TensorInput(0);
  const DynamicQuantization q = QuantizeDynamically(a, "A");
  Tensor a_shifted(TensorProto::DOUBLE, a.shape());
  double* p = a_shifted.MutableData<double>();
  for (std::size_t i = 0; i < q.values.size(); ++i) p[i] = static_cast<double>(q.values[i]) - q.zero_point;
  if (ctx.TensorInput(2).elem_type() != TensorProto::FLOAT)
    Fail("b_scale must be float, found " + ElemTypeName(ctx.TensorInput(2).elem_type()));
  return {IntegerMatMulToFloat(a_shifted, q.scale, ctx.TensorInput(1), ctx.TensorInput(2),
                               ctx.HasInput(3) ? &ctx.TensorInput(3) : nullptr,
                               ctx.HasInput(4) ? &ctx.TensorInput(4) : nullptr, TensorProto::FLOAT,
                               "DynamicQuantizeMatMul")};
}

// ---------------------------------------------------------------------------------
// MatMulNBits: Y = A x dequantize(B)^T + bias, B [N, k_blocks, blob] holding K `bits`-bit
// codes per row of the weight, packed low bits first, block by block.

struct NBitsLayout {
  std::int64_t K = 0, N = 0, bits = 4, block_size = 0, k_blocks = 0, blob_size = 0;
};

std::int64_t RequiredIntAttribute(KernelContext& ctx, const char* name) {
  const auto value = ctx.IntAttribute(name);
  if (!value) Fail(std::string("attribute ") + name + " is required");
  return *value;
}

NBitsLayout ReadNBitsLayout(KernelContext& ctx) {
  NBitsLayout l;
  l.K = RequiredIntAttribute(ctx, "K");
  l.N = RequiredIntAttribute(ctx, "N");
  l.block_size = RequiredIntAttribute(ctx, "block_size");
  l.bits = ctx.IntAttribute("bits").value_or(4);
  if (l.K < 0 || l.N < 0) Fail("K and N must not be negative, found K=" + std::to_string(l.K) + ", N=" + std::to_string(l.N));
  if (l.bits < 2 || l.bits > 8) Fail("bits must be in [2, 8], found " + std::to_string(l.bits));
  if (l.block_size < 16 || (l.block_size & (l.block_size - 1)) != 0 || l.block_size > (std::int64_t{1} << 30))
    Fail("block_size must be a power of 2 not smaller than 16, found " + std::to_string(l.block_size));
  // accuracy_level is a minimum: computing in float32 satisfies every level.
  const std::int64_t accuracy = ctx.IntAttribute("accuracy_level").value_or(0);
  if (accuracy < 0 || accuracy > 4) Fail("accuracy_level must be in [0, 4], found " + std::to_string(accuracy));
  if (const std::int64_t prepacked = ctx.IntAttribute("weight_prepacked").value_or(0); prepacked != 0)
    Fail("weight_prepacked=" + std::to_string(prepacked) +
         " (B in a CUDA execution provider's own layout) is not supported");
  l.k_blocks = l.K / l.block_size + (l.K % l.block_size != 0);
  l.blob_size = l.block_size * l.bits / 8;
  return l;
}

// The weight [N, K] in float: (code - zero_point) * scale per block. A tensor, so that the
// limit on tensor sizes holds it: it takes up to 16 times the bytes of B (2-bit codes
// become 4-byte floats), which a model can make as large as the limit allows.
Tensor DequantizeNBits(KernelContext& ctx, const NBitsLayout& l, int a_type) {
  const Tensor& b = ctx.TensorInput(1);
  if (b.elem_type() != TensorProto::UINT8) Fail("B must be uint8, found " + ElemTypeName(b.elem_type()));
  const Shape b_shape{l.N, l.k_blocks, l.blob_size};
  if (b.shape() != b_shape)
    Fail("B must have shape " + ShapeToString(b_shape) + " (N, ceil(K / block_size), block_size * bits / 8), found " +
         ShapeToString(b.shape()));
  const Tensor& scales = ctx.TensorInput(2);
  if (scales.elem_type() != a_type) Fail("scales must have the element type of A, found " + ElemTypeName(scales.elem_type()));
  if (scales.size() != l.N * l.k_blocks || scales.rank() > 2)
    Fail("scales must have shape [" + std::to_string(l.N) + "," + std::to_string(l.k_blocks) + "], found " +
         ShapeToString(scales.shape()));
  const std::vector<float> scale = nn::ReadAs<float>(scales);
  // Zero points per (n, block): packed `bits`-bit codes in uint8, or unpacked values of A's type.
  const std::int64_t packed_row = (l.k_blocks * l.bits + 7) / 8;
  std::vector<float> zero_point(static_cast<std::size_t>(l.N * l.k_blocks), static_cast<float>(1 << (l.bits - 1)));
  if (ctx.HasInput(3)) {
    const Tensor& zp = ctx.TensorInput(3);
    if (zp.elem_type() == TensorProto::UINT8) {
      if (zp.size() != l.N * packed_row)
        Fail("packed zero_points must have " + std::to_string(l.N * packed_row) + " elements (N * ceil(k_blocks * bits / 8)), found shape " +
             ShapeToString(zp.shape()));
      const std::uint8_t* z = zp.Data<std::uint8_t>();
      for (std::int64_t n = 0; n < l.N; ++n)
        for (std::int64_t k = 0; k < l.k_blocks; ++k) {
          const std::int64_t bit = k * l.bits;
          const unsigned word = z[n * packed_row + bit / 8] | (bit / 8 + 1 < packed_row ? z[n * packed_row + bit / 8 + 1] << 8 : 0u);
          zero_point[static_cast<std::size_t>(n * l.k_blocks + k)] =
              static_cast<float>((word >> (bit % 8)) & ((1u << l.bits) - 1));
        }
    } else if (zp.elem_type() == a_type) {
      if (zp.size() != l.N * l.k_blocks)
        Fail("zero_points of A's type must have " + std::to_string(l.N * l.k_blocks) + " elements (N * k_blocks), found shape " +
             ShapeToString(zp.shape()));
      zero_point = nn::ReadAs<float>(zp);
    } else {
      Fail("zero_points must be uint8 (packed) or have the element type of A, found " + ElemTypeName(zp.elem_type()));
    }
  }
  // g_idx (deprecated): the block of each k, instead of k / block_size.
  std::vector<std::int64_t> g_idx;
  if (ctx.HasInput(4)) {
    const Tensor& g = ctx.TensorInput(4);
    if (g.elem_type() != TensorProto::INT32 || g.size() != l.K)
      Fail("g_idx must be an int32 tensor of K=" + std::to_string(l.K) + " elements, found " + g.Describe());
    g_idx = g.ToInt64Vector();
    for (std::int64_t block : g_idx)
      if (block < 0 || block >= l.k_blocks)
        Fail("g_idx value " + std::to_string(block) + " is out of range [0, " + std::to_string(l.k_blocks) + ")");
  }
  Tensor weight = Tensor::ForOverwrite(TensorProto::FLOAT, {l.N, l.K});  // every element is written below
  float* w = weight.MutableData<float>();
  const std::uint8_t* codes = b.Data<std::uint8_t>();
  for (std::int64_t n = 0; n < l.N; ++n)
    for (std::int64_t k = 0; k < l.K; ++k) {
      // Codes stay in their storage block even when g_idx moves their scale.
      const std::int64_t bit = k % l.block_size * l.bits;
      const std::uint8_t* blob = codes + (n * l.k_blocks + k / l.block_size) * l.blob_size;
      const unsigned word = blob[bit / 8] | (bit / 8 + 1 < l.blob_size ? blob[bit / 8 + 1] << 8 : 0u);
      const auto code = static_cast<float>((word >> (bit % 8)) & ((1u << l.bits) - 1));
      const std::int64_t block = g_idx.empty() ? k / l.block_size : g_idx[static_cast<std::size_t>(k)];
      const auto p = static_cast<std::size_t>(n * l.k_blocks + block);
      w[n * l.K + k] = (code - zero_point[p]) * scale[p];
    }
  return weight;
}

std::vector<Value> MatMulNBitsKernel(KernelContext& ctx) {
  const Tensor& a = ctx.TensorInput(0);
  const int a_type = a.elem_type();
  if (a_type != TensorProto::FLOAT && a_type != TensorProto::FLOAT16 && a_type != TensorProto::BFLOAT16)
    Fail("A must be float, float16 or bfloat16, found " + ElemTypeName(a_type));
  const NBitsLayout l = ReadNBitsLayout(ctx);
  if (a.rank() < 1 || a.shape().back() != l.K)
    Fail("the last dimension of A must be K=" + std::to_string(l.K) + ", found shape " + ShapeToString(a.shape()));
  const Tensor w = DequantizeNBits(ctx, l, a_type);
  std::vector<float> bias;
  if (ctx.HasInput(5)) {
    const Tensor& b = ctx.TensorInput(5);
    if (b.elem_type() != a_type || b.size() != l.N)
      Fail("bias must have A's element type and N=" + std::to_string(l.N) + " elements, found " + b.Describe());
    bias = nn::ReadAs<float>(b);
  }
  Shape y_shape = a.shape();
  y_shape.back() = l.N;
  Tensor y(TensorProto::FLOAT, y_shape);
  // Empty: the rows of A may then be countless (K = 0).
  if (y.size() == 0) return {FromComputeType(y, a_type)};
  float* yp = y.MutableData<float>();
  const std::int64_t M = ShapeSize(Shape(a.shape().begin(), a.shape().end() - 1));
  if (!bias.empty())
    for (std::int64_t m = 0; m < M; ++m) std::copy(bias.begin(), bias.end(), yp + m * l.N);
  const std::vector<float> av = nn::ReadAs<float>(a);
  nn::Gemm<float>(M, l.N, l.K, 1.0f, av.data(), l.K, false, w.Data<float>(), l.K, true, yp, l.N, !bias.empty());
  return {FromComputeType(y, a_type)};
}

}  // namespace

void RegisterQuantizedKernels() {
  using core::eval::RegisterKernel;
  RegisterKernel("", "ConvInteger", ConvIntegerKernel);
  RegisterKernel("", "QLinearConv", QLinearConvKernel);
  RegisterKernel("", "QLinearMatMul", QLinearMatMulKernel);
  RegisterKernel("", "DynamicQuantizeLinear", DynamicQuantizeLinearKernel);
  RegisterKernel(kMs, "MatMulNBits", MatMulNBitsKernel);
  RegisterKernel(kMs, "DynamicQuantizeMatMul", DynamicQuantizeMatMulKernel);
  RegisterKernel(kMs, "MatMulIntegerToFloat", MatMulIntegerToFloatKernel);
}

}  // namespace onnxopt::onnx_kernels
