// Signal kernels: DFT (17, 20), STFT, the window functions, MelWeightMatrix. Expected
// values are derived by hand (small transforms) or from the specification's formulas.

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cmath>
#include <complex>
#include <cstdint>
#include <numbers>
#include <string>
#include <vector>

#include "tests/onnx_extensions/kernels/kernel_test_util.h"

namespace onnxopt::testing {
namespace {

using ::testing::AllOf;
using ::testing::HasSubstr;

// Windows ----------------------------------------------------------------------------

std::string WindowModel(const std::string& op, const std::string& attrs) {
  return GraphText(17, "(int64 n) => (y)", "y = " + op + attrs + " (n)");
}

TEST(WindowKernels, HannPeriodicAndSymmetric) {
  // Periodic N = 4: 0.5 - 0.5 cos(2 pi k / 4) = 0, 0.5, 1, 0.5.
  EXPECT_TENSOR(RunOne(WindowModel("HannWindow", ""), {{"n", MakeScalar<std::int64_t>(4)}}),
                MakeTensor<float>({4}, {0, 0.5f, 1, 0.5f}));
  // Symmetric size 5 (N = 4): 0, 0.5, 1, 0.5, 0.
  EXPECT_TENSOR(RunOne(WindowModel("HannWindow", " <periodic = 0>"), {{"n", MakeScalar<std::int64_t>(5)}}),
                MakeTensor<float>({5}, {0, 0.5f, 1, 0.5f, 0}));
}

TEST(WindowKernels, HammingAndBlackmanFollowTheirCosineSums) {
  const int size = 7;
  std::vector<float> hamming, blackman;
  for (int k = 0; k < size; ++k) {
    const double x = 2 * std::numbers::pi * k / size;
    hamming.push_back(static_cast<float>(25.0 / 46 - 21.0 / 46 * std::cos(x)));
    blackman.push_back(static_cast<float>(0.42 - 0.5 * std::cos(x) + 0.08 * std::cos(2 * x)));
  }
  EXPECT_TENSOR(RunOne(WindowModel("HammingWindow", ""), {{"n", MakeScalar<std::int64_t>(size)}}),
                MakeTensor<float>({size}, hamming));
  EXPECT_TENSOR(RunOne(WindowModel("BlackmanWindow", ""), {{"n", MakeScalar<std::int64_t>(size)}}),
                MakeTensor<float>({size}, blackman));
}

TEST(WindowKernels, OutputDatatypeAndEdgeSizes) {
  // int32 truncates toward zero: 0, 0.5, 1, 0.5 -> 0, 0, 1, 0.
  EXPECT_TENSOR(RunOne(WindowModel("HannWindow", " <output_datatype = 6>"), {{"n", MakeScalar<std::int64_t>(4)}}),
                MakeTensor<std::int32_t>({4}, {0, 0, 1, 0}));
  EXPECT_TENSOR(RunOne(WindowModel("HannWindow", " <output_datatype = 11>"), {{"n", MakeScalar<std::int64_t>(2)}}),
                MakeTensor<double>({2}, {0, 1}));
  EXPECT_TENSOR(RunOne(WindowModel("HannWindow", " <output_datatype = 10>"), {{"n", MakeScalar<std::int64_t>(4)}}),
                MakeHalf({4}, {0, 0.5f, 1, 0.5f}));
  EXPECT_TENSOR(RunOne(WindowModel("HannWindow", ""), {{"n", MakeScalar<std::int64_t>(0)}}),
                MakeTensor<float>({0}, {}));
  // A symmetric window of size 1 divides 0 by 0, as the specification's formula.
  const Tensor one = RunOne(WindowModel("HannWindow", " <periodic = 0>"), {{"n", MakeScalar<std::int64_t>(1)}});
  ASSERT_EQ(one.size(), 1);
  EXPECT_TRUE(std::isnan(one.Data<float>()[0]));
  // ... and 0 in an integer type.
  EXPECT_TENSOR(
      RunOne(WindowModel("HannWindow", " <periodic = 0, output_datatype = 7>"), {{"n", MakeScalar<std::int64_t>(1)}}),
      MakeTensor<std::int64_t>({1}, {0}));
}

TEST(WindowKernels, RefusesInvalidSizesAndAttributes) {
  const Inputs four = {{"n", MakeScalar<std::int64_t>(4)}};
  EXPECT_THAT(ModelErrorOf(WindowModel("HannWindow", ""), {{"n", MakeScalar<std::int64_t>(-1)}}),
              AllOf(HasSubstr("node 'y' (HannWindow)"), HasSubstr("'size' must be >= 0")));
  EXPECT_THAT(ModelErrorOf(GraphText(17, "(int64[2] n) => (y)", "y = HannWindow (n)"),
                           {{"n", MakeTensor<std::int64_t>({2}, {3, 4})}}),
              HasSubstr("must be a scalar"));
  EXPECT_THAT(ModelErrorOf(GraphText(17, "(float n) => (y)", "y = HannWindow (n)"), {{"n", MakeScalar<float>(4)}}),
              HasSubstr("must be of type INT32, INT64"));
  EXPECT_THAT(ModelErrorOf(WindowModel("HammingWindow", " <output_datatype = 9>"), four),
              AllOf(HasSubstr("(HammingWindow)"), HasSubstr("output_datatype"), HasSubstr("BOOL")));
  EXPECT_THAT(ModelErrorOf(WindowModel("BlackmanWindow", " <periodic = 2>"), four),
              AllOf(HasSubstr("(BlackmanWindow)"), HasSubstr("periodic must be 0 or 1")));
  EXPECT_THAT(ModelErrorOf(GraphText(17, "(int64 n) => (y, z)", "y, z = HannWindow (n)"), four),
              HasSubstr("expects 1 output"));
}

// DFT ----------------------------------------------------------------------------------

// [1, 2, 3, 4] -> [10, -2 + 2i, -2, -2 - 2i].
const std::vector<float> kSignal = {1, 2, 3, 4};
const std::vector<float> kSpectrum = {10, 0, -2, 2, -2, 0, -2, -2};

TEST(DftKernel, ForwardInverseAndOneSided) {
  const Inputs real = {{"x", MakeTensor<float>({1, 4, 1}, kSignal)}};
  EXPECT_TENSOR(RunOne(GraphText(17, "(float[1,4,1] x) => (y)", "y = DFT (x)"), real),
                MakeTensor<float>({1, 4, 2}, kSpectrum));
  EXPECT_TENSOR(RunOne(GraphText(17, "(float[1,4,1] x) => (y)", "y = DFT <onesided = 1> (x)"), real),
                MakeTensor<float>({1, 3, 2}, {10, 0, -2, 2, -2, 0}));
  // The inverse divides by n: back to the signal (imaginary parts 0).
  EXPECT_TENSOR(RunOne(GraphText(17, "(float[1,4,2] x) => (y)", "y = DFT <inverse = 1> (x)"),
                       {{"x", MakeTensor<float>({1, 4, 2}, kSpectrum)}}),
                MakeTensor<float>({1, 4, 2}, {1, 0, 2, 0, 3, 0, 4, 0}));
  // IRFFT: the one-sided spectrum (3 bins, default length 2 * (3 - 1) = 4) to the signal.
  EXPECT_TENSOR(RunOne(GraphText(17, "(float[1,3,2] x) => (y)", "y = DFT <onesided = 1, inverse = 1> (x)"),
                       {{"x", MakeTensor<float>({1, 3, 2}, {10, 0, -2, 2, -2, 0})}}),
                MakeTensor<float>({1, 4, 1}, kSignal));
}

TEST(DftKernel, DftLengthTruncatesAndPads) {
  const std::string model = GraphText(17, "(float[1,4,1] x, int64 n) => (y)", "y = DFT (x, n)");
  // The first 2 values: [1 + 2, 1 - 2].
  EXPECT_TENSOR(RunOne(model, {{"x", MakeTensor<float>({1, 4, 1}, kSignal)}, {"n", MakeScalar<std::int64_t>(2)}}),
                MakeTensor<float>({1, 2, 2}, {3, 0, -1, 0}));
  // Zero-padded to 8: bin 4 is 1 - 2 + 3 - 4 = -2; bin 2 is 1 - 2i - 3 + 4i = -2 + 2i.
  const Tensor y = RunOne(model, {{"x", MakeTensor<float>({1, 4, 1}, kSignal)}, {"n", MakeScalar<std::int64_t>(8)}});
  ASSERT_EQ(y.shape(), (std::vector<std::int64_t>{1, 8, 2}));
  EXPECT_NEAR(y.Data<float>()[8], -2, 1e-6);
  EXPECT_NEAR(y.Data<float>()[4], -2, 1e-6);
  EXPECT_NEAR(y.Data<float>()[5], 2, 1e-6);
}

TEST(DftKernel, AxisIsAnAttributeBeforeOpset20AndAnInputFrom20) {
  // x[2, 2, 1] = [[1, 2], [3, 4]]: along axis 0 (columns) [1 + 3, 1 - 3], [2 + 4, 2 - 4].
  const Tensor x = MakeTensor<float>({2, 2, 1}, {1, 2, 3, 4});
  const Tensor along0 = MakeTensor<float>({2, 2, 2}, {4, 0, 6, 0, -2, 0, -2, 0});
  EXPECT_TENSOR(RunOne(GraphText(17, "(float[2,2,1] x) => (y)", "y = DFT <axis = 0> (x)"), {{"x", x}}), along0);
  EXPECT_TENSOR(RunOne(GraphText(20, "(float[2,2,1] x, int64 a) => (y)", "y = DFT (x, , a)"),
                       {{"x", x}, {"a", MakeScalar<std::int64_t>(-3)}}),
                along0);
  // Opset 20's default axis is -2 (the rows): [1 + 2, 1 - 2], [3 + 4, 3 - 4].
  EXPECT_TENSOR(RunOne(GraphText(20, "(float[2,2,1] x) => (y)", "y = DFT (x)"), {{"x", x}}),
                MakeTensor<float>({2, 2, 2}, {3, 0, -1, 0, 7, 0, -1, 0}));
}

TEST(DftKernel, OtherTypesAndEmptyBatches) {
  EXPECT_TENSOR(RunOne(GraphText(17, "(double[1,4,1] x) => (y)", "y = DFT (x)"),
                       {{"x", MakeTensor<double>({1, 4, 1}, {1, 2, 3, 4})}}),
                MakeTensor<double>({1, 4, 2}, {10, 0, -2, 2, -2, 0, -2, -2}));
  EXPECT_TENSOR(
      RunOne(GraphText(17, "(float16[1,4,1] x) => (y)", "y = DFT (x)"), {{"x", MakeHalf({1, 4, 1}, kSignal)}}),
      MakeHalf({1, 4, 2}, kSpectrum));
  EXPECT_TENSOR(
      RunOne(GraphText(17, "(bfloat16[1,4,1] x) => (y)", "y = DFT (x)"), {{"x", MakeBFloat16({1, 4, 1}, kSignal)}}),
      MakeBFloat16({1, 4, 2}, kSpectrum));
  EXPECT_TENSOR(
      RunOne(GraphText(17, "(float[0,4,1] x) => (y)", "y = DFT (x)"), {{"x", MakeTensor<float>({0, 4, 1}, {})}}),
      MakeTensor<float>({0, 4, 2}, {}));
}

// A non-power-of-two length goes through Bluestein's algorithm: compare with the
// definition evaluated in long double.
TEST(DftKernel, NonPowerOfTwoLengthsMatchTheDefinition) {
  for (int n : {3, 5, 6, 7, 12, 100}) {
    std::vector<double> x(static_cast<std::size_t>(2 * n));
    for (int j = 0; j < 2 * n; ++j) x[static_cast<std::size_t>(j)] = std::sin(0.37 * j * j + 1.0);
    const std::string model = GraphText(17, "(double[1," + std::to_string(n) + ",2] x) => (y)", "y = DFT (x)");
    const Tensor y = RunOne(model, {{"x", MakeTensor<double>({1, n, 2}, x)}});
    for (int k = 0; k < n; ++k) {
      std::complex<long double> sum = 0;
      for (int j = 0; j < n; ++j)
        sum += std::complex<long double>(x[static_cast<std::size_t>(2 * j)], x[static_cast<std::size_t>(2 * j + 1)]) *
               std::polar(1.0L, -2 * std::numbers::pi_v<long double> * j * k / n);
      EXPECT_NEAR(y.Data<double>()[2 * k], static_cast<double>(sum.real()), 1e-12) << "n=" << n << " k=" << k;
      EXPECT_NEAR(y.Data<double>()[2 * k + 1], static_cast<double>(sum.imag()), 1e-12) << "n=" << n << " k=" << k;
    }
  }
}

TEST(DftKernel, RefusesInvalidAxesShapesAndLengths) {
  const Inputs real = {{"x", MakeTensor<float>({1, 4, 1}, kSignal)}};
  EXPECT_THAT(
      ModelErrorOf(GraphText(17, "(float[4] x) => (y)", "y = DFT (x)"), {{"x", MakeTensor<float>({4}, kSignal)}}),
      AllOf(HasSubstr("node 'y' (DFT)"), HasSubstr("rank >= 2")));
  EXPECT_THAT(ModelErrorOf(GraphText(17, "(float[1,2,3] x) => (y)", "y = DFT (x)"),
                           {{"x", MakeTensor<float>({1, 2, 3}, {1, 2, 3, 4, 5, 6})}}),
              HasSubstr("last dimension of 1 (real) or 2 (complex)"));
  EXPECT_THAT(ModelErrorOf(GraphText(17, "(float[1,4,1] x) => (y)", "y = DFT <axis = -1> (x)"), real),
              HasSubstr("axis -1 is outside"));
  EXPECT_THAT(ModelErrorOf(GraphText(17, "(float[1,4,1] x) => (y)", "y = DFT <axis = 2> (x)"), real),
              HasSubstr("axis 2 is outside"));
  EXPECT_THAT(ModelErrorOf(GraphText(20, "(float[1,4,1] x) => (y)", "y = DFT <axis = 1> (x)"), real),
              HasSubstr("replaced by input 'axis'"));
  EXPECT_THAT(ModelErrorOf(GraphText(20, "(float[1,4,1] x, int32 a) => (y)", "y = DFT (x, , a)"),
                           {{"x", MakeTensor<float>({1, 4, 1}, kSignal)}, {"a", MakeScalar<std::int32_t>(1)}}),
              HasSubstr("'axis' must be of type INT64"));
  EXPECT_THAT(ModelErrorOf(GraphText(17, "(float[1,4,2] x) => (y)", "y = DFT <onesided = 1> (x)"),
                           {{"x", MakeTensor<float>({1, 4, 2}, kSpectrum)}}),
              HasSubstr("takes a real input"));
  EXPECT_THAT(ModelErrorOf(GraphText(17, "(float[1,4,1] x) => (y)", "y = DFT <onesided = 1, inverse = 1> (x)"), real),
              HasSubstr("takes a complex input"));
  EXPECT_THAT(ModelErrorOf(GraphText(17, "(float[1,4,1] x, int64 n) => (y)", "y = DFT (x, n)"),
                           {{"x", MakeTensor<float>({1, 4, 1}, kSignal)}, {"n", MakeScalar<std::int64_t>(0)}}),
              HasSubstr("transform length must be >= 1, found 0 (input 'dft_length')"));
  // IRFFT of one bin: the default length 2 * (1 - 1) is 0.
  EXPECT_THAT(ModelErrorOf(GraphText(17, "(float[1,1,2] x) => (y)", "y = DFT <onesided = 1, inverse = 1> (x)"),
                           {{"x", MakeTensor<float>({1, 1, 2}, {1, 0})}}),
              HasSubstr("the default for an axis of length 1"));
  EXPECT_THAT(ModelErrorOf(GraphText(17, "(float[1,4,1] x) => (y)", "y = DFT <inverse = 3> (x)"), real),
              HasSubstr("inverse must be 0 or 1"));
  // A length beyond the tensor size limit is refused before anything is allocated.
  EXPECT_THAT(ModelErrorOf(GraphText(17, "(float[1,4,1] x, int64 n) => (y)", "y = DFT (x, n)"),
                           {{"x", MakeTensor<float>({1, 4, 1}, kSignal)},
                            {"n", MakeScalar<std::int64_t>(std::int64_t{1} << 40)}}),
              HasSubstr("more than the limit on tensor sizes"));
}

// STFT ---------------------------------------------------------------------------------

TEST(StftKernel, FramesWindowsAndOneSidedBins) {
  // Signal 0..7, frames of 4 every 2: [0,1,2,3], [2,3,4,5], [4,5,6,7]; the DFT of
  // [a, a+1, a+2, a+3] is [4a + 6, -2 + 2i, -2, ...].
  std::vector<float> signal = {0, 1, 2, 3, 4, 5, 6, 7};
  const std::string model = GraphText(17, "(float[1,8,1] s, int64 step, int64 n) => (y)", "y = STFT (s, step, , n)");
  EXPECT_TENSOR(RunOne(model, {{"s", MakeTensor<float>({1, 8, 1}, signal)},
                               {"step", MakeScalar<std::int64_t>(2)},
                               {"n", MakeScalar<std::int64_t>(4)}}),
                MakeTensor<float>({1, 3, 3, 2}, {6, 0, -2, 2, -2, 0, 14, 0, -2, 2, -2, 0, 22, 0, -2, 2, -2, 0}));
  // A window [1, 0, 0, 1] keeps a + (a + 3): the DFT of [a, 0, 0, a+3] is
  // [2a + 3, a - (a+3) i ... ]: bin 1 = a + (a + 3) * i^3 = a + (a+3) i.
  const std::string windowed =
      GraphText(17, "(float[1,8,1] s, int64 step, float[4] w) => (y)", "y = STFT <onesided = 0> (s, step, w)");
  const Tensor y = RunOne(windowed, {{"s", MakeTensor<float>({1, 8, 1}, signal)},
                                     {"step", MakeScalar<std::int64_t>(4)},
                                     {"w", MakeTensor<float>({4}, {1, 0, 0, 1})}});
  ASSERT_EQ(y.shape(), (std::vector<std::int64_t>{1, 2, 4, 2}));
  EXPECT_NEAR(y.Data<float>()[0], 3, 1e-6);  // frame 0, bin 0
  EXPECT_NEAR(y.Data<float>()[2], 0, 1e-6);  // frame 0, bin 1: 0 + 3i
  EXPECT_NEAR(y.Data<float>()[3], 3, 1e-6);
  EXPECT_NEAR(y.Data<float>()[8], 11, 1e-6);  // frame 1, bin 0: 4 + 7
}

TEST(StftKernel, RefusesInvalidFramesAndWindows) {
  const Tensor signal = MakeTensor<float>({1, 8, 1}, {0, 1, 2, 3, 4, 5, 6, 7});
  const std::string with_length =
      GraphText(17, "(float[1,8,1] s, int64 step, int64 n) => (y)", "y = STFT (s, step, , n)");
  EXPECT_THAT(ModelErrorOf(with_length,
                           {{"s", signal}, {"step", MakeScalar<std::int64_t>(0)}, {"n", MakeScalar<std::int64_t>(4)}}),
              AllOf(HasSubstr("node 'y' (STFT)"), HasSubstr("'frame_step' must be >= 1")));
  EXPECT_THAT(ModelErrorOf(with_length,
                           {{"s", signal}, {"step", MakeScalar<std::int64_t>(1)}, {"n", MakeScalar<std::int64_t>(9)}}),
              HasSubstr("frame length must be in [1, 8]"));
  EXPECT_THAT(ModelErrorOf(GraphText(17, "(float[1,8,1] s, int64 step) => (y)", "y = STFT (s, step)"),
                           {{"s", signal}, {"step", MakeScalar<std::int64_t>(1)}}),
              HasSubstr("needs input 'window' or input 'frame_length'"));
  EXPECT_THAT(ModelErrorOf(
                  GraphText(17, "(float[1,8,1] s, int64 step, float[4] w, int64 n) => (y)", "y = STFT (s, step, w, n)"),
                  {{"s", signal},
                   {"step", MakeScalar<std::int64_t>(1)},
                   {"w", MakeTensor<float>({4}, {1, 1, 1, 1})},
                   {"n", MakeScalar<std::int64_t>(3)}}),
              HasSubstr("differs from the window's length"));
  EXPECT_THAT(
      ModelErrorOf(
          GraphText(17, "(float[1,8,1] s, int64 step, float[2,2] w) => (y)", "y = STFT (s, step, w)"),
          {{"s", signal}, {"step", MakeScalar<std::int64_t>(1)}, {"w", MakeTensor<float>({2, 2}, {1, 1, 1, 1})}}),
      HasSubstr("'window' must have rank 1"));
  EXPECT_THAT(ModelErrorOf(
                  GraphText(17, "(float[1,8,1] s, int64 step, double[4] w) => (y)", "y = STFT (s, step, w)"),
                  {{"s", signal}, {"step", MakeScalar<std::int64_t>(1)}, {"w", MakeTensor<double>({4}, {1, 1, 1, 1})}}),
              HasSubstr("'window' must be of type FLOAT"));
  EXPECT_THAT(ModelErrorOf(GraphText(17, "(float[1,4,2] s, int64 step, int64 n) => (y)", "y = STFT (s, step, , n)"),
                           {{"s", MakeTensor<float>({1, 4, 2}, {1, 0, 2, 0, 3, 0, 4, 0})},
                            {"step", MakeScalar<std::int64_t>(1)},
                            {"n", MakeScalar<std::int64_t>(2)}}),
              HasSubstr("onesided=1 takes a real signal"));
}

// MelWeightMatrix -------------------------------------------------------------------------

std::string MelModel(const std::string& attrs = "") {
  return GraphText(17, "(int64 bins, int64 n, int64 rate, float lo, float hi) => (y)",
                   "y = MelWeightMatrix" + attrs + " (bins, n, rate, lo, hi)");
}

Inputs MelInputs(std::int64_t bins, std::int64_t n, std::int64_t rate, float lo, float hi) {
  return {{"bins", MakeScalar(bins)},
          {"n", MakeScalar(n)},
          {"rate", MakeScalar(rate)},
          {"lo", MakeScalar(lo)},
          {"hi", MakeScalar(hi)}};
}

TEST(MelWeightMatrixKernel, MatchesTheSpecificationExample) {
  // The specification's example (8 bands, dft_length 16, 8192 Hz, [0, 4096] Hz) and the
  // expected matrix printed in its comment: one 1 per band, in rows 0 to 5.
  std::vector<float> expected(9 * 8, 0.0f);
  const int ones[][2] = {{0, 0}, {0, 1}, {1, 2}, {1, 3}, {2, 4}, {3, 5}, {4, 6}, {5, 7}};
  for (const auto& [row, band] : ones) expected[static_cast<std::size_t>(row * 8 + band)] = 1;
  EXPECT_TENSOR(RunOne(MelModel(), MelInputs(8, 16, 8192, 0, 4096)), MakeTensor<float>({9, 8}, expected));
}

TEST(MelWeightMatrixKernel, OutputDatatypeAndEmptyBands) {
  const Tensor y = RunOne(MelModel(" <output_datatype = 11>"), MelInputs(2, 8, 100, 0, 50));
  EXPECT_EQ(y.elem_type(), TensorProto::DOUBLE);
  EXPECT_EQ(y.shape(), (std::vector<std::int64_t>{5, 2}));
  EXPECT_TENSOR(RunOne(MelModel(), MelInputs(0, 16, 8000, 0, 4000)), MakeTensor<float>({9, 0}, {}));
}

TEST(MelWeightMatrixKernel, RefusesEdgesOutsideTheSpectrogram) {
  EXPECT_THAT(ModelErrorOf(MelModel(), MelInputs(4, 16, 8000, 0, 8000)),
              AllOf(HasSubstr("node 'y' (MelWeightMatrix)"), HasSubstr("falls outside the 9 bins")));
  EXPECT_THAT(ModelErrorOf(MelModel(), MelInputs(4, 16, 8000, -100, 4000)), HasSubstr("falls outside"));
  EXPECT_THAT(ModelErrorOf(MelModel(), MelInputs(4, 16, 0, 0, 4000)), HasSubstr("'sample_rate' must be > 0"));
  EXPECT_THAT(ModelErrorOf(MelModel(), MelInputs(-1, 16, 8000, 0, 4000)), HasSubstr("'num_mel_bins' must be >= 0"));
  EXPECT_THAT(ModelErrorOf(MelModel(), MelInputs(4, 16, 8000, 0, std::nanf(""))), HasSubstr("must be finite"));
  EXPECT_THAT(ModelErrorOf(GraphText(17, "(int32 bins, int64 n, int64 rate, float lo, float hi) => (y)",
                                     "y = MelWeightMatrix (bins, n, rate, lo, hi)"),
                           {{"bins", MakeScalar<std::int32_t>(4)},
                            {"n", MakeScalar<std::int64_t>(16)},
                            {"rate", MakeScalar<std::int64_t>(8000)},
                            {"lo", MakeScalar<float>(0)},
                            {"hi", MakeScalar<float>(4000)}}),
              HasSubstr("one element type (T1)"));
}

}  // namespace
}  // namespace onnxopt::testing
