#pragma once
// Bindings of declarative rules (onnx_core/fusion) for onnxopt.fusion: pattern and
// replacement builders, the match view, and passes whose hooks are Python methods.

#include <pybind11/pybind11.h>

namespace onnxopt::python {

// Adds the submodule `fusion` to `m` (the _onnxpycore module).
void BindFusion(pybind11::module_& m);

}  // namespace onnxopt::python
