// Kernels of the signal operators (opset 17 and later): DFT (17, 20), STFT, the
// cosine-sum windows (HannWindow, HammingWindow, BlackmanWindow) and MelWeightMatrix.
//
// Transforms run in double through fft::Plan (O(n log n) for every length) whatever the
// element type: float16 and bfloat16 are read as float, and every result is rounded
// once to the output type. Complex values are stored as a last dimension of 2 (real,
// imaginary); a last dimension of 1 is a real signal.

#include <cmath>
#include <cstdint>
#include <initializer_list>
#include <limits>
#include <numbers>
#include <optional>
#include <string>
#include <type_traits>
#include <vector>

#include "onnx_core/eval/kernel_registry.h"
#include "onnx_extensions/kernels/fft.h"
#include "onnx_extensions/kernels/kernel_groups.h"
#include "onnx_extensions/kernels/kernel_helpers.h"
#include "onnx_extensions/kernels/kernel_signature.h"
#include "onnx_extensions/kernels/nn_helpers.h"

namespace onnxopt::onnx_kernels {
namespace {

using fft::Complex;

constexpr std::initializer_list<int> kFloatTypes = {TensorProto::FLOAT, TensorProto::DOUBLE, TensorProto::FLOAT16,
                                                    TensorProto::BFLOAT16};
constexpr std::initializer_list<int> kLengthTypes = {TensorProto::INT32, TensorProto::INT64};

// The numeric types output_datatype may name (T2 of the windows, T3 of MelWeightMatrix).
constexpr std::initializer_list<int> kNumericOutputTypes = {
    TensorProto::UINT8,   TensorProto::UINT16, TensorProto::UINT32, TensorProto::UINT64,
    TensorProto::INT8,    TensorProto::INT16,  TensorProto::INT32,  TensorProto::INT64,
    TensorProto::FLOAT16, TensorProto::FLOAT,  TensorProto::DOUBLE, TensorProto::BFLOAT16};

int OutputDatatype(const KernelContext& ctx) {
  const std::int64_t type = ctx.IntAttribute("output_datatype").value_or(TensorProto::FLOAT);
  for (int t : kNumericOutputTypes)
    if (t == type) return t;
  Fail("attribute output_datatype must be one of " + TypeList(kNumericOutputTypes) + ", found " +
       ElemTypeName(static_cast<int>(type)));
}

// A DOUBLE tensor rounded once to `type`. Integer types truncate toward zero, as a C++
// cast does (and onnxruntime); NaN becomes 0 and values out of range saturate, where a
// cast would be undefined.
Tensor ToOutputType(const Tensor& values, int type) {
  if (IsFloatType(type)) return nn::WriteAs(type, values.shape(), values.Data<double>());
  Tensor out(type, values.shape());
  DispatchInteger(type, [&]<class T>(std::type_identity<T>) {
    const double* src = values.Data<double>();
    T* dst = out.MutableData<T>();
    for (std::int64_t i = 0; i < values.size(); ++i) {
      const double v = src[i];
      if (std::isnan(v))
        dst[i] = T{0};
      else if (v <= static_cast<double>(std::numeric_limits<T>::lowest()))
        dst[i] = std::numeric_limits<T>::lowest();
      else if (v >= static_cast<double>(std::numeric_limits<T>::max()))
        dst[i] = std::numeric_limits<T>::max();
      else
        dst[i] = static_cast<T>(v);
    }
  });
  return out;
}

// Window functions -------------------------------------------------------------------

// w[k] = a0 - a1 cos(2 pi k / N) + a2 cos(4 pi k / N), N = size (periodic) or size - 1
// (symmetric).
struct CosineSum {
  double a0, a1, a2;
};

std::vector<Value> CosineSumWindow(KernelContext& ctx, CosineSum c) {
  CheckArity(ctx, 1, 1, 1);
  const std::int64_t size = ScalarIntInput(ctx, 0, "input 'size'", kLengthTypes);
  if (size < 0) Fail("input 'size' must be >= 0, found " + std::to_string(size));
  const bool periodic = BoolAttribute(ctx, "periodic", true);
  const int type = OutputDatatype(ctx);
  Tensor w(TensorProto::DOUBLE, {size});
  // A symmetric window of size 1 divides 0 by 0: NaN, as the specification's formula.
  const double period = static_cast<double>(periodic ? size : size - 1);
  double* p = w.MutableData<double>();
  for (std::int64_t k = 0; k < size; ++k) {
    const double x = 2 * std::numbers::pi * static_cast<double>(k) / period;
    p[k] = c.a0 - c.a1 * std::cos(x) + c.a2 * std::cos(2 * x);
  }
  return {ToOutputType(w, type)};
}

std::vector<Value> HannWindowKernel(KernelContext& ctx) { return CosineSumWindow(ctx, {0.5, 0.5, 0}); }
std::vector<Value> HammingWindowKernel(KernelContext& ctx) {
  return CosineSumWindow(ctx, {25.0 / 46.0, 21.0 / 46.0, 0});
}
std::vector<Value> BlackmanWindowKernel(KernelContext& ctx) { return CosineSumWindow(ctx, {0.42, 0.5, 0.08}); }

// MelWeightMatrix ------------------------------------------------------------------------

double HertzToMel(double hz) { return 2595 * std::log10(1 + hz / 700); }
double MelToHertz(double mel) { return 700 * (std::pow(10.0, mel / 2595) - 1); }

// The specification's reference: num_mel_bins + 2 band edges evenly spaced on the mel
// scale over [lower, upper] (step (upper - lower) / (num_mel_bins + 2)), each mapped to
// the spectrogram bin floor((dft_length + 1) * hz / sample_rate); band i is a triangle
// rising from edge i to edge i+1 (peak 1) and falling to edge i+2.
std::vector<Value> MelWeightMatrixKernel(KernelContext& ctx) {
  CheckArity(ctx, 5, 5, 1);
  const std::int64_t num_mel_bins = ScalarIntInput(ctx, 0, "input 'num_mel_bins'", kLengthTypes);
  const std::int64_t dft_length = ScalarIntInput(ctx, 1, "input 'dft_length'", kLengthTypes);
  const std::int64_t sample_rate = ScalarIntInput(ctx, 2, "input 'sample_rate'", kLengthTypes);
  const double lower = ScalarFloatInput(ctx, 3, "input 'lower_edge_hertz'");
  const double upper = ScalarFloatInput(ctx, 4, "input 'upper_edge_hertz'");
  const int type = OutputDatatype(ctx);
  if (ctx.TensorInput(1).elem_type() != ctx.TensorInput(0).elem_type() ||
      ctx.TensorInput(2).elem_type() != ctx.TensorInput(0).elem_type())
    Fail("inputs num_mel_bins, dft_length and sample_rate must have one element type (T1)");
  if (ctx.TensorInput(4).elem_type() != ctx.TensorInput(3).elem_type())
    Fail("inputs lower_edge_hertz and upper_edge_hertz must have one element type (T2)");
  if (num_mel_bins < 0) Fail("input 'num_mel_bins' must be >= 0, found " + std::to_string(num_mel_bins));
  if (dft_length < 0) Fail("input 'dft_length' must be >= 0, found " + std::to_string(dft_length));
  if (sample_rate <= 0) Fail("input 'sample_rate' must be > 0, found " + std::to_string(sample_rate));
  if (!std::isfinite(lower) || !std::isfinite(upper)) Fail("lower_edge_hertz and upper_edge_hertz must be finite");
  const std::int64_t spectrogram_bins = dft_length / 2 + 1;
  Tensor out(TensorProto::DOUBLE, {spectrogram_bins, num_mel_bins});
  double* w = out.MutableData<double>();
  const double low_mel = HertzToMel(lower);
  const double mel_step = (HertzToMel(upper) - low_mel) / static_cast<double>(num_mel_bins + 2);
  std::vector<std::int64_t> edges(static_cast<std::size_t>(num_mel_bins + 2));  // bounded by `out`
  for (std::size_t i = 0; i < edges.size(); ++i) {
    const double hz = MelToHertz(static_cast<double>(i) * mel_step + low_mel);
    const double bin = std::floor((static_cast<double>(dft_length) + 1) * hz / static_cast<double>(sample_rate));
    if (!(bin >= 0 && bin < static_cast<double>(spectrogram_bins)))
      Fail("band edge " + std::to_string(i) + " (" + std::to_string(hz) + " Hz) falls outside the " +
           std::to_string(spectrogram_bins) + " bins of the spectrogram; lower_edge_hertz must be >= 0 and " +
           "upper_edge_hertz at most about sample_rate / 2");
    edges[i] = static_cast<std::int64_t>(bin);
  }
  for (std::int64_t band = 0; band < num_mel_bins; ++band) {
    const std::int64_t left = edges[static_cast<std::size_t>(band)];
    const std::int64_t center = edges[static_cast<std::size_t>(band + 1)];
    const std::int64_t right = edges[static_cast<std::size_t>(band + 2)];
    if (center == left) {
      w[center * num_mel_bins + band] = 1;
    } else {
      for (std::int64_t j = left; j <= center; ++j)
        w[j * num_mel_bins + band] = static_cast<double>(j - left) / static_cast<double>(center - left);
    }
    for (std::int64_t j = center; j < right; ++j)
      w[j * num_mel_bins + band] = static_cast<double>(right - j) / static_cast<double>(right - center);
  }
  return {ToOutputType(out, type)};
}

// DFT ----------------------------------------------------------------------------------

// A tensor seen as [outer, length, inner, channels]: `length` along the transformed axis,
// channels 1 (real) or 2 (complex).
struct Lines {
  std::int64_t outer, length, inner, channels;
  std::int64_t Offset(std::int64_t o, std::int64_t j, std::int64_t i) const {
    return ((o * length + j) * inner + i) * channels;
  }
};

Lines LinesOf(const Shape& shape, std::size_t axis) {
  return {ShapeSize(shape, 0, axis), shape[axis], ShapeSize(shape, axis + 1, shape.size() - 1), shape.back()};
}

// The DFT axis: [-r, -2] or [0, r-2] (the last dimension holds the complex parts).
std::size_t DftAxis(std::int64_t axis, std::int64_t rank) {
  if (axis < -rank || axis > rank - 2 || axis == -1)
    Fail("axis " + std::to_string(axis) + " is outside [" + std::to_string(-rank) + ", -2] and [0, " +
         std::to_string(rank - 2) + "] for an input of rank " + std::to_string(rank) +
         " (its last dimension holds the real and imaginary parts)");
  return static_cast<std::size_t>(axis < 0 ? axis + rank : axis);
}

std::vector<Value> DftKernel(KernelContext& ctx) {
  const bool axis_is_input = ctx.OpsetVersion() >= 20;
  CheckArity(ctx, 1, axis_is_input ? 3 : 2, 1);
  const Tensor& x = TypedInput(ctx, 0, "input 'input'", kFloatTypes);
  const auto rank = static_cast<std::int64_t>(x.rank());
  if (rank < 2 || (x.shape().back() != 1 && x.shape().back() != 2))
    Fail("the input must have rank >= 2 and a last dimension of 1 (real) or 2 (complex), found shape " +
         ShapeToString(x.shape()));
  std::int64_t axis_value = 1;
  if (axis_is_input) {
    if (ctx.Attribute("axis")) Fail("attribute axis was replaced by input 'axis' in opset 20");
    axis_value = ctx.HasInput(2) ? ScalarIntInput(ctx, 2, "input 'axis'", {TensorProto::INT64}) : -2;
  } else {
    axis_value = ctx.IntAttribute("axis").value_or(1);
  }
  const std::size_t axis = DftAxis(axis_value, rank);
  const bool inverse = BoolAttribute(ctx, "inverse", false);
  const bool onesided = BoolAttribute(ctx, "onesided", false);
  const bool complex_input = x.shape().back() == 2;
  const bool irfft = onesided && inverse;
  if (onesided && !inverse && complex_input)
    Fail(
        "onesided=1 with inverse=0 (a real-to-complex transform) takes a real input (last dimension 1), "
        "found a complex one");
  if (irfft && !complex_input)
    Fail(
        "onesided=1 with inverse=1 (a complex-to-real transform) takes a complex input (last dimension 2), "
        "found a real one");
  const Lines in = LinesOf(x.shape(), axis);
  std::int64_t n = irfft ? 2 * (in.length - 1) : in.length;
  if (ctx.HasInput(1)) n = ScalarIntInput(ctx, 1, "input 'dft_length'", kLengthTypes);
  if (n < 1)
    Fail("the transform length must be >= 1, found " + std::to_string(n) +
         (ctx.HasInput(1) ? " (input 'dft_length')"
                          : " (the default for an axis of length " + std::to_string(in.length) + ")"));
  Shape out_shape = x.shape();
  out_shape[axis] = onesided && !inverse ? n / 2 + 1 : n;
  out_shape.back() = irfft ? 1 : 2;
  Tensor result(TensorProto::DOUBLE, out_shape);
  const Lines out = LinesOf(out_shape, axis);
  if (in.outer * in.inner == 0) return {ToOutputType(result, x.elem_type())};

  const std::vector<double> v = nn::ReadAs<double>(x);
  double* r = result.MutableData<double>();
  fft::Plan plan(n);
  fft::ComplexBuffer line(n);
  // IRFFT reads bins [0, n/2] and completes the spectrum by conjugate symmetry; the other
  // transforms read the first min(length, n) values and zero-pad.
  const std::int64_t used = std::min(in.length, irfft ? n / 2 + 1 : n);
  for (std::int64_t o = 0; o < in.outer; ++o) {
    for (std::int64_t i = 0; i < in.inner; ++i) {
      for (std::int64_t j = 0; j < n; ++j) {
        if (j >= used) {
          line[j] = Complex{};
        } else {
          const std::int64_t at = in.Offset(o, j, i);
          line[j] = Complex(v[static_cast<std::size_t>(at)], complex_input ? v[static_cast<std::size_t>(at + 1)] : 0.0);
        }
      }
      if (irfft)
        for (std::int64_t k = n / 2 + 1; k < n; ++k) line[k] = std::conj(line[n - k]);
      plan.Transform(line.data(), inverse);
      const double scale = inverse ? 1.0 / static_cast<double>(n) : 1.0;
      for (std::int64_t k = 0; k < out.length; ++k) {
        const std::int64_t at = out.Offset(o, k, i);
        r[at] = line[k].real() * scale;
        if (!irfft) r[at + 1] = line[k].imag() * scale;
      }
    }
  }
  return {ToOutputType(result, x.elem_type())};
}

// STFT ---------------------------------------------------------------------------------

std::vector<Value> StftKernel(KernelContext& ctx) {
  CheckArity(ctx, 2, 4, 1);
  const Tensor& signal = TypedInput(ctx, 0, "input 'signal'", kFloatTypes);
  // [batch, length, 1 | 2]; onnxruntime also takes a real [batch, length].
  const bool rank2 = signal.rank() == 2;
  if (!rank2 && (signal.rank() != 3 || (signal.shape()[2] != 1 && signal.shape()[2] != 2)))
    Fail("input 'signal' must have shape [batch, length, 1] (real) or [batch, length, 2] (complex), found " +
         ShapeToString(signal.shape()));
  const std::int64_t batch = signal.shape()[0], length = signal.shape()[1];
  const std::int64_t channels = rank2 ? 1 : signal.shape()[2];
  const std::int64_t step = ScalarIntInput(ctx, 1, "input 'frame_step'", kLengthTypes);
  if (step < 1) Fail("input 'frame_step' must be >= 1, found " + std::to_string(step));
  std::optional<std::int64_t> frame_length;
  if (ctx.HasInput(3)) {
    frame_length = ScalarIntInput(ctx, 3, "input 'frame_length'", kLengthTypes);
    if (ctx.TensorInput(3).elem_type() != ctx.TensorInput(1).elem_type())
      Fail("inputs frame_step and frame_length must have one element type (T2)");
  }
  std::vector<double> window;
  if (ctx.HasInput(2)) {
    const Tensor& w = TypedInput(ctx, 2, "input 'window'", {signal.elem_type()});
    if (w.rank() != 1) Fail("input 'window' must have rank 1, found shape " + ShapeToString(w.shape()));
    if (frame_length && *frame_length != w.shape()[0])
      Fail("input 'frame_length' (" + std::to_string(*frame_length) + ") differs from the window's length (" +
           std::to_string(w.shape()[0]) + ")");
    window = nn::ReadAs<double>(w);
    frame_length = w.shape()[0];
  }
  if (!frame_length) Fail("needs input 'window' or input 'frame_length' to know the frame length");
  const std::int64_t n = *frame_length;
  if (n < 1 || n > length)
    Fail("the frame length must be in [1, " + std::to_string(length) + "] (the signal's length), found " +
         std::to_string(n));
  const bool onesided = BoolAttribute(ctx, "onesided", true);
  if (onesided && channels == 2) Fail("onesided=1 takes a real signal, found a complex one");
  const std::int64_t frames = (length - n) / step + 1;
  const std::int64_t bins = onesided ? n / 2 + 1 : n;
  Tensor result(TensorProto::DOUBLE, {batch, frames, bins, 2});
  if (batch == 0) return {ToOutputType(result, signal.elem_type())};

  const std::vector<double> v = nn::ReadAs<double>(signal);
  double* r = result.MutableData<double>();
  fft::Plan plan(n);
  fft::ComplexBuffer line(n);
  for (std::int64_t b = 0; b < batch; ++b) {
    for (std::int64_t f = 0; f < frames; ++f) {
      for (std::int64_t j = 0; j < n; ++j) {
        const auto at = static_cast<std::size_t>(((b * length) + f * step + j) * channels);
        const double weight = window.empty() ? 1.0 : window[static_cast<std::size_t>(j)];
        line[j] = Complex(v[at], channels == 2 ? v[at + 1] : 0.0) * weight;
      }
      plan.Transform(line.data(), false);
      double* dst = r + (b * frames + f) * bins * 2;
      for (std::int64_t k = 0; k < bins; ++k) dst[2 * k] = line[k].real(), dst[2 * k + 1] = line[k].imag();
    }
  }
  return {ToOutputType(result, signal.elem_type())};
}

}  // namespace

void RegisterSignalKernels() {
  using core::eval::RegisterKernel;
  RegisterKernel("", "DFT", DftKernel);
  RegisterKernel("", "STFT", StftKernel);
  RegisterKernel("", "HannWindow", HannWindowKernel);
  RegisterKernel("", "HammingWindow", HammingWindowKernel);
  RegisterKernel("", "BlackmanWindow", BlackmanWindowKernel);
  RegisterKernel("", "MelWeightMatrix", MelWeightMatrixKernel);
}

}  // namespace onnxopt::onnx_kernels
