#include "onnx_extensions/kernels/register_kernels.h"

#include <mutex>

#include "onnx_extensions/kernels/kernel_groups.h"

namespace onnxopt::onnx_kernels {

void RegisterKernels() {
  static std::once_flag once;
  std::call_once(once, [] {
    RegisterElementwiseKernels();
    RegisterTensorKernels();
    RegisterNnKernels();
    RegisterControlFlowKernels();
    RegisterContribKernels();
    RegisterQuantizedKernels();
    RegisterLossKernels();
    RegisterTrainingKernels();
    RegisterRandomKernels();
    RegisterReorderKernels();
    RegisterLinalgKernels();
    RegisterSequenceMapKernels();
    RegisterVisionKernels();
    RegisterSpatialKernels();
    RegisterFusedKernels();
    RegisterImageKernels();
    RegisterSignalKernels();
    RegisterStringKernels();
    RegisterAttentionKernels();
    RegisterRecurrentStateKernels();
  });
}

}  // namespace onnxopt::onnx_kernels
