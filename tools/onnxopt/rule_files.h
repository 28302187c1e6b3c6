#pragma once
// `onnxopt optimize --passes PATH`: declarative rules written in Python.
//
// The command line is C++ and does not embed Python. When --passes is given (or the
// environment variable ONNXOPT_PY_PASS_PATH is set), `optimize` hands the whole command
// to the Python package's command line, `/usr/bin/python3 -m onnxopt.cli optimize ...`,
// which loads the rule files, compiles the rules into engine patterns and runs the same
// optimizer through the bindings (docs/declarative-rules.md).

#include <optional>
#include <string>
#include <vector>

namespace onnxopt::cli {

// Replaces this process with the Python command line when `args` (the arguments of
// `optimize`) ask for Python rules; returns nullopt otherwise. Throws onnxopt::Error when
// the Python package cannot be found or started.
std::optional<int> RunWithPythonRules(const std::vector<std::string>& args);

}  // namespace onnxopt::cli
