#pragma once
// Initializers listed among the graph inputs: overridable defaults or constants.
//
// From IR version 4 on, an initializer that is also a graph input is a default value the
// caller may override, and the rest of the core treats it as no constant. Before IR
// version 4, every initializer had to be listed among the graph inputs, so the listing
// says nothing about the intent: onnxruntime treats those initializers as constants, and
// so does onnxopt by default. This file is the one place that decides.

#include <cstddef>
#include <cstdint>

#include "onnx_core/ir/onnx_pb.h"

namespace onnxopt::core::ir {

enum class InitializerInputs {
  // Constants when the model's IR version is below 4 (onnxruntime's rule), overridable
  // from IR version 4 on.
  kConstantBeforeIr4,
  // Always overridable, as the graph inputs declare.
  kOverridable,
};

// The first IR version in which an initializer need not be a graph input.
inline constexpr std::int64_t kIrVersionInitializersNotInputs = 4;

// Whether the initializers listed among the main graph's inputs of `model` are constants.
bool InitializerInputsAreConstant(const ModelProto& model, InitializerInputs policy);

// When InitializerInputsAreConstant, removes the main graph's inputs that name an
// initializer (the rest of the core then sees ordinary constants) and raises the IR
// version to 4 (when an input was removed), the first that lets an initializer be no input, so that the model stays
// valid. Returns the number of inputs removed. Nested graphs are untouched: their inputs
// are the formal parameters of the node holding them.
std::size_t MakeInitializerInputsConstant(ModelProto& model, InitializerInputs policy);

// Raises the IR version of `model` to 4 when it is between 1 and 3 and an initializer of
// the main graph is not among its inputs, which those versions do not allow. A model that
// onnxopt changes gains such initializers (folding, rewrites), and onnxruntime cannot load
// an IR-3 model whose graph output is one (a graph output computed from constants, once
// folded). Returns whether it raised it.
bool DeclareIrVersionOfInitializersNotInputs(ModelProto& model);

}  // namespace onnxopt::core::ir
