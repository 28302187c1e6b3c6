#include "onnx_core/shapes/inference.h"
