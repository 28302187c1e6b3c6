// Spatial kernels over [N, C, D1, ..., Dk] tensors: LRN, MeanVarianceNormalization,
// MaxUnpool, Col2Im, CenterCropPad, DeformConv.

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <string>
#include <type_traits>
#include <vector>

#include "onnx_core/eval/kernel_registry.h"
#include "onnx_extensions/kernels/kernel_groups.h"
#include "onnx_extensions/kernels/kernel_helpers.h"
#include "onnx_extensions/kernels/nn_helpers.h"
#include "onnx_extensions/kernels/vision_helpers.h"

namespace onnxopt::onnx_kernels {
namespace {

using vision::FloatInput;
using vision::RequireRank;
using vision::SpatialAttribute;

// The float tensor `t` for computing: float16/bfloat16 as float, float and double as
// they are. Results go back through FromComputeType, rounding once.
int ComputeTypeOf(int elem_type) { return elem_type == TensorProto::DOUBLE ? TensorProto::DOUBLE : TensorProto::FLOAT; }

// Odometer step over `dims` (row-major); false after the last index.
bool NextIndex(Shape& index, const Shape& dims) {
  for (std::size_t d = index.size(); d-- > 0;) {
    if (++index[d] < dims[d]) return true;
    index[d] = 0;
  }
  return false;
}

// a + b without signed overflow; ModelError naming `what` when the result does not fit.
std::int64_t CheckedAdd(std::int64_t a, std::int64_t b, const char* what) {
  std::int64_t r;
  if (__builtin_add_overflow(a, b, &r)) Fail(std::string(what) + " overflows");
  return r;
}
std::int64_t CheckedMul(std::int64_t a, std::int64_t b, const char* what) {
  std::int64_t r;
  if (__builtin_mul_overflow(a, b, &r)) Fail(std::string(what) + " overflows");
  return r;
}

// Number of kernel positions of a sliding window along one axis: floor((size + pads -
// dilated kernel) / stride) + 1, or 0 when the dilated kernel is longer than the padded
// axis.
std::int64_t WindowCount(std::int64_t size, std::int64_t pad_begin, std::int64_t pad_end, std::int64_t kernel,
                         std::int64_t dilation, std::int64_t stride) {
  const std::int64_t span = CheckedAdd(CheckedMul(kernel - 1, dilation, "the dilated kernel"), 1, "the dilated kernel");
  const std::int64_t padded = CheckedAdd(CheckedAdd(size, pad_begin, "the padded size"), pad_end, "the padded size");
  if (padded < span) return 0;
  return (padded - span) / stride + 1;
}

// ---------------------------------------------------------------------------------
// LRN (1, 13): Y = X / (bias + alpha / size * sum of X^2 over the channels
// [c - floor((size-1)/2), c + ceil((size-1)/2)]) ^ beta.

std::vector<Value> LrnKernel(KernelContext& ctx) {
  const Tensor& x_in = FloatInput(ctx, 0, "X");
  if (x_in.rank() < 2) Fail("X must have rank >= 2 (N x C x ...), found " + x_in.Describe());
  const std::optional<std::int64_t> size = ctx.IntAttribute("size");
  if (!size || *size < 1) Fail("size (required) must be a positive integer");
  const double alpha = ctx.FloatAttribute("alpha").value_or(0.0001f);
  const double beta = ctx.FloatAttribute("beta").value_or(0.75f);
  const double bias = ctx.FloatAttribute("bias").value_or(1.0f);
  const std::int64_t N = x_in.shape()[0], C = x_in.shape()[1];
  const std::int64_t inner = ShapeSize(Shape(x_in.shape().begin() + 2, x_in.shape().end()));
  const std::int64_t before = (*size - 1) / 2, after = *size / 2;  // floor and ceil of (size-1)/2
  // Window clamped to the channels: C values at most, whatever size says.
  const std::int64_t window = std::min(*size, C);
  ChargeWork(static_cast<double>(x_in.size()) * static_cast<double>(window), "LRN's channel window");
  const Tensor x = ToComputeType(x_in);
  Tensor y(x.elem_type(), x.shape());
  DispatchFloat(x.elem_type(), [&]<class T>(std::type_identity<T>) {
    const T* xv = x.Data<T>();
    T* yv = y.MutableData<T>();
    const double scale = alpha / static_cast<double>(*size);
    for (std::int64_t n = 0; n < N; ++n)
      for (std::int64_t c = 0; c < C; ++c) {
        const std::int64_t lo = std::max<std::int64_t>(0, c - before);
        const std::int64_t hi = c + std::min(after, C - 1 - c);
        for (std::int64_t i = 0; i < inner; ++i) {
          double square_sum = 0;
          for (std::int64_t k = lo; k <= hi; ++k) {
            const double v = xv[(n * C + k) * inner + i];
            square_sum += v * v;
          }
          const std::int64_t at = (n * C + c) * inner + i;
          yv[at] = static_cast<T>(xv[at] / std::pow(bias + scale * square_sum, beta));
        }
      }
  });
  return {FromComputeType(y, x_in.elem_type())};
}

// ---------------------------------------------------------------------------------
// MeanVarianceNormalization (9, 13): (X - E[X]) / (sqrt(E[(X - E[X])^2]) + 1e-9), the
// statistics taken over `axes` (default [0, 2, 3]; an empty list reduces every axis, as
// the ReduceMean of the spec's function does).

std::vector<Value> MeanVarianceNormalizationKernel(KernelContext& ctx) {
  const Tensor& x_in = FloatInput(ctx, 0, "X");
  const auto rank = static_cast<std::int64_t>(x_in.rank());
  std::vector<std::int64_t> axes = ctx.IntsAttribute("axes").value_or(std::vector<std::int64_t>{0, 2, 3});
  if (axes.empty())
    for (std::int64_t a = 0; a < rank; ++a) axes.push_back(a);
  axes = NormalizeAxes(axes, rank);
  // The statistics' group of each element: its index over the kept axes.
  Shape kept_dims = x_in.shape();
  for (std::int64_t a : axes) kept_dims[static_cast<std::size_t>(a)] = 1;
  const Shape group_strides = BroadcastStrides(kept_dims, x_in.shape());
  const std::int64_t groups = ShapeSize(kept_dims);
  const double count = static_cast<double>(x_in.size()) / static_cast<double>(std::max<std::int64_t>(groups, 1));
  std::vector<std::int64_t> group_of(static_cast<std::size_t>(x_in.size()));
  Shape index(x_in.rank(), 0);
  for (std::int64_t e = 0; e < x_in.size(); ++e, NextIndex(index, x_in.shape())) {
    std::int64_t g = 0;
    for (std::size_t d = 0; d < index.size(); ++d) g += index[d] * group_strides[d];
    group_of[static_cast<std::size_t>(e)] = g;
  }
  const Tensor x = ToComputeType(x_in);
  Tensor y(x.elem_type(), x.shape());
  DispatchFloat(x.elem_type(), [&]<class T>(std::type_identity<T>) {
    const T* xv = x.Data<T>();
    T* yv = y.MutableData<T>();
    std::vector<double> mean(static_cast<std::size_t>(groups), 0.0), var(static_cast<std::size_t>(groups), 0.0);
    for (std::int64_t e = 0; e < x.size(); ++e) mean[static_cast<std::size_t>(group_of[static_cast<std::size_t>(e)])] += xv[e];
    for (auto& m : mean) m /= count;
    for (std::int64_t e = 0; e < x.size(); ++e) {
      const auto g = static_cast<std::size_t>(group_of[static_cast<std::size_t>(e)]);
      var[g] += (xv[e] - mean[g]) * (xv[e] - mean[g]);
    }
    for (std::int64_t e = 0; e < x.size(); ++e) {
      const auto g = static_cast<std::size_t>(group_of[static_cast<std::size_t>(e)]);
      yv[e] = static_cast<T>((xv[e] - mean[g]) / (std::sqrt(var[g] / count) + 1e-9));
    }
  });
  return {FromComputeType(y, x_in.elem_type())};
}

// ---------------------------------------------------------------------------------
// MaxUnpool (9, 11, 22): X[e] goes to the flat position I[e] of the unpooled shape
// ((in - 1) * stride + kernel - pads per spatial axis), every other element is zero. With
// output_shape, that result sits at the start of each axis of the larger output (the
// "auto generated" pads at the end), as the ONNX reference and backend tests define it.

std::vector<Value> MaxUnpoolKernel(KernelContext& ctx) {
  const Tensor& x = FloatInput(ctx, 0, "X");
  const Tensor& indices = ctx.TensorInput(1);
  if (x.rank() < 3) Fail("X must have rank >= 3 (N x C x D1 ...), found " + x.Describe());
  if (indices.elem_type() != TensorProto::INT64 || indices.shape() != x.shape())
    Fail("I must be an int64 tensor of X's shape " + ShapeToString(x.shape()) + ", found " + indices.Describe());
  const std::size_t r = x.rank() - 2;
  const auto kernel = ctx.IntsAttribute("kernel_shape");
  if (!kernel || kernel->size() != r) Fail("kernel_shape (required) must have " + std::to_string(r) + " values");
  if (std::any_of(kernel->begin(), kernel->end(), [](std::int64_t k) { return k < 1; }))
    Fail("kernel_shape " + ShapeToString(*kernel) + " must be positive");
  const Shape strides = SpatialAttribute(ctx, "strides", r, 1, 1);
  const Shape pads = SpatialAttribute(ctx, "pads", 2 * r, 0, 0);
  Shape unpooled{x.shape()[0], x.shape()[1]};
  for (std::size_t d = 0; d < r; ++d) {
    const std::int64_t full =
        CheckedAdd(CheckedMul(x.shape()[2 + d] - 1, strides[d], "the unpooled size"), (*kernel)[d], "the unpooled size");
    const std::int64_t size = full - pads[d] - pads[d + r];
    if (size < 0) Fail("the pads " + ShapeToString(pads) + " exceed the unpooled size along axis " + std::to_string(2 + d));
    unpooled.push_back(size);
  }
  Shape out_shape = unpooled;
  if (ctx.HasInput(2)) {
    const Tensor& requested = ctx.TensorInput(2);
    if (requested.elem_type() != TensorProto::INT64 || requested.rank() != 1)
      Fail("output_shape must be a 1-D int64 tensor, found " + requested.Describe());
    out_shape = requested.ToInt64Vector();
    bool fits = out_shape.size() == x.rank() && out_shape[0] == unpooled[0] && out_shape[1] == unpooled[1];
    for (std::size_t d = 2; fits && d < out_shape.size(); ++d) fits = out_shape[d] >= unpooled[d];
    if (!fits)
      Fail("output_shape " + ShapeToString(out_shape) + " must have X's batch and channels and hold the unpooled shape " +
           ShapeToString(unpooled));
  }
  const std::int64_t unpooled_size = CheckedShapeSize(unpooled, "the unpooled shape");
  Tensor y(x.elem_type(), out_shape);
  const std::int64_t* idx = indices.Data<std::int64_t>();
  for (std::int64_t e = 0; e < x.size(); ++e)
    if (idx[e] < 0 || idx[e] >= unpooled_size)
      Fail("I[" + std::to_string(e) + "] = " + std::to_string(idx[e]) + " is out of range for the unpooled shape " +
           ShapeToString(unpooled));
  // Flat index in the unpooled shape -> flat index in the output.
  const Shape from = Strides(unpooled), to = Strides(out_shape);
  auto position = [&](std::int64_t i) {
    std::int64_t at = 0;
    for (std::size_t d = 0; d < from.size(); ++d) {
      at += i / from[d] * to[d];
      i %= from[d];
    }
    return at;
  };
  DispatchStorage(x.elem_type(), [&]<class T>(std::type_identity<T>) {
    const T* src = x.Data<T>();
    T* dst = y.MutableData<T>();
    for (std::int64_t e = 0; e < x.size(); ++e) dst[position(idx[e])] = src[e];
  });
  return {y};
}

// ---------------------------------------------------------------------------------
// Col2Im (18): sums column blocks [N, C * prod(block), L] back into images
// [N, C, image...] (the inverse of im2col, as torch.nn.Fold).

// a + b for accumulation: integers wrap around (two's complement), floats add.
template <class T>
T WrappingAdd(T a, T b) {
  if constexpr (std::is_integral_v<T>) {
    using U = std::make_unsigned_t<T>;
    return static_cast<T>(static_cast<U>(a) + static_cast<U>(b));
  } else {
    return a + b;
  }
}

std::vector<Value> Col2ImKernel(KernelContext& ctx) {
  const Tensor& input = ctx.TensorInput(0);
  if (input.elem_type() == TensorProto::BOOL || !vision::IsNumericOrBool(input.elem_type()))
    Fail("input has element type " + ElemTypeName(input.elem_type()) + ", expected a numeric type");
  RequireRank(input, 3, "input");
  const Tensor& image_in = ctx.TensorInput(1);
  const Tensor& block_in = ctx.TensorInput(2);
  if (image_in.elem_type() != TensorProto::INT64 || image_in.rank() != 1 || block_in.elem_type() != TensorProto::INT64 ||
      block_in.rank() != 1)
    Fail("image_shape and block_shape must be 1-D int64 tensors, found " + image_in.Describe() + " and " +
         block_in.Describe());
  const Shape image = image_in.ToInt64Vector(), block = block_in.ToInt64Vector();
  const std::size_t r = image.size();
  if (r == 0 || block.size() != r)
    Fail("image_shape " + ShapeToString(image) + " and block_shape " + ShapeToString(block) +
         " must have the same number of values, at least one");
  if (std::any_of(block.begin(), block.end(), [](std::int64_t b) { return b < 1; }))
    Fail("block_shape " + ShapeToString(block) + " must be positive");
  if (std::any_of(image.begin(), image.end(), [](std::int64_t d) { return d < 0; }))
    Fail("image_shape " + ShapeToString(image) + " must not be negative");
  const Shape strides = SpatialAttribute(ctx, "strides", r, 1, 1);
  const Shape dilations = SpatialAttribute(ctx, "dilations", r, 1, 1);
  const Shape pads = SpatialAttribute(ctx, "pads", 2 * r, 0, 0);
  const std::int64_t block_size = CheckedShapeSize(block, "block_shape");
  const std::int64_t N = input.shape()[0], L = input.shape()[2];
  if (input.shape()[1] % block_size != 0)
    Fail("input dimension 1 (" + std::to_string(input.shape()[1]) + ") is not a multiple of prod(block_shape) = " +
         std::to_string(block_size));
  const std::int64_t C = input.shape()[1] / block_size;
  Shape blocks(r);
  for (std::size_t d = 0; d < r; ++d)
    blocks[d] = WindowCount(image[d], pads[d], pads[d + r], block[d], dilations[d], strides[d]);
  if (CheckedShapeSize(blocks, "the block grid") != L)
    Fail("the image " + ShapeToString(image) + " holds " + ShapeToString(blocks) + " blocks, but the input has L = " +
         std::to_string(L));
  Shape out_shape{N, C};
  out_shape.insert(out_shape.end(), image.begin(), image.end());
  const Tensor x = ToComputeType(input);
  Tensor y(x.elem_type(), out_shape);
  // The loops below visit every (block tap, block) pair for each image and channel: with
  // no image or channel (an empty input [N, 0, L] of any L) that is block_size * L steps
  // for nothing.
  if (x.size() == 0) return {FromComputeType(y, input.elem_type())};
  const Shape image_strides = Strides(image);
  const std::int64_t image_size = ShapeSize(image);
  DispatchNumeric(x.elem_type(), [&]<class T>(std::type_identity<T>) {
    const T* src = x.Data<T>();
    T* dst = y.MutableData<T>();
    Shape k(r, 0), l(r, 0);
    for (std::int64_t kk = 0; kk < block_size; ++kk, NextIndex(k, block)) {
      std::fill(l.begin(), l.end(), 0);
      for (std::int64_t ll = 0; ll < L; ++ll, NextIndex(l, blocks)) {
        std::int64_t at = 0;
        bool inside = true;
        for (std::size_t d = 0; d < r && inside; ++d) {
          const std::int64_t p = l[d] * strides[d] - pads[d] + k[d] * dilations[d];
          inside = p >= 0 && p < image[d];
          at += p * image_strides[d];
        }
        if (!inside) continue;
        for (std::int64_t n = 0; n < N; ++n)
          for (std::int64_t c = 0; c < C; ++c) {
            T& out = dst[(n * C + c) * image_size + at];
            out = WrappingAdd(out, src[((n * C + c) * block_size + kk) * L + ll]);
          }
      }
    }
  });
  return {FromComputeType(y, input.elem_type())};
}

// ---------------------------------------------------------------------------------
// CenterCropPad (18): each listed axis cropped to a centered window (start rounded down)
// or padded with zeros on both sides (the odd pixel on the right).

std::vector<Value> CenterCropPadKernel(KernelContext& ctx) {
  const Tensor& x = ctx.TensorInput(0);
  const Tensor& shape_in = ctx.TensorInput(1);
  if ((shape_in.elem_type() != TensorProto::INT64 && shape_in.elem_type() != TensorProto::INT32) || shape_in.rank() != 1)
    Fail("shape must be a 1-D int32 or int64 tensor, found " + shape_in.Describe());
  const auto rank = static_cast<std::int64_t>(x.rank());
  std::vector<std::int64_t> axes;
  if (auto listed = ctx.IntsAttribute("axes")) axes = NormalizeAxes(*listed, rank);
  else
    for (std::int64_t a = 0; a < rank; ++a) axes.push_back(a);
  const Shape target = shape_in.ToInt64Vector();
  if (target.size() != axes.size())
    Fail("shape " + ShapeToString(target) + " must have one value per axis (" + std::to_string(axes.size()) + ")");
  Shape out_shape = x.shape();
  for (std::size_t i = 0; i < axes.size(); ++i) {
    if (target[i] < 0) Fail("shape " + ShapeToString(target) + " must not be negative");
    out_shape[static_cast<std::size_t>(axes[i])] = target[i];
  }
  Tensor y(x.elem_type(), out_shape);
  // Per axis: where the copied range starts in X and in Y, and its length.
  const std::size_t r = x.rank();
  Shape in_start(r, 0), out_start(r, 0), extent(r);
  for (std::size_t d = 0; d < r; ++d) {
    const std::int64_t from = x.shape()[d], to = out_shape[d];
    if (to < from) in_start[d] = (from - to) / 2;
    else out_start[d] = (to - from) / 2;
    extent[d] = std::min(from, to);
  }
  if (ShapeSize(extent) == 0) return {y};
  const Shape in_strides = Strides(x.shape()), out_strides = Strides(out_shape);
  DispatchStorage(x.elem_type(), [&]<class T>(std::type_identity<T>) {
    const T* src = x.Data<T>();
    T* dst = y.MutableData<T>();
    Shape index(r, 0);
    do {
      std::int64_t from = 0, to = 0;
      for (std::size_t d = 0; d < r; ++d) {
        from += (index[d] + in_start[d]) * in_strides[d];
        to += (index[d] + out_start[d]) * out_strides[d];
      }
      dst[to] = src[from];
    } while (NextIndex(index, extent));
  });
  return {y};
}

// ---------------------------------------------------------------------------------
// DeformConv (19, 22): a convolution whose kernel taps are displaced by learned offsets
// (bilinear samples, zero outside X) and scaled by an optional mask. Built as Conv is:
// deformable im2col per group, then a GEMM with the weights.

struct DeformGeometry {
  std::size_t r = 0;  // spatial dimensions
  Shape in, kernel, strides, dilations, pads, out;
  std::int64_t kernel_size = 0, out_size = 0, in_size = 0;
};

// Bilinear sample of a plane of shape g.in at `position`, zero outside (2^r corners).
template <class T>
T SampleLinear(const T* plane, const DeformGeometry& g, const double* position, const Shape& in_strides) {
  double value = 0;
  const std::size_t corners = std::size_t{1} << g.r;
  for (std::size_t corner = 0; corner < corners; ++corner) {
    double weight = 1;
    std::int64_t at = 0;
    bool inside = true;
    for (std::size_t d = 0; d < g.r && inside; ++d) {
      const double p = position[d];
      // Also false for NaN; far-away positions never reach an integer conversion.
      if (!(p > -2 && p < static_cast<double>(g.in[d]) + 1)) {
        inside = false;
        break;
      }
      const double p0 = std::floor(p), t = p - p0;
      const bool upper = (corner >> d) & 1;
      const auto i = static_cast<std::int64_t>(p0) + (upper ? 1 : 0);
      inside = i >= 0 && i < g.in[d];
      weight *= upper ? t : 1 - t;
      at += i * in_strides[d];
    }
    if (inside) value += weight * static_cast<double>(plane[at]);
  }
  return static_cast<T>(value);
}

std::vector<Value> DeformConvKernel(KernelContext& ctx) {
  const Tensor& x_in = FloatInput(ctx, 0, "X");
  const Tensor& w_in = ctx.TensorInput(1);
  const Tensor& offset_in = ctx.TensorInput(2);
  if (x_in.rank() < 3) Fail("X must have rank >= 3, found " + x_in.Describe());
  for (const Tensor* t : {&w_in, &offset_in})
    if (t->elem_type() != x_in.elem_type() || t->rank() != x_in.rank())
      Fail("W and offset must have X's type and rank, found " + t->Describe() + " for X " + x_in.Describe());
  DeformGeometry g;
  g.r = x_in.rank() - 2;
  const std::int64_t N = x_in.shape()[0], C = x_in.shape()[1], M = w_in.shape()[0];
  g.in.assign(x_in.shape().begin() + 2, x_in.shape().end());
  g.kernel.assign(w_in.shape().begin() + 2, w_in.shape().end());
  if (auto ks = ctx.IntsAttribute("kernel_shape"); ks && !ks->empty() && *ks != g.kernel)
    Fail("kernel_shape " + ShapeToString(*ks) + " differs from W's " + ShapeToString(g.kernel));
  const std::int64_t group = ctx.IntAttribute("group").value_or(1);
  const std::int64_t offset_group = ctx.IntAttribute("offset_group").value_or(1);
  if (group < 1 || offset_group < 1)
    Fail("group and offset_group must be positive, found " + std::to_string(group) + " and " + std::to_string(offset_group));
  if (C % group != 0 || M % group != 0 || w_in.shape()[1] != C / group)
    Fail("W " + ShapeToString(w_in.shape()) + " does not match " + std::to_string(C) + " input channels in " +
         std::to_string(group) + " groups");
  if (C % offset_group != 0)
    Fail(std::to_string(C) + " input channels are not divisible by offset_group " + std::to_string(offset_group));
  g.strides = SpatialAttribute(ctx, "strides", g.r, 1, 1);
  g.dilations = SpatialAttribute(ctx, "dilations", g.r, 1, 1);
  g.pads = SpatialAttribute(ctx, "pads", 2 * g.r, 0, 0);
  for (std::size_t d = 0; d < g.r; ++d) {
    const std::int64_t count = WindowCount(g.in[d], g.pads[d], g.pads[d + g.r], g.kernel[d], g.dilations[d], g.strides[d]);
    if (count == 0 || g.kernel[d] < 1)
      Fail("the kernel " + ShapeToString(g.kernel) + " does not fit the padded input along axis " + std::to_string(2 + d));
    g.out.push_back(count);
  }
  g.kernel_size = CheckedShapeSize(g.kernel, "the kernel");
  g.out_size = CheckedShapeSize(g.out, "the output");
  g.in_size = ShapeSize(g.in);
  const auto dims = static_cast<std::int64_t>(g.r);
  auto expect_shape = [&](const Tensor& t, std::int64_t channels, const char* name) {
    Shape expected{N, channels};
    expected.insert(expected.end(), g.out.begin(), g.out.end());
    if (t.shape() != expected)
      Fail(std::string(name) + " " + ShapeToString(t.shape()) + " must be " + ShapeToString(expected));
  };
  // offset_group divides C but may be anything when C = 0: multiply with overflow checks.
  const std::int64_t taps = CheckedMul(offset_group, g.kernel_size, "offset_group * kernel size");
  expect_shape(offset_in, CheckedMul(taps, dims, "offset's channels"), "offset");
  if (ctx.HasInput(3)) {
    const Tensor& b = ctx.TensorInput(3);
    if (b.elem_type() != x_in.elem_type() || b.shape() != Shape{M})
      Fail("B must be [" + std::to_string(M) + "] of X's type, found " + b.Describe());
  }
  if (ctx.HasInput(4)) {
    const Tensor& mask = ctx.TensorInput(4);
    if (mask.elem_type() != x_in.elem_type()) Fail("mask must have X's type, found " + mask.Describe());
    expect_shape(mask, taps, "mask");
  }
  const std::int64_t cg = C / group, mg = M / group, rows = cg * g.kernel_size;
  Shape out_shape{N, M};
  out_shape.insert(out_shape.end(), g.out.begin(), g.out.end());
  // Without input and output channels any group divides them: the loop over the groups
  // below would run `group` times for nothing.
  if (ShapeSize(out_shape) == 0) return {Tensor(x_in.elem_type(), out_shape)};
  // The multiply-adds are charged by nn::Gemm; the interpolated samples here.
  ChargeWork(static_cast<double>(N * C) * static_cast<double>(g.kernel_size) * static_cast<double>(g.out_size) *
                 std::pow(2.0, static_cast<double>(g.r)),
             "DeformConv's samples");
  Tensor y(ComputeTypeOf(x_in.elem_type()), out_shape);
  // The deformed im2col of one image and group, allocated as a tensor (under its size limit).
  Tensor columns(y.elem_type(), {rows, g.out_size});
  DispatchFloat(y.elem_type(), [&]<class T>(std::type_identity<T>) {
    const std::vector<T> x = nn::ReadAs<T>(x_in), w = nn::ReadAs<T>(w_in), offset = nn::ReadAs<T>(offset_in);
    const std::vector<T> mask = ctx.HasInput(4) ? nn::ReadAs<T>(ctx.TensorInput(4)) : std::vector<T>{};
    const std::vector<T> bias = ctx.HasInput(3) ? nn::ReadAs<T>(ctx.TensorInput(3)) : std::vector<T>{};
    const Shape in_strides = Strides(g.in);
    const std::int64_t channels_per_offset_group = C / offset_group;
    T* col = columns.MutableData<T>();
    std::vector<double> position(g.r);
    T* out = y.MutableData<T>();
    for (std::int64_t n = 0; n < N; ++n)
      for (std::int64_t grp = 0; grp < group; ++grp) {
        for (std::int64_t ci = 0; ci < cg; ++ci) {
          const std::int64_t c = grp * cg + ci, og = c / channels_per_offset_group;
          const T* plane = x.data() + (n * C + c) * g.in_size;
          Shape k(g.r, 0);
          for (std::int64_t kk = 0; kk < g.kernel_size; ++kk, NextIndex(k, g.kernel)) {
            T* row = col + (ci * g.kernel_size + kk) * g.out_size;
            // offset[n, og, kk, d, o...] and mask[n, og, kk, o...].
            const T* shift = offset.data() + ((n * offset_group + og) * g.kernel_size + kk) * dims * g.out_size;
            const T* scale = mask.empty() ? nullptr : mask.data() + ((n * offset_group + og) * g.kernel_size + kk) * g.out_size;
            Shape o(g.r, 0);
            for (std::int64_t oo = 0; oo < g.out_size; ++oo, NextIndex(o, g.out)) {
              for (std::size_t d = 0; d < g.r; ++d)
                position[d] = static_cast<double>(o[d] * g.strides[d] - g.pads[d] + k[d] * g.dilations[d]) +
                              static_cast<double>(shift[static_cast<std::int64_t>(d) * g.out_size + oo]);
              const T v = SampleLinear(plane, g, position.data(), in_strides);
              row[oo] = scale ? v * scale[oo] : v;
            }
          }
        }
        T* dst = out + (n * M + grp * mg) * g.out_size;
        for (std::int64_t m = 0; m < mg; ++m)
          std::fill(dst + m * g.out_size, dst + (m + 1) * g.out_size, bias.empty() ? T{0} : bias[grp * mg + m]);
        nn::Gemm<T>(mg, g.out_size, rows, T{1}, w.data() + grp * mg * rows, rows, false, col, g.out_size, false,
                    dst, g.out_size, true);
      }
  });
  return {FromComputeType(y, x_in.elem_type())};
}

}  // namespace

void RegisterSpatialKernels() {
  using core::eval::RegisterKernel;
  RegisterKernel("", "LRN", LrnKernel);
  RegisterKernel("", "MeanVarianceNormalization", MeanVarianceNormalizationKernel);
  RegisterKernel("", "MaxUnpool", MaxUnpoolKernel);
  RegisterKernel("", "Col2Im", Col2ImKernel);
  RegisterKernel("", "CenterCropPad", CenterCropPadKernel);
  RegisterKernel("", "DeformConv", DeformConvKernel);
}

}  // namespace onnxopt::onnx_kernels
