#pragma once
// `onnxopt optimize --passes PATH`: declarative rules written in Python.
//
// The command line is C++ and does not embed Python. When --passes is given (or the
// environment variable ONNXOPT_PY_PASS_PATH is set), `optimize` hands the whole command
// to the Python package's command line, `/usr/bin/python3 -m onnxopt.cli optimize ...`,
// which loads the rule files, compiles the rules into engine patterns and runs the same
// optimizer through the bindings (docs/declarative-rules.md). Only `--check-with
// onnxruntime` stays here: `optimize` makes that check itself once the Python command line
// has saved the model (command_optimize.cc).

#include <string>
#include <vector>

namespace onnxopt::cli {

// Whether `args` (the arguments of `optimize`) ask for Python rules: --passes, or
// ONNXOPT_PY_PASS_PATH set in the environment.
bool UsesPythonRules(const std::vector<std::string>& args);

// How RunPythonRules runs the Python command line.
enum class PythonRun {
  kReplaceThisProcess,  // exec: its exit status is the command's
  kWaitForIt,           // as a child: this process goes on once it has exited
};

// Runs the Python command line on `args`. kReplaceThisProcess does not return (but by an
// exception); kWaitForIt returns its exit status. Throws onnxopt::Error when the Python
// package cannot be found or started.
int RunPythonRules(const std::vector<std::string>& args, PythonRun how);

}  // namespace onnxopt::cli
