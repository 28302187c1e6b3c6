#include "tools/onnxopt/rule_files.h"

#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <string_view>
#include <utility>

#include "onnx_core/common/error.h"
#include "onnx_core/ir/tensor_data.h"
#include "tools/onnxopt/child_process.h"
#include "tools/onnxopt/cli.h"
#include "tools/onnxopt/model_inputs.h"

namespace onnxopt::cli {

namespace {

namespace fs = std::filesystem;

constexpr const char* kPython = "/usr/bin/python3";

// A built package: the Python sources and the extension module next to them.
bool HoldsPackage(const fs::path& dir) {
  std::error_code error;
  if (!fs::is_regular_file(dir / "onnxopt" / "fusion.py", error)) return false;
  for (const auto& entry : fs::directory_iterator(dir / "onnxopt", error))
    if (entry.path().filename().string().rfind("_onnxpycore", 0) == 0) return true;
  return false;
}

// Where the onnxopt package is: ONNXOPT_PYTHONPATH, the build tree next to this
// executable (build/onnxopt -> build/python), or empty (an installed package).
std::string PackageDir() {
  if (const char* dir = std::getenv("ONNXOPT_PYTHONPATH"); dir && *dir) return dir;
  std::error_code error;
  const fs::path exe = fs::read_symlink("/proc/self/exe", error);
  if (!error)
    for (const fs::path& candidate : {exe.parent_path() / "python", exe.parent_path().parent_path() / "python"})
      if (HoldsPackage(candidate)) return candidate.string();
  return {};
}

}  // namespace

bool UsesPythonRules(const std::vector<std::string>& args) {
  const bool has_passes = std::any_of(args.begin(), args.end(), [](const std::string& arg) {
    return arg == "--passes" || arg.rfind("--passes=", 0) == 0;
  });
  const char* env_path = std::getenv("ONNXOPT_PY_PASS_PATH");
  return has_passes || (env_path && *env_path);
}

int RunPythonRules(const std::vector<std::string>& args, PythonRun how) {
  const std::string package = PackageDir();
  if (!package.empty()) {
    const char* old = std::getenv("PYTHONPATH");
    const std::string path = package + (old && *old ? ":" + std::string(old) : "");
    ::setenv("PYTHONPATH", path.c_str(), 1);
  }
  // Sizes reach the Python command line as plain numbers: the suffixes (K, M, G) are this
  // parser's. main took --max-tensor-bytes out of the arguments and applied it to this
  // process: the Python one gets the limit in force. Given first, so that a "--" among the
  // arguments cannot make them positional.
  std::vector<std::string> command{kPython, "-m", "onnxopt.cli", "optimize",
                                   "--max-tensor-bytes=" + std::to_string(core::ir::MaxTensorBytes())};
  std::vector<std::string> rest = args;
  using ParseCount = std::uint64_t (*)(std::string_view text, std::string_view option);
  const std::pair<const char*, ParseCount> counts[] = {{"--fold-size-limit", ParseByteCount},
                                                       {"--fold-work-limit", ParseStepCount},
                                                       {"--external-data-threshold", ParseByteCount}};
  for (const auto& [option, parse] : counts)
    if (const std::vector<std::string> values = TakeRepeatedOption(rest, option); !values.empty())
      command.push_back(std::string(option) + "=" + std::to_string(parse(values.back(), option)));
  command.insert(command.end(), rest.begin(), rest.end());
  if (how == PythonRun::kWaitForIt) return RunProgram(command, "for the rules of --passes");
  std::vector<char*> argv;
  for (std::string& arg : command) argv.push_back(arg.data());
  argv.push_back(nullptr);
  ::execv(kPython, argv.data());
  std::string message = "--passes needs the Python package: cannot run ";
  message.append(kPython).append(": ").append(std::strerror(errno));
  throw Error(message);
}

}  // namespace onnxopt::cli
