#pragma once

namespace onnxopt::onnx_kernels {

// Registers every reference kernel. Idempotent.
// Applications call it once before evaluating; onnx_core never calls it (it does not
// depend on this library).
void RegisterKernels();

}  // namespace onnxopt::onnx_kernels
