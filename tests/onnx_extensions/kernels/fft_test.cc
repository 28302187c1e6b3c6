// fft::Plan against the definition of the DFT evaluated in long double: the error of
// every coefficient, relative to ||x||_2, stays within 4 * log2(n) * 2^-53 for power-of-
// two lengths (radix-2) and other lengths (Bluestein), up to n = 4096 (measured: the
// worst ratio printed by the test is about 0.5 * log2(n) * 2^-53).

#include "onnx_extensions/kernels/fft.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <complex>
#include <cstdint>
#include <iostream>
#include <numbers>
#include <random>
#include <vector>

#include "onnx_core/common/error.h"

namespace onnxopt::onnx_kernels::fft {
namespace {

std::vector<Complex> RandomSignal(std::int64_t n, unsigned seed) {
  std::mt19937_64 rng(seed);
  std::uniform_real_distribution<double> u(-1, 1);
  std::vector<Complex> x(static_cast<std::size_t>(n));
  for (auto& v : x) v = Complex(u(rng), u(rng));
  return x;
}

std::vector<std::complex<long double>> ReferenceDft(const std::vector<Complex>& x, bool inverse) {
  const auto n = static_cast<std::int64_t>(x.size());
  std::vector<std::complex<long double>> y(x.size());
  const long double sign = inverse ? 1 : -1;
  // exp(sign 2 pi i m / n); j * k is reduced modulo n in integers, so angles are exact.
  std::vector<std::complex<long double>> roots(x.size());
  for (std::int64_t m = 0; m < n; ++m)
    roots[static_cast<std::size_t>(m)] = std::polar(1.0L, sign * 2 * std::numbers::pi_v<long double> * m / n);
  for (std::int64_t k = 0; k < n; ++k) {
    std::complex<long double> sum = 0;
    for (std::int64_t j = 0; j < n; ++j)
      sum += std::complex<long double>(x[static_cast<std::size_t>(j)]) * roots[static_cast<std::size_t>(j * k % n)];
    y[static_cast<std::size_t>(k)] = sum;
  }
  return y;
}

TEST(FftPlan, MatchesTheDefinitionWithinLogarithmicError) {
  for (std::int64_t n : {1, 2, 3, 4, 5, 7, 8, 12, 17, 64, 97, 100, 127, 128, 1000, 1024, 4095, 4096}) {
    for (bool inverse : {false, true}) {
      const std::vector<Complex> x = RandomSignal(n, static_cast<unsigned>(n));
      std::vector<Complex> y = x;
      Plan plan(n);
      plan.Transform(y.data(), inverse);
      const auto reference = ReferenceDft(x, inverse);
      long double norm = 0;
      for (const auto& v : x) norm += std::norm(std::complex<long double>(v));
      norm = std::sqrt(norm);
      long double worst = 0;
      for (std::int64_t k = 0; k < n; ++k)
        worst = std::max(worst, std::abs(std::complex<long double>(y[static_cast<std::size_t>(k)]) -
                                         reference[static_cast<std::size_t>(k)]));
      const double log2n = std::max(1.0, std::log2(static_cast<double>(n)));
      const double ratio = static_cast<double>(worst / norm) / (log2n * 0x1p-53);
      EXPECT_LT(ratio, 4.0) << "n=" << n << " inverse=" << inverse;
      if (n == 4096 || n == 4095) std::cout << "n=" << n << " error / (log2(n) eps ||x||) = " << ratio << "\n";
    }
  }
}

TEST(FftPlan, InverseOfForwardIsNTimesTheSignal) {
  for (std::int64_t n : {6, 16, 31}) {
    const std::vector<Complex> x = RandomSignal(n, 7);
    std::vector<Complex> y = x;
    Plan plan(n);
    plan.Transform(y.data(), false);
    plan.Transform(y.data(), true);
    for (std::int64_t k = 0; k < n; ++k)
      EXPECT_LT(std::abs(y[static_cast<std::size_t>(k)] / static_cast<double>(n) - x[static_cast<std::size_t>(k)]),
                1e-14);
  }
}

TEST(FftPlan, RefusesLengthsOutsideTheEvaluatorLimit) {
  EXPECT_THROW(Plan(0), ModelError);
  EXPECT_THROW(Plan(std::int64_t{1} << 40), ModelError);
}

}  // namespace
}  // namespace onnxopt::onnx_kernels::fft
