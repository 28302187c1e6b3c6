#include "tests/onnx_extensions/kernels/kernel_test_util.h"
