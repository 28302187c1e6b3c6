// Shape functions of the com.microsoft quantized products of quantized_kernels.cc (the
// ONNX quantized operators have theirs in nn_shapes.cc).

#include <cstdint>
#include <string_view>
#include <vector>

#include "onnx_core/shapes/shape_registry.h"
#include "onnx_extensions/shapes/nn_helpers.h"
#include "onnx_extensions/shapes/shape_groups.h"
#include "onnx_extensions/shapes/shape_helpers.h"

namespace onnxopt::onnx_shapes {

namespace {

// MatMulNBits(A [..., K], B, scales, ...) -> [..., N] of A's type.
std::vector<SymTensor> InferMatMulNBits(InferenceContext& ctx) {
  const int type = InputElemType(ctx, 0);
  const SymShape a = InputShape(ctx, 0);
  const auto n = ctx.IntAttribute("N");
  if (!a.HasRank() || a.Rank() == 0 || !n) return Outputs(ctx, UnknownTensor(type));
  std::vector<SymDim> dims = a.Dims();
  dims.back() = SymDim(*n);
  return Outputs(ctx, SymTensor::Tensor(type, SymShape(dims)));
}

// matmul(A, B) with the element type of input `type_input`: a_scale for
// MatMulIntegerToFloat(A, B, a_scale, ...), A for DynamicQuantizeMatMul(A, B, ...).
ShapeFunction QuantizedMatMul(std::size_t type_input) {
  return [type_input](InferenceContext& ctx) {
    return Outputs(ctx, SymTensor::Tensor(InputElemType(ctx, type_input),
                                          MatMulShape(ctx, InputShape(ctx, 0), InputShape(ctx, 1))));
  };
}

}  // namespace

void RegisterQuantizedShapes() {
  constexpr std::string_view kMicrosoft = "com.microsoft";
  core::shapes::RegisterShapeFunction(kMicrosoft, "MatMulNBits", InferMatMulNBits);
  core::shapes::RegisterShapeFunction(kMicrosoft, "MatMulIntegerToFloat", QuantizedMatMul(2));
  core::shapes::RegisterShapeFunction(kMicrosoft, "DynamicQuantizeMatMul", QuantizedMatMul(0));
}

}  // namespace onnxopt::onnx_shapes
