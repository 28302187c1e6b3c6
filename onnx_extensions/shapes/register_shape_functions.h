#pragma once

namespace onnxopt::onnx_shapes {

// Registers the shape function of every supported operator. Idempotent.
// The shape-inference issue (#3) fills the registry; today it registers nothing.
void RegisterShapeFunctions();

}  // namespace onnxopt::onnx_shapes
