#include "onnx_extensions/shapes/register_shape_functions.h"

namespace onnxopt::onnx_shapes {

void RegisterShapeFunctions() {}

}  // namespace onnxopt::onnx_shapes
