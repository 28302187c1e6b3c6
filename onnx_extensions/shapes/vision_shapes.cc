// Shape functions of vision operators that had none: MaxRoiPool, DeformConv,
// ImageDecoder, and com.microsoft FusedGemm.

#include <cstdint>
#include <string>
#include <vector>

#include "onnx_core/common/error.h"
#include "onnx_core/shapes/shape_registry.h"
#include "onnx_extensions/shapes/nn_helpers.h"
#include "onnx_extensions/shapes/shape_groups.h"
#include "onnx_extensions/shapes/shape_helpers.h"

namespace onnxopt::onnx_shapes {
namespace {

using core::shapes::RegisterShapeFunction;

// MaxRoiPool(X [N, C, H, W], rois [num_rois, 5]) -> [num_rois, C, pooled_shape...].
std::vector<SymTensor> InferMaxRoiPool(InferenceContext& ctx) {
  const SymShape x = InputShape(ctx, 0);
  const SymShape rois = InputShape(ctx, 1);
  const auto pooled = ctx.IntsAttribute("pooled_shape");
  if (!pooled || pooled->size() != 2) {
    ctx.Diagnose("pooled_shape must have two values (height, width)");
    return UnknownOutputs(ctx);
  }
  const SymDim n = rois.HasRank() && rois.Rank() == 2 ? rois[0] : SymDim();
  const SymDim c = x.HasRank() && x.Rank() == 4 ? x[1] : SymDim();
  return Outputs(ctx, SymTensor::Tensor(InputElemType(ctx, 0),
                                        SymShape({n, c, SymDim((*pooled)[0]), SymDim((*pooled)[1])})));
}

// DeformConv: the output of a Conv with the same attributes (it has no auto_pad).
std::vector<SymTensor> InferDeformConv(InferenceContext& ctx) {
  return Outputs(ctx, ConvOutput(ctx, 0, 1, InputElemType(ctx, 0)));
}

// ImageDecoder: uint8 [height, width, 3] (1 channel for Grayscale), both sizes read from
// the stream at run time.
std::vector<SymTensor> InferImageDecoder(InferenceContext& ctx) {
  const std::int64_t channels = ctx.StringAttribute("pixel_format").value_or("RGB") == "Grayscale" ? 1 : 3;
  return Outputs(ctx, SymTensor::Tensor(TensorProto::UINT8,
                                        SymShape({ctx.FreshSymbol(), ctx.FreshSymbol(), SymDim(channels)})));
}

// FusedGemm: Gemm followed by an element-wise activation, hence Gemm's shape.
std::vector<SymTensor> InferFusedGemm(InferenceContext& ctx) {
  const ShapeFunction* gemm = core::shapes::FindShapeFunction("", "Gemm");
  if (!gemm) throw BuilderError("the Gemm shape function is not registered");
  return (*gemm)(ctx);
}

}  // namespace

void RegisterVisionShapes() {
  RegisterShapeFunction("", "MaxRoiPool", InferMaxRoiPool);
  RegisterShapeFunction("", "DeformConv", InferDeformConv);
  RegisterShapeFunction("", "ImageDecoder", InferImageDecoder);
  RegisterShapeFunction("com.microsoft", "FusedGemm", InferFusedGemm);
}

}  // namespace onnxopt::onnx_shapes
