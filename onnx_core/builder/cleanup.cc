#include "onnx_core/builder/cleanup.h"
