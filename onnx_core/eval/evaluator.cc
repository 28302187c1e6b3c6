#include "onnx_core/eval/evaluator.h"
