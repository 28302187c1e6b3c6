#include "onnx_core/shapes/sym_tensor.h"
