#pragma once
// Helpers of the neural-network kernels (nn_kernels.cc, contrib_kernels.cc): float
// tensors read into a compute type (float16/bfloat16 through float32), the blocked
// GEMM shared by MatMul, Gemm and Conv (which charges their work), and small attribute helpers.

#include <algorithm>
#if defined(__x86_64__)
#include <immintrin.h>
#endif
#include <type_traits>
#include <cstdint>
#include <cstring>
#include <string>
#include <vector>

#include "onnx_core/common/error.h"
#include "onnx_core/eval/tensor.h"
#include "onnx_extensions/kernels/kernel_helpers.h"

namespace onnxopt::onnx_kernels::nn {

using core::eval::Tensor;

// Reads a float tensor (float, double, float16, bfloat16) into a vector of T.
template <class T>
std::vector<T> ReadAs(const Tensor& t) {
  std::vector<T> out(static_cast<std::size_t>(t.size()));
  const auto n = out.size();
  switch (t.elem_type()) {
    case TensorProto::FLOAT: {
      const float* p = t.Data<float>();
      for (std::size_t i = 0; i < n; ++i) out[i] = static_cast<T>(p[i]);
      break;
    }
    case TensorProto::DOUBLE: {
      const double* p = t.Data<double>();
      for (std::size_t i = 0; i < n; ++i) out[i] = static_cast<T>(p[i]);
      break;
    }
    case TensorProto::FLOAT16: {
      const std::uint16_t* p = t.Data<std::uint16_t>();
      for (std::size_t i = 0; i < n; ++i) out[i] = static_cast<T>(core::eval::HalfToFloat(p[i]));
      break;
    }
    case TensorProto::BFLOAT16: {
      const std::uint16_t* p = t.Data<std::uint16_t>();
      for (std::size_t i = 0; i < n; ++i) out[i] = static_cast<T>(core::eval::BFloat16ToFloat(p[i]));
      break;
    }
    default: {
      // Integer types (quantization zero points, MatMul on integers).
      auto v = t.ToDoubleVector();
      for (std::size_t i = 0; i < n; ++i) out[i] = static_cast<T>(v[i]);
    }
  }
  return out;
}

// Writes values of T into a new tensor of a float element type.
template <class T>
Tensor WriteAs(int elem_type, std::vector<std::int64_t> shape, const T* values) {
  Tensor out(elem_type, std::move(shape));
  const auto n = static_cast<std::size_t>(out.size());
  switch (elem_type) {
    case TensorProto::FLOAT: {
      float* p = out.MutableData<float>();
      for (std::size_t i = 0; i < n; ++i) p[i] = static_cast<float>(values[i]);
      break;
    }
    case TensorProto::DOUBLE: {
      double* p = out.MutableData<double>();
      for (std::size_t i = 0; i < n; ++i) p[i] = static_cast<double>(values[i]);
      break;
    }
    case TensorProto::FLOAT16: {
      std::uint16_t* p = out.MutableData<std::uint16_t>();
      for (std::size_t i = 0; i < n; ++i) p[i] = core::eval::FloatToHalf(static_cast<float>(values[i]));
      break;
    }
    case TensorProto::BFLOAT16: {
      std::uint16_t* p = out.MutableData<std::uint16_t>();
      for (std::size_t i = 0; i < n; ++i) p[i] = core::eval::FloatToBFloat16(static_cast<float>(values[i]));
      break;
    }
    default:
      throw ModelError("unsupported output element type " + ElemTypeName(elem_type));
  }
  return out;
}
template <class T>
Tensor WriteAs(int elem_type, std::vector<std::int64_t> shape, const std::vector<T>& values) {
  return WriteAs<T>(elem_type, std::move(shape), values.data());
}

// Calls f(T{}) with T = double for DOUBLE and float for the other float types; throws
// ModelError naming `op` otherwise.
template <class F>
decltype(auto) DispatchFloat(int elem_type, const char* op, F&& f) {
  if (elem_type == TensorProto::DOUBLE) return f(double{});
  if (IsFloatType(elem_type)) return f(float{});
  throw ModelError(std::string(op) + ": unsupported element type " + ElemTypeName(elem_type) +
                   " (expected FLOAT, DOUBLE, FLOAT16 or BFLOAT16)");
}

// C[M,N] (row stride ldc) = alpha * op(A)[M,K] * op(B)[K,N] + (accumulate ? C : 0).
// op(A)[i,k] = transA ? A[k*lda+i] : A[i*lda+k]; likewise for B. Blocked: B is packed
// into panels of kNr columns, A into strips of kMr rows, and a kMr x kNr register tile
// accumulates over a kKc block of k.
// Register tile of the GEMM: kGemmMr rows of A times kGemmNr columns of B.
inline constexpr std::int64_t kGemmMr = 6, kGemmNr = 16;

// acc += apack[k][r] * bpack[k][j] over kc values of k (integers wrap around).
template <class T>
inline void MicroKernel(std::int64_t kc, const T* ap, const T* bp, T (&acc)[kGemmMr][kGemmNr]) {
  for (std::int64_t k = 0; k < kc; ++k) {
    const T* b = bp + k * kGemmNr;
    const T* a = ap + k * kGemmMr;
    for (std::int64_t r = 0; r < kGemmMr; ++r) {
      const T av = a[r];
      for (std::int64_t j = 0; j < kGemmNr; ++j) acc[r][j] = WrappingAdd(acc[r][j], WrappingMul(av, b[j]));
    }
  }
}

#if defined(__x86_64__)
// Same with AVX2 + FMA (12 accumulators of 8 floats), chosen at run time.
[[gnu::target("avx2,fma")]] inline void MicroKernelAvx2(std::int64_t kc, const float* ap, const float* bp,
                                                          float (&acc)[kGemmMr][kGemmNr]) {
  static_assert(kGemmNr == 16);
  __m256 c[kGemmMr][2];
  for (int r = 0; r < kGemmMr; ++r) c[r][0] = _mm256_setzero_ps(), c[r][1] = _mm256_setzero_ps();
  for (std::int64_t k = 0; k < kc; ++k) {
    const __m256 b0 = _mm256_loadu_ps(bp + k * kGemmNr), b1 = _mm256_loadu_ps(bp + k * kGemmNr + 8);
    for (int r = 0; r < kGemmMr; ++r) {
      const __m256 a = _mm256_broadcast_ss(ap + k * kGemmMr + r);
      c[r][0] = _mm256_fmadd_ps(a, b0, c[r][0]);
      c[r][1] = _mm256_fmadd_ps(a, b1, c[r][1]);
    }
  }
  for (int r = 0; r < kGemmMr; ++r) _mm256_storeu_ps(acc[r], c[r][0]), _mm256_storeu_ps(acc[r] + 8, c[r][1]);
}

inline bool HasAvx2() {
  static const bool has = __builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma");
  return has;
}
#else
inline bool HasAvx2() { return false; }
#endif

template <class T>
void Gemm(std::int64_t M, std::int64_t N, std::int64_t K, T alpha, const T* A, std::int64_t lda, bool transA,
          const T* B, std::int64_t ldb, bool transB, T* C, std::int64_t ldc, bool accumulate) {
  constexpr std::int64_t kMr = kGemmMr, kNr = kGemmNr, kKc = 256, kNc = 1024;
  [[maybe_unused]] const bool use_avx2 = std::is_same_v<T, float> && HasAvx2();
  // Every product kernel (MatMul, Gemm, Conv, attention, recurrent networks) comes here;
  // the data bounds the work (a model's own products run to 10^12 multiply-adds).
  core::eval::ChargeDataWork(static_cast<double>(M) * static_cast<double>(N) * static_cast<double>(K),
                             "the multiply-adds of a matrix product");
  if (!accumulate)
    for (std::int64_t i = 0; i < M; ++i) std::fill(C + i * ldc, C + i * ldc + N, T{0});
  if (M == 0 || N == 0 || K == 0) return;
  std::vector<T> bpack(static_cast<std::size_t>(kKc * ((kNc + kNr - 1) / kNr) * kNr));
  std::vector<T> apack(static_cast<std::size_t>(kKc * kMr));
  for (std::int64_t jc = 0; jc < N; jc += kNc) {
    const std::int64_t nc = std::min(kNc, N - jc);
    const std::int64_t npanels = (nc + kNr - 1) / kNr;
    for (std::int64_t pc = 0; pc < K; pc += kKc) {
      const std::int64_t kc = std::min(kKc, K - pc);
      // Pack B[pc:pc+kc, jc:jc+nc] as panels [panel][k][kNr], zero-padded.
      for (std::int64_t p = 0; p < npanels; ++p) {
        T* dst = bpack.data() + p * kc * kNr;
        const std::int64_t j0 = jc + p * kNr;
        const std::int64_t nr = std::min(kNr, jc + nc - j0);
        for (std::int64_t k = 0; k < kc; ++k) {
          T* d = dst + k * kNr;
          if (!transB) {
            const T* s = B + (pc + k) * ldb + j0;
            for (std::int64_t j = 0; j < nr; ++j) d[j] = s[j];
          } else {
            for (std::int64_t j = 0; j < nr; ++j) d[j] = B[(j0 + j) * ldb + pc + k];
          }
          for (std::int64_t j = nr; j < kNr; ++j) d[j] = T{0};
        }
      }
      for (std::int64_t i0 = 0; i0 < M; i0 += kMr) {
        const std::int64_t mr = std::min(kMr, M - i0);
        // Pack A[i0:i0+mr, pc:pc+kc] as [k][kMr], scaled by alpha.
        for (std::int64_t k = 0; k < kc; ++k)
          for (std::int64_t r = 0; r < kMr; ++r)
            apack[k * kMr + r] =
                r < mr ? WrappingMul(alpha, transA ? A[(pc + k) * lda + i0 + r] : A[(i0 + r) * lda + pc + k]) : T{0};
        for (std::int64_t p = 0; p < npanels; ++p) {
          const T* bp = bpack.data() + p * kc * kNr;
          const T* ap = apack.data();
          T acc[kMr][kNr] = {};
#if defined(__x86_64__)
          if constexpr (std::is_same_v<T, float>) {
            if (use_avx2) MicroKernelAvx2(kc, ap, bp, acc);
            else MicroKernel(kc, ap, bp, acc);
          } else {
            MicroKernel(kc, ap, bp, acc);
          }
#else
          MicroKernel(kc, ap, bp, acc);
#endif
          const std::int64_t j0 = jc + p * kNr;
          const std::int64_t nr = std::min(kNr, jc + nc - j0);
          for (std::int64_t r = 0; r < mr; ++r) {
            T* c = C + (i0 + r) * ldc + j0;
            for (std::int64_t j = 0; j < nr; ++j) c[j] = WrappingAdd(c[j], acc[r][j]);
          }
        }
      }
    }
  }
}

// Rotary embedding in place on x viewed as [B, S, N, H] (bnsh: [B, N, S, H]). The
// first rot_dim values of each head rotate by the angle of cos_sin(b, s), which returns
// pointers to rot_dim/2 cosines and sines; halves (x[i], x[i+rot/2]) or interleaved
// pairs (x[2i], x[2i+1]).
template <class T, class F>
void ApplyRotary(T* x, std::int64_t B, std::int64_t S, std::int64_t N, std::int64_t H, bool bnsh,
                 std::int64_t rot_dim, bool interleaved, F&& cos_sin) {
  const std::int64_t half = rot_dim / 2;
  for (std::int64_t b = 0; b < B; ++b)
    for (std::int64_t s = 0; s < S; ++s) {
      const auto [cs, sn] = cos_sin(b, s);
      for (std::int64_t n = 0; n < N; ++n) {
        T* v = x + (bnsh ? ((b * N + n) * S + s) * H : ((b * S + s) * N + n) * H);
        for (std::int64_t i = 0; i < half; ++i) {
          const std::int64_t i1 = interleaved ? 2 * i : i, i2 = interleaved ? 2 * i + 1 : i + half;
          const T x1 = v[i1], x2 = v[i2], c = static_cast<T>(cs[i]), sv = static_cast<T>(sn[i]);
          v[i1] = x1 * c - x2 * sv;
          v[i2] = x1 * sv + x2 * c;
        }
      }
    }
}

}  // namespace onnxopt::onnx_kernels::nn

namespace onnxopt::onnx_kernels {
// MatMul with numpy broadcasting and 1-D promotion, optionally transposing the last two
// dimensions of either input and scaling by alpha (FusedMatMul). Defined in nn_kernels.cc.
core::eval::Tensor MatMulTensors(const core::eval::Tensor& a, const core::eval::Tensor& b, bool transA, bool transB,
                                 double alpha, const char* op);
}  // namespace onnxopt::onnx_kernels
