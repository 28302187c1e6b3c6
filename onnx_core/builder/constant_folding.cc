#include "onnx_core/builder/constant_folding.h"
