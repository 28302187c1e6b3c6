#include "onnx_extensions/patterns/dispatch_table.h"

namespace onnxopt::onnx_patterns {

void RegisterPatterns() {}

}  // namespace onnxopt::onnx_patterns
