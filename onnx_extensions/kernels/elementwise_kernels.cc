#include "onnx_extensions/kernels/kernel_groups.h"

namespace onnxopt::onnx_kernels {

void RegisterElementwiseKernels() {}

}  // namespace onnxopt::onnx_kernels
