#include "onnx_extensions/kernels/kernel_groups.h"

namespace onnxopt::onnx_kernels {

void RegisterControlFlowKernels() {}

}  // namespace onnxopt::onnx_kernels
