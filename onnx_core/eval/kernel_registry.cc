#include "onnx_core/eval/kernel_registry.h"
