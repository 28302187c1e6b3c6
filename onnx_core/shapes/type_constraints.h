#pragma once
// The type constraints of a node's operator (ir::OpSchema) checked against the types
// shape inference knows: each input and output of a type its parameter allows, and the
// arguments of one type variable of one type (except heterogeneous variadic ones).
// Unknown types are not errors. Called by the inference driver for every node, the
// inputs before the shape function runs (so that it never sees an argument of a type
// its operator excludes) and the outputs after. A violation throws InvalidNodeError.

#include <vector>

#include "onnx_core/shapes/shape_registry.h"
#include "onnx_core/shapes/sym_tensor.h"

namespace onnxopt::core::shapes {

void CheckInputTypes(const InferenceContext& ctx);
// `outputs`: what the shape function returned, one per output of the node. The outputs
// of a node whose output type is disputed (ir::HasToleratedAttributeType: a Constant
// whose value_float is written as an INT) lose their element type instead: onnxruntime
// checks its consumers against the type the attribute's name gives.
void CheckOutputTypes(const InferenceContext& ctx, std::vector<SymTensor>& outputs);

}  // namespace onnxopt::core::shapes
