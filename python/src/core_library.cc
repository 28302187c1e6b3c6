// libonnxopt_core.so: onnx_core and the shape/kernel extension libraries as one shared
// object, so that every Python extension module of the process uses the same registries.

#include "python/src/core_library.h"

#include "onnx_extensions/kernels/register_kernels.h"
#include "onnx_extensions/shapes/register_shape_functions.h"

namespace onnxopt::python {

void RegisterCoreExtensions() {
  onnx_shapes::RegisterShapeFunctions();
  onnx_kernels::RegisterKernels();
}

}  // namespace onnxopt::python
