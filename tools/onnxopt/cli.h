#pragma once
// Shared pieces of the onnxopt command line: argument parsing, exit codes, and the
// mapping from exceptions to messages.

#include <functional>
#include <map>
#include <cstdint>
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

namespace onnxopt::cli {

// Exit codes, the same for every subcommand.
enum ExitCode : int {
  kOk = 0,
  kUsage = 1,         // bad command line
  kInvalidInput = 2,  // the model is invalid, or a file cannot be read or written
  kInternal = 3,      // a bug in onnxopt
  kMismatch = 5,      // onnxopt verify: the two models' outputs differ
};

// A command-line mistake; reported with the subcommand's usage line.
class UsageError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// A minimal parser: options with a value (`--name VALUE` or `--name=VALUE`), flags, and
// positional arguments. Declaring options up front lets unknown ones be rejected.
class Arguments {
 public:
  Arguments(std::vector<std::string> args, std::vector<std::string> value_options,
            std::vector<std::string> flags);

  bool Flag(std::string_view name) const;
  std::optional<std::string> Value(std::string_view name) const;
  const std::vector<std::string>& Positional() const { return positional_; }
  // The positional arguments, checking their count.
  const std::vector<std::string>& Positional(std::size_t min_count, std::size_t max_count) const;

 private:
  std::map<std::string, std::string, std::less<>> values_;
  std::vector<std::string> flags_;
  std::vector<std::string> positional_;
};

// A count with an optional binary suffix: K = 2^10, M = 2^20, G = 2^30 (or KiB, MiB,
// GiB). UsageError naming `option` otherwise.
std::uint64_t ParseByteCount(std::string_view text, std::string_view option);  // "16M" bytes
std::uint64_t ParseStepCount(std::string_view text, std::string_view option);  // "1G" steps

struct Command {
  std::string name;
  std::string summary;   // one line, for `onnxopt --help`
  std::string help;      // full text for `onnxopt NAME --help`
  std::function<int(const std::vector<std::string>&)> run;
};

Command DiffCommand();
Command InfoCommand();
Command MemoryCommand();
Command OptimizeCommand();
Command PatternsCommand();
Command ReplayCommand();
Command RunCommand();
Command VerifyCommand();

// Runs `body`, turning exceptions into a message on stderr and an exit code.
int RunReportingErrors(const std::string& command, const std::string& usage,
                       const std::function<int()>& body);

}  // namespace onnxopt::cli
