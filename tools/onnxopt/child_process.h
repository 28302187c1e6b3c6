#pragma once
// Programs the command line runs and waits for: Node.js for `--check-with onnxruntime`
// (ort_check.h), the Python command line for `optimize --passes` when a check follows it
// (rule_files.h).

#include <filesystem>
#include <string>
#include <string_view>
#include <vector>

namespace onnxopt::cli {

// Where a child's standard output and error go: null leaves them on ours.
struct ChildOutput {
  const std::filesystem::path* output = nullptr;
  const std::filesystem::path* error = nullptr;
};

// Runs `arguments` (the program looked up on PATH) and returns its exit status. Throws
// IoError when it cannot be started, or does not exit normally (a signal), naming it and
// `purpose` ("for the onnxruntime check").
int RunProgram(const std::vector<std::string>& arguments, std::string_view purpose, ChildOutput redirect = {});

}  // namespace onnxopt::cli
