// Shape functions of the losses (loss_kernels.cc).

#include <string>
#include <vector>

#include "onnx_core/shapes/shape_registry.h"
#include "onnx_extensions/shapes/shape_groups.h"
#include "onnx_extensions/shapes/shape_helpers.h"

namespace onnxopt::onnx_shapes {

namespace {

// NegativeLogLikelihoodLoss(input [N, C, d...], target [N, d...]) and
// SoftmaxCrossEntropyLoss(scores, labels): the loss has the target's shape with reduction
// "none", else it is a scalar; SoftmaxCrossEntropyLoss's log_prob has the scores' shape.
std::vector<SymTensor> InferLoss(InferenceContext& ctx) {
  const int type = InputElemType(ctx, 0);
  SymTensor loss = SymTensor::Tensor(type, SymShape::Scalar());
  if (ctx.StringAttribute("reduction").value_or("mean") == "none") {
    const SymShape input = InputShape(ctx, 0);
    if (input.HasRank() && input.Rank() >= 2) {
      std::vector<SymDim> dims = input.Dims();
      dims.erase(dims.begin() + 1);
      loss = SymTensor::Tensor(type, SymShape(dims));
    } else {
      loss = SymTensor::Tensor(type, InputShape(ctx, 1));
    }
  }
  return Outputs(ctx, std::vector<SymTensor>{loss, TypeAndShape(ctx.Input(0))});
}

}  // namespace

void RegisterLossShapes() {
  core::shapes::RegisterShapeFunction("", "NegativeLogLikelihoodLoss", InferLoss);
  core::shapes::RegisterShapeFunction("", "SoftmaxCrossEntropyLoss", InferLoss);
}

}  // namespace onnxopt::onnx_shapes
