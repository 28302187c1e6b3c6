#include "onnx_core/ir/npy.h"
