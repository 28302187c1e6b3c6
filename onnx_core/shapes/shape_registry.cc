#include "onnx_core/shapes/shape_registry.h"
