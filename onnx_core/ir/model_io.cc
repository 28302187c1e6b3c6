#include "onnx_core/ir/model_io.h"
