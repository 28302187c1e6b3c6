// Neural-network kernels: MatMul, Gemm, Softmax, normalizations, Conv, pooling,
// Resize, quantization.

#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstdint>
#include <limits>
#include <string>
#include <vector>

#include "onnx_core/common/error.h"
#include "onnx_core/eval/float8.h"
#include "onnx_core/eval/kernel_registry.h"
#include "onnx_core/ir/operator_modes.h"
#include "onnx_extensions/kernels/kernel_groups.h"
#include "onnx_extensions/kernels/kernel_helpers.h"
#include "onnx_extensions/kernels/kernel_signature.h"
#include "onnx_extensions/kernels/nn_helpers.h"

namespace onnxopt::onnx_kernels {
namespace {

using core::eval::Arity;
using core::eval::NoValue;
using nn::DispatchFloat;
using nn::ReadAs;
using nn::WriteAs;

// For each element of `to` (row-major), the offset of the matching element of a tensor
// of shape `from` that broadcasts to `to` (unidirectionally: `what` names `from` in the
// error when it does not).
std::vector<std::int64_t> BroadcastOffsets(const Shape& from, const Shape& to, std::string_view what) {
  if (BroadcastShapes({from, to}) != to)
    Fail(std::string(what) + " " + ShapeToString(from) + " does not broadcast to " + ShapeToString(to));
  std::vector<std::int64_t> out(static_cast<std::size_t>(ShapeSize(to)));
  ForEachBroadcast<1>(to, {&from}, [&](std::int64_t i, const std::array<std::int64_t, 1>& off) {
    out[static_cast<std::size_t>(i)] = off[0];
  });
  return out;
}

template <class T>
std::vector<T> BroadcastTo(const std::vector<T>& v, const Shape& from, const Shape& to, std::string_view what) {
  if (from == to) return v;
  auto offs = BroadcastOffsets(from, to, what);
  std::vector<T> out(offs.size());
  for (std::size_t i = 0; i < offs.size(); ++i) out[i] = v[static_cast<std::size_t>(offs[i])];
  return out;
}

// Integer tensors: read as int64, write back with wrap-around.
Tensor WriteInt(int elem_type, Shape shape, const std::vector<std::int64_t>& v) {
  Tensor out(elem_type, std::move(shape));
  auto fill = [&](auto* p) {
    using S = std::remove_pointer_t<decltype(p)>;
    for (std::size_t i = 0; i < v.size(); ++i) p[i] = static_cast<S>(v[i]);
  };
  // The 2- and 4-bit types by the byte type holding them.
  const int byte_type = core::eval::ByteIntegerOf(elem_type);
  switch (byte_type ? byte_type : elem_type) {
    case TensorProto::INT8: fill(out.MutableData<std::int8_t>()); break;
    case TensorProto::INT16: fill(out.MutableData<std::int16_t>()); break;
    case TensorProto::INT32: fill(out.MutableData<std::int32_t>()); break;
    case TensorProto::INT64: fill(out.MutableData<std::int64_t>()); break;
    case TensorProto::UINT8: fill(out.MutableData<std::uint8_t>()); break;
    case TensorProto::UINT16: fill(out.MutableData<std::uint16_t>()); break;
    case TensorProto::UINT32: fill(out.MutableData<std::uint32_t>()); break;
    case TensorProto::UINT64: fill(out.MutableData<std::uint64_t>()); break;
    default: throw ModelError("unsupported integer element type " + ElemTypeName(elem_type));
  }
  return out;
}

// ---------------------------------------------------------------------------------
// MatMul

struct MatMulPlan {
  Shape out_shape;
  std::int64_t M = 1, N = 1, K = 1;
  std::vector<std::int64_t> a_batch, b_batch;  // offsets (in matrices) per output batch
};

MatMulPlan PlanMatMul(Shape a, Shape b, const char* op, bool transA = false, bool transB = false) {
  if (a.empty() || b.empty()) throw ModelError(std::string(op) + ": inputs must have rank >= 1");
  const bool a1 = a.size() == 1, b1 = b.size() == 1;
  if (a1) a.insert(a.begin(), 1);
  if (b1) b.push_back(1);
  MatMulPlan p;
  const std::size_t ra = a.size(), rb = b.size();
  p.M = transA ? a[ra - 1] : a[ra - 2];
  const std::int64_t ka = transA ? a[ra - 2] : a[ra - 1];
  const std::int64_t kb = transB ? b[rb - 1] : b[rb - 2];
  p.N = transB ? b[rb - 2] : b[rb - 1];
  if (ka != kb)
    throw ModelError(std::string(op) + ": inner dimensions differ (" + ShapeToString(a) + " x " + ShapeToString(b) + ")");
  p.K = ka;
  Shape ab(a.begin(), a.end() - 2), bb(b.begin(), b.end() - 2);
  Shape batch = BroadcastShapes({ab, bb});
  p.a_batch = BroadcastOffsets(ab, batch, "the batch dims of A");
  p.b_batch = BroadcastOffsets(bb, batch, "the batch dims of B");
  p.out_shape = batch;
  if (!a1) p.out_shape.push_back(p.M);
  if (!b1) p.out_shape.push_back(p.N);
  CheckedShapeSize(p.out_shape, "the output shape");
  return p;
}

template <class T>
std::vector<T> RunMatMul(const MatMulPlan& p, const T* a, const T* b, bool transA, bool transB, T alpha) {
  std::vector<T> out(static_cast<std::size_t>(p.a_batch.size() * p.M * p.N));
  const std::int64_t lda = transA ? p.M : p.K, ldb = transB ? p.K : p.N;
  // [batch, M, K] x [K, N] with a shared B is one [batch*M, K] x [K, N] product: B is
  // packed once.
  bool fold = !transA && !p.a_batch.empty();
  for (std::size_t i = 0; i < p.a_batch.size() && fold; ++i)
    fold = p.b_batch[i] == 0 && p.a_batch[i] == static_cast<std::int64_t>(i);
  if (fold) {
    nn::Gemm<T>(static_cast<std::int64_t>(p.a_batch.size()) * p.M, p.N, p.K, alpha, a, lda, false, b, ldb, transB,
                out.data(), p.N, false);
    return out;
  }
  for (std::size_t i = 0; i < p.a_batch.size(); ++i)
    nn::Gemm<T>(p.M, p.N, p.K, alpha, a + p.a_batch[i] * p.M * p.K, lda, transA, b + p.b_batch[i] * p.K * p.N, ldb,
                transB, out.data() + i * p.M * p.N, p.N, false);
  return out;
}

}  // namespace

// Shared with contrib_kernels.cc (FusedMatMul).
Tensor MatMulTensors(const Tensor& a, const Tensor& b, bool transA, bool transB, double alpha, const char* op) {
  if (a.elem_type() != b.elem_type()) throw ModelError(std::string(op) + ": inputs have different element types");
  const int et = a.elem_type();
  if (a.rank() < 2 && (transA)) throw ModelError(std::string(op) + ": transA needs rank >= 2");
  if (b.rank() < 2 && (transB)) throw ModelError(std::string(op) + ": transB needs rank >= 2");
  MatMulPlan p = PlanMatMul(a.shape(), b.shape(), op, transA, transB);
  if (IsFloatType(et)) {
    return DispatchFloat(et, op, [&](auto tag) {
      using T = decltype(tag);
      if constexpr (std::is_same_v<T, float>) {
        if (et == TensorProto::FLOAT)
          return WriteAs(et, p.out_shape,
                         RunMatMul<float>(p, a.Data<float>(), b.Data<float>(), transA, transB, float(alpha)));
      }
      auto av = ReadAs<T>(a), bv = ReadAs<T>(b);
      return WriteAs(et, p.out_shape, RunMatMul<T>(p, av.data(), bv.data(), transA, transB, T(alpha)));
    });
  }
  if (et == TensorProto::BOOL || et == TensorProto::STRING || et == 0)
    throw ModelError(std::string(op) + ": unsupported element type");
  auto av = a.ToInt64Vector(), bv = b.ToInt64Vector();
  return WriteInt(et, p.out_shape, RunMatMul<std::int64_t>(p, av.data(), bv.data(), transA, transB, 1));
}

namespace {

std::vector<Value> MatMulKernel(KernelContext& ctx) {
  return {MatMulTensors(ctx.TensorInput(0), ctx.TensorInput(1), false, false, 1.0, "MatMul")};
}

// MatMulInteger: (A - a_zero_point) x (B - b_zero_point) in int32.
// A zero point of MatMulInteger: the type of its matrix, and one value, or one per row of A
// (a_zero_point) or per column of B (b_zero_point).
std::vector<std::int64_t> MatMulZeroPoint(const KernelContext& ctx, std::size_t i, const Tensor& matrix,
                                         std::int64_t per_vector_count) {
  const Tensor& z = ctx.TensorInput(i);
  ExpectSameElemType(z, matrix, InputLabel(ctx, i), InputLabel(ctx, i - 2));
  ExpectRank(z, 0, 1, InputLabel(ctx, i));
  if (z.size() != 1 && z.size() != per_vector_count)
    Fail(InputLabel(ctx, i) + " " + z.Describe() + " must have 1 or " + std::to_string(per_vector_count) + " values");
  return z.ToInt64Vector();
}

std::vector<Value> MatMulIntegerKernel(KernelContext& ctx) {
  const Tensor& a = ctx.TensorInput(0);
  const Tensor& b = ctx.TensorInput(1);
  for (std::size_t i : {0, 1}) {
    const int type = ctx.TensorInput(i).elem_type();
    if (type != TensorProto::INT8 && type != TensorProto::UINT8)
      Fail(InputLabel(ctx, i) + " must be INT8 or UINT8, found " + ElemTypeName(type));
  }
  MatMulPlan p = PlanMatMul(a.shape(), b.shape(), "MatMulInteger");
  auto av = a.ToInt64Vector(), bv = b.ToInt64Vector();
  if (ctx.HasInput(2)) {
    auto z = MatMulZeroPoint(ctx, 2, a, p.M);
    for (std::size_t i = 0; i < av.size(); ++i) av[i] -= z.size() == 1 ? z[0] : z[(i / p.K) % z.size()];
  }
  if (ctx.HasInput(3)) {
    auto z = MatMulZeroPoint(ctx, 3, b, p.N);
    for (std::size_t i = 0; i < bv.size(); ++i) bv[i] -= z.size() == 1 ? z[0] : z[i % z.size()];
  }
  return {WriteInt(TensorProto::INT32, p.out_shape, RunMatMul<std::int64_t>(p, av.data(), bv.data(), false, false, 1))};
}

// ---------------------------------------------------------------------------------
// Gemm: Y = alpha * op(A) op(B) + beta * C

std::vector<Value> GemmKernel(KernelContext& ctx) {
  const Tensor& a = ctx.TensorInput(0);
  const Tensor& b = ctx.TensorInput(1);
  const bool ta = ctx.IntAttribute("transA").value_or(0) != 0;
  const bool tb = ctx.IntAttribute("transB").value_or(0) != 0;
  const double alpha = ctx.FloatAttribute("alpha").value_or(1.0f);
  const double beta = ctx.FloatAttribute("beta").value_or(1.0f);
  if (a.rank() != 2 || b.rank() != 2) throw ModelError("Gemm: A and B must be 2-D");
  ExpectSameElemType(b, a, InputLabel(ctx, 1), "A");
  if (ctx.HasInput(2)) ExpectSameElemType(ctx.TensorInput(2), a, InputLabel(ctx, 2), "A");
  const int et = a.elem_type();
  const std::int64_t M = ta ? a.shape()[1] : a.shape()[0];
  const std::int64_t K = ta ? a.shape()[0] : a.shape()[1];
  const std::int64_t Kb = tb ? b.shape()[1] : b.shape()[0];
  const std::int64_t N = tb ? b.shape()[0] : b.shape()[1];
  if (K != Kb) throw ModelError("Gemm: inner dimensions differ (" + ShapeToString(a.shape()) + ", " + ShapeToString(b.shape()) + ")");
  CheckedShapeSize({M, N}, "the output shape");
  auto run = [&](auto tag) -> Tensor {
    using T = decltype(tag);
    auto av = ReadAs<T>(a), bv = ReadAs<T>(b);
    std::vector<T> y(static_cast<std::size_t>(M * N), T{0});
    bool acc = false;
    if (ctx.HasInput(2) && beta != 0.0) {
      const Tensor& c = ctx.TensorInput(2);
      auto cv = BroadcastTo(ReadAs<T>(c), c.shape(), {M, N}, "C");
      for (std::size_t i = 0; i < y.size(); ++i) y[i] = T(beta) * cv[i];
      acc = true;
    }
    nn::Gemm<T>(M, N, K, T(alpha), av.data(), a.shape()[1], ta, bv.data(), b.shape()[1], tb, y.data(), N, acc);
    return WriteAs(et, {M, N}, y);
  };
  if (IsFloatType(et)) return {DispatchFloat(et, "Gemm", run)};
  // Integer Gemm (int32, int64, uint32, uint64 in opset 11+). The float scales meet
  // integers through ConvertNumber: NaN is 0 and a value beyond int64 saturates (a plain
  // conversion is undefined there).
  auto av = a.ToInt64Vector(), bv = b.ToInt64Vector();
  std::vector<std::int64_t> y(static_cast<std::size_t>(M * N), 0);
  bool acc = false;
  if (ctx.HasInput(2) && beta != 0.0) {
    const Tensor& c = ctx.TensorInput(2);
    auto cv = BroadcastTo(c.ToInt64Vector(), c.shape(), {M, N}, "C");
    for (std::size_t i = 0; i < y.size(); ++i) y[i] = ConvertNumber<std::int64_t>(beta * static_cast<double>(cv[i]));
    acc = true;
  }
  nn::Gemm<std::int64_t>(M, N, K, ConvertNumber<std::int64_t>(alpha), av.data(), a.shape()[1], ta, bv.data(),
                         b.shape()[1], tb, y.data(), N, acc);
  return {WriteInt(et, {M, N}, y)};
}

// ---------------------------------------------------------------------------------
// Softmax, LogSoftmax, Hardmax

enum class SoftKind { kSoftmax, kLogSoftmax, kHardmax };

Tensor SoftmaxLike(KernelContext& ctx, SoftKind kind, const char* op) {
  const Tensor& x = ctx.TensorInput(0);
  const auto rank = static_cast<std::int64_t>(x.rank());
  const bool coerce = ctx.OpsetVersion() < 13;
  const std::int64_t axis = NormalizeAxis(ctx.IntAttribute("axis").value_or(coerce ? 1 : -1), rank);
  // Rows of length `n` with stride `inner`: coerced 2-D before 13, one axis after.
  std::int64_t outer, n, inner;
  if (coerce) {
    outer = ShapeSize(x.shape(), 0, axis);
    n = ShapeSize(x.shape(), axis);
    inner = 1;
  } else {
    outer = ShapeSize(x.shape(), 0, axis);
    n = rank == 0 ? 1 : x.shape()[axis];
    inner = ShapeSize(x.shape(), axis + 1);
  }
  // An empty axis leaves outer * inner rows of nothing, not bounded by X's data.
  if (x.size() == 0) return Tensor(x.elem_type(), x.shape());
  return DispatchFloat(x.elem_type(), op, [&](auto tag) {
    using T = decltype(tag);
    auto v = ReadAs<T>(x);
    for (std::int64_t o = 0; o < outer; ++o)
      for (std::int64_t in = 0; in < inner; ++in) {
        T* base = v.data() + o * n * inner + in;
        auto at = [&](std::int64_t i) -> T& { return base[i * inner]; };
        T mx = at(0);
        std::int64_t arg = 0;
        // The first maximum; NaN counts as the maximum (like numpy's argmax).
        for (std::int64_t i = 1; i < n; ++i)
          if (at(i) > mx || (std::isnan(at(i)) && !std::isnan(mx))) mx = at(i), arg = i;
        if (kind == SoftKind::kHardmax) {
          for (std::int64_t i = 0; i < n; ++i) at(i) = i == arg ? T{1} : T{0};
          continue;
        }
        T sum = 0;
        for (std::int64_t i = 0; i < n; ++i) sum += std::exp(at(i) - mx);
        if (kind == SoftKind::kSoftmax)
          for (std::int64_t i = 0; i < n; ++i) at(i) = std::exp(at(i) - mx) / sum;
        else {
          const T ls = std::log(sum);
          for (std::int64_t i = 0; i < n; ++i) at(i) = at(i) - mx - ls;
        }
      }
    return WriteAs(x.elem_type(), x.shape(), v);
  });
}

std::vector<Value> SoftmaxKernel(KernelContext& ctx) { return {SoftmaxLike(ctx, SoftKind::kSoftmax, "Softmax")}; }
std::vector<Value> LogSoftmaxKernel(KernelContext& ctx) {
  return {SoftmaxLike(ctx, SoftKind::kLogSoftmax, "LogSoftmax")};
}
std::vector<Value> HardmaxKernel(KernelContext& ctx) { return {SoftmaxLike(ctx, SoftKind::kHardmax, "Hardmax")}; }

// ---------------------------------------------------------------------------------
// Normalizations

// The scale or bias of a normalization, one value per element of the normalized shape.
// It multiplies (adds to) the whole input, so leading dims of size 1 beyond the
// normalized rank are allowed ([1, 5] for a normalized shape [5]); it must not vary
// along the outer dims.
template <class T>
std::vector<T> NormParameter(const std::vector<T>& v, const Shape& shape, const Shape& norm_shape, std::string_view what) {
  Shape inner = shape;
  while (inner.size() > norm_shape.size() && inner.front() == 1) inner.erase(inner.begin());
  return BroadcastTo(v, inner, norm_shape, what);
}

int StashType(KernelContext& ctx) {
  return static_cast<int>(ctx.IntAttribute("stash_type").value_or(TensorProto::FLOAT));
}

std::vector<Value> LayerNormalizationKernel(KernelContext& ctx) {
  const Tensor& x = ctx.TensorInput(0);
  const auto rank = static_cast<std::int64_t>(x.rank());
  const std::int64_t axis = NormalizeAxis(ctx.IntAttribute("axis").value_or(-1), rank);
  const double eps = ctx.FloatAttribute("epsilon").value_or(1e-5f);
  const std::int64_t outer = ShapeSize(x.shape(), 0, axis), n = ShapeSize(x.shape(), axis);
  Shape norm_shape(x.shape().begin() + axis, x.shape().end());
  Shape stat_shape = x.shape();
  for (std::int64_t i = axis; i < rank; ++i) stat_shape[i] = 1;
  // One mean and one inverse deviation per row: when X is empty ([2^40, 0]) the rows are
  // not bounded by its data.
  CheckedShapeSize(stat_shape, "the statistics");
  const int stash = StashType(ctx);
  std::vector<Value> out(ctx.OutputCount());
  auto run = [&](auto tag) {
    using T = decltype(tag);
    auto xv = ReadAs<T>(x);
    const Tensor& s = ctx.TensorInput(1);
    auto sv = NormParameter(ReadAs<T>(s), s.shape(), norm_shape, InputLabel(ctx, 1));
    std::vector<T> bv;
    if (ctx.HasInput(2))
      bv = NormParameter(ReadAs<T>(ctx.TensorInput(2)), ctx.TensorInput(2).shape(), norm_shape, InputLabel(ctx, 2));
    std::vector<T> y(xv.size()), mean(static_cast<std::size_t>(outer)), inv(static_cast<std::size_t>(outer));
    for (std::int64_t o = 0; o < outer; ++o) {
      const T* row = xv.data() + o * n;
      T m = 0;
      for (std::int64_t i = 0; i < n; ++i) m += row[i];
      m /= T(n);
      T var = 0;
      for (std::int64_t i = 0; i < n; ++i) var += (row[i] - m) * (row[i] - m);
      var /= T(n);
      const T is = T(1) / std::sqrt(var + T(eps));
      mean[o] = m;
      inv[o] = is;
      for (std::int64_t i = 0; i < n; ++i)
        y[o * n + i] = (row[i] - m) * is * sv[i] + (bv.empty() ? T{0} : bv[i]);
    }
    out[0] = WriteAs(x.elem_type(), x.shape(), y);
    if (ctx.HasOutput(1)) out[1] = WriteAs(stash, stat_shape, mean);
    if (ctx.HasOutput(2)) out[2] = WriteAs(stash, stat_shape, inv);
    return 0;
  };
  // Statistics in double when either the input or the stash type asks for it.
  if (x.elem_type() == TensorProto::DOUBLE || stash == TensorProto::DOUBLE) run(double{});
  else DispatchFloat(x.elem_type(), "LayerNormalization", run);
  return out;
}

std::vector<Value> RMSNormalizationKernel(KernelContext& ctx) {
  const Tensor& x = ctx.TensorInput(0);
  const auto rank = static_cast<std::int64_t>(x.rank());
  const std::int64_t axis = NormalizeAxis(ctx.IntAttribute("axis").value_or(-1), rank);
  const double eps = ctx.FloatAttribute("epsilon").value_or(1e-5f);
  const std::int64_t outer = ShapeSize(x.shape(), 0, axis), n = ShapeSize(x.shape(), axis);
  Shape norm_shape(x.shape().begin() + axis, x.shape().end());
  auto run = [&](auto tag) {
    using T = decltype(tag);
    auto xv = ReadAs<T>(x);
    const Tensor& s = ctx.TensorInput(1);
    auto sv = NormParameter(ReadAs<T>(s), s.shape(), norm_shape, InputLabel(ctx, 1));
    std::vector<T> y(xv.size());
    for (std::int64_t o = 0; o < outer; ++o) {
      const T* row = xv.data() + o * n;
      T ss = 0;
      for (std::int64_t i = 0; i < n; ++i) ss += row[i] * row[i];
      const T is = T(1) / std::sqrt(ss / T(n) + T(eps));
      for (std::int64_t i = 0; i < n; ++i) y[o * n + i] = row[i] * is * sv[i];
    }
    return WriteAs(x.elem_type(), x.shape(), y);
  };
  if (x.elem_type() == TensorProto::DOUBLE || StashType(ctx) == TensorProto::DOUBLE) return {run(double{})};
  return {DispatchFloat(x.elem_type(), "RMSNormalization", run)};
}

std::vector<Value> BatchNormalizationKernel(KernelContext& ctx) {
  const Tensor& x = ctx.TensorInput(0);
  if (x.rank() < 2 && x.rank() != 1) throw ModelError("BatchNormalization: X must have rank >= 1");
  const double eps = ctx.FloatAttribute("epsilon").value_or(1e-5f);
  const std::int64_t N = x.shape()[0];
  std::int64_t C = x.rank() >= 2 ? x.shape()[1] : 1;
  std::int64_t inner = ShapeSize(x.shape(), 2);
  const bool training = core::ir::BatchNormalizationTrains(ctx.Node(), ctx.OpsetVersion());
  // spatial=0 (before opset 9) computes the statistics "across per feature": each channel
  // and position on its own, the features being the channels of X seen as
  // [N, C*D1*...*Dn]. Version 7 makes the parameters per feature too (C x D1 x ... x Dn);
  // versions 1 and 6 give them C elements, and spatial speaks there only of computing the
  // statistics, which their test mode does not do.
  const bool per_feature = ctx.OpsetVersion() < 9 && ctx.IntAttribute("spatial").value_or(1) == 0 &&
                           (ctx.OpsetVersion() >= 7 || training);
  if (per_feature) {
    C *= inner;
    inner = 1;
  }
  const double momentum = ctx.FloatAttribute("momentum").value_or(0.9f);
  const Tensor& mean_input = ctx.TensorInput(3);
  const Tensor& var_input = ctx.TensorInput(4);
  std::vector<Value> out(ctx.OutputCount());
  out[0] = DispatchFloat(x.elem_type(), "BatchNormalization", [&](auto tag) {
    using T = decltype(tag);
    auto xv = ReadAs<T>(x);
    auto sc = ReadAs<T>(ctx.TensorInput(1)), b = ReadAs<T>(ctx.TensorInput(2));
    auto mean = ReadAs<T>(mean_input), var = ReadAs<T>(var_input);
    if (static_cast<std::int64_t>(sc.size()) != C || static_cast<std::int64_t>(b.size()) != C ||
        static_cast<std::int64_t>(mean.size()) != C || static_cast<std::int64_t>(var.size()) != C)
      throw ModelError(per_feature ? "BatchNormalization: with spatial=0, scale, B, mean and var must have one element "
                                     "per feature (C x D1 x ... x Dn)"
                                   : "BatchNormalization: scale, B, mean and var must have C elements");
    if (training) {
      // Batch statistics normalize; the running ones are updated with momentum. The
      // variance is the population one (divided by the count, not the count - 1).
      std::vector<T> bm(C, T{0}), bv(C, T{0});
      const T cnt = T(N * inner);
      for (std::int64_t n = 0; n < N; ++n)
        for (std::int64_t c = 0; c < C; ++c)
          for (std::int64_t i = 0; i < inner; ++i) bm[c] += xv[(n * C + c) * inner + i];
      for (auto& m : bm) m /= cnt;
      for (std::int64_t n = 0; n < N; ++n)
        for (std::int64_t c = 0; c < C; ++c)
          for (std::int64_t i = 0; i < inner; ++i) {
            const T d = xv[(n * C + c) * inner + i] - bm[c];
            bv[c] += d * d;
          }
      for (auto& v : bv) v /= cnt;
      std::vector<T> rm(C), rv(C);
      for (std::int64_t c = 0; c < C; ++c) {
        rm[c] = mean[c] * T(momentum) + bm[c] * T(1 - momentum);
        rv[c] = var[c] * T(momentum) + bv[c] * T(1 - momentum);
      }
      // Outputs 3 and 4 (before opset 14), saved_mean and saved_var, are "Saved mean" and
      // "Saved variance": the batch's. onnxruntime's CPU kernel writes 1 / sqrt(variance +
      // epsilon) as output 4 instead, a departure its source comments on.
      const std::vector<T>* results[] = {&rm, &rv, &bm, &bv};
      for (std::size_t i = 1; i < out.size() && i <= 4; ++i)
        if (ctx.HasOutput(i)) {
          const Tensor& like = i % 2 == 1 ? mean_input : var_input;
          out[i] = WriteAs(like.elem_type(), like.shape(), *results[i - 1]);
        }
      mean = bm;
      var = bv;
    }
    // The specification's formula as it is written: folded into x * k + (B - mean * k), an
    // infinite scale gave NaN where the formula gives an infinity (and a large mean cancels).
    for (std::int64_t n = 0; n < N; ++n)
      for (std::int64_t c = 0; c < C; ++c) {
        const T deviation = std::sqrt(var[c] + T(eps));
        T* p = xv.data() + (n * C + c) * inner;
        for (std::int64_t i = 0; i < inner; ++i) p[i] = (p[i] - mean[c]) / deviation * sc[c] + b[c];
      }
    return WriteAs(x.elem_type(), x.shape(), xv);
  });
  // Inference mode: the mean and var inputs pass through, as the running statistics
  // (outputs 1, 2) and as the ones Y was normalized with (3, 4: versions 1 and 6 with
  // is_test=1 and five outputs).
  if (!training)
    for (std::size_t i = 1; i < out.size(); ++i)
      if (ctx.HasOutput(i)) out[i] = ctx.Input(i % 2 == 1 ? 3 : 4);
  return out;
}

// Normalizes each (n, group) slice of X [N, C, ...] over channels of the group and the
// spatial dimensions; scale and bias are per channel (size C) or per group.
template <class T>
std::vector<T> GroupNormalize(const std::vector<T>& xv, const Shape& shape, std::int64_t groups, const std::vector<T>& scale,
                              const std::vector<T>& bias, double eps) {
  const std::int64_t N = shape[0], C = shape.size() > 1 ? shape[1] : 1;
  const std::int64_t inner = ShapeSize(shape, 2);
  if (groups <= 0 || C % groups != 0) throw ModelError("GroupNormalization: num_groups must divide the channels");
  const std::int64_t cpg = C / groups, len = cpg * inner;
  const bool per_channel = static_cast<std::int64_t>(scale.size()) == C;
  std::vector<T> y(xv.size());
  for (std::int64_t n = 0; n < N; ++n)
    for (std::int64_t g = 0; g < groups; ++g) {
      const std::int64_t base = (n * C + g * cpg) * inner;
      T m = 0;
      for (std::int64_t i = 0; i < len; ++i) m += xv[base + i];
      m /= T(len);
      T var = 0;
      for (std::int64_t i = 0; i < len; ++i) var += (xv[base + i] - m) * (xv[base + i] - m);
      var /= T(len);
      const T is = T(1) / std::sqrt(var + T(eps));
      for (std::int64_t c = 0; c < cpg; ++c) {
        const std::int64_t k = per_channel ? g * cpg + c : g;
        for (std::int64_t i = 0; i < inner; ++i) {
          const std::int64_t e = base + c * inner + i;
          y[e] = (xv[e] - m) * is * scale[k] + bias[k];
        }
      }
    }
  return y;
}

// Scale and bias of InstanceNormalization / GroupNormalization: `count` values each.
void ExpectParameterCount(const KernelContext& ctx, std::size_t first, std::int64_t count, const char* per_what) {
  for (std::size_t i = first; i < first + 2; ++i)
    if (ctx.TensorInput(i).size() != count || ctx.TensorInput(i).rank() != 1)
      Fail(InputLabel(ctx, i) + " " + ctx.TensorInput(i).Describe() + " must hold one value per " + per_what + " (" +
           std::to_string(count) + ")");
}

std::vector<Value> InstanceNormalizationKernel(KernelContext& ctx) {
  const Tensor& x = ctx.TensorInput(0);
  ExpectRank(x, 3, Arity::kAny, InputLabel(ctx, 0));
  ExpectParameterCount(ctx, 1, x.shape()[1], "channel");
  const double eps = ctx.FloatAttribute("epsilon").value_or(1e-5f);
  return {DispatchFloat(x.elem_type(), "InstanceNormalization", [&](auto tag) {
    using T = decltype(tag);
    return WriteAs(x.elem_type(), x.shape(),
                   GroupNormalize<T>(ReadAs<T>(x), x.shape(), x.shape()[1], ReadAs<T>(ctx.TensorInput(1)),
                                     ReadAs<T>(ctx.TensorInput(2)), eps));
  })};
}

std::vector<Value> GroupNormalizationKernel(KernelContext& ctx) {
  const Tensor& x = ctx.TensorInput(0);
  if (x.rank() < 2) throw ModelError("GroupNormalization: X must have rank >= 2");
  const double eps = ctx.FloatAttribute("epsilon").value_or(1e-5f);
  const auto groups = ctx.IntAttribute("num_groups");
  if (!groups) throw ModelError("GroupNormalization: missing num_groups");
  if (*groups <= 0 || x.shape()[1] % *groups != 0)
    Fail("attribute 'num_groups' " + std::to_string(*groups) + " must divide the " + std::to_string(x.shape()[1]) +
         " channels");
  // Scale and bias are per group in opset 18, per channel since 21.
  if (ctx.OpsetVersion() < 21) ExpectParameterCount(ctx, 1, *groups, "group");
  else ExpectParameterCount(ctx, 1, x.shape()[1], "channel");
  auto run = [&](auto tag) {
    using T = decltype(tag);
    return WriteAs(x.elem_type(), x.shape(),
                   GroupNormalize<T>(ReadAs<T>(x), x.shape(), *groups, ReadAs<T>(ctx.TensorInput(1)),
                                     ReadAs<T>(ctx.TensorInput(2)), eps));
  };
  if (x.elem_type() == TensorProto::DOUBLE || StashType(ctx) == TensorProto::DOUBLE) return {run(double{})};
  return {DispatchFloat(x.elem_type(), "GroupNormalization", run)};
}

std::vector<Value> LpNormalizationKernel(KernelContext& ctx) {
  const Tensor& x = ctx.TensorInput(0);
  const auto rank = static_cast<std::int64_t>(x.rank());
  const std::int64_t axis = NormalizeAxis(ctx.IntAttribute("axis").value_or(-1), rank);
  const std::int64_t p = IntAttributeIn(ctx, "p", 2, 1, 2);
  const std::int64_t outer = ShapeSize(x.shape(), 0, axis), n = x.shape()[axis], inner = ShapeSize(x.shape(), axis + 1);
  return {DispatchFloat(x.elem_type(), "LpNormalization", [&](auto tag) {
    using T = decltype(tag);
    auto v = ReadAs<T>(x);
    // An empty axis leaves nothing to normalize (and v's data pointer may be null).
    if (n == 0) return WriteAs(x.elem_type(), x.shape(), v);
    for (std::int64_t o = 0; o < outer; ++o)
      for (std::int64_t in = 0; in < inner; ++in) {
        T* b = v.data() + o * n * inner + in;
        T s = 0;
        for (std::int64_t i = 0; i < n; ++i) s += p == 1 ? std::abs(b[i * inner]) : b[i * inner] * b[i * inner];
        if (p != 1) s = std::sqrt(s);
        if (s != T{0})
          for (std::int64_t i = 0; i < n; ++i) b[i * inner] /= s;
      }
    return WriteAs(x.elem_type(), x.shape(), v);
  })};
}

// ---------------------------------------------------------------------------------
// Convolution and pooling geometry

struct Window {
  std::size_t nd = 0;  // spatial dimensions
  Shape in, kernel, strides, dilations, pad_begin, pad_end, out;
};

// Computes pads and output sizes per the auto_pad / pads / ceil_mode attributes.
Window MakeWindow(KernelContext& ctx, const Shape& in_spatial, const Shape& kernel, bool ceil_mode, const char* op) {
  Window w;
  w.nd = in_spatial.size();
  w.in = in_spatial;
  w.kernel = kernel;
  if (kernel.size() != w.nd) throw ModelError(std::string(op) + ": kernel rank does not match the input");
  ExpectAtLeast(kernel, 1, "the kernel shape");
  w.strides = ctx.IntsAttribute("strides").value_or(Shape(w.nd, 1));
  w.dilations = ctx.IntsAttribute("dilations").value_or(Shape(w.nd, 1));
  if (w.strides.empty()) w.strides.assign(w.nd, 1);
  if (w.dilations.empty()) w.dilations.assign(w.nd, 1);
  Shape pads = ctx.IntsAttribute("pads").value_or(Shape(2 * w.nd, 0));
  if (pads.empty()) pads.assign(2 * w.nd, 0);
  if (w.strides.size() != w.nd || w.dilations.size() != w.nd || pads.size() != 2 * w.nd)
    throw ModelError(std::string(op) + ": strides, dilations or pads have the wrong length");
  ExpectAtLeast(w.strides, 1, "attribute 'strides'");
  ExpectAtLeast(w.dilations, 1, "attribute 'dilations'");
  ExpectAtLeast(pads, 0, "attribute 'pads'");
  const std::string auto_pad = StringAttributeIn(ctx, "auto_pad", "NOTSET", {"NOTSET", "SAME_UPPER", "SAME_LOWER", "VALID"});
  w.pad_begin.resize(w.nd);
  w.pad_end.resize(w.nd);
  w.out.resize(w.nd);
  const char* what = "the window geometry";
  for (std::size_t d = 0; d < w.nd; ++d) {
    const std::int64_t ek = CheckedAdd(CheckedMul(kernel[d] - 1, w.dilations[d], what), 1, what);
    const std::int64_t s = w.strides[d];
    if (auto_pad == "SAME_UPPER" || auto_pad == "SAME_LOWER") {
      const std::int64_t out = in_spatial[d] / s + (in_spatial[d] % s != 0 ? 1 : 0);
      const std::int64_t reach = CheckedAdd(CheckedMul(std::max<std::int64_t>(out - 1, 0), s, what), ek, what);
      const std::int64_t total = std::max<std::int64_t>(0, reach - in_spatial[d]);
      w.pad_begin[d] = auto_pad == "SAME_UPPER" ? total / 2 : total - total / 2;
      w.pad_end[d] = total - w.pad_begin[d];
      w.out[d] = out;
      continue;
    }
    if (auto_pad == "VALID") {
      w.pad_begin[d] = w.pad_end[d] = 0;
    } else {
      w.pad_begin[d] = pads[d];
      w.pad_end[d] = pads[d + w.nd];
    }
    const std::int64_t padded = CheckedAdd(CheckedAdd(in_spatial[d], w.pad_begin[d], what), w.pad_end[d], what);
    const std::int64_t span = padded - ek;
    if (span < 0)
      throw ModelError(std::string(op) + ": the kernel (" + std::to_string(ek) + " with dilations) is larger than the " +
                       "padded input (" + std::to_string(padded) + ") in spatial dim " + std::to_string(d));
    std::int64_t out = ceil_mode ? span / s + (span % s != 0 ? 1 : 0) + 1 : span / s + 1;
    // The last window must start inside the input or the begin padding.
    if (ceil_mode && (out - 1) * s >= in_spatial[d] + w.pad_begin[d]) --out;
    w.out[d] = out;
  }
  return w;
}

// Odometer over a multi-index.
bool NextIndex(Shape& idx, const Shape& dims) {
  for (std::size_t k = idx.size(); k-- > 0;) {
    if (++idx[k] < dims[k]) return true;
    idx[k] = 0;
  }
  return false;
}

// Odometer over the box [lo, hi) (every range non-empty).
bool NextIndexInRange(Shape& idx, const Shape& lo, const Shape& hi) {
  for (std::size_t k = idx.size(); k-- > 0;) {
    if (++idx[k] < hi[k]) return true;
    idx[k] = lo[k];
  }
  return false;
}

// im2col for one image and one group: col[(c, k...)][out...] (C_g * prod(kernel) rows).
template <class T>
void Im2Col(const T* img, std::int64_t channels, const Window& w, T* col) {
  const std::int64_t in_size = ShapeSize(w.in), out_size = ShapeSize(w.out), ksize = ShapeSize(w.kernel);
  const std::size_t nd = w.nd;
  Shape kidx(nd, 0), oidx(nd, 0);
  const std::int64_t last_out = nd ? w.out[nd - 1] : 1;
  for (std::int64_t c = 0; c < channels; ++c) {
    const T* ci = img + c * in_size;
    std::fill(kidx.begin(), kidx.end(), 0);
    for (std::int64_t k = 0; k < ksize; ++k, NextIndex(kidx, w.kernel)) {
      T* row = col + (c * ksize + k) * out_size;
      if (nd == 0) {
        row[0] = ci[0];
        continue;
      }
      std::fill(oidx.begin(), oidx.end(), 0);
      for (std::int64_t o = 0; o < out_size; o += last_out) {
        // Offset for the outer dimensions; skip rows whose coordinate is in the padding.
        std::int64_t off = 0;
        bool inside = true;
        for (std::size_t d = 0; d + 1 < nd; ++d) {
          const std::int64_t x = oidx[d] * w.strides[d] - w.pad_begin[d] + kidx[d] * w.dilations[d];
          if (x < 0 || x >= w.in[d]) inside = false;
          off = off * w.in[d] + x;
        }
        T* r = row + o;
        const std::size_t L = nd - 1;
        if (!inside) {
          std::fill(r, r + last_out, T{0});
        } else {
          const T* src = ci + off * w.in[L];
          const std::int64_t s = w.strides[L], base = kidx[L] * w.dilations[L] - w.pad_begin[L];
          for (std::int64_t j = 0; j < last_out; ++j) {
            const std::int64_t x = j * s + base;
            r[j] = (x >= 0 && x < w.in[L]) ? src[x] : T{0};
          }
        }
        // Advance the outer output dimensions.
        for (std::size_t k = L; k-- > 0;) {
          if (++oidx[k] < w.out[k]) break;
          oidx[k] = 0;
        }
      }
    }
  }
}

// The optional bias of Conv / ConvTranspose (input 2): M values of X's type.
void ExpectBias(const KernelContext& ctx, const Tensor& x, std::int64_t m) {
  if (!ctx.HasInput(2)) return;
  const Tensor& b = ctx.TensorInput(2);
  ExpectSameElemType(b, x, InputLabel(ctx, 2), "X");
  if (b.rank() != 1 || b.size() != m)
    Fail(InputLabel(ctx, 2) + " " + b.Describe() + " must hold one value per output channel (" + std::to_string(m) + ")");
}

std::vector<Value> ConvKernel(KernelContext& ctx) {
  const Tensor& x = ctx.TensorInput(0);
  const Tensor& wt = ctx.TensorInput(1);
  if (x.rank() < 3 || wt.rank() != x.rank()) throw ModelError("Conv: X and W must have the same rank >= 3");
  const std::int64_t N = x.shape()[0], C = x.shape()[1], M = wt.shape()[0];
  const std::int64_t group = ctx.IntAttribute("group").value_or(1);
  if (group <= 0 || C % group != 0 || M % group != 0 || wt.shape()[1] != C / group)
    throw ModelError("Conv: channels " + std::to_string(C) + " and weights " + ShapeToString(wt.shape()) +
                     " do not match group " + std::to_string(group));
  Shape kernel(wt.shape().begin() + 2, wt.shape().end());
  if (auto ks = ctx.IntsAttribute("kernel_shape"); ks && !ks->empty() && *ks != kernel)
    throw ModelError("Conv: kernel_shape does not match W");
  ExpectSameElemType(wt, x, InputLabel(ctx, 1), "X");
  ExpectBias(ctx, x, M);
  Shape in_spatial(x.shape().begin() + 2, x.shape().end());
  Window w = MakeWindow(ctx, in_spatial, kernel, false, "Conv");
  Shape out_shape{N, M};
  out_shape.insert(out_shape.end(), w.out.begin(), w.out.end());
  CheckedShapeSize(out_shape, "the output shape");
  CheckedShapeSize({wt.shape()[1] * ShapeSize(kernel), ShapeSize(w.out)}, "the im2col buffer");
  // Without input and output channels any group divides them: the loop over the groups
  // below would run `group` times for nothing.
  if (ShapeSize(out_shape) == 0) return {Tensor(x.elem_type(), out_shape)};
  return {DispatchFloat(x.elem_type(), "Conv", [&](auto tag) {
    using T = decltype(tag);
    auto xv = ReadAs<T>(x), wv = ReadAs<T>(wt);
    std::vector<T> bias;
    if (ctx.HasInput(2)) bias = ReadAs<T>(ctx.TensorInput(2));
    const std::int64_t cg = C / group, mg = M / group;
    const std::int64_t in_size = ShapeSize(in_spatial), out_size = ShapeSize(w.out), ksize = ShapeSize(kernel);
    const std::int64_t rows = cg * ksize;
    std::vector<T> y(static_cast<std::size_t>(ShapeSize(out_shape)));
    std::vector<T> col(static_cast<std::size_t>(rows * out_size));
    bool pointwise = ksize == 1;
    for (std::size_t d = 0; d < w.nd; ++d)
      pointwise = pointwise && w.strides[d] == 1 && w.pad_begin[d] == 0 && w.pad_end[d] == 0;
    for (std::int64_t n = 0; n < N; ++n)
      for (std::int64_t g = 0; g < group; ++g) {
        const T* img = xv.data() + (n * C + g * cg) * in_size;
        const T* cols = img;
        if (!pointwise) {
          Im2Col<T>(img, cg, w, col.data());
          cols = col.data();
        }
        T* out = y.data() + (n * M + g * mg) * out_size;
        if (!bias.empty())
          for (std::int64_t m = 0; m < mg; ++m) std::fill(out + m * out_size, out + (m + 1) * out_size, bias[g * mg + m]);
        nn::Gemm<T>(mg, out_size, rows, T{1}, wv.data() + g * mg * rows, rows, false, cols, out_size, false, out,
                    out_size, !bias.empty());
      }
    return WriteAs(x.elem_type(), out_shape, y);
  })};
}

// ConvTranspose: each input pixel scatters W into the output (col2im of W^T x).
std::vector<Value> ConvTransposeKernel(KernelContext& ctx) {
  const Tensor& x = ctx.TensorInput(0);
  const Tensor& wt = ctx.TensorInput(1);
  if (x.rank() < 3 || wt.rank() != x.rank()) throw ModelError("ConvTranspose: X and W must have the same rank >= 3");
  const std::size_t nd = x.rank() - 2;
  const std::int64_t N = x.shape()[0], C = x.shape()[1];
  const std::int64_t group = ctx.IntAttribute("group").value_or(1);
  if (group <= 0 || C % group != 0 || wt.shape()[0] != C)
    throw ModelError("ConvTranspose: W " + ShapeToString(wt.shape()) + " does not match the input channels");
  const std::int64_t mg = wt.shape()[1], M = mg * group, cg = C / group;
  Shape kernel(wt.shape().begin() + 2, wt.shape().end());
  Shape in(x.shape().begin() + 2, x.shape().end());
  auto get = [&](const char* name, std::int64_t def, std::size_t len) {
    Shape v = ctx.IntsAttribute(name).value_or(Shape(len, def));
    if (v.empty()) v.assign(len, def);
    if (v.size() != len) throw ModelError(std::string("ConvTranspose: attribute ") + name + " has the wrong length");
    return v;
  };
  Shape strides = get("strides", 1, nd), dil = get("dilations", 1, nd), outpad = get("output_padding", 0, nd);
  Shape pads = get("pads", 0, 2 * nd);
  ExpectAtLeast(kernel, 1, "the kernel shape of W");
  ExpectAtLeast(strides, 1, "attribute 'strides'");
  ExpectAtLeast(dil, 1, "attribute 'dilations'");
  ExpectAtLeast(pads, 0, "attribute 'pads'");
  ExpectAtLeast(outpad, 0, "attribute 'output_padding'");
  for (std::size_t d = 0; d < nd; ++d)
    if (outpad[d] >= std::max(strides[d], dil[d]))
      Fail("attribute 'output_padding' " + ShapeToString(outpad) + " must be less than the stride or dilation in dim " +
           std::to_string(d));
  ExpectSameElemType(wt, x, InputLabel(ctx, 1), "X");
  ExpectBias(ctx, x, M);
  const std::string auto_pad = StringAttributeIn(ctx, "auto_pad", "NOTSET", {"NOTSET", "SAME_UPPER", "SAME_LOWER", "VALID"});
  Shape out(nd);
  auto output_shape = ctx.IntsAttribute("output_shape");
  if (output_shape && !output_shape->empty()) {
    if (output_shape->size() < nd)
      Fail("attribute 'output_shape' " + ShapeToString(*output_shape) + " has fewer than " + std::to_string(nd) + " dims");
    ExpectAtLeast(*output_shape, 0, "attribute 'output_shape'");
  }
  const char* what = "the output geometry";
  for (std::size_t d = 0; d < nd; ++d) {
    const std::int64_t full = CheckedAdd(
        CheckedAdd(CheckedMul(strides[d], in[d] - 1, what), outpad[d], what),
        CheckedAdd(CheckedMul(kernel[d] - 1, dil[d], what), 1, what), what);
    if (output_shape && !output_shape->empty()) {
      const std::int64_t o = (*output_shape)[output_shape->size() - nd + d];
      const std::int64_t total = std::max<std::int64_t>(0, full - o);
      // Like onnxruntime: SAME_UPPER puts the extra padding at the start.
      pads[d] = auto_pad == "SAME_UPPER" ? total - total / 2 : total / 2;
      pads[d + nd] = total - pads[d];
      out[d] = o;
    } else if (auto_pad == "SAME_UPPER" || auto_pad == "SAME_LOWER") {
      const std::int64_t o = CheckedMul(in[d], strides[d], what);
      const std::int64_t total = std::max<std::int64_t>(0, full - o);
      pads[d] = auto_pad == "SAME_UPPER" ? total / 2 : total - total / 2;
      pads[d + nd] = total - pads[d];
      out[d] = o;
    } else {
      if (auto_pad == "VALID") pads[d] = pads[d + nd] = 0;
      out[d] = full - pads[d] - pads[d + nd];
      if (out[d] < 0)
        Fail("the pads " + ShapeToString(pads) + " remove more than the output of spatial dim " + std::to_string(d));
    }
  }
  Shape out_shape{N, M};
  out_shape.insert(out_shape.end(), out.begin(), out.end());
  CheckedShapeSize(out_shape, "the output shape");
  CheckedShapeSize({mg, ShapeSize(kernel), ShapeSize(in)}, "the column buffer");
  // Without input and output channels any group divides them: the loop over the groups
  // below would run `group` times for nothing.
  if (ShapeSize(out_shape) == 0) return {Tensor(x.elem_type(), out_shape)};
  // The scatter visits every (output channel, kernel tap, input pixel), whatever the
  // input channels: nn::Gemm charges the products, which are free when X has no channel
  // (C = 0), while W [0, 1, k] and X [N, 0, n] still ask for N * M * k * n additions.
  ChargeWork(static_cast<double>(N) * static_cast<double>(M) * static_cast<double>(ShapeSize(kernel)) *
                 static_cast<double>(ShapeSize(in)),
             "ConvTranspose's scatter");
  return {DispatchFloat(x.elem_type(), "ConvTranspose", [&](auto tag) {
    using T = decltype(tag);
    auto xv = ReadAs<T>(x), wv = ReadAs<T>(wt);
    const std::int64_t in_size = ShapeSize(in), out_size = ShapeSize(out), ksize = ShapeSize(kernel);
    std::vector<T> y(static_cast<std::size_t>(ShapeSize(out_shape)), T{0});
    // cols[(m, k), pixel] = sum_c W[c, m, k] * X[c, pixel]
    std::vector<T> cols(static_cast<std::size_t>(mg * ksize * in_size));
    for (std::int64_t n = 0; n < N; ++n)
      for (std::int64_t g = 0; g < group; ++g) {
        nn::Gemm<T>(mg * ksize, in_size, cg, T{1}, wv.data() + g * cg * mg * ksize, mg * ksize, true,
                    xv.data() + (n * C + g * cg) * in_size, in_size, false, cols.data(), in_size, false);
        for (std::int64_t m = 0; m < mg; ++m) {
          T* o = y.data() + (n * M + g * mg + m) * out_size;
          Shape kidx(nd, 0);
          for (std::int64_t k = 0; k < ksize; ++k, NextIndex(kidx, kernel)) {
            const T* src = cols.data() + (m * ksize + k) * in_size;
            Shape iidx(nd, 0);
            for (std::int64_t p = 0; p < in_size; ++p, NextIndex(iidx, in)) {
              std::int64_t off = 0;
              bool inside = true;
              for (std::size_t d = 0; d < nd; ++d) {
                const std::int64_t c = iidx[d] * strides[d] + kidx[d] * dil[d] - pads[d];
                if (c < 0 || c >= out[d]) {
                  inside = false;
                  break;
                }
                off = off * out[d] + c;
              }
              if (inside) o[off] += src[p];
            }
          }
        }
      }
    if (ctx.HasInput(2)) {
      auto b = ReadAs<T>(ctx.TensorInput(2));
      for (std::int64_t n = 0; n < N; ++n)
        for (std::int64_t m = 0; m < M; ++m)
          for (std::int64_t i = 0; i < out_size; ++i) y[(n * M + m) * out_size + i] += b[m];
    }
    return WriteAs(x.elem_type(), out_shape, y);
  })};
}

enum class PoolKind { kMax, kAverage, kLp };

std::vector<Value> PoolKernel(KernelContext& ctx, PoolKind kind, const char* op) {
  const Tensor& x = ctx.TensorInput(0);
  if (x.rank() < 3) throw ModelError(std::string(op) + ": X must have rank >= 3");
  const std::size_t nd = x.rank() - 2;
  auto ks = ctx.IntsAttribute("kernel_shape");
  if (!ks || ks->size() != nd) throw ModelError(std::string(op) + ": kernel_shape is missing or has the wrong length");
  Shape in(x.shape().begin() + 2, x.shape().end());
  const bool ceil_mode = BoolAttribute(ctx, "ceil_mode", false);
  Window w = MakeWindow(ctx, in, *ks, ceil_mode, op);
  // Explicit pads as large as the kernel make windows of padding only (onnxruntime
  // refuses them too).
  if (auto pads = ctx.IntsAttribute("pads"); pads && pads->size() == 2 * nd)
    for (std::size_t d = 0; d < nd; ++d)
      if ((*pads)[d] >= (*ks)[d] || (*pads)[d + nd] >= (*ks)[d])
        Fail("attribute 'pads' " + ShapeToString(*pads) + " must be smaller than the kernel " + ShapeToString(*ks) +
             " in spatial dim " + std::to_string(d));
  const bool include_pad = ctx.IntAttribute("count_include_pad").value_or(0) != 0;
  const std::int64_t storage_order = IntAttributeIn(ctx, "storage_order", 0, 0, 1);
  const double lp = static_cast<double>(kind == PoolKind::kLp ? IntAttributeIn(ctx, "p", 2, 1, 1 << 20) : 2);
  const std::int64_t NC = x.shape()[0] * x.shape()[1];
  Shape out_shape{x.shape()[0], x.shape()[1]};
  out_shape.insert(out_shape.end(), w.out.begin(), w.out.end());
  Tensor::CheckShape(x.elem_type(), out_shape);
  const std::int64_t in_size = ShapeSize(in), out_size = ShapeSize(w.out);
  // Every output position visits the taps of its window that fall inside the input: at
  // most min(kernel, ceil(in / dilation)) per axis. A kernel as large as a 1000 x 1000
  // input with pads of 999 makes 4*10^6 windows of up to 10^6 taps each.
  double taps = 1;
  for (std::size_t d = 0; d < nd; ++d)
    taps *= static_cast<double>(std::min(w.kernel[d], (w.in[d] + w.dilations[d] - 1) / w.dilations[d]));
  const std::string windows = std::string(op) + "'s windows";
  ChargeWork(static_cast<double>(NC) * static_cast<double>(out_size) * taps, windows);
  std::vector<std::int64_t> indices;
  if (kind == PoolKind::kMax && ctx.HasOutput(1)) indices.resize(static_cast<std::size_t>(NC * out_size));
  std::vector<Value> result(ctx.OutputCount());
  auto run = [&](auto tag) {
    using T = decltype(tag);
    auto xv = ReadAs<T>(x);
    std::vector<T> y(static_cast<std::size_t>(NC * out_size));
    // Per output position and dim: the first input coordinate of the window, and the range
    // [k_lo, k_hi) of kernel taps that land inside the input (the others read padding), so
    // that the work is bounded by the input, not by the kernel size.
    Shape oidx(nd), start(nd), k_lo(nd), k_hi(nd), kidx(nd);
    for (std::int64_t nc = 0; nc < NC; ++nc) {
      const T* src = xv.data() + nc * in_size;
      std::fill(oidx.begin(), oidx.end(), 0);
      for (std::int64_t o = 0; o < out_size; ++o, NextIndex(oidx, w.out)) {
        T best = -std::numeric_limits<T>::infinity();
        std::int64_t best_at = -1;
        T sum = 0;
        std::int64_t count = 0, padded_count = 1;
        bool empty = false;
        for (std::size_t d = 0; d < nd; ++d) {
          const std::int64_t dil = w.dilations[d];
          start[d] = oidx[d] * w.strides[d] - w.pad_begin[d];
          k_lo[d] = start[d] < 0 ? (-start[d] + dil - 1) / dil : 0;
          const std::int64_t last = w.in[d] - 1 - start[d];  // largest offset inside the input
          k_hi[d] = last < 0 ? 0 : std::min(w.kernel[d], last / dil + 1);
          if (k_lo[d] >= k_hi[d]) empty = true;
          // Taps inside the padded input, for count_include_pad.
          const std::int64_t padded_last = w.in[d] + w.pad_end[d] - 1 - start[d];
          padded_count *= padded_last < 0 ? 0 : std::min(w.kernel[d], padded_last / dil + 1);
        }
        if (!empty) {
          std::copy(k_lo.begin(), k_lo.end(), kidx.begin());
          do {
            std::int64_t off = 0;
            for (std::size_t d = 0; d < nd; ++d) off = off * w.in[d] + start[d] + kidx[d] * w.dilations[d];
            const T v = src[off];
            if (kind == PoolKind::kMax) {
              // NaN wins: the max of a window holding NaN is NaN.
              if (best_at < 0 || v > best || (std::isnan(v) && !std::isnan(best))) best = v, best_at = off;
            } else if (kind == PoolKind::kAverage) {
              sum += v;
            } else {
              sum += static_cast<T>(std::pow(std::abs(static_cast<double>(v)), lp));
            }
            ++count;
          } while (NextIndexInRange(kidx, k_lo, k_hi));
        }
        T& out = y[nc * out_size + o];
        if (kind == PoolKind::kMax) {
          out = best;
          if (!indices.empty()) {
            std::int64_t idx = best_at;
            if (storage_order == 1 && best_at >= 0) {
              // Column-major within the image.
              std::int64_t rem = best_at, col = 0, mul = 1;
              Shape coord(nd);
              for (std::size_t d = nd; d-- > 0;) coord[d] = rem % w.in[d], rem /= w.in[d];
              for (std::size_t d = 0; d < nd; ++d) col += coord[d] * mul, mul *= w.in[d];
              idx = col;
            }
            indices[nc * out_size + o] = nc * in_size + idx;
          }
        } else if (kind == PoolKind::kAverage) {
          const std::int64_t div = include_pad ? padded_count : count;
          out = div ? sum / T(div) : T{0};
        } else {
          out = static_cast<T>(std::pow(static_cast<double>(sum), 1.0 / lp));
        }
      }
    }
    return WriteAs(IsFloatType(x.elem_type()) ? x.elem_type() : int{TensorProto::DOUBLE}, out_shape, y);
  };
  if (!IsFloatType(x.elem_type())) {
    // int8 / uint8 MaxPool (opset 12): exact in double.
    if (kind != PoolKind::kMax) throw ModelError(std::string(op) + ": integer input is not supported");
    Tensor y = run(double{});
    auto yv = y.ToDoubleVector();
    result[0] = WriteInt(x.elem_type(), out_shape, std::vector<std::int64_t>(yv.begin(), yv.end()));
    if (ctx.HasOutput(1)) result[1] = WriteInt(TensorProto::INT64, out_shape, indices);
    return result;
  }
  result[0] = DispatchFloat(x.elem_type(), op, run);
  if (ctx.HasOutput(1) && kind == PoolKind::kMax) result[1] = WriteInt(TensorProto::INT64, out_shape, indices);
  return result;
}

std::vector<Value> MaxPoolKernel(KernelContext& ctx) { return PoolKernel(ctx, PoolKind::kMax, "MaxPool"); }
std::vector<Value> AveragePoolKernel(KernelContext& ctx) { return PoolKernel(ctx, PoolKind::kAverage, "AveragePool"); }
std::vector<Value> LpPoolKernel(KernelContext& ctx) { return PoolKernel(ctx, PoolKind::kLp, "LpPool"); }

std::vector<Value> GlobalPool(KernelContext& ctx, PoolKind kind, const char* op) {
  const Tensor& x = ctx.TensorInput(0);
  if (x.rank() < 2) throw ModelError(std::string(op) + ": X must have rank >= 2");
  const std::int64_t NC = x.shape()[0] * x.shape()[1], inner = ShapeSize(x.shape(), 2);
  Shape out_shape = x.shape();
  for (std::size_t d = 2; d < out_shape.size(); ++d) out_shape[d] = 1;
  const double lp = static_cast<double>(ctx.IntAttribute("p").value_or(2));
  return {DispatchFloat(x.elem_type(), op, [&](auto tag) {
    using T = decltype(tag);
    auto xv = ReadAs<T>(x);
    std::vector<T> y(static_cast<std::size_t>(NC));
    for (std::int64_t i = 0; i < NC; ++i) {
      const T* p = xv.data() + i * inner;
      if (kind == PoolKind::kMax) {
        T m = -std::numeric_limits<T>::infinity();
        for (std::int64_t k = 0; k < inner; ++k) m = std::max(m, p[k]);
        y[i] = m;
      } else if (kind == PoolKind::kAverage) {
        T s = 0;
        for (std::int64_t k = 0; k < inner; ++k) s += p[k];
        y[i] = s / T(inner);
      } else {
        double s = 0;
        for (std::int64_t k = 0; k < inner; ++k) s += std::pow(std::abs(static_cast<double>(p[k])), lp);
        y[i] = static_cast<T>(std::pow(s, 1.0 / lp));
      }
    }
    return WriteAs(x.elem_type(), out_shape, y);
  })};
}

std::vector<Value> GlobalAveragePoolKernel(KernelContext& ctx) { return GlobalPool(ctx, PoolKind::kAverage, "GlobalAveragePool"); }
std::vector<Value> GlobalMaxPoolKernel(KernelContext& ctx) { return GlobalPool(ctx, PoolKind::kMax, "GlobalMaxPool"); }
std::vector<Value> GlobalLpPoolKernel(KernelContext& ctx) { return GlobalPool(ctx, PoolKind::kLp, "GlobalLpPool"); }

// ---------------------------------------------------------------------------------
// QuantizeLinear / DequantizeLinear

// A scale or zero point of one value for the whole tensor: a scalar or a vector of one.
bool HoldsOneValue(const Shape& shape) { return shape.size() <= 1 && ShapeSize(shape) == 1; }

// Index into scale / zero point for each element of x: per tensor (scale of one element),
// per axis (a 1-D scale of x's dim at `axis`) or blocked (block_size > 0: a scale of x's
// rank, ceil(dim / block_size) at `axis` and x's dims elsewhere).
std::vector<std::int64_t> QuantParamIndex(const Shape& x_shape, const Shape& s_shape, std::int64_t axis,
                                          std::int64_t block) {
  const std::int64_t n = ShapeSize(x_shape);
  std::vector<std::int64_t> idx(static_cast<std::size_t>(n), 0);
  if (block < 0) Fail("attribute 'block_size' is " + std::to_string(block) + ", expected >= 0");
  if (block == 0 && HoldsOneValue(s_shape)) return idx;
  const auto rank = static_cast<std::int64_t>(x_shape.size());
  axis = NormalizeAxis(axis, rank);
  const std::int64_t dim = x_shape[axis], inner = ShapeSize(x_shape, axis + 1);
  if (block > 0) {
    Shape expected = x_shape;
    expected[axis] = dim / block + (dim % block != 0 ? 1 : 0);
    if (s_shape != expected)
      Fail("the blocked scale " + ShapeToString(s_shape) + " must have the shape " + ShapeToString(expected) +
           " (block_size " + std::to_string(block) + " on axis " + std::to_string(axis) + ")");
    const std::int64_t sdim = s_shape[axis];
    for (std::int64_t e = 0; e < n; ++e) {
      const std::int64_t outer = e / (dim * inner), a = (e / inner) % dim, in = e % inner;
      idx[e] = (outer * sdim + a / block) * inner + in;
    }
    return idx;
  }
  if (s_shape.size() != 1 || s_shape[0] != dim)
    Fail("the scale " + ShapeToString(s_shape) + " must be a scalar or hold one value per element of axis " +
         std::to_string(axis) + " of " + ShapeToString(x_shape));
  for (std::int64_t e = 0; e < n; ++e) idx[e] = (e / inner) % dim;
  return idx;
}

// The optional zero point (input 2) of a quantization: the shape of the scale and, when
// `type` is given, that element type. Per tensor, a scalar and a one-element vector are one
// shape: the spec's own examples pair a scalar scale with a zero point of shape (1,), and
// onnxruntime accepts either.
std::vector<double> ZeroPoint(const KernelContext& ctx, const Tensor& scale, std::optional<int> type) {
  if (!ctx.HasInput(2)) return {};
  const Tensor& z = ctx.TensorInput(2);
  if (type && z.elem_type() != *type)
    Fail(InputLabel(ctx, 2) + " is " + ElemTypeName(z.elem_type()) + ", expected " + ElemTypeName(*type));
  if (z.shape() != scale.shape() && !(HoldsOneValue(z.shape()) && HoldsOneValue(scale.shape())))
    Fail(InputLabel(ctx, 2) + " " + z.Describe() + " must have the shape of the scale " + scale.Describe());
  return z.ToDoubleVector();
}

// The scale of QuantizeLinear and DequantizeLinear: a float type, or float8e8m0 (opset 24,
// the power-of-two scales of the MX formats). Its values, all exact in float.
std::vector<double> QuantizationScale(const KernelContext& ctx, const Tensor& scale) {
  if (!IsFloatType(scale.elem_type()) && scale.elem_type() != core::eval::kFloat8E8M0)
    Fail(InputLabel(ctx, 1) + " must be FLOAT, DOUBLE, FLOAT16, BFLOAT16 or FLOAT8E8M0, found " +
         ElemTypeName(scale.elem_type()));
  return scale.ToDoubleVector();
}

std::vector<Value> DequantizeLinearKernel(KernelContext& ctx) {
  const Tensor& x = ctx.TensorInput(0);
  const Tensor& scale = ctx.TensorInput(1);
  const std::vector<double> sv = QuantizationScale(ctx, scale);
  auto idx = QuantParamIndex(x.shape(), scale.shape(), ctx.IntAttribute("axis").value_or(1),
                             ctx.IntAttribute("block_size").value_or(0));
  const std::vector<double> xv = x.ToDoubleVector();
  const std::vector<double> zv = ZeroPoint(ctx, scale, x.elem_type());
  int out_type = scale.elem_type();
  if (auto od = ctx.IntAttribute("output_dtype"); od && *od != 0) out_type = static_cast<int>(*od);
  if (out_type == core::eval::kFloat8E8M0)
    Fail("a FLOAT8E8M0 scale needs the attribute output_dtype (float, float16 or bfloat16)");
  if (!IsFloatType(out_type)) Fail("the output type " + ElemTypeName(out_type) + " is not a float type");
  std::vector<double> y(xv.size());
  for (std::size_t i = 0; i < y.size(); ++i) {
    const auto k = static_cast<std::size_t>(idx[i]);
    y[i] = (xv[i] - (zv.empty() ? 0.0 : zv[k])) * sv[k];
  }
  if (out_type == TensorProto::FLOAT) {
    // Computed in float like the reference: (x - zp) * scale in float32.
    std::vector<float> yf(xv.size());
    for (std::size_t i = 0; i < yf.size(); ++i) {
      const auto k = static_cast<std::size_t>(idx[i]);
      yf[i] = static_cast<float>(xv[i] - (zv.empty() ? 0.0 : zv[k])) * static_cast<float>(sv[k]);
    }
    return {WriteAs(out_type, x.shape(), yf)};
  }
  return {WriteAs(out_type, x.shape(), y)};
}

std::pair<double, double> IntRange(int t) {
  if (const auto sub_byte = core::eval::SubByteIntegerRange(t))
    return {static_cast<double>(sub_byte->first), static_cast<double>(sub_byte->second)};
  switch (t) {
    case TensorProto::INT8: return {-128, 127};
    case TensorProto::UINT8: return {0, 255};
    case TensorProto::INT16: return {-32768, 32767};
    case TensorProto::UINT16: return {0, 65535};
    case TensorProto::INT32: return {-2147483648.0, 2147483647.0};
    case TensorProto::UINT32: return {0, 4294967295.0};
    case TensorProto::INT64: return {-9.2233720368547758e18, 9.2233720368547748e18};
    default: Fail("unsupported quantized type " + ElemTypeName(t));
  }
}

// The type QuantizeLinear divides x by its scale in. From opset 23 the spec says: the
// `precision` attribute, else the scale's type (float8e8m0, a power of two, divides exactly
// in float, unless the quotient leaves float's range). Before, it says nothing: float, as
// onnxruntime computes, or double for double data.
int DivisionPrecision(const KernelContext& ctx, const Tensor& x, const Tensor& scale) {
  if (ctx.OpsetVersion() < 23) return x.elem_type() == TensorProto::DOUBLE ? int{TensorProto::DOUBLE} : int{TensorProto::FLOAT};
  int precision = static_cast<int>(ctx.IntAttribute("precision").value_or(0));
  if (precision == 0) precision = scale.elem_type() == core::eval::kFloat8E8M0 ? int{TensorProto::FLOAT} : scale.elem_type();
  if (precision != TensorProto::FLOAT && precision != TensorProto::DOUBLE && precision != TensorProto::FLOAT16 &&
      precision != TensorProto::BFLOAT16)
    Fail("a division in " + ElemTypeName(precision) + " (the precision attribute or the scale's type) is not supported "
         "by the evaluator");
  return precision;
}

std::vector<Value> QuantizeLinearKernel(KernelContext& ctx) {
  const Tensor& x = ctx.TensorInput(0);
  const Tensor& scale = ctx.TensorInput(1);
  const std::vector<double> sv = QuantizationScale(ctx, scale);
  auto idx = QuantParamIndex(x.shape(), scale.shape(), ctx.IntAttribute("axis").value_or(1),
                             ctx.IntAttribute("block_size").value_or(0));
  int out_type = ctx.HasInput(2) ? ctx.TensorInput(2).elem_type() : int{TensorProto::UINT8};
  if (auto od = ctx.IntAttribute("output_dtype"); od && *od != 0) {
    if (ctx.HasInput(2) && *od != out_type)
      Fail("attribute 'output_dtype' " + ElemTypeName(static_cast<int>(*od)) + " differs from the zero point's type " +
           ElemTypeName(out_type));
    out_type = static_cast<int>(*od);
  }
  const std::vector<double> zv = ZeroPoint(ctx, scale, std::nullopt);
  const auto xv = x.ToDoubleVector();  // float types and int32 (opset 19): exact in double
  for (double s : sv)
    if (s == 0 || !std::isfinite(s)) Fail("the scale holds " + std::to_string(s) + ", expected finite non-zero values");
  const int precision = DivisionPrecision(ctx, x, scale);
  // x / scale in `precision`: both operands and the quotient rounded to it. The quotient of
  // the rounded operands is computed in double and rounded to float, then to float16 or
  // bfloat16: each format carries more than twice the bits of the next, so every step gives
  // the correctly rounded quotient, as a division in the narrow type would.
  auto round_to = [precision](double v) -> double {
    if (precision == TensorProto::DOUBLE) return v;
    const auto single = static_cast<float>(v);
    return IsHalfType(precision) ? RoundToHalfType(single, precision) : single;
  };
  std::vector<double> divisors(sv.size());
  std::transform(sv.begin(), sv.end(), divisors.begin(), round_to);
  auto scaled = [&](std::size_t i) { return round_to(round_to(xv[i]) / divisors[static_cast<std::size_t>(idx[i])]); };
  if (core::eval::IsFloat8(out_type) || out_type == core::eval::kFloat4E2M1) {
    // x / scale + zero_point rounded to the float8 type (saturating by default) or to
    // float4e2m1 (which always saturates, float4.md).
    const bool saturate = ctx.IntAttribute("saturate").value_or(1) != 0;
    Tensor out(out_type, x.shape());
    auto* q = out.MutableData<std::uint8_t>();
    for (std::size_t i = 0; i < xv.size(); ++i) {
      const auto v = static_cast<float>(scaled(i) + (zv.empty() ? 0.0 : zv[static_cast<std::size_t>(idx[i])]));
      q[i] = out_type == core::eval::kFloat4E2M1 ? core::eval::FloatToFloat4E2M1(v)
                                                 : core::eval::FloatToFloat8(v, out_type, saturate);
    }
    return {out};
  }
  const auto [lo, hi] = IntRange(out_type);
  std::vector<std::int64_t> y(xv.size());
  for (std::size_t i = 0; i < y.size(); ++i) {
    // NaN has no quantized value (undefined): it maps to the zero point.
    const double r = std::isnan(xv[i]) ? 0.0 : std::nearbyint(scaled(i));
    const double q = r + (zv.empty() ? 0.0 : zv[static_cast<std::size_t>(idx[i])]);
    y[i] = static_cast<std::int64_t>(std::clamp(q, lo, hi));
  }
  return {WriteInt(out_type, x.shape(), y)};
}

// ---------------------------------------------------------------------------------
// Resize (and Upsample)

double NearestPixel(double x, const std::string& mode) {
  if (mode == "floor") return std::floor(x);
  if (mode == "ceil") return std::ceil(x);
  if (mode == "round_prefer_ceil") return std::floor(x + 0.5);
  // round_prefer_floor: halfway cases go down.
  if (x == std::floor(x) + 0.5) return std::floor(x);
  return std::round(x);
}

double CubicWeight(double s, double a) {
  s = std::abs(s);
  if (s <= 1) return ((a + 2) * s - (a + 3)) * s * s + 1;
  if (s < 2) return ((a * s - 5 * a) * s + 8 * a) * s - 4 * a;
  return 0;
}

struct AxisSampling {
  // Per output index along the axis: input indices and weights (out of range indices are
  // clamped, or marked -1 for extrapolation).
  std::vector<std::vector<std::int64_t>> index;
  std::vector<std::vector<double>> weight;
};

// Nearest sampling of an integer tensor: each output element is one input element (or
// extrapolation_value where tf_crop_and_resize reads outside the input), copied from the
// stored values, so int64 and uint64 beyond 2^53 stay exact (double, in which the other
// modes interpolate, does not hold them). extrapolation_value is converted only if used:
// its conversion notes a value the type does not hold.
template <class T>
Tensor NearestIntegers(const Tensor& x, const std::vector<AxisSampling>& samp, const Shape& out_shape,
                       double extrapolation) {
  const std::size_t rank = out_shape.size();
  Shape in_stride(rank, 1);
  for (std::size_t d = rank; d-- > 1;) in_stride[d - 1] = in_stride[d] * x.shape()[d];
  Tensor out(x.elem_type(), out_shape);
  T* dst = out.MutableData<T>();
  const T* src = x.Data<T>();
  std::optional<T> fill;
  const std::int64_t n = ShapeSize(out_shape);
  Shape position(rank, 0);  // of output element i, in row-major order
  for (std::int64_t i = 0; i < n; ++i) {
    std::int64_t offset = 0;
    for (std::size_t d = 0; d < rank && offset >= 0; ++d) {
      const std::int64_t index = samp[d].index[static_cast<std::size_t>(position[d])][0];
      offset = index < 0 ? -1 : offset + index * in_stride[d];
    }
    if (offset < 0 && !fill) fill = ConvertNumber<T>(extrapolation);
    dst[i] = offset < 0 ? *fill : src[offset];
    for (std::size_t d = rank; d-- > 0;) {
      if (++position[d] < out_shape[d]) break;
      position[d] = 0;
    }
  }
  return out;
}

std::vector<Value> ResizeKernel(KernelContext& ctx, bool upsample) {
  const Tensor& x = ctx.TensorInput(0);
  const auto rank = static_cast<std::int64_t>(x.rank());
  const std::int64_t version = ctx.OpsetVersion();
  std::string mode = StringAttributeIn(ctx, "mode", "nearest", {"nearest", "linear", "cubic", "bilinear"});
  if (mode == "bilinear") mode = "linear";
  std::string ctm = StringAttributeIn(
      ctx, "coordinate_transformation_mode", version < 11 ? "asymmetric" : "half_pixel",
      {"half_pixel", "half_pixel_symmetric", "pytorch_half_pixel", "align_corners", "asymmetric", "tf_half_pixel_for_nn",
       "tf_crop_and_resize"});
  const std::string nearest_mode = StringAttributeIn(ctx, "nearest_mode", version < 11 ? "floor" : "round_prefer_floor",
                                                     {"round_prefer_floor", "round_prefer_ceil", "floor", "ceil"});
  const double cubic_a = ctx.FloatAttribute("cubic_coeff_a").value_or(-0.75f);
  const bool exclude_outside = ctx.IntAttribute("exclude_outside").value_or(0) != 0;
  const double extrapolation = ctx.FloatAttribute("extrapolation_value").value_or(0.0f);
  const std::string policy = StringAttributeIn(ctx, "keep_aspect_ratio_policy", "stretch", {"stretch", "not_larger", "not_smaller"});
  if (ctx.IntAttribute("antialias").value_or(0) != 0) throw ModelError("Resize: antialias is not supported");
  Shape axes;
  if (auto a = ctx.IntsAttribute("axes"); a && !a->empty()) {
    axes = NormalizeAxes(*a, rank, "attribute 'axes'");
  } else {
    for (std::int64_t i = 0; i < rank; ++i) axes.push_back(i);
  }
  std::vector<double> scales(static_cast<std::size_t>(rank), 1.0);
  Shape out_shape = x.shape();
  std::vector<double> roi_start(rank, 0.0), roi_end(rank, 1.0);
  std::vector<double> sc;
  Shape sizes;
  if (upsample || version < 11) {
    if (upsample && version < 9) {
      auto s = ctx.FloatsAttribute("scales");
      if (s) sc.assign(s->begin(), s->end());
    } else {
      sc = ReadAs<double>(ctx.TensorInput(1));
    }
    ctm = "asymmetric";
  } else {
    if (ctx.HasInput(1) && ctm == "tf_crop_and_resize") {
      auto roi = ReadAs<double>(ctx.TensorInput(1));
      if (roi.size() != 2 * axes.size())
        Fail(InputLabel(ctx, 1) + " (roi) has " + std::to_string(roi.size()) + " values, expected " +
             std::to_string(2 * axes.size()));
      for (std::size_t i = 0; i < axes.size(); ++i) roi_start[axes[i]] = roi[i], roi_end[axes[i]] = roi[i + axes.size()];
    }
    if (ctx.HasInput(2) && ctx.TensorInput(2).size() > 0) sc = ReadAs<double>(ctx.TensorInput(2));
    if (ctx.HasInput(3) && ctx.TensorInput(3).size() > 0) {
      ExpectIndexType(ctx.TensorInput(3), InputLabel(ctx, 3));
      sizes = ctx.TensorInput(3).ToInt64Vector();
    }
    if (!sc.empty() && !sizes.empty()) Fail("only one of scales and sizes may be given");
  }
  if (!sc.empty()) {
    if (sc.size() != axes.size())
      Fail("scales has " + std::to_string(sc.size()) + " values for " + std::to_string(axes.size()) + " axes");
    for (std::size_t i = 0; i < axes.size(); ++i) {
      const auto d = axes[i];
      // Upsample only enlarges; Resize takes any positive finite scale.
      if (!std::isfinite(sc[i]) || sc[i] <= 0 || (upsample && sc[i] < 1))
        Fail("scale " + std::to_string(sc[i]) + " for axis " + std::to_string(d) + " is not " +
             (upsample ? "a finite value >= 1" : "a finite positive value"));
      scales[d] = sc[i];
      const double size = std::floor(static_cast<double>(x.shape()[d]) * (roi_end[d] - roi_start[d]) * sc[i]);
      if (!(size >= 0 && size <= static_cast<double>(MaxElementCount())))
        Fail("scale " + std::to_string(sc[i]) + " gives axis " + std::to_string(d) + " a size of " + std::to_string(size) +
             " elements");
      out_shape[d] = static_cast<std::int64_t>(size);
    }
  } else if (!sizes.empty()) {
    if (sizes.size() != axes.size())
      Fail("sizes has " + std::to_string(sizes.size()) + " values for " + std::to_string(axes.size()) + " axes");
    ExpectAtLeast(sizes, 0, "sizes");
    for (std::size_t i = 0; i < axes.size(); ++i)
      if (x.shape()[axes[i]] == 0 && sizes[i] != 0) Fail("cannot resize the empty axis " + std::to_string(axes[i]));
    if (policy != "stretch") {
      double s = policy == "not_larger" ? std::numeric_limits<double>::infinity() : 0.0;
      for (std::size_t i = 0; i < axes.size(); ++i) {
        const double r = static_cast<double>(sizes[i]) / static_cast<double>(x.shape()[axes[i]]);
        s = policy == "not_larger" ? std::min(s, r) : std::max(s, r);
      }
      for (std::size_t i = 0; i < axes.size(); ++i) {
        const double size = std::floor(s * static_cast<double>(x.shape()[axes[i]]) + 0.5);
        if (!(size >= 0 && size <= static_cast<double>(MaxElementCount())))
          Fail("the resized axis " + std::to_string(axes[i]) + " would have " + std::to_string(size) + " elements");
        scales[axes[i]] = s;
        out_shape[axes[i]] = static_cast<std::int64_t>(size);
      }
    } else {
      for (std::size_t i = 0; i < axes.size(); ++i) {
        out_shape[axes[i]] = sizes[i];
        scales[axes[i]] = static_cast<double>(sizes[i]) / static_cast<double>(x.shape()[axes[i]]);
      }
    }
  } else {
    throw ModelError("Resize: neither scales nor sizes is given");
  }
  Tensor::CheckShape(x.elem_type(), out_shape);
  // An empty output needs no sampling: returning now also keeps an axis of any length
  // next to an axis resized to 0 from sizing the sampling tables below.
  if (ShapeSize(out_shape) == 0) return {Tensor(x.elem_type(), out_shape)};
  // Sampling per axis.
  std::vector<AxisSampling> samp(static_cast<std::size_t>(rank));
  for (std::int64_t d = 0; d < rank; ++d) {
    const std::int64_t in_len = x.shape()[d], out_len = out_shape[d];
    const double scale = scales[d];
    auto& s = samp[d];
    s.index.resize(out_len);
    s.weight.resize(out_len);
    for (std::int64_t o = 0; o < out_len; ++o) {
      double xo;
      const double xr = static_cast<double>(o);
      if (in_len == out_len && scale == 1.0 && ctm != "tf_crop_and_resize") {
        xo = xr;
      } else if (ctm == "half_pixel") {
        xo = (xr + 0.5) / scale - 0.5;
      } else if (ctm == "half_pixel_symmetric") {
        const double adj = static_cast<double>(out_len) / (scale * static_cast<double>(in_len));
        const double center = static_cast<double>(in_len) / 2;
        xo = center * (1 - adj) + (xr + 0.5) / scale - 0.5;
      } else if (ctm == "pytorch_half_pixel") {
        xo = out_len > 1 ? (xr + 0.5) / scale - 0.5 : 0.0;
      } else if (ctm == "align_corners") {
        // The length is in_len * scale, fractional when computed from scales (as in the reference).
        const double len = static_cast<double>(in_len) * scale;
        xo = out_len > 1 && len != 1.0 ? xr * static_cast<double>(in_len - 1) / (len - 1) : 0.0;
      } else if (ctm == "asymmetric") {
        xo = xr / scale;
      } else if (ctm == "tf_half_pixel_for_nn") {
        xo = (xr + 0.5) / scale;
      } else if (ctm == "tf_crop_and_resize") {
        xo = out_len > 1 ? roi_start[d] * static_cast<double>(in_len - 1) +
                               xr * (roi_end[d] - roi_start[d]) * static_cast<double>(in_len - 1) / static_cast<double>(out_len - 1)
                         : 0.5 * (roi_start[d] + roi_end[d]) * static_cast<double>(in_len - 1);
      } else {
        throw ModelError("Resize: unknown coordinate_transformation_mode " + ctm);
      }
      if (ctm == "tf_crop_and_resize" && (xo < 0 || xo > static_cast<double>(in_len - 1))) {
        s.index[o] = {-1};
        s.weight[o] = {1.0};
        continue;
      }
      if (mode == "nearest") {
        std::int64_t i = static_cast<std::int64_t>(NearestPixel(xo, nearest_mode));
        // The reference keeps half-pixel-like coordinates inside the input for nearest.
        i = std::clamp<std::int64_t>(i, 0, in_len - 1);
        s.index[o] = {i};
        s.weight[o] = {1.0};
      } else if (mode == "linear") {
        const double xc = std::clamp(xo, 0.0, static_cast<double>(in_len - 1));
        const std::int64_t i0 = static_cast<std::int64_t>(std::floor(xc));
        const std::int64_t i1 = std::min(i0 + 1, in_len - 1);
        const double f = xc - static_cast<double>(i0);
        s.index[o] = {i0, i1};
        s.weight[o] = {1 - f, f};
      } else if (mode == "cubic") {
        const double fl = std::floor(xo);
        const double f = xo - fl;
        std::vector<std::int64_t> ids;
        std::vector<double> ws;
        double wsum = 0;
        for (int k = -1; k <= 2; ++k) {
          const std::int64_t i = static_cast<std::int64_t>(fl) + k;
          double wgt = CubicWeight(f - k, cubic_a);
          if (exclude_outside && (i < 0 || i >= in_len)) wgt = 0;
          ids.push_back(std::clamp<std::int64_t>(i, 0, in_len - 1));
          ws.push_back(wgt);
          wsum += wgt;
        }
        if (exclude_outside && wsum != 0)
          for (auto& wv : ws) wv /= wsum;
        s.index[o] = ids;
        s.weight[o] = ws;
      } else {
        throw ModelError("Resize: unknown mode " + mode);
      }
    }
  }
  // Separable interpolation: one axis at a time. The axes that shrink (or keep their
  // length) go first, then those that grow: the intermediate then only shrinks, then only
  // grows, and is never larger than the larger of the input and the output. In axis order,
  // [1,1,1,10^6] resized to [20,20,20,1] would hold 8*10^9 values after the third axis.
  // The order only changes the rounding of the sums.
  Shape axis_order;
  for (std::int64_t d = 0; d < rank; ++d)
    if (out_shape[d] <= x.shape()[d]) axis_order.push_back(d);
  for (std::int64_t d = 0; d < rank; ++d)
    if (out_shape[d] > x.shape()[d]) axis_order.push_back(d);
  auto interpolate = [&](auto tag) {
    using T = decltype(tag);
    std::vector<double> cur = ReadAs<double>(x);
    Shape cur_shape = x.shape();
    for (const std::int64_t d : axis_order) {
      if (cur_shape[d] == out_shape[d] && samp[d].index.size() == static_cast<std::size_t>(out_shape[d])) {
        bool identity = true;
        for (std::int64_t o = 0; o < out_shape[d] && identity; ++o)
          identity = samp[d].index[o].size() == 1 && samp[d].index[o][0] == o && samp[d].weight[o][0] == 1.0;
        if (identity) continue;
      }
      const std::int64_t outer = ShapeSize(cur_shape, 0, d), inner = ShapeSize(cur_shape, d + 1), in_len = cur_shape[d];
      const std::int64_t out_len = out_shape[d];
      Shape next_shape = cur_shape;
      next_shape[d] = out_len;
      std::vector<double> next(static_cast<std::size_t>(CheckedShapeSize(next_shape, "Resize's intermediate")));
      for (std::int64_t a = 0; a < outer; ++a)
        for (std::int64_t o = 0; o < out_len; ++o) {
          const auto& ids = samp[d].index[o];
          const auto& ws = samp[d].weight[o];
          double* dst = next.data() + (a * out_len + o) * inner;
          if (ids.size() == 1 && ids[0] < 0) {
            std::fill(dst, dst + inner, extrapolation);
            continue;
          }
          std::fill(dst, dst + inner, 0.0);
          for (std::size_t k = 0; k < ids.size(); ++k) {
            const double* src = cur.data() + (a * in_len + ids[k]) * inner;
            for (std::int64_t i = 0; i < inner; ++i) dst[i] += ws[k] * src[i];
          }
        }
      cur.swap(next);
      cur_shape[d] = out_len;
    }
    std::vector<T> out(cur.begin(), cur.end());
    return WriteAs(IsFloatType(x.elem_type()) ? x.elem_type() : int{TensorProto::DOUBLE}, out_shape, out);
  };
  if (IsFloatType(x.elem_type())) return {DispatchFloat(x.elem_type(), "Resize", interpolate)};
  return {DispatchInteger(x.elem_type(), [&](auto tag) {
    using T = typename decltype(tag)::type;
    if (mode == "nearest") return NearestIntegers<T>(x, samp, out_shape, extrapolation);
    // Interpolated in double, then truncated toward zero like the ONNX reference (a
    // float-to-integer cast) by ConvertNumber: saturated, NaN (an extrapolation_value) 0, as
    // QuantizeLinear maps it. The spec gives no value to either (an extrapolation_value out of
    // the type's range, a cubic overshoot): ConvertNumber notes them, so that folding leaves
    // them to the runtime.
    const std::vector<double> interpolated = interpolate(double{}).ToDoubleVector();
    Tensor out(x.elem_type(), out_shape);
    T* dst = out.MutableData<T>();
    for (std::size_t i = 0; i < interpolated.size(); ++i) dst[i] = ConvertNumber<T>(interpolated[i]);
    return out;
  })};
}

std::vector<Value> ResizeOpKernel(KernelContext& ctx) { return ResizeKernel(ctx, false); }
std::vector<Value> UpsampleKernel(KernelContext& ctx) { return ResizeKernel(ctx, true); }


// ---------------------------------------------------------------------------------
// RotaryEmbedding (opset 23): X, cos_cache, sin_cache[, position_ids].

std::vector<Value> RotaryEmbeddingKernel(KernelContext& ctx) {
  const Tensor& x = ctx.TensorInput(0);
  const Tensor& cos = ctx.TensorInput(1);
  const Tensor& sin = ctx.TensorInput(2);
  const bool interleaved = ctx.IntAttribute("interleaved").value_or(0) != 0;
  const std::int64_t num_heads = ctx.IntAttribute("num_heads").value_or(0);
  std::int64_t rot = ctx.IntAttribute("rotary_embedding_dim").value_or(0);
  std::int64_t B, S, N, H;
  const bool bnsh = x.rank() == 4;
  if (bnsh) {
    B = x.shape()[0], N = x.shape()[1], S = x.shape()[2], H = x.shape()[3];
  } else if (x.rank() == 3) {
    if (num_heads <= 0 || x.shape()[2] % num_heads != 0)
      throw ModelError("RotaryEmbedding: num_heads must divide the hidden size of a 3-D input");
    B = x.shape()[0], S = x.shape()[1], N = num_heads, H = x.shape()[2] / num_heads;
  } else {
    throw ModelError("RotaryEmbedding: X must be 3-D or 4-D");
  }
  if (rot == 0) rot = H;
  const std::int64_t half = rot / 2;
  if (cos.shape() != sin.shape() || cos.shape().empty() || cos.shape().back() != half || rot > H)
    throw ModelError("RotaryEmbedding: cos_cache / sin_cache " + ShapeToString(cos.shape()) +
                     " do not match the rotary dimension " + std::to_string(rot));
  std::vector<std::int64_t> pos;
  if (ctx.HasInput(3)) {
    pos = ctx.TensorInput(3).ToInt64Vector();
    if (static_cast<std::int64_t>(pos.size()) != B * S) throw ModelError("RotaryEmbedding: position_ids must be [B, S]");
    if (cos.rank() != 2) throw ModelError("RotaryEmbedding: caches must be 2-D with position_ids");
  } else if (cos.rank() != 3 || cos.shape()[0] != B || cos.shape()[1] != S) {
    throw ModelError("RotaryEmbedding: caches must be [B, S, rot/2] without position_ids");
  }
  return {DispatchFloat(x.elem_type(), "RotaryEmbedding", [&](auto tag) {
    using T = decltype(tag);
    auto v = ReadAs<T>(x);
    const auto cv = ReadAs<T>(cos), sv = ReadAs<T>(sin);
    const std::int64_t rows = cos.shape()[0];
    nn::ApplyRotary<T>(v.data(), B, S, N, H, bnsh, rot, interleaved, [&](std::int64_t b, std::int64_t s) {
      std::int64_t row = b * S + s;
      if (!pos.empty()) {
        row = pos[static_cast<std::size_t>(b * S + s)];
        if (row < 0 || row >= rows) throw ModelError("RotaryEmbedding: position id out of the cache range");
      }
      return std::pair{cv.data() + row * half, sv.data() + row * half};
    });
    return WriteAs(x.elem_type(), x.shape(), v);
  })};
}

// ---------------------------------------------------------------------------------
// Attention (opsets 23-25)

// [B, S, N*D] -> [B, N, S, D].
template <class T>
std::vector<T> SplitHeads(const std::vector<T>& x, std::int64_t B, std::int64_t S, std::int64_t N, std::int64_t D) {
  std::vector<T> out(x.size());
  for (std::int64_t b = 0; b < B; ++b)
    for (std::int64_t s = 0; s < S; ++s)
      for (std::int64_t n = 0; n < N; ++n)
        std::copy_n(x.data() + ((b * S + s) * N + n) * D, D, out.data() + ((b * N + n) * S + s) * D);
  return out;
}

std::vector<Value> AttentionKernel(KernelContext& ctx) {
  const Tensor& q = ctx.TensorInput(0);
  const Tensor& k = ctx.TensorInput(1);
  const Tensor& v = ctx.TensorInput(2);
  const bool three_d = q.rank() == 3;
  if (!three_d && q.rank() != 4) throw ModelError("Attention: Q must be 3-D or 4-D");
  if (k.rank() != q.rank() || v.rank() != q.rank()) throw ModelError("Attention: Q, K and V must have the same rank");
  std::int64_t B = q.shape()[0], Hq, Hkv, Sq, Skv, D, Dv;
  ExpectSameElemType(k, q, InputLabel(ctx, 1), "Q");
  ExpectSameElemType(v, q, InputLabel(ctx, 2), "Q");
  if (three_d) {
    const auto qn = ctx.IntAttribute("q_num_heads"), kvn = ctx.IntAttribute("kv_num_heads");
    if (!qn || !kvn || *qn <= 0 || *kvn <= 0) throw ModelError("Attention: 3-D inputs need q_num_heads and kv_num_heads");
    Hq = *qn, Hkv = *kvn, Sq = q.shape()[1], Skv = k.shape()[1];
    if (q.shape()[2] % Hq || k.shape()[2] % Hkv || v.shape()[2] % Hkv)
      Fail("the hidden sizes of Q, K, V " + ShapeToString({q.shape()[2], k.shape()[2], v.shape()[2]}) +
           " are not multiples of the head counts " + ShapeToString({Hq, Hkv, Hkv}));
    D = q.shape()[2] / Hq, Dv = v.shape()[2] / Hkv;
    if (k.shape()[2] / Hkv != D) Fail("K's head size differs from Q's");
  } else {
    Hq = q.shape()[1], Hkv = k.shape()[1], Sq = q.shape()[2], Skv = k.shape()[2], D = q.shape()[3], Dv = v.shape()[3];
    if (k.shape()[3] != D || v.shape()[1] != Hkv) Fail("K " + k.Describe() + " or V " + v.Describe() + " does not match Q " + q.Describe());
  }
  if (k.shape()[0] != B || v.shape()[0] != B || v.shape()[v.rank() == 3 ? 1 : 2] != Skv)
    Fail("Q " + q.Describe() + ", K " + k.Describe() + " and V " + v.Describe() + " differ in batch or sequence length");
  if (Hkv <= 0 || Hq % Hkv != 0) throw ModelError("Attention: q_num_heads must be a multiple of kv_num_heads");
  const bool causal = ctx.IntAttribute("is_causal").value_or(0) != 0;
  const double softcap = ctx.FloatAttribute("softcap").value_or(0.0f);
  const std::int64_t mode = IntAttributeIn(ctx, "qk_matmul_output_mode", 0, 0, 3);
  const std::int64_t left = ctx.IntAttribute("left_window_size").value_or(-1);
  const std::int64_t right = ctx.IntAttribute("right_window_size").value_or(-1);
  const double scale = ctx.FloatAttribute("scale").value_or(static_cast<float>(1.0 / std::sqrt(static_cast<double>(D))));
  const int et = q.elem_type();
  std::vector<Value> out(ctx.OutputCount());
  DispatchFloat(et, "Attention", [&](auto tag) {
    using T = decltype(tag);
    auto qv = ReadAs<T>(q), kv = ReadAs<T>(k), vv = ReadAs<T>(v);
    if (three_d) {
      qv = SplitHeads(qv, B, Sq, Hq, D);
      kv = SplitHeads(kv, B, Skv, Hkv, D);
      vv = SplitHeads(vv, B, Skv, Hkv, Dv);
    }
    std::int64_t past = 0;
    if (ctx.HasInput(4) && ctx.HasInput(5)) {
      const Tensor& pk = ctx.TensorInput(4);
      const Tensor& pv = ctx.TensorInput(5);
      if (pk.rank() != 4 || pv.rank() != 4 || pk.shape() != Shape({B, Hkv, pk.shape()[2], D}) ||
          pv.shape() != Shape({B, Hkv, pk.shape()[2], Dv}))
        Fail("past_key " + pk.Describe() + " and past_value " + pv.Describe() + " must be [B, kv_heads, past, head size]");
      past = pk.shape()[2];
      auto pkv = ReadAs<T>(pk), pvv = ReadAs<T>(pv);
      auto cat = [&](const std::vector<T>& a, const std::vector<T>& b, std::int64_t d) {
        std::vector<T> c(static_cast<std::size_t>(B * Hkv * (past + Skv) * d));
        for (std::int64_t i = 0; i < B * Hkv; ++i) {
          std::copy_n(a.data() + i * past * d, past * d, c.data() + i * (past + Skv) * d);
          std::copy_n(b.data() + i * Skv * d, Skv * d, c.data() + i * (past + Skv) * d + past * d);
        }
        return c;
      };
      kv = cat(pkv, kv, D);
      vv = cat(pvv, vv, Dv);
    }
    const std::int64_t T_len = past + Skv;
    CheckedShapeSize({B, Hq, Sq, T_len}, "the attention scores");
    CheckedShapeSize({B, Hq, Sq, Dv}, "the output");
    if (ctx.HasOutput(1)) out[1] = WriteAs(et, {B, Hkv, T_len, D}, kv);
    if (ctx.HasOutput(2)) out[2] = WriteAs(et, {B, Hkv, T_len, Dv}, vv);
    std::vector<std::int64_t> nonpad;
    if (ctx.HasInput(6)) {
      nonpad = ctx.TensorInput(6).ToInt64Vector();
      if (static_cast<std::int64_t>(nonpad.size()) != B) Fail(InputLabel(ctx, 6) + " must hold one length per batch");
      for (auto n : nonpad)
        if (n < 0 || n > past + Skv) Fail(InputLabel(ctx, 6) + " holds the length " + std::to_string(n) + " outside [0, " +
                                          std::to_string(past + Skv) + "]");
    }
    // Mask broadcast to [B, Hq, Sq, <=T_len].
    std::vector<double> mask;
    bool bool_mask = false;
    Shape mshape;
    std::vector<std::int64_t> mstr(4, 0);
    if (ctx.HasInput(3)) {
      const Tensor& m = ctx.TensorInput(3);
      bool_mask = m.elem_type() == TensorProto::BOOL;
      mask = bool_mask ? m.ToDoubleVector() : ReadAs<double>(m);
      mshape = m.shape();
      if (mshape.size() > 4) Fail(InputLabel(ctx, 3) + " " + m.Describe() + " has more than 4 dims");
      while (mshape.size() < 4) mshape.insert(mshape.begin(), 1);
      const Shape target{B, Hq, Sq, past + Skv};
      for (std::size_t d = 0; d < 4; ++d)
        if (mshape[d] != 1 && (d == 3 ? mshape[d] > target[d] : mshape[d] != target[d]))
          Fail(InputLabel(ctx, 3) + " " + m.Describe() + " does not broadcast to " + ShapeToString(target));
      std::int64_t st = 1;
      for (int d = 3; d >= 0; --d) {
        mstr[d] = mshape[d] == 1 && d != 3 ? 0 : st;
        st *= mshape[d];
      }
    }
    std::vector<T> y(static_cast<std::size_t>(B * Hq * Sq * Dv));
    std::vector<T> qk_out;
    if (ctx.HasOutput(3)) qk_out.resize(static_cast<std::size_t>(B * Hq * Sq * T_len));
    std::vector<T> scores(static_cast<std::size_t>(Sq * T_len));
    std::vector<T> qs(static_cast<std::size_t>(Sq * D));
    const T neg_inf = -std::numeric_limits<T>::infinity();
    for (std::int64_t b = 0; b < B; ++b)
      for (std::int64_t h = 0; h < Hq; ++h) {
        const std::int64_t hk = h / (Hq / Hkv);
        const T* qp = qv.data() + (b * Hq + h) * Sq * D;
        const T* kp = kv.data() + (b * Hkv + hk) * T_len * D;
        const T* vp = vv.data() + (b * Hkv + hk) * T_len * Dv;
        for (std::int64_t i = 0; i < Sq * D; ++i) qs[i] = qp[i];
        nn::Gemm<T>(Sq, T_len, D, T(scale), qs.data(), D, false, kp, D, true, scores.data(), T_len, false);
        T* qo = qk_out.empty() ? nullptr : qk_out.data() + (b * Hq + h) * Sq * T_len;
        if (qo && mode == 0) std::copy(scores.begin(), scores.end(), qo);
        if (softcap > 0)
          for (auto& sc : scores) sc = T(softcap) * std::tanh(sc / T(softcap));
        if (qo && mode == 1) std::copy(scores.begin(), scores.end(), qo);
        const std::int64_t valid = nonpad.empty() ? T_len : nonpad.at(static_cast<std::size_t>(b));
        const std::int64_t offset = !nonpad.empty() && past == 0 ? valid - Sq : past;
        for (std::int64_t i = 0; i < Sq; ++i) {
          T* row = scores.data() + i * T_len;
          const std::int64_t p = offset + i;
          for (std::int64_t j = 0; j < T_len; ++j) {
            bool allowed = j < valid;
            if (causal && j > p) allowed = false;
            if (left >= 0 && j < p - left) allowed = false;
            if (right >= 0 && j > p + right) allowed = false;
            if (!mask.empty()) {
              if (j >= mshape[3]) {
                allowed = false;
              } else {
                const std::int64_t mo = (mshape[0] == 1 ? 0 : b) * mstr[0] + (mshape[1] == 1 ? 0 : h) * mstr[1] +
                                        (mshape[2] == 1 ? 0 : i) * mstr[2] + j;
                if (bool_mask) allowed = allowed && mask[mo] != 0;
                else row[j] += T(mask[mo]);
              }
            }
            if (!allowed) row[j] = neg_inf;
          }
        }
        if (qo && mode == 2) std::copy(scores.begin(), scores.end(), qo);
        for (std::int64_t i = 0; i < Sq; ++i) {
          T* row = scores.data() + i * T_len;
          T mx = neg_inf;
          for (std::int64_t j = 0; j < T_len; ++j) mx = std::max(mx, row[j]);
          if (mx == neg_inf) {
            // A fully masked row gives a zero output row (the spec's errata, every version).
            std::fill(row, row + T_len, T{0});
            continue;
          }
          T sum = 0;
          for (std::int64_t j = 0; j < T_len; ++j) sum += row[j] = std::exp(row[j] - mx);
          for (std::int64_t j = 0; j < T_len; ++j) row[j] /= sum;
        }
        if (qo && mode == 3) std::copy(scores.begin(), scores.end(), qo);
        T* yp = y.data() + (b * Hq + h) * Sq * Dv;
        nn::Gemm<T>(Sq, Dv, T_len, T{1}, scores.data(), T_len, false, vp, Dv, false, yp, Dv, false);
      }
    if (three_d) {
      std::vector<T> y3(y.size());
      for (std::int64_t b = 0; b < B; ++b)
        for (std::int64_t h = 0; h < Hq; ++h)
          for (std::int64_t s = 0; s < Sq; ++s)
            std::copy_n(y.data() + ((b * Hq + h) * Sq + s) * Dv, Dv, y3.data() + ((b * Sq + s) * Hq + h) * Dv);
      out[0] = WriteAs(et, {B, Sq, Hq * Dv}, y3);
    } else {
      out[0] = WriteAs(et, {B, Hq, Sq, Dv}, y);
    }
    if (ctx.HasOutput(3)) out[3] = WriteAs(et, {B, Hq, Sq, T_len}, qk_out);
    return 0;
  });
  return out;
}

// ---------------------------------------------------------------------------------
// Einsum: every label gets a size and, per operand, a stride (the sum of the strides
// of its axes, which takes diagonals); the output is a sum over the other labels.

struct EinsumTerm {
  std::vector<int> labels;  // ellipsis dims as labels 52 + k
};

int LabelOf(char c) {
  if (c >= 'a' && c <= 'z') return c - 'a';
  if (c >= 'A' && c <= 'Z') return 26 + (c - 'A');
  throw ModelError(std::string("Einsum: invalid label '") + c + "'");
}

std::vector<int> ParseEinsumTerm(std::string term, std::int64_t rank, std::int64_t ellipsis_rank, bool is_output,
                                 std::int64_t* ell_out) {
  std::vector<int> labels;
  std::size_t letters = 0;
  for (char c : term) letters += std::isalpha(static_cast<unsigned char>(c)) ? 1 : 0;
  const auto ell_at = term.find("...");
  if (ell_at != std::string::npos && term.find('.', ell_at + 3) != std::string::npos)
    throw ModelError("Einsum: term '" + term + "' has more than one ellipsis");
  std::int64_t ell = 0;
  if (ell_at != std::string::npos) ell = is_output ? ellipsis_rank : rank - static_cast<std::int64_t>(letters);
  else if (!is_output && static_cast<std::int64_t>(letters) != rank)
    throw ModelError("Einsum: term '" + term + "' does not match rank " + std::to_string(rank));
  if (ell < 0) throw ModelError("Einsum: term '" + term + "' has more labels than dimensions");
  if (ell_out) *ell_out = ell;
  for (std::size_t i = 0; i < term.size(); ++i) {
    if (term[i] == '.') {
      if (term.compare(i, 3, "...") != 0) throw ModelError("Einsum: invalid ellipsis");
      for (std::int64_t k = 0; k < ell; ++k) labels.push_back(52 + static_cast<int>(ellipsis_rank - ell + k));
      i += 2;
    } else if (term[i] != ' ') {
      labels.push_back(LabelOf(term[i]));
    }
  }
  return labels;
}

std::vector<Value> EinsumKernel(KernelContext& ctx) {
  const auto equation = ctx.StringAttribute("equation");
  if (!equation) Fail("attribute 'equation' is required");
  std::string eq = *equation;
  eq.erase(std::remove(eq.begin(), eq.end(), ' '), eq.end());
  const auto arrow = eq.find("->");
  const std::string lhs = eq.substr(0, arrow);
  std::vector<std::string> terms;
  for (std::size_t at = 0;;) {
    const auto comma = lhs.find(',', at);
    terms.push_back(lhs.substr(at, comma == std::string::npos ? std::string::npos : comma - at));
    if (comma == std::string::npos) break;
    at = comma + 1;
  }
  if (terms.size() != ctx.InputCount()) throw ModelError("Einsum: the equation does not match the number of inputs");
  std::vector<const Tensor*> ins;
  std::int64_t ell_rank = 0;
  for (std::size_t i = 0; i < terms.size(); ++i) {
    ins.push_back(&ctx.TensorInput(i));
    std::int64_t e = 0;
    ParseEinsumTerm(terms[i], static_cast<std::int64_t>(ins[i]->rank()), 0, false, &e);
    ell_rank = std::max(ell_rank, e);
  }
  std::vector<std::vector<int>> in_labels;
  std::vector<std::int64_t> size(52 + static_cast<std::size_t>(ell_rank), -1);
  std::vector<int> count(size.size(), 0);
  for (std::size_t i = 0; i < terms.size(); ++i) {
    in_labels.push_back(ParseEinsumTerm(terms[i], static_cast<std::int64_t>(ins[i]->rank()), ell_rank, false, nullptr));
    for (std::size_t d = 0; d < in_labels[i].size(); ++d) {
      const int l = in_labels[i][d];
      const std::int64_t dim = ins[i]->shape()[d];
      ++count[l];
      if (size[l] == -1 || size[l] == 1) size[l] = dim;
      else if (dim != size[l] && !(l >= 52 && dim == 1))
        throw ModelError("Einsum: label dimensions differ");
    }
  }
  std::vector<int> out_labels;
  if (arrow != std::string::npos) {
    out_labels = ParseEinsumTerm(eq.substr(arrow + 2), 0, ell_rank, true, nullptr);
  } else {
    for (std::int64_t k = 0; k < ell_rank; ++k) out_labels.push_back(52 + static_cast<int>(k));
    for (int l = 0; l < 52; ++l)
      if (count[l] == 1) out_labels.push_back(l);
  }
  for (std::size_t i = 0; i < out_labels.size(); ++i) {
    const int l = out_labels[i];
    if (size[l] < 0) throw ModelError("Einsum: an output label is not in any input");
    if (std::find(out_labels.begin() + static_cast<std::ptrdiff_t>(i) + 1, out_labels.end(), l) != out_labels.end())
      Fail("the output of the equation '" + *equation + "' names a label twice");
  }
  // Loop order: output labels, then the summed ones.
  std::vector<int> loop = out_labels;
  for (std::size_t l = 0; l < size.size(); ++l)
    if (size[l] >= 0 && std::find(out_labels.begin(), out_labels.end(), static_cast<int>(l)) == out_labels.end())
      loop.push_back(static_cast<int>(l));
  const std::size_t nl = loop.size();
  Shape dims(nl), out_shape;
  for (std::size_t i = 0; i < nl; ++i) dims[i] = size[loop[i]];
  for (int l : out_labels) out_shape.push_back(size[l]);
  CheckedShapeSize(out_shape, "the output shape");
  // The loop visits every combination of labels, one scalar at a time: its work, not only
  // its output, can be far beyond what the inputs hold ("a,b,c,d->").
  double combinations = 1;
  for (auto d : dims) combinations *= static_cast<double>(d);
  ChargeWork(combinations, "Einsum's label combinations");
  // strides[operand][loop position]
  std::vector<std::vector<std::int64_t>> strides(ins.size(), std::vector<std::int64_t>(nl, 0));
  for (std::size_t i = 0; i < ins.size(); ++i) {
    std::int64_t st = 1;
    for (std::size_t d = in_labels[i].size(); d-- > 0;) {
      const std::int64_t dim = ins[i]->shape()[d];
      const auto pos = std::find(loop.begin(), loop.end(), in_labels[i][d]) - loop.begin();
      if (dim != 1 || size[in_labels[i][d]] == 1) strides[i][pos] += st;
      st *= dim;
    }
  }
  const std::int64_t out_n = ShapeSize(out_shape);
  const std::int64_t total = ShapeSize(dims);
  const std::int64_t sum_n = out_n ? total / std::max<std::int64_t>(out_n, 1) : 0;
  // Sums of products in A: double for floats, int64 wrapping around for integers (a
  // double would lose integers above 2^53 and convert out-of-range sums undefinedly).
  const auto contract = [&]<class A>(const std::vector<std::vector<A>>& data) {
    std::vector<A> y(static_cast<std::size_t>(out_n), A(0));
    Shape idx(nl, 0);
    std::vector<std::int64_t> off(ins.size(), 0);
    for (std::int64_t e = 0; e < total && out_n > 0; ++e) {
      A p = 1;
      for (std::size_t i = 0; i < ins.size(); ++i) p = WrappingMul(p, data[i][static_cast<std::size_t>(off[i])]);
      A& sum = y[static_cast<std::size_t>(e / std::max<std::int64_t>(sum_n, 1))];
      sum = WrappingAdd(sum, p);
      for (std::size_t k = nl; k-- > 0;) {
        for (std::size_t i = 0; i < ins.size(); ++i) off[i] += strides[i][k];
        if (++idx[k] < dims[k]) break;
        for (std::size_t i = 0; i < ins.size(); ++i) off[i] -= strides[i][k] * dims[k];
        idx[k] = 0;
      }
    }
    return y;
  };
  const int et = ins[0]->elem_type();
  if (IsFloatType(et)) {
    std::vector<std::vector<double>> data;
    for (auto* t : ins) data.push_back(ReadAs<double>(*t));
    return {WriteAs(et, out_shape, contract(data))};
  }
  std::vector<std::vector<std::int64_t>> data;
  for (auto* t : ins) data.push_back(t->ToInt64Vector());
  return {WriteInt(et, out_shape, contract(data))};
}

// ---------------------------------------------------------------------------------
// Recurrent networks: RNN, GRU, LSTM

struct Activation {
  std::string name;
  double alpha = 0, beta = 0;
  double operator()(double x) const {
    if (name == "Sigmoid") return 1.0 / (1.0 + std::exp(-x));
    if (name == "Tanh") return std::tanh(x);
    if (name == "Relu") return std::max(0.0, x);
    if (name == "HardSigmoid") return std::clamp(alpha * x + beta, 0.0, 1.0);
    if (name == "Affine") return alpha * x + beta;
    if (name == "LeakyRelu") return x >= 0 ? x : alpha * x;
    if (name == "ThresholdedRelu") return x > alpha ? x : 0.0;
    if (name == "ScaledTanh") return alpha * std::tanh(beta * x);
    if (name == "Elu") return x >= 0 ? x : alpha * (std::exp(x) - 1);
    if (name == "Softsign") return x / (1 + std::abs(x));
    if (name == "Softplus") return std::log1p(std::exp(x));
    throw ModelError("unsupported recurrent activation " + name);
  }
};

// Activations of a recurrent node: `per_dir` functions per direction, defaults `defaults`.
std::vector<Activation> RecurrentActivations(KernelContext& ctx, std::size_t per_dir, std::size_t dirs,
                                             const std::vector<std::string>& defaults) {
  std::vector<std::string> names;
  if (const AttributeProto* a = ctx.Attribute("activations"))
    for (const auto& s : a->strings()) names.push_back(s);
  const auto alphas = ctx.FloatsAttribute("activation_alpha").value_or(std::vector<float>{});
  const auto betas = ctx.FloatsAttribute("activation_beta").value_or(std::vector<float>{});
  std::vector<Activation> out;
  std::size_t ai = 0, bi = 0;
  for (std::size_t i = 0; i < per_dir * dirs; ++i) {
    Activation act;
    act.name = i < names.size() ? names[i] : defaults[i % per_dir];
    // Lowercase names are accepted by onnxruntime; normalize the first letter.
    if (!act.name.empty()) act.name[0] = static_cast<char>(std::toupper(static_cast<unsigned char>(act.name[0])));
    if (act.name == "Hardsigmoid") act.name = "HardSigmoid";
    if (act.name == "Leakyrelu") act.name = "LeakyRelu";
    static const std::vector<std::string> kKnown = {"Sigmoid", "Tanh", "Relu", "HardSigmoid", "Affine", "LeakyRelu",
                                                    "ThresholdedRelu", "ScaledTanh", "Elu", "Softsign", "Softplus"};
    if (std::find(kKnown.begin(), kKnown.end(), act.name) == kKnown.end())
      Fail("unsupported recurrent activation '" + act.name + "'");
    const bool uses_alpha = act.name == "HardSigmoid" || act.name == "Affine" || act.name == "LeakyRelu" ||
                            act.name == "ThresholdedRelu" || act.name == "ScaledTanh" || act.name == "Elu";
    const bool uses_beta = act.name == "HardSigmoid" || act.name == "Affine" || act.name == "ScaledTanh";
    // Defaults of the corresponding operators.
    const double da = act.name == "HardSigmoid" ? 0.2 : act.name == "LeakyRelu" ? 0.01 : 1.0;
    const double db = act.name == "HardSigmoid" ? 0.5 : act.name == "ScaledTanh" ? 1.0 : 0.0;
    act.alpha = uses_alpha ? (ai < alphas.size() ? alphas[ai++] : da) : 0.0;
    act.beta = uses_beta ? (bi < betas.size() ? betas[bi++] : db) : 0.0;
    out.push_back(act);
  }
  return out;
}

enum class RnnKind { kRnn, kGru, kLstm };

std::vector<Value> RecurrentKernel(KernelContext& ctx, RnnKind kind, const char* op) {
  const Tensor& x = ctx.TensorInput(0);
  const Tensor& wt = ctx.TensorInput(1);
  const Tensor& rt = ctx.TensorInput(2);
  const std::string direction = StringAttributeIn(ctx, "direction", "forward", {"forward", "reverse", "bidirectional"});
  const std::int64_t dirs = direction == "bidirectional" ? 2 : 1;
  const std::int64_t layout = IntAttributeIn(ctx, "layout", 0, 0, 1);
  const auto hs = ctx.IntAttribute("hidden_size");
  const std::int64_t G = kind == RnnKind::kLstm ? 4 : kind == RnnKind::kGru ? 3 : 1;
  if (x.rank() != 3 || wt.rank() != 3 || rt.rank() != 3) throw ModelError(std::string(op) + ": X, W and R must be 3-D");
  ExpectSameElemType(wt, x, InputLabel(ctx, 1), "X");
  ExpectSameElemType(rt, x, InputLabel(ctx, 2), "X");
  const std::int64_t H = hs ? *hs : wt.shape()[1] / G;
  if (H < 1 || H > wt.shape()[1]) Fail("hidden_size " + std::to_string(H) + " does not fit W " + wt.Describe());
  const std::int64_t S = layout ? x.shape()[1] : x.shape()[0], Bt = layout ? x.shape()[0] : x.shape()[1];
  const std::int64_t I = x.shape()[2];
  if (wt.shape() != Shape{dirs, G * H, I} || rt.shape() != Shape{dirs, G * H, H})
    throw ModelError(std::string(op) + ": W " + ShapeToString(wt.shape()) + " or R " + ShapeToString(rt.shape()) +
                     " does not match the input, the direction and hidden_size (expected " +
                     ShapeToString({dirs, G * H, I}) + " and " + ShapeToString({dirs, G * H, H}) + ")");
  // The optional inputs' shapes: B, sequence_lens, initial_h (and initial_c, P for LSTM).
  auto expect_shape = [&](std::size_t i, const Shape& shape) {
    if (!ctx.HasInput(i)) return;
    const Tensor& t = ctx.TensorInput(i);
    if (t.shape() != shape) Fail(InputLabel(ctx, i) + " " + t.Describe() + " must have the shape " + ShapeToString(shape));
  };
  const Shape state_shape = layout ? Shape{Bt, dirs, H} : Shape{dirs, Bt, H};
  expect_shape(3, {dirs, 2 * G * H});
  expect_shape(4, {Bt});
  expect_shape(5, state_shape);
  if (kind == RnnKind::kLstm) {
    expect_shape(6, state_shape);
    expect_shape(7, {dirs, 3 * H});
  }
  if (ctx.HasInput(4)) {
    ExpectIndexType(ctx.TensorInput(4), InputLabel(ctx, 4));
    for (auto len : ctx.TensorInput(4).ToInt64Vector())
      if (len < 0 || len > S)
        Fail(InputLabel(ctx, 4) + " holds the length " + std::to_string(len) + ", outside [0, " + std::to_string(S) + "]");
  }
  const double clip = ctx.FloatAttribute("clip").value_or(0.0f);
  const bool input_forget = ctx.IntAttribute("input_forget").value_or(0) != 0;
  const bool linear_before_reset = ctx.IntAttribute("linear_before_reset").value_or(0) != 0;
  const std::size_t per_dir = kind == RnnKind::kLstm ? 3 : kind == RnnKind::kGru ? 2 : 1;
  const std::vector<std::string> defaults = kind == RnnKind::kLstm ? std::vector<std::string>{"Sigmoid", "Tanh", "Tanh"}
                                            : kind == RnnKind::kGru ? std::vector<std::string>{"Sigmoid", "Tanh"}
                                                                    : std::vector<std::string>{"Tanh"};
  const auto acts = RecurrentActivations(ctx, per_dir, static_cast<std::size_t>(dirs), defaults);
  // The buffers below are sized from X's and W's dims, which an empty tensor can make huge.
  CheckedShapeSize({S, Bt, G * H}, "the input projections");
  CheckedShapeSize({S, dirs, Bt, H}, "the output Y");
  std::vector<Value> out(ctx.OutputCount());
  DispatchFloat(x.elem_type(), op, [&](auto tag) {
    using T = decltype(tag);
    auto xv = ReadAs<T>(x), wv = ReadAs<T>(wt), rv = ReadAs<T>(rt);
    if (layout) {
      // [B, S, I] -> [S, B, I]
      std::vector<T> tmp(xv.size());
      for (std::int64_t b = 0; b < Bt; ++b)
        for (std::int64_t s = 0; s < S; ++s) std::copy_n(xv.data() + (b * S + s) * I, I, tmp.data() + (s * Bt + b) * I);
      xv.swap(tmp);
    }
    std::vector<T> bias(static_cast<std::size_t>(dirs * 2 * G * H), T{0});
    if (ctx.HasInput(3)) bias = ReadAs<T>(ctx.TensorInput(3));
    std::vector<std::int64_t> lens(static_cast<std::size_t>(Bt), S);
    if (ctx.HasInput(4)) lens = ctx.TensorInput(4).ToInt64Vector();
    auto initial = [&](std::size_t i) {
      std::vector<T> v(static_cast<std::size_t>(dirs * Bt * H), T{0});
      if (ctx.HasInput(i)) {
        v = ReadAs<T>(ctx.TensorInput(i));
        if (layout) {
          std::vector<T> tmp(v.size());
          for (std::int64_t b = 0; b < Bt; ++b)
            for (std::int64_t d = 0; d < dirs; ++d) std::copy_n(v.data() + (b * dirs + d) * H, H, tmp.data() + (d * Bt + b) * H);
          v.swap(tmp);
        }
      }
      return v;
    };
    std::vector<T> h_all = initial(5);
    std::vector<T> c_all = kind == RnnKind::kLstm ? initial(6) : std::vector<T>{};
    std::vector<T> peep;
    if (kind == RnnKind::kLstm && ctx.HasInput(7)) peep = ReadAs<T>(ctx.TensorInput(7));
    std::vector<T> y(static_cast<std::size_t>(S * dirs * Bt * H), T{0});  // [S, dirs, B, H]
    auto cl = [&](double v) { return clip > 0 ? std::clamp(v, -clip, clip) : v; };
    for (std::int64_t d = 0; d < dirs; ++d) {
      const bool reverse = direction == "reverse" || d == 1;
      const T* W = wv.data() + d * G * H * I;
      const T* R = rv.data() + d * G * H * H;
      const T* Wb = bias.data() + d * 2 * G * H;
      const T* Rb = Wb + G * H;
      const Activation& f = acts[d * per_dir];
      const Activation& g = acts[d * per_dir + (per_dir > 1 ? 1 : 0)];
      const Activation& hact = acts[d * per_dir + (per_dir > 2 ? 2 : 0)];
      // X W^T for every step: [S*B, G*H].
      std::vector<T> xw(static_cast<std::size_t>(S * Bt * G * H));
      nn::Gemm<T>(S * Bt, G * H, I, T{1}, xv.data(), I, false, W, I, true, xw.data(), G * H, false);
      T* h = h_all.data() + d * Bt * H;
      T* c = kind == RnnKind::kLstm ? c_all.data() + d * Bt * H : nullptr;
      std::vector<T> hr(static_cast<std::size_t>(Bt * G * H));
      std::vector<T> rh(static_cast<std::size_t>(H));
      for (std::int64_t step = 0; step < S; ++step) {
        nn::Gemm<T>(Bt, G * H, H, T{1}, h, H, false, R, H, true, hr.data(), G * H, false);
        for (std::int64_t b = 0; b < Bt; ++b) {
          const std::int64_t len = lens[static_cast<std::size_t>(b)];
          if (step >= len) continue;
          const std::int64_t t = reverse ? len - 1 - step : step;
          const T* gx = xw.data() + (t * Bt + b) * G * H;
          const T* gh = hr.data() + b * G * H;
          T* hb = h + b * H;
          T* yo = y.data() + ((t * dirs + d) * Bt + b) * H;
          if (kind == RnnKind::kRnn) {
            for (std::int64_t j = 0; j < H; ++j) hb[j] = T(f(cl(double(gx[j] + gh[j] + Wb[j] + Rb[j]))));
          } else if (kind == RnnKind::kGru) {
            // Gates z, r, h.
            std::vector<T> z(H), r(H);
            for (std::int64_t j = 0; j < H; ++j) {
              z[j] = T(f(cl(double(gx[j] + gh[j] + Wb[j] + Rb[j]))));
              r[j] = T(f(cl(double(gx[H + j] + gh[H + j] + Wb[H + j] + Rb[H + j]))));
            }
            std::vector<T> hh(H);
            if (linear_before_reset) {
              for (std::int64_t j = 0; j < H; ++j)
                hh[j] = T(g(cl(double(gx[2 * H + j] + r[j] * (gh[2 * H + j] + Rb[2 * H + j]) + Wb[2 * H + j]))));
            } else {
              for (std::int64_t j = 0; j < H; ++j) rh[j] = r[j] * hb[j];
              const T* Rh = R + 2 * H * H;
              for (std::int64_t j = 0; j < H; ++j) {
                T s = 0;
                for (std::int64_t k = 0; k < H; ++k) s += rh[k] * Rh[j * H + k];
                hh[j] = T(g(cl(double(gx[2 * H + j] + s + Rb[2 * H + j] + Wb[2 * H + j]))));
              }
            }
            for (std::int64_t j = 0; j < H; ++j) hb[j] = (T(1) - z[j]) * hh[j] + z[j] * hb[j];
          } else {
            // Gates i, o, f, c; peepholes i, o, f.
            T* cb = c + b * H;
            const T* P = peep.empty() ? nullptr : peep.data() + d * 3 * H;
            for (std::int64_t j = 0; j < H; ++j) {
              auto pre = [&](std::int64_t gate) { return double(gx[gate * H + j] + gh[gate * H + j] + Wb[gate * H + j] + Rb[gate * H + j]); };
              const double ig = f(cl(pre(0) + (P ? double(P[j] * cb[j]) : 0.0)));
              double fg = f(cl(pre(2) + (P ? double(P[2 * H + j] * cb[j]) : 0.0)));
              if (input_forget) fg = 1.0 - ig;
              const double cc = g(cl(pre(3)));
              const double cn = fg * double(cb[j]) + ig * cc;
              const double og = f(cl(pre(1) + (P ? double(P[H + j]) * cn : 0.0)));
              cb[j] = T(cn);
              hb[j] = T(og * hact(cn));
            }
          }
          std::copy_n(hb, H, yo);
        }
      }
    }
    const int et = x.elem_type();
    if (ctx.HasOutput(0)) {
      if (layout) {
        std::vector<T> tmp(y.size());  // [B, S, dirs, H]
        for (std::int64_t s = 0; s < S; ++s)
          for (std::int64_t d = 0; d < dirs; ++d)
            for (std::int64_t b = 0; b < Bt; ++b)
              std::copy_n(y.data() + ((s * dirs + d) * Bt + b) * H, H, tmp.data() + ((b * S + s) * dirs + d) * H);
        out[0] = WriteAs(et, {Bt, S, dirs, H}, tmp);
      } else {
        out[0] = WriteAs(et, {S, dirs, Bt, H}, y);
      }
    }
    auto final_state = [&](const std::vector<T>& v) {
      if (!layout) return WriteAs(et, {dirs, Bt, H}, v);
      std::vector<T> tmp(v.size());
      for (std::int64_t d = 0; d < dirs; ++d)
        for (std::int64_t b = 0; b < Bt; ++b) std::copy_n(v.data() + (d * Bt + b) * H, H, tmp.data() + (b * dirs + d) * H);
      return WriteAs(et, {Bt, dirs, H}, tmp);
    };
    if (ctx.HasOutput(1)) out[1] = final_state(h_all);
    if (ctx.HasOutput(2) && kind == RnnKind::kLstm) out[2] = final_state(c_all);
    return 0;
  });
  return out;
}

std::vector<Value> RnnKernel(KernelContext& ctx) { return RecurrentKernel(ctx, RnnKind::kRnn, "RNN"); }
std::vector<Value> GruKernel(KernelContext& ctx) { return RecurrentKernel(ctx, RnnKind::kGru, "GRU"); }
std::vector<Value> LstmKernel(KernelContext& ctx) { return RecurrentKernel(ctx, RnnKind::kLstm, "LSTM"); }
}  // namespace

void RegisterNnKernels() {
  using core::eval::RegisterKernel;
  RegisterKernel("", "MatMul", Arity{2, 2}, MatMulKernel);
  RegisterKernel("", "MatMulInteger", Arity{2, 4}, MatMulIntegerKernel);
  RegisterKernel("", "Gemm", Arity{2, 3}, GemmKernel);
  RegisterKernel("", "Softmax", Arity{1, 1}, SoftmaxKernel);
  RegisterKernel("", "LogSoftmax", Arity{1, 1}, LogSoftmaxKernel);
  RegisterKernel("", "Hardmax", Arity{1, 1}, HardmaxKernel);
  RegisterKernel("", "LayerNormalization", Arity{2, 3, 1, 3}, LayerNormalizationKernel);
  RegisterKernel("", "RMSNormalization", Arity{2, 2}, RMSNormalizationKernel);
  RegisterKernel("", "BatchNormalization", Arity{5, 5, 1, 5}, BatchNormalizationKernel);
  RegisterKernel("", "InstanceNormalization", Arity{3, 3}, InstanceNormalizationKernel);
  RegisterKernel("", "GroupNormalization", Arity{3, 3}, GroupNormalizationKernel);
  RegisterKernel("", "LpNormalization", Arity{1, 1}, LpNormalizationKernel);
  RegisterKernel("", "Conv", Arity{2, 3}, ConvKernel);
  RegisterKernel("", "ConvTranspose", Arity{2, 3}, ConvTransposeKernel);
  RegisterKernel("", "MaxPool", Arity{1, 1, 1, 2}, MaxPoolKernel);
  RegisterKernel("", "AveragePool", Arity{1, 1}, AveragePoolKernel);
  RegisterKernel("", "LpPool", Arity{1, 1}, LpPoolKernel);
  RegisterKernel("", "GlobalAveragePool", Arity{1, 1}, GlobalAveragePoolKernel);
  RegisterKernel("", "GlobalMaxPool", Arity{1, 1}, GlobalMaxPoolKernel);
  RegisterKernel("", "GlobalLpPool", Arity{1, 1}, GlobalLpPoolKernel);
  RegisterKernel("", "QuantizeLinear", Arity{2, 3}, QuantizeLinearKernel);
  RegisterKernel("", "DequantizeLinear", Arity{2, 3}, DequantizeLinearKernel);
  RegisterKernel("", "Resize", Arity{1, 4}, ResizeOpKernel);
  RegisterKernel("", "Upsample", Arity{1, 2}, UpsampleKernel);
  RegisterKernel("", "RotaryEmbedding", Arity{3, 4}, RotaryEmbeddingKernel);
  RegisterKernel("", "Attention", Arity{3, 7, 1, 4}, AttentionKernel);
  RegisterKernel("", "Einsum", Arity{1, Arity::kAny}, EinsumKernel);
  RegisterKernel("", "RNN", Arity{3, 6, 0, 2}, RnnKernel);
  RegisterKernel("", "GRU", Arity{3, 6, 0, 2}, GruKernel);
  RegisterKernel("", "LSTM", Arity{3, 8, 0, 3}, LstmKernel);
}

}  // namespace onnxopt::onnx_kernels
