// _onnxpypatterns: the built-in ONNX patterns (lib_onnx_patterns) for Python.
//
// This module contains lib_onnx_patterns only; every onnx_core symbol (the pattern
// registry included) comes from libonnxopt_core.so, which _onnxpycore loaded first, so
// RegisterPatterns fills the one registry both modules see. The pattern classes derive
// from _onnxpycore's PatternOptimization binding (pybind11 shares registered types
// between modules).
//
// Every built-in pattern is its own Python class (BindPatternClasses, generated from the
// pattern headers), whose __doc__ is the registry's documentation; create(name) and
// names() reach them by registered name.

#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "onnx_core/optimizer/pattern_registry.h"
#include "onnx_extensions/patterns/dispatch_table.h"
#include "python/src/pattern_classes.h"

namespace py = pybind11;

namespace onnxopt::python {

std::string BuiltInPatternDoc(const std::string& name) {
  for (const auto& entry : core::builder::RegisteredPatterns())
    if (entry.name == name) return entry.doc;
  return "";
}

}  // namespace onnxopt::python

namespace {

using onnxopt::core::builder::PatternOptimization;

// The built-in patterns: the registry entries of a family other than "python" and "".
std::vector<std::pair<std::string, std::string>> BuiltIn() {
  std::vector<std::pair<std::string, std::string>> entries;
  for (const auto& entry : onnxopt::core::builder::RegisteredPatterns())
    if (!entry.family.empty() && entry.family != "python") entries.emplace_back(entry.name, entry.family);
  return entries;
}

}  // namespace

PYBIND11_MODULE(_onnxpypatterns, m) {
  m.doc() = "The built-in ONNX rewrite patterns (lib_onnx_patterns)";
  py::module_::import("onnxopt._onnxpycore");  // the base classes and the shared core
  onnxopt::onnx_patterns::RegisterPatterns();

  m.def("register_patterns", &onnxopt::onnx_patterns::RegisterPatterns,
        "Registers every built-in pattern in the global registry (idempotent; done at import).");
  m.def(
      "names", [] {
        std::vector<std::string> names;
        for (auto& [name, family] : BuiltIn()) names.push_back(name);
        return names;
      },
      "The names of the built-in patterns, in registration order.");
  m.def("families", &BuiltIn, "(name, family) of every built-in pattern.");
  m.def("doc", &onnxopt::python::BuiltInPatternDoc, py::arg("name"),
        "The documentation of the built-in pattern `name` (the comment above its C++ class).");
  m.def(
      "create",
      [](const std::string& name) -> std::shared_ptr<PatternOptimization> {
        for (const auto& entry : onnxopt::core::builder::RegisteredPatterns())
          if (entry.name == name && !entry.family.empty() && entry.family != "python")
            return std::shared_ptr<PatternOptimization>(entry.factory());
        throw py::key_error("no built-in pattern is named '" + name + "'");
      },
      py::arg("name"), "A new instance of the built-in pattern `name`.");

  onnxopt::python::BindPatternClasses(m);
}
