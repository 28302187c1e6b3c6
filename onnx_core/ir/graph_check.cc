#include "onnx_core/ir/graph_check.h"
