#include "onnx_extensions/kernels/register_kernels.h"

namespace onnxopt::onnx_kernels {

void RegisterKernels() {}

}  // namespace onnxopt::onnx_kernels
