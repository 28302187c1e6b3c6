#pragma once

namespace onnxopt::onnx_patterns {

// Hands the documentation of every built-in pattern and pass (the `///` comment above its
// class, extracted at build time by scripts/generate_pattern_docs.py) to the registry
// (core::builder::DocumentPattern). Called by RegisterPatterns.
void RegisterPatternDocs();

}  // namespace onnxopt::onnx_patterns
