#pragma once

namespace onnxopt::onnx_memory {

// Registers the memory traits of the ONNX operators (views: Reshape, Squeeze,
// Unsqueeze, Flatten, Identity, Cast/CastLike to the same type, inference-mode
// Dropout; in-place writers: ScatterND and ScatterElements (family "scatter"),
// TensorScatter (family "tensor_scatter")) in core::memory's registry, and the
// shape function and kernel of the planner's copy, ai.onnxopt.TensorMove.
// Idempotent.
void RegisterMemoryTraits();

}  // namespace onnxopt::onnx_memory
