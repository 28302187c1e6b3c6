#pragma once

namespace onnxopt::onnx_kernels {

// Registers every reference kernel. Idempotent.
// The evaluator issue (#4) fills the registry; today it registers nothing.
void RegisterKernels();

}  // namespace onnxopt::onnx_kernels
