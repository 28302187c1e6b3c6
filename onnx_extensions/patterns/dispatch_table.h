#pragma once

namespace onnxopt::onnx_patterns {

// Registers every built-in pattern in the global registry (core::builder::RegisterPattern)
// under its class name. Idempotent: entry points call it before building an optimizer.
void RegisterPatterns();

}  // namespace onnxopt::onnx_patterns
