#include "onnx_core/ir/tensor_data.h"
