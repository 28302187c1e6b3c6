#include "onnx_core/builder/graph_builder.h"
