#include "onnx_extensions/kernels/kernel_helpers.h"
