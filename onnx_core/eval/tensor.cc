#include "onnx_core/eval/tensor.h"
