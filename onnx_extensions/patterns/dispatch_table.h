#pragma once

namespace onnxopt::onnx_patterns {

// Registers every built-in pattern under its class name. Idempotent.
// The pattern engine issue (#5) adds the registry and the first pattern; today it
// registers nothing.
void RegisterPatterns();

}  // namespace onnxopt::onnx_patterns
