#pragma once
// Switches read from the environment: debugging aids (ONNXOPT_INCREMENTAL,
// ONNXOPT_CHECK_INCREMENTAL) that must reach code deep in a run without an option
// threaded through every caller, the command line, and the Python module.

namespace onnxopt {

// `default_value` when `name` is unset or empty; otherwise false for "0", true for
// anything else.
bool EnvironmentFlag(const char* name, bool default_value);

}  // namespace onnxopt
