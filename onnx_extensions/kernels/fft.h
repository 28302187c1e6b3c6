#pragma once
// Discrete Fourier transforms of any length in O(n log n), for the DFT and STFT kernels.
//
//   forward  X[k] = sum_j x[j] exp(-2 pi i j k / n)
//   inverse  x[j] = sum_k X[k] exp(+2 pi i j k / n)      (unscaled: callers divide by n)
//
// Power-of-two lengths use an iterative radix-2 transform; other lengths use Bluestein's
// algorithm (the DFT rewritten as a convolution with the chirp exp(-i pi k^2 / n), done
// by power-of-two transforms of length m >= 2n - 1). Everything is computed in double;
// every twiddle factor and chirp value is computed directly from its exact angle
// (k^2 reduced modulo 2n in integers, the angle formed in long double), never by
// recurrence, so that the error grows like log2(n) * 2^-53 * ||x||_2 per coefficient
// instead of linearly in n (fft_test.cc measures it against a long double DFT).

#include <complex>
#include <cstdint>

#include "onnx_core/eval/tensor.h"

namespace onnxopt::onnx_kernels::fft {

using Complex = std::complex<double>;

// Precomputed tables for transforms of one length, plus scratch; Transform reuses the
// scratch, so a plan serves one thread at a time.
class Plan {
 public:
  // n >= 1. Tables and scratch live in one eval::Tensor so that the evaluator's size
  // limit applies to them (about 10n complex values for Bluestein lengths, n/2 for
  // powers of two); a length beyond the limit is a ModelError.
  explicit Plan(std::int64_t n);

  std::int64_t size() const { return n_; }
  // In place on data[0, n).
  void Transform(Complex* data, bool inverse);

 private:
  void Radix2(Complex* x) const;  // forward transform of length m_ (a power of two)

  std::int64_t n_;
  std::int64_t m_;              // n for powers of two, else the power of two >= 2n - 1
  core::eval::Tensor memory_;   // every table below, as doubles
  Complex* twiddles_;           // exp(-2 pi i k / m), k < m/2
  Complex* chirp_ = nullptr;    // Bluestein: exp(-i pi k^2 / n), k < n
  Complex* filter_ = nullptr;   // Bluestein: forward transform of the conjugate chirp, length m
  Complex* scratch_ = nullptr;  // Bluestein: length m
};

bool IsPowerOfTwo(std::int64_t n);

// A buffer of n complex values allocated through eval::Tensor (the size limit applies).
class ComplexBuffer {
 public:
  explicit ComplexBuffer(std::int64_t n);
  Complex* data() { return data_; }
  Complex& operator[](std::int64_t i) { return data_[i]; }

 private:
  core::eval::Tensor memory_;
  Complex* data_;
};

}  // namespace onnxopt::onnx_kernels::fft
