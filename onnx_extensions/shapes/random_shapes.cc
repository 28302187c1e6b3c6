// Shape functions of the random generators (random_kernels.cc): the output's shape is an
// attribute or the input's, its type the dtype attribute or a default.

#include <cstdint>
#include <string>
#include <vector>

#include "onnx_core/shapes/shape_registry.h"
#include "onnx_extensions/shapes/shape_groups.h"
#include "onnx_extensions/shapes/shape_helpers.h"

namespace onnxopt::onnx_shapes {

namespace {

constexpr int kFloat = 1, kInt32 = 6;

int DtypeOr(const InferenceContext& ctx, int fallback) {
  return static_cast<int>(ctx.IntAttribute("dtype").value_or(fallback));
}

// RandomNormal / RandomUniform: attribute shape, dtype (float by default).
std::vector<SymTensor> InferRandom(InferenceContext& ctx) {
  const int type = DtypeOr(ctx, kFloat);
  const auto shape = ctx.IntsAttribute("shape");
  if (!shape) return Outputs(ctx, UnknownTensor(type));
  std::vector<SymDim> dims;
  for (std::int64_t d : *shape) {
    if (d < 0) {
      ctx.Diagnose("attribute shape has a negative dimension " + std::to_string(d));
      return Outputs(ctx, UnknownTensor(type));
    }
    dims.emplace_back(d);
  }
  return Outputs(ctx, SymTensor::Tensor(type, SymShape(dims)));
}

// RandomNormalLike / RandomUniformLike / Bernoulli: the input's shape; dtype, else the
// input's type.
std::vector<SymTensor> InferRandomLike(InferenceContext& ctx) {
  return Outputs(ctx, SymTensor::Tensor(DtypeOr(ctx, InputElemType(ctx, 0)), InputShape(ctx, 0)));
}

// Multinomial(input [batch, classes]) -> [batch, sample_size] of dtype (int32 by default).
std::vector<SymTensor> InferMultinomial(InferenceContext& ctx) {
  const int type = DtypeOr(ctx, kInt32);
  const std::int64_t samples = ctx.IntAttribute("sample_size").value_or(1);
  if (samples < 1) {
    ctx.Diagnose("sample_size must be positive, found " + std::to_string(samples));
    return Outputs(ctx, UnknownTensor(type));
  }
  const SymShape input = InputShape(ctx, 0);
  const SymDim batch = input.HasRank() && input.Rank() == 2 ? input.Dims()[0] : SymDim::Unknown();
  return Outputs(ctx, SymTensor::Tensor(type, SymShape({batch, SymDim(samples)})));
}

}  // namespace

void RegisterRandomShapes() {
  core::shapes::RegisterShapeFunction("", "RandomNormal", InferRandom);
  core::shapes::RegisterShapeFunction("", "RandomUniform", InferRandom);
  core::shapes::RegisterShapeFunction("", "RandomNormalLike", InferRandomLike);
  core::shapes::RegisterShapeFunction("", "RandomUniformLike", InferRandomLike);
  core::shapes::RegisterShapeFunction("", "Bernoulli", InferRandomLike);
  core::shapes::RegisterShapeFunction("", "Multinomial", InferMultinomial);
}

}  // namespace onnxopt::onnx_shapes
