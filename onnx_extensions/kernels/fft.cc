#include "onnx_extensions/kernels/fft.h"

#include <algorithm>
#include <cmath>
#include <numbers>
#include <string>
#include <utility>

#include "onnx_core/common/error.h"
#include "onnx_extensions/kernels/kernel_helpers.h"

namespace onnxopt::onnx_kernels::fft {

bool IsPowerOfTwo(std::int64_t n) { return n > 0 && (n & (n - 1)) == 0; }

namespace {

// exp(-i pi num / den) for num in [0, 2 den): the angle is formed in long double (64-bit
// mantissa) from exact integers, so its error stays far below double's rounding.
Complex UnitRoot(std::uint64_t num, std::uint64_t den) {
  const long double angle =
      std::numbers::pi_v<long double> * static_cast<long double>(num) / static_cast<long double>(den);
  return {static_cast<double>(std::cos(angle)), static_cast<double>(-std::sin(angle))};
}

// std::complex<double> has the layout of double[2] ([complex.numbers.general]), so a
// DOUBLE tensor of 2n values holds n complex values.
core::eval::Tensor AllocateComplex(std::int64_t n, Complex** data) {
  core::eval::Tensor memory(TensorProto::DOUBLE, {n, 2});
  *data = reinterpret_cast<Complex*>(memory.MutableData<double>());
  return memory;
}

// a * b without std::complex's operator*, which calls __muldc3 to recover infinities
// from NaN products (Annex G) and makes the transforms several times slower.
inline Complex Mul(Complex a, Complex b) {
  return {a.real() * b.real() - a.imag() * b.imag(), a.real() * b.imag() + a.imag() * b.real()};
}

}  // namespace

ComplexBuffer::ComplexBuffer(std::int64_t n) : memory_(AllocateComplex(n, &data_)) {}

Plan::Plan(std::int64_t n) : n_(n), m_(n) {
  if (n < 1 || n > MaxElementCount())
    throw ModelError("a Fourier transform of length " + std::to_string(n) + " is outside [1, " +
                     std::to_string(MaxElementCount()) + "]");
  const bool bluestein = !IsPowerOfTwo(n);
  if (bluestein) {
    m_ = 1;
    while (m_ < 2 * n - 1) m_ <<= 1;
  }
  Complex* base = nullptr;
  memory_ = AllocateComplex(m_ / 2 + (bluestein ? n + 2 * m_ : 0), &base);
  twiddles_ = base;
  for (std::int64_t k = 0; k < m_ / 2; ++k)
    twiddles_[k] = UnitRoot(2 * static_cast<std::uint64_t>(k), static_cast<std::uint64_t>(m_));
  if (!bluestein) return;
  chirp_ = base + m_ / 2;
  filter_ = chirp_ + n;
  scratch_ = filter_ + m_;
  // k < n <= 2^32, so k^2 fits in 64 bits before the reduction.
  const std::uint64_t two_n = 2 * static_cast<std::uint64_t>(n);
  for (std::int64_t k = 0; k < n; ++k) {
    const auto uk = static_cast<std::uint64_t>(k);
    chirp_[k] = UnitRoot(uk * uk % two_n, static_cast<std::uint64_t>(n));
  }
  // The convolution kernel b[j] = conj(chirp[|j|]) for j in (-n, n), wrapped modulo m
  // (the tensor is zero-filled).
  for (std::int64_t k = 0; k < n; ++k) {
    filter_[k] = std::conj(chirp_[k]);
    if (k > 0) filter_[m_ - k] = filter_[k];
  }
  Radix2(filter_);
}

void Plan::Radix2(Complex* x) const {
  // Bit-reversal permutation.
  for (std::int64_t i = 1, j = 0; i < m_; ++i) {
    std::int64_t bit = m_ >> 1;
    for (; j & bit; bit >>= 1) j ^= bit;
    j ^= bit;
    if (i < j) std::swap(x[i], x[j]);
  }
  for (std::int64_t len = 2; len <= m_; len <<= 1) {
    const std::int64_t half = len / 2, step = m_ / len;
    for (std::int64_t start = 0; start < m_; start += len) {
      for (std::int64_t k = 0; k < half; ++k) {
        const Complex t = Mul(twiddles_[k * step], x[start + k + half]);
        x[start + k + half] = x[start + k] - t;
        x[start + k] += t;
      }
    }
  }
}

void Plan::Transform(Complex* data, bool inverse) {
  // inverse(x) = conj(forward(conj(x))).
  if (inverse) std::transform(data, data + n_, data, [](Complex c) { return std::conj(c); });
  if (!chirp_) {
    Radix2(data);
  } else {
    // X[k] = chirp[k] * sum_j (x[j] chirp[j]) conj(chirp[k - j]): a circular convolution
    // of length m, computed as inverse(forward(a) * forward(b)) / m with the inverse
    // again written as conj(forward(conj)).
    for (std::int64_t j = 0; j < n_; ++j) scratch_[j] = Mul(data[j], chirp_[j]);
    std::fill(scratch_ + n_, scratch_ + m_, Complex{});
    Radix2(scratch_);
    for (std::int64_t j = 0; j < m_; ++j) scratch_[j] = std::conj(Mul(scratch_[j], filter_[j]));
    Radix2(scratch_);
    const double inv_m = 1.0 / static_cast<double>(m_);
    for (std::int64_t k = 0; k < n_; ++k) data[k] = Mul(std::conj(scratch_[k]) * inv_m, chirp_[k]);
  }
  if (inverse) std::transform(data, data + n_, data, [](Complex c) { return std::conj(c); });
}

}  // namespace onnxopt::onnx_kernels::fft
