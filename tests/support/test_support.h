#pragma once
// Helpers shared by all test executables. Keep per-test-file helpers out of here unless
// a second test file needs them.

#include <cstdint>
#include <filesystem>
#include <string>
#include <string_view>
#include <vector>

#include "onnx_core/ir/onnx_pb.h"

namespace onnxopt::testing {

// A fresh folder under the system temporary directory, removed (with its content) on
// destruction. Permissions are restored first so that read-only test folders go too.
class TempDir {
 public:
  TempDir();
  ~TempDir();
  TempDir(const TempDir&) = delete;
  TempDir& operator=(const TempDir&) = delete;
  const std::filesystem::path& path() const { return path_; }
  std::filesystem::path operator/(std::string_view name) const { return path_ / name; }

 private:
  std::filesystem::path path_;
};

// Parses a model written in the ONNX text syntax; fails the current test (and throws)
// when the text does not parse.
ModelProto ParseText(std::string_view text);

// A model of local functions calling each other: the graph (float[2] x) => (float[2] y)
// calls local.F0; each F<i> calls F<i+1> `width` times in sequence, and the last one,
// F<depth-1>, runs the operator `leaf_op` of domain `leaf_domain` once. Expanded, one
// call of F0 runs width^(depth-1) leaves: the shape of hostile models whose work
// doubles per level.
ModelProto CallChainModel(int depth, int width, const std::string& leaf_domain, const std::string& leaf_op);

// Y = MatMul(X * a * b, W) in float16, X float16[4,1024], W float16[1024,8] (fixed
// pseudo-random weights in [-1, 1]), a = 1.7: the sums of 1 024 terms amplify one unit in
// the last place of their terms beyond float16's tolerances. `reassociated`: the product
// as X * (a * b), as SwitchOrderBinaryPattern and MulMulMulScalarPattern rewrite it.
ModelProto Float16RoundingAmplifier(bool reassociated, float b);

// The repository root (ONNXOPT_SOURCE_DIR overrides the one compiled in).
std::filesystem::path SourceDir();
// ../shared/corpus next to the repository.
std::filesystem::path CorpusDir();
// Every *.onnx file of the corpus, sorted.
std::vector<std::filesystem::path> CorpusModels();
// The onnxopt executable of this build (ONNXOPT_EXE overrides it).
std::filesystem::path OnnxoptExe();

void WriteFile(const std::filesystem::path& path, std::string_view bytes);
std::string ReadFile(const std::filesystem::path& path);

struct CommandResult {
  int exit_code = -1;  // -1 when killed by a signal
  std::string output;  // stdout and stderr, interleaved
  long peak_rss_kib = 0;  // the command's peak resident memory
  double seconds = 0;     // its wall-clock time
};
// Bounds on a command run by a test, so that a regression fails the test instead of
// hanging it or exhausting the machine's memory.
struct CommandLimits {
  unsigned seconds = 0;                  // killed (SIGALRM) after this; 0: no limit
  std::uint64_t address_space_bytes = 0;  // RLIMIT_AS (not under ASan, which reserves terabytes); 0: no limit
};
// Runs `argv` (no shell) and captures its output.
CommandResult RunCommand(const std::vector<std::string>& argv, const CommandLimits& limits = {});

// Every regular file under `dir`, recursively (to check that nothing was left behind).
std::vector<std::filesystem::path> ListFiles(const std::filesystem::path& dir);

}  // namespace onnxopt::testing
