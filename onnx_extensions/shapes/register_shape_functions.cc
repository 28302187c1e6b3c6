#include "onnx_extensions/shapes/register_shape_functions.h"

#include <mutex>

#include "onnx_extensions/shapes/shape_groups.h"

namespace onnxopt::onnx_shapes {

void RegisterShapeFunctions() {
  static std::once_flag once;
  std::call_once(once, [] {
    RegisterElementwiseShapes();
    RegisterTensorShapes();
    RegisterNnShapes();
    RegisterControlFlowShapes();
    RegisterContribShapes();
    RegisterQuantizedShapes();
    RegisterLossShapes();
    RegisterTrainingShapes();
    RegisterRandomShapes();
    RegisterVisionShapes();
    RegisterSignalShapes();
    RegisterStringShapes();
  });
}

}  // namespace onnxopt::onnx_shapes
