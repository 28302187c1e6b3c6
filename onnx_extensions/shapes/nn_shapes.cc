#include "onnx_extensions/shapes/shape_groups.h"

namespace onnxopt::onnx_shapes {

void RegisterNnShapes() {}

}  // namespace onnxopt::onnx_shapes
