// com.microsoft kernels produced by the fusion patterns, with onnxruntime's semantics.

#include <cmath>
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "onnx_core/common/error.h"
#include "onnx_core/eval/kernel_registry.h"
#include "onnx_extensions/kernels/kernel_groups.h"
#include "onnx_extensions/kernels/kernel_helpers.h"
#include "onnx_extensions/kernels/nn_helpers.h"

namespace onnxopt::onnx_kernels {
namespace {

using core::eval::Arity;
using nn::DispatchFloat;
using nn::ReadAs;
using nn::WriteAs;

constexpr const char* kMs = "com.microsoft";

std::vector<Value> FusedMatMulKernel(KernelContext& ctx) {
  if (ctx.IntAttribute("transBatchA").value_or(0) != 0 || ctx.IntAttribute("transBatchB").value_or(0) != 0)
    throw ModelError("FusedMatMul: transBatchA / transBatchB are not supported");
  return {MatMulTensors(ctx.TensorInput(0), ctx.TensorInput(1), ctx.IntAttribute("transA").value_or(0) != 0,
                        ctx.IntAttribute("transB").value_or(0) != 0, ctx.FloatAttribute("alpha").value_or(1.0f),
                        "FusedMatMul")};
}

// x (of shape `x_shape`) + input `i` of the node, a 1-D bias over the last dimension.
template <class T>
void AddBias(std::vector<T>& x, const Shape& x_shape, const KernelContext& ctx, std::size_t i) {
  const Tensor& b = ctx.TensorInput(i);
  if (x_shape.empty() || b.rank() != 1 || b.shape()[0] != x_shape.back())
    Fail(InputLabel(ctx, i) + " " + b.Describe() + " must be 1-D, of the last dim of " + ShapeToString(x_shape));
  const std::vector<T> bias = ReadAs<T>(b);
  if (bias.empty()) return;
  for (std::size_t k = 0; k < x.size(); ++k) x[k] += bias[k % bias.size()];
}

enum class GeluKind { kErf, kTanh };

Tensor GeluOf(KernelContext& ctx, GeluKind kind, bool with_bias, const char* op) {
  const Tensor& x = ctx.TensorInput(0);
  return DispatchFloat(x.elem_type(), op, [&](auto tag) {
    using T = decltype(tag);
    auto v = ReadAs<T>(x);
    if (with_bias && ctx.HasInput(1)) AddBias(v, x.shape(), ctx, 1);
    const T k = static_cast<T>(std::sqrt(2.0 / M_PI));
    for (auto& e : v) {
      if (kind == GeluKind::kErf) e = T(0.5) * e * (T(1) + std::erf(e / static_cast<T>(M_SQRT2)));
      else e = T(0.5) * e * (T(1) + std::tanh(k * (e + T(0.044715) * e * e * e)));
    }
    return WriteAs(x.elem_type(), x.shape(), v);
  });
}

std::vector<Value> GeluKernel(KernelContext& ctx) { return {GeluOf(ctx, GeluKind::kErf, false, "Gelu")}; }
std::vector<Value> BiasGeluKernel(KernelContext& ctx) { return {GeluOf(ctx, GeluKind::kErf, true, "BiasGelu")}; }
std::vector<Value> FastGeluKernel(KernelContext& ctx) { return {GeluOf(ctx, GeluKind::kTanh, true, "FastGelu")}; }

// QuickGelu: x * sigmoid(alpha * x), alpha = 1.702 by default.
std::vector<Value> QuickGeluKernel(KernelContext& ctx) {
  const Tensor& x = ctx.TensorInput(0);
  const double alpha = ctx.FloatAttribute("alpha").value_or(1.702f);
  return {DispatchFloat(x.elem_type(), "QuickGelu", [&](auto tag) {
    using T = decltype(tag);
    auto v = ReadAs<T>(x);
    for (auto& e : v) e = e / (T(1) + std::exp(-T(alpha) * e));
    return WriteAs(x.elem_type(), x.shape(), v);
  })};
}

// GemmFastGelu (X, W[, bias]): FastGelu(X W + bias).
std::vector<Value> GemmFastGeluKernel(KernelContext& ctx) {
  const Tensor y = MatMulTensors(ctx.TensorInput(0), ctx.TensorInput(1), false, false, 1.0, "GemmFastGelu");
  return {DispatchFloat(y.elem_type(), "GemmFastGelu", [&](auto tag) {
    using T = decltype(tag);
    auto v = ReadAs<T>(y);
    if (ctx.HasInput(2)) AddBias(v, y.shape(), ctx, 2);
    const T k = static_cast<T>(std::sqrt(2.0 / M_PI));
    for (auto& e : v) e = T(0.5) * e * (T(1) + std::tanh(k * (e + T(0.044715) * e * e * e)));
    return WriteAs(y.elem_type(), y.shape(), v);
  })};
}

// BiasAdd (X [B, S, C], bias [C], skip [B, S, C]): X + bias + skip.
std::vector<Value> BiasAddKernel(KernelContext& ctx) {
  const Tensor& x = ctx.TensorInput(0);
  const Tensor& skip = ctx.TensorInput(2);
  if (skip.shape() != x.shape()) throw ModelError("BiasAdd: skip must have the shape of X");
  return {DispatchFloat(x.elem_type(), "BiasAdd", [&](auto tag) {
    using T = decltype(tag);
    auto v = ReadAs<T>(x);
    AddBias(v, x.shape(), ctx, 1);
    const auto sv = ReadAs<T>(skip);
    for (std::size_t i = 0; i < v.size(); ++i) v[i] += sv[i];
    return WriteAs(x.elem_type(), x.shape(), v);
  })};
}

// Normalizes rows of length n (the last dimension) of `v`: LayerNorm (rms = false) or
// RMS norm; fills mean / inv_std per row.
template <class T>
void NormalizeRows(std::vector<T>& v, std::int64_t n, bool rms, double eps, const std::vector<T>& gamma,
                   const std::vector<T>& beta, std::vector<float>& mean, std::vector<float>& inv_std) {
  const std::int64_t rows = n ? static_cast<std::int64_t>(v.size()) / n : 0;
  mean.resize(static_cast<std::size_t>(rows));
  inv_std.resize(static_cast<std::size_t>(rows));
  for (std::int64_t r = 0; r < rows; ++r) {
    T* row = v.data() + r * n;
    double m = 0, sq = 0;
    for (std::int64_t i = 0; i < n; ++i) m += row[i], sq += static_cast<double>(row[i]) * row[i];
    m /= static_cast<double>(n);
    const double var = rms ? sq / static_cast<double>(n) : sq / static_cast<double>(n) - m * m;
    const double is = 1.0 / std::sqrt(std::max(var, 0.0) + eps);
    mean[r] = static_cast<float>(m);
    inv_std[r] = static_cast<float>(is);
    for (std::int64_t i = 0; i < n; ++i) {
      const double c = rms ? static_cast<double>(row[i]) : static_cast<double>(row[i]) - m;
      row[i] = static_cast<T>(c * is * static_cast<double>(gamma[i]) + (beta.empty() ? 0.0 : static_cast<double>(beta[i])));
    }
  }
}

// Per-row statistics have the input shape with the normalized dimension(s) set to 1.
Shape StatShape(const Shape& x, std::size_t axis) {
  Shape s = x;
  for (std::size_t i = axis; i < s.size(); ++i) s[i] = 1;
  return s;
}

// SkipLayerNormalization / SkipSimplifiedLayerNormalization:
// inputs (input, skip, gamma[, beta][, bias]) for the LayerNorm form, (input, skip,
// gamma[, bias]) for the simplified one; outputs (output, mean, inv_std_var,
// input_skip_bias_sum).
std::vector<Value> SkipNormKernel(KernelContext& ctx, bool rms, const char* op) {
  const Tensor& x = ctx.TensorInput(0);
  const Tensor& skip = ctx.TensorInput(1);
  if (x.rank() < 1) throw ModelError(std::string(op) + ": input must have rank >= 1");
  const std::int64_t n = x.shape().back();
  const double eps = ctx.FloatAttribute("epsilon").value_or(1e-12f);
  const std::size_t beta_i = rms ? 99 : 3, bias_i = rms ? 3 : 4;
  std::vector<Value> out(ctx.OutputCount());
  DispatchFloat(x.elem_type(), op, [&](auto tag) {
    using T = decltype(tag);
    auto v = ReadAs<T>(x);
    auto sv = ReadAs<T>(skip);
    if (sv.empty() || v.size() % sv.size() != 0 || skip.shape().empty() || skip.shape().back() != n)
      throw ModelError(std::string(op) + ": skip does not broadcast to the input");
    for (std::size_t i = 0; i < v.size(); ++i) v[i] += sv[i % sv.size()];
    if (ctx.HasInput(bias_i)) AddBias(v, x.shape(), ctx, bias_i);
    const auto gamma = ReadAs<T>(ctx.TensorInput(2));
    std::vector<T> beta;
    if (ctx.HasInput(beta_i)) beta = ReadAs<T>(ctx.TensorInput(beta_i));
    if (static_cast<std::int64_t>(gamma.size()) != n || (!beta.empty() && static_cast<std::int64_t>(beta.size()) != n))
      throw ModelError(std::string(op) + ": gamma and beta must have the size of the last dimension");
    if (ctx.HasOutput(3)) out[3] = WriteAs(x.elem_type(), x.shape(), v);
    std::vector<float> mean, inv;
    NormalizeRows(v, n, rms, eps, gamma, beta, mean, inv);
    out[0] = WriteAs(x.elem_type(), x.shape(), v);
    const Shape ss = StatShape(x.shape(), x.rank() - 1);
    if (ctx.HasOutput(1)) out[1] = WriteAs(TensorProto::FLOAT, ss, mean);
    if (ctx.HasOutput(2)) out[2] = WriteAs(TensorProto::FLOAT, ss, inv);
    return 0;
  });
  return out;
}

std::vector<Value> SkipLayerNormalizationKernel(KernelContext& ctx) {
  return SkipNormKernel(ctx, false, "SkipLayerNormalization");
}
std::vector<Value> SkipSimplifiedLayerNormalizationKernel(KernelContext& ctx) {
  return SkipNormKernel(ctx, true, "SkipSimplifiedLayerNormalization");
}

// SimplifiedLayerNormalization (X, scale) -> (Y, inv_std_var): RMS norm over axis..end.
std::vector<Value> SimplifiedLayerNormalizationKernel(KernelContext& ctx) {
  const Tensor& x = ctx.TensorInput(0);
  const auto rank = static_cast<std::int64_t>(x.rank());
  const std::int64_t axis = NormalizeAxis(ctx.IntAttribute("axis").value_or(-1), rank);
  const double eps = ctx.FloatAttribute("epsilon").value_or(1e-5f);
  const std::int64_t n = ShapeSize(x.shape(), static_cast<std::size_t>(axis));
  std::vector<Value> out(ctx.OutputCount());
  DispatchFloat(x.elem_type(), "SimplifiedLayerNormalization", [&](auto tag) {
    using T = decltype(tag);
    auto v = ReadAs<T>(x);
    auto gamma = ReadAs<T>(ctx.TensorInput(1));
    if (static_cast<std::int64_t>(gamma.size()) != n)
      throw ModelError("SimplifiedLayerNormalization: scale must have the size of the normalized dimensions");
    std::vector<float> mean, inv;
    NormalizeRows(v, n, true, eps, gamma, {}, mean, inv);
    out[0] = WriteAs(x.elem_type(), x.shape(), v);
    if (ctx.HasOutput(1)) out[1] = WriteAs(TensorProto::FLOAT, StatShape(x.shape(), static_cast<std::size_t>(axis)), inv);
    return 0;
  });
  return out;
}

// com.microsoft RotaryEmbedding (input, position_ids, cos_cache, sin_cache): input
// [B, S, hidden] or [B, N, S, H]; position_ids [B, S], or [1] as an offset added to s.
std::vector<Value> MsRotaryEmbeddingKernel(KernelContext& ctx) {
  const Tensor& x = ctx.TensorInput(0);
  const auto pos = ctx.TensorInput(1).ToInt64Vector();
  const Tensor& cos = ctx.TensorInput(2);
  const Tensor& sin = ctx.TensorInput(3);
  const bool interleaved = ctx.IntAttribute("interleaved").value_or(0) != 0;
  std::int64_t num_heads = ctx.IntAttribute("num_heads").value_or(0);
  std::int64_t rot = ctx.IntAttribute("rotary_embedding_dim").value_or(0);
  if (cos.rank() != 2 || sin.shape() != cos.shape()) throw ModelError("RotaryEmbedding: caches must be 2-D and alike");
  const std::int64_t half_cache = cos.shape()[1], max_pos = cos.shape()[0];
  std::int64_t B, S, N, H;
  const bool bnsh = x.rank() == 4;
  if (x.rank() == 3) {
    B = x.shape()[0], S = x.shape()[1];
    const std::int64_t hidden = x.shape()[2];
    H = num_heads > 0 ? hidden / num_heads : (rot > 0 ? rot : 2 * half_cache);
    if (H <= 0 || hidden % H != 0) throw ModelError("RotaryEmbedding: hidden size is not a multiple of the head size");
    N = hidden / H;
  } else if (bnsh) {
    B = x.shape()[0], N = x.shape()[1], S = x.shape()[2], H = x.shape()[3];
  } else {
    throw ModelError("RotaryEmbedding: input must be 3-D or 4-D");
  }
  if (rot == 0) rot = H;
  if (rot / 2 != half_cache || rot > H) throw ModelError("RotaryEmbedding: caches do not match the rotary dimension");
  // Checked here: indexed past its end, a shorter one threw std::out_of_range.
  if (pos.size() != 1 && pos.size() != static_cast<std::size_t>(B * S))
    throw ModelError("RotaryEmbedding: position_ids must hold one offset or a position per (batch, sequence) pair (" +
                     std::to_string(B * S) + "), found " + std::to_string(pos.size()));
  return {DispatchFloat(x.elem_type(), "RotaryEmbedding", [&](auto tag) {
    using T = decltype(tag);
    auto v = ReadAs<T>(x);
    const auto cv = ReadAs<T>(cos), sv = ReadAs<T>(sin);
    nn::ApplyRotary<T>(v.data(), B, S, N, H, bnsh, rot, interleaved, [&](std::int64_t b, std::int64_t s) {
      std::int64_t p = pos.size() == 1 ? pos[0] + s : pos[static_cast<std::size_t>(b * S + s)];
      if (p < 0 || p >= max_pos) throw ModelError("RotaryEmbedding: position id out of the cache range");
      return std::pair{cv.data() + p * half_cache, sv.data() + p * half_cache};
    });
    return WriteAs(x.elem_type(), x.shape(), v);
  })};
}

}  // namespace

void RegisterContribKernels() {
  using core::eval::RegisterKernel;
  RegisterKernel(kMs, "FusedMatMul", Arity{2, 2}, FusedMatMulKernel);
  RegisterKernel(kMs, "Gelu", Arity{1, 1}, GeluKernel);
  RegisterKernel(kMs, "BiasGelu", Arity{2, 2}, BiasGeluKernel);
  RegisterKernel(kMs, "FastGelu", Arity{1, 2}, FastGeluKernel);
  RegisterKernel(kMs, "QuickGelu", Arity{1, 1}, QuickGeluKernel);
  RegisterKernel(kMs, "GemmFastGelu", Arity{2, 3}, GemmFastGeluKernel);
  RegisterKernel(kMs, "BiasAdd", Arity{3, 3}, BiasAddKernel);
  RegisterKernel(kMs, "SkipLayerNormalization", Arity{3, 5, 1, 4}, SkipLayerNormalizationKernel);
  RegisterKernel(kMs, "SkipSimplifiedLayerNormalization", Arity{3, 4, 1, 4}, SkipSimplifiedLayerNormalizationKernel);
  RegisterKernel(kMs, "SimplifiedLayerNormalization", Arity{2, 2, 1, 2}, SimplifiedLayerNormalizationKernel);
  // onnxruntime also accepts SimplifiedLayerNormalization in the default domain.
  RegisterKernel("", "SimplifiedLayerNormalization", Arity{2, 2, 1, 2}, SimplifiedLayerNormalizationKernel);
  RegisterKernel(kMs, "RotaryEmbedding", Arity{4, 4}, MsRotaryEmbeddingKernel);
}

}  // namespace onnxopt::onnx_kernels
