#include "tools/onnxopt/ort_check.h"

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <iterator>
#include <sstream>
#include <vector>

#include "onnx_core/common/error.h"
#include "onnx_core/common/quote.h"
#include "onnx_core/ir/model_io.h"
#include "tools/onnxopt/child_process.h"
#include "tools/onnxopt/cli.h"

namespace onnxopt::cli {

namespace fs = std::filesystem;

namespace {

// compare_models.js's exit codes (documented at its top).
constexpr int kHarnessEquivalent = 0;
constexpr int kHarnessMismatch = 1;
constexpr int kHarnessModelAFails = 2;  // also a usage error: its message tells them apart

// A folder of our own under the system's temporary folder, removed with everything in it.
class TemporaryFolder {
 public:
  TemporaryFolder() {
    std::string pattern = (fs::temp_directory_path() / "onnxopt-ort-check-XXXXXX").string();
    if (!::mkdtemp(pattern.data()))
      throw IoError("cannot create a temporary folder for the onnxruntime check: " + std::string(std::strerror(errno)));
    path_ = pattern;
  }
  ~TemporaryFolder() {
    std::error_code ignored;
    fs::remove_all(path_, ignored);
  }
  TemporaryFolder(const TemporaryFolder&) = delete;
  TemporaryFolder& operator=(const TemporaryFolder&) = delete;
  const fs::path& path() const { return path_; }

 private:
  fs::path path_;
};

// The harness's report without its "ok" lines: what differs, its warnings and verdict.
void PrintHarnessProblems(const fs::path& output_path) {
  std::ifstream in(output_path);
  for (std::string line; std::getline(in, line);)
    if (!line.starts_with("ok ")) std::cout << "  onnxruntime: " << line << "\n";
}

std::string ReadText(const fs::path& path) {
  std::ifstream in(path);
  return std::string(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
}

// Whether the harness's standard error has its line for the original failing to run
// (after onnxruntime's own log lines).
bool SaysModelAFailsToRun(const std::string& errors) {
  std::istringstream lines(errors);
  for (std::string line; std::getline(lines, line);)
    if (line.starts_with("compare_models: model A (") && line.find(" fails to run (seed ") != std::string::npos)
      return true;
  return false;
}

std::string Number(double value) {
  std::ostringstream text;
  text.precision(17);
  text << value;
  return text.str();
}

}  // namespace

std::string FindOrtHarness() {
  if (const char* path = std::getenv("ONNXOPT_ORT_HARNESS"); path && *path) return path;
  std::error_code error;
  const fs::path exe = fs::read_symlink("/proc/self/exe", error);
  if (error) return {};
  const fs::path folder = exe.parent_path();
  for (const fs::path& candidate : {folder / "ort" / "compare_models.js",
                                    folder.parent_path() / "share" / "onnxopt" / "ort" / "compare_models.js"})
    if (fs::is_regular_file(candidate, error)) return candidate.string();
  return {};
}

int CheckWithOnnxruntime(const ModelProto& original, const std::string& saved, int runs,
                         const core::verify::EmptyDimensionRounds& empty,
                         const core::eval::ToleranceOptions& tolerances, bool quiet) {
  const std::string harness = FindOrtHarness();
  if (harness.empty())
    throw IoError("--check-with onnxruntime: the harness compare_models.js is not installed next to onnxopt "
                  "(ort/ or ../share/onnxopt/ort/); set ONNXOPT_ORT_HARNESS to its path");
  TemporaryFolder folder;
  const fs::path reference = folder.path() / "original.onnx";
  ModelProto copy = original;
  core::ir::SaveModel(copy, reference);
  const fs::path harness_output = folder.path() / "harness.txt";
  auto run_harness = [&](const std::vector<std::string>& options, const fs::path* error_path) {
    std::vector<std::string> command{"node", harness, reference.string(), saved};
    command.insert(command.end(), options.begin(), options.end());
    if (tolerances.atol) command.insert(command.end(), {"--atol", Number(*tolerances.atol)});
    if (tolerances.rtol) command.insert(command.end(), {"--rtol", Number(*tolerances.rtol)});
    return RunProgram(command, "for the onnxruntime check", {&harness_output, error_path});
  };
  const auto could_not = [&](int status, const std::string& which) {
    return IoError("--check-with onnxruntime: the check could not be made (" + Quote(harness) + " exited with " +
                   std::to_string(status) + which + "; its message is above)");
  };
  const int status = run_harness({"--seed", "0", "--runs", std::to_string(runs)}, nullptr);
  if (status != kHarnessEquivalent) {
    PrintHarnessProblems(harness_output);
    if (status == kHarnessMismatch) {
      std::cout << "check: onnxruntime finds that the optimized model's outputs differ from the original's\n";
      return kMismatch;
    }
    throw could_not(status, "");
  }
  // The empty-dimension sets. The harness exits 2 both for a usage error and for the
  // original failing to run; the models loaded and ran above, so its message tells.
  core::verify::EmptyDimensionRounds rounds = empty;
  const fs::path harness_errors = folder.path() / "harness-errors.txt";
  for (const std::string& dim : rounds.dims) {
    const int round = run_harness({"--seed", "0", "--runs", "1", "--dim", dim + "=0"}, &harness_errors);
    if (round == kHarnessEquivalent) continue;
    const std::string errors = ReadText(harness_errors);
    if (round == kHarnessModelAFails && SaysModelAFailsToRun(errors)) {
      rounds.skipped.push_back(dim);
      continue;
    }
    PrintHarnessProblems(harness_output);
    std::cerr << errors;
    if (round == kHarnessMismatch) {
      std::cout << "check: onnxruntime finds that the optimized model's outputs differ from the original's with "
                << dim << " = 0 (empty-dimension set, seed 0)\n";
      return kMismatch;
    }
    throw could_not(round, " with " + dim + " = 0");
  }
  if (!quiet) {
    const std::string empty_sets = core::verify::DescribeEmptyDimensionRounds(rounds, "the original");
    std::cout << "check: onnxruntime finds the same outputs on " << runs << " random input set"
              << (runs == 1 ? "" : "s") << (empty_sets.empty() ? "" : " and " + empty_sets) << "\n";
  }
  return kOk;
}

}  // namespace onnxopt::cli
