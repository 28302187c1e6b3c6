#pragma once

namespace onnxopt::python {

// Registers the shape functions and kernels (idempotent). Called when _onnxpycore is
// imported: the optimizer then infers shapes and folds constants as the command line does.
void RegisterCoreExtensions();

}  // namespace onnxopt::python
