#include "onnx_extensions/shapes/shape_helpers.h"
