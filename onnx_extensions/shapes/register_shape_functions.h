#pragma once

namespace onnxopt::onnx_shapes {

// Registers the shape function of every supported operator, and the operator schemas of
// the ONNX specification (onnx_extensions/schemas) that model loading and shape
// inference check nodes against. Idempotent.
// Applications call it once before inferring shapes; GraphBuilder does not call it, so
// that onnx_core never depends on this library.
void RegisterShapeFunctions();

}  // namespace onnxopt::onnx_shapes
