#include "onnx_extensions/shapes/shape_groups.h"

namespace onnxopt::onnx_shapes {

void RegisterElementwiseShapes() {}

}  // namespace onnxopt::onnx_shapes
