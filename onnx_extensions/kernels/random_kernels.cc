// Random generators: RandomNormal, RandomUniform, their *Like forms, Bernoulli and
// Multinomial. Each node draws from a 64-bit Mersenne Twister seeded by NodeRandomSeed (its
// `seed` attribute, else the evaluation seed mixed with its first output name): a run is
// reproducible and `verify` draws the same numbers on both sides. The streams are not
// onnxruntime's (the spec does not define them): only distributions can be compared.
//
// Uniform doubles take the top 53 bits of a draw; normal values come from the Box-Muller
// transform. The output tensor is allocated (and its size checked) before any draw.

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <iterator>
#include <limits>
#include <numbers>
#include <optional>
#include <random>
#include <string>
#include <utility>
#include <vector>

#include "onnx_core/eval/kernel_registry.h"
#include "onnx_core/eval/random_seed.h"
#include "onnx_extensions/kernels/kernel_call.h"
#include "onnx_extensions/kernels/kernel_groups.h"
#include "onnx_extensions/kernels/kernel_helpers.h"
#include "onnx_extensions/kernels/nn_helpers.h"

namespace onnxopt::onnx_kernels {
namespace {

class RandomGenerator {
 public:
  explicit RandomGenerator(std::uint64_t seed) : engine_(seed) {}

  // In [0, 1).
  double Uniform() { return static_cast<double>(engine_() >> 11) * 0x1.0p-53; }

  // Standard normal; the transform makes two values, the second is kept for the next call.
  double Normal() {
    if (spare_) return *std::exchange(spare_, std::nullopt);
    const double radius = std::sqrt(-2.0 * std::log(1.0 - Uniform()));  // 1 - u is in (0, 1]
    const double angle = 2.0 * std::numbers::pi * Uniform();
    spare_ = radius * std::sin(angle);
    return radius * std::cos(angle);
  }

 private:
  std::mt19937_64 engine_;
  std::optional<double> spare_;
};

RandomGenerator NodeGenerator(const KernelContext& ctx) { return RandomGenerator(core::eval::NodeRandomSeed(ctx)); }

// The float output type of a generator: `dtype`, else `fallback` (the input's type for the
// *Like forms). bfloat16 from opset 22.
int FloatOutputType(const KernelContext& ctx, std::optional<int> fallback) {
  const auto dtype = ctx.IntAttribute("dtype");
  if (!dtype && !fallback) Fail("attribute dtype is required");
  const auto type = static_cast<int>(dtype ? *dtype : *fallback);
  const bool ok = type == TensorProto::FLOAT || type == TensorProto::DOUBLE || type == TensorProto::FLOAT16 ||
                  (type == TensorProto::BFLOAT16 && ctx.OpsetVersion() >= 22);
  if (!ok)
    Fail(std::string(dtype ? "dtype" : "the input's element type (used when dtype is absent)") +
         " must be a float type, found " + ElemTypeName(type));
  return type;
}

double FiniteFloatAttribute(const KernelContext& ctx, const char* name, float fallback) {
  const double value = ctx.FloatAttribute(name).value_or(fallback);
  if (!std::isfinite(value)) Fail(std::string("attribute ") + name + " must be finite, found " + std::to_string(value));
  return value;
}

// A float tensor of `type` and `shape` filled with next() in row-major order.
template <class F>
Tensor FillFloat(int type, const Shape& shape, F&& next) {
  Tensor out(type, shape);
  const std::int64_t n = out.size();
  switch (type) {
    case TensorProto::DOUBLE: {
      double* p = out.MutableData<double>();
      for (std::int64_t i = 0; i < n; ++i) p[i] = next();
      break;
    }
    case TensorProto::FLOAT: {
      float* p = out.MutableData<float>();
      for (std::int64_t i = 0; i < n; ++i) p[i] = static_cast<float>(next());
      break;
    }
    default: {
      std::uint16_t* p = out.MutableData<std::uint16_t>();
      const bool half = type == TensorProto::FLOAT16;
      for (std::int64_t i = 0; i < n; ++i) {
        const auto v = static_cast<float>(next());
        p[i] = half ? core::eval::FloatToHalf(v) : core::eval::FloatToBFloat16(v);
      }
    }
  }
  return out;
}

Shape ShapeAttribute(const KernelContext& ctx) {
  const auto shape = ctx.IntsAttribute("shape");
  if (!shape) Fail("attribute shape is required");
  for (std::int64_t d : *shape)
    if (d < 0) Fail("attribute shape has a negative dimension: " + ShapeToString(*shape));
  return *shape;
}

Tensor Normal(const KernelContext& ctx, int type, const Shape& shape) {
  const double mean = FiniteFloatAttribute(ctx, "mean", 0.0f);
  const double scale = FiniteFloatAttribute(ctx, "scale", 1.0f);
  if (scale < 0) Fail("attribute scale (the standard deviation) must not be negative, found " + std::to_string(scale));
  RandomGenerator generator = NodeGenerator(ctx);
  return FillFloat(type, shape, [&] { return mean + scale * generator.Normal(); });
}

Tensor Uniform(const KernelContext& ctx, int type, const Shape& shape) {
  const double low = FiniteFloatAttribute(ctx, "low", 0.0f);
  const double high = FiniteFloatAttribute(ctx, "high", 1.0f);
  if (high < low) Fail("attribute high (" + std::to_string(high) + ") is below low (" + std::to_string(low) + ")");
  RandomGenerator generator = NodeGenerator(ctx);
  return FillFloat(type, shape, [&] { return low + (high - low) * generator.Uniform(); });
}

std::vector<Value> RandomNormalKernel(KernelContext& ctx) {
  return {Normal(ctx, FloatOutputType(ctx, TensorProto::FLOAT), ShapeAttribute(ctx))};
}

std::vector<Value> RandomUniformKernel(KernelContext& ctx) {
  return {Uniform(ctx, FloatOutputType(ctx, TensorProto::FLOAT), ShapeAttribute(ctx))};
}

std::vector<Value> RandomNormalLikeKernel(KernelContext& ctx) {
  const Tensor& like = ctx.TensorInput(0);
  return {Normal(ctx, FloatOutputType(ctx, like.elem_type()), like.shape())};
}

std::vector<Value> RandomUniformLikeKernel(KernelContext& ctx) {
  const Tensor& like = ctx.TensorInput(0);
  return {Uniform(ctx, FloatOutputType(ctx, like.elem_type()), like.shape())};
}

// Bernoulli(p): 1 with probability p, in `dtype` (numeric or bool), else p's type.
std::vector<Value> BernoulliKernel(KernelContext& ctx) {
  const Tensor& input = ctx.TensorInput(0);
  const int input_type = input.elem_type();
  if (!IsFloatType(input_type) || (input_type == TensorProto::BFLOAT16 && ctx.OpsetVersion() < 22))
    Fail("input must be a float tensor of probabilities, found " + ElemTypeName(input_type));
  const int out_type = static_cast<int>(ctx.IntAttribute("dtype").value_or(input_type));
  constexpr int kOutputTypes[] = {TensorProto::BOOL,   TensorProto::FLOAT16, TensorProto::BFLOAT16, TensorProto::FLOAT,
                                  TensorProto::DOUBLE, TensorProto::INT8,    TensorProto::INT16,    TensorProto::INT32,
                                  TensorProto::INT64,  TensorProto::UINT8,   TensorProto::UINT16,   TensorProto::UINT32,
                                  TensorProto::UINT64};
  if (std::find(std::begin(kOutputTypes), std::end(kOutputTypes), out_type) == std::end(kOutputTypes)) Fail("dtype must be a numeric or bool type, found " + ElemTypeName(out_type));
  const std::vector<double> p = nn::ReadAs<double>(input);
  for (std::size_t i = 0; i < p.size(); ++i)
    if (!(p[i] >= 0 && p[i] <= 1))
      Fail("input value " + std::to_string(p[i]) + " at index " + std::to_string(i) + " is not a probability in [0, 1]");
  Tensor draws(TensorProto::BOOL, input.shape());
  bool* d = draws.MutableData<bool>();
  RandomGenerator generator = NodeGenerator(ctx);
  for (std::size_t i = 0; i < p.size(); ++i) d[i] = generator.Uniform() < p[i];
  return CallKernel("Cast", {MakeIntAttribute("to", out_type)}, {draws}, 21);
}

// Multinomial(input [batch, classes] of unnormalized log-probabilities) -> [batch,
// sample_size] class indices.
std::vector<Value> MultinomialKernel(KernelContext& ctx) {
  const Tensor& input = ctx.TensorInput(0);
  const int input_type = input.elem_type();
  if (!IsFloatType(input_type) || (input_type == TensorProto::BFLOAT16 && ctx.OpsetVersion() < 22))
    Fail("input must be a float tensor, found " + ElemTypeName(input_type));
  if (input.rank() != 2) Fail("input must be 2-D [batch_size, class_size], found shape " + ShapeToString(input.shape()));
  const int out_type = static_cast<int>(ctx.IntAttribute("dtype").value_or(TensorProto::INT32));
  if (out_type != TensorProto::INT32 && out_type != TensorProto::INT64)
    Fail("dtype must be int32 or int64, found " + ElemTypeName(out_type));
  const std::int64_t samples = ctx.IntAttribute("sample_size").value_or(1);
  if (samples < 1) Fail("sample_size must be positive, found " + std::to_string(samples));
  const std::int64_t batch = input.shape()[0], classes = input.shape()[1];
  Tensor out(out_type, {batch, samples});
  const std::vector<double> logits = nn::ReadAs<double>(input);
  std::vector<std::int64_t> drawn(static_cast<std::size_t>(out.size()));
  RandomGenerator generator = NodeGenerator(ctx);
  std::vector<double> cumulative(static_cast<std::size_t>(classes));
  for (std::int64_t b = 0; b < batch; ++b) {
    const double* row = logits.data() + b * classes;
    double max = -std::numeric_limits<double>::infinity();
    for (std::int64_t c = 0; c < classes; ++c) {
      if (std::isnan(row[c]) || row[c] == std::numeric_limits<double>::infinity())
        Fail("input row " + std::to_string(b) + " has a NaN or +inf log-probability");
      max = std::max(max, row[c]);
    }
    if (classes == 0 || max == -std::numeric_limits<double>::infinity())
      Fail("input row " + std::to_string(b) + " gives no class a positive probability");
    double total = 0;
    for (std::int64_t c = 0; c < classes; ++c) cumulative[static_cast<std::size_t>(c)] = total += std::exp(row[c] - max);
    for (std::int64_t s = 0; s < samples; ++s) {
      const double target = generator.Uniform() * total;
      const auto it = std::upper_bound(cumulative.begin(), cumulative.end(), target);
      // Rounding can leave target == total: the last class with a positive probability.
      drawn[static_cast<std::size_t>(b * samples + s)] =
          it == cumulative.end() ? std::find(cumulative.begin(), cumulative.end(), total) - cumulative.begin()
                                 : it - cumulative.begin();
    }
  }
  DispatchInteger(out_type, [&]<class T>(std::type_identity<T>) {
    T* p = out.MutableData<T>();
    for (std::size_t i = 0; i < drawn.size(); ++i) p[i] = static_cast<T>(drawn[i]);
  });
  return {out};
}

}  // namespace

void RegisterRandomKernels() {
  using core::eval::RegisterKernel;
  RegisterKernel("", "RandomNormal", RandomNormalKernel);
  RegisterKernel("", "RandomUniform", RandomUniformKernel);
  RegisterKernel("", "RandomNormalLike", RandomNormalLikeKernel);
  RegisterKernel("", "RandomUniformLike", RandomUniformLikeKernel);
  RegisterKernel("", "Bernoulli", BernoulliKernel);
  RegisterKernel("", "Multinomial", MultinomialKernel);
}

}  // namespace onnxopt::onnx_kernels
