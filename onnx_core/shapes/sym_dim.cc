#include "onnx_core/shapes/sym_dim.h"
