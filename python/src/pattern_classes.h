#pragma once
// One Python class per built-in pattern class. The list is generated from the pattern
// headers (scripts/generate_pattern_docs.py writes BindPatternClasses into the build
// folder), so a new pattern gets its class without an edit here.

#include <pybind11/pybind11.h>

#include <memory>
#include <string>

#include "onnx_core/optimizer/pattern.h"

namespace onnxopt::python {

// The registry's documentation of the built-in pattern `name` ("" when undocumented).
std::string BuiltInPatternDoc(const std::string& name);

// Binds T as onnxopt.<T::kName>, a subclass of PatternOptimization whose __doc__ is the
// registry's documentation. pybind11 returns registered C++ objects as their most derived
// bound type, so registry instances (create(name)) are instances of these classes too.
template <class T>
void BindPatternClass(pybind11::module_& m) {
  const std::string name(T::kName);
  const std::string doc = BuiltInPatternDoc(name);
  pybind11::class_<T, core::builder::PatternOptimization, std::shared_ptr<T>>(m, name.c_str(), doc.c_str())
      .def(pybind11::init<>());
}

// Every built-in pattern class (generated).
void BindPatternClasses(pybind11::module_& m);

}  // namespace onnxopt::python
