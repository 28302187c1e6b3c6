// Shape functions of the ai.onnx.preview.training optimizers (training_kernels.cc).

#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

#include "onnx_core/shapes/shape_registry.h"
#include "onnx_extensions/shapes/shape_groups.h"
#include "onnx_extensions/shapes/shape_helpers.h"

namespace onnxopt::onnx_shapes {

namespace {

// After R and T come `input_groups` groups of n tensors; output group g of tensor i
// (output g * n + i) has the type and shape of optimized tensor i (input 2 + i).
ShapeFunction Optimizer(std::size_t input_groups) {
  return [input_groups](InferenceContext& ctx) {
    const std::size_t inputs = ctx.InputCount();
    if (inputs <= 2 || (inputs - 2) % input_groups != 0) {
      ctx.Diagnose("after R and T, the inputs must be " + std::to_string(input_groups) + " groups of n tensors, found " +
                   std::to_string(inputs < 2 ? 0 : inputs - 2) + " tensors");
      return UnknownOutputs(ctx);
    }
    const std::size_t n = (inputs - 2) / input_groups;
    std::vector<SymTensor> outputs;
    for (std::size_t o = 0; o < ctx.OutputCount(); ++o) outputs.push_back(TypeAndShape(ctx.Input(2 + o % n)));
    return outputs;
  };
}

}  // namespace

void RegisterTrainingShapes() {
  constexpr std::string_view kTraining = "ai.onnx.preview.training";
  core::shapes::RegisterShapeFunction(kTraining, "Adagrad", Optimizer(3));
  core::shapes::RegisterShapeFunction(kTraining, "Adam", Optimizer(4));
  core::shapes::RegisterShapeFunction(kTraining, "Momentum", Optimizer(3));
}

}  // namespace onnxopt::onnx_shapes
