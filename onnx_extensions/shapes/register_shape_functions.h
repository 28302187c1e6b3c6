#pragma once

namespace onnxopt::onnx_shapes {

// Registers the shape function of every supported operator. Idempotent.
// Applications call it once before inferring shapes; GraphBuilder does not call it, so
// that onnx_core never depends on this library.
void RegisterShapeFunctions();

}  // namespace onnxopt::onnx_shapes
