// onnxopt: the command line. Each subcommand lives in its own command_*.cc file.

#include <cstdint>
#include <cstdio>
#include <exception>
#include <iostream>
#include <string>
#include <vector>

#include "onnx_extensions/kernels/register_kernels.h"
#include "onnx_extensions/patterns/dispatch_table.h"
#include "onnx_extensions/shapes/register_shape_functions.h"
#include "onnx_core/ir/tensor_data.h"
#include "onnx_core/utils/close_names.h"
#include "tools/allocator/allocator.h"
#include "tools/onnxopt/cli.h"
#include "tools/onnxopt/model_inputs.h"
#include "tools/onnxopt/terminal_output.h"

namespace {

// Options that every command accepts, described after each command's help.
std::string CommonOptionsHelp() {
  const double default_gib = static_cast<double>(onnxopt::core::ir::DefaultMaxTensorBytes()) / (1u << 30);
  char default_text[32];
  std::snprintf(default_text, sizeof default_text, "%.1f GiB", default_gib);
  return std::string(R"(
options of every command:
  --max-tensor-bytes N    the largest tensor onnxopt may allocate while it evaluates a
                          model, folds constants or infers shapes, in bytes (suffixes K,
                          M, G). Default: a quarter of the physical memory, here )") +
         default_text + R"(.
                          A model that needs a larger tensor is refused (exit 2; the
                          message gives the size and the limit); a small hostile file
                          cannot make onnxopt exhaust the memory.
)";
}

// Takes the options of every command out of `args` and applies them.
void ApplyCommonOptions(std::vector<std::string>& args) {
  const std::vector<std::string> values = onnxopt::cli::TakeRepeatedOption(args, "--max-tensor-bytes");
  if (values.empty()) return;
  const std::uint64_t bytes = onnxopt::cli::ParseByteCount(values.back(), "--max-tensor-bytes");
  if (bytes == 0) throw onnxopt::cli::UsageError("--max-tensor-bytes must be positive");
  onnxopt::core::ir::SetMaxTensorBytes(bytes);
}

void PrintHelp(const std::vector<onnxopt::cli::Command>& commands) {
  std::cout << "onnxopt: rewrite ONNX models into smaller, faster graphs that compute the same outputs.\n\n"
               "usage: onnxopt COMMAND [OPTIONS] ...\n\ncommands:\n";
  for (const auto& command : commands)
    std::cout << "  " << command.name << std::string(12 - command.name.size(), ' ') << command.summary << "\n";
  std::cout << "  --version   the versions of onnxopt's dependencies and its memory allocator\n";
  std::cout << "\n'onnxopt COMMAND --help' describes a command. Every command accepts --max-tensor-bytes N,\n"
               "the largest tensor onnxopt may allocate (default: a quarter of the physical memory).\n"
               "Exit codes: 0 success, 1 usage error, 2 invalid model or unreadable/unwritable file, 3 internal error,\n"
               "5 (verify, optimize --check) the models' outputs differ.\n";
}

// What a bug report needs besides the model: the libraries onnxopt was built with and
// the allocator serving it (tools/allocator/allocator.h).
void PrintVersion() {
  std::cout << "onnxopt\n"
            << "ONNX IR version " << onnx::Version::IR_VERSION << " (libonnx), protobuf "
            << google::protobuf::internal::VersionString(GOOGLE_PROTOBUF_VERSION) << "\n"
            << "allocator: " << onnxopt::tools::AllocatorDescription() << "\n";
}

}  // namespace

int main(int argc, char** argv) {
  // Names and strings from the model reach the terminal (terminal_output.h).
  const onnxopt::cli::EscapeControlBytes escaped_output(std::cout);
  const onnxopt::cli::EscapeControlBytes escaped_errors(std::cerr);
  try {
    onnxopt::onnx_shapes::RegisterShapeFunctions();
    onnxopt::onnx_kernels::RegisterKernels();
    onnxopt::onnx_patterns::RegisterPatterns();
  } catch (const std::exception& error) {
    std::cerr << "onnxopt: internal error: " << error.what()
              << "\nThis is a bug in onnxopt; please report it.\n";
    return onnxopt::cli::kInternal;
  }
  const std::vector<onnxopt::cli::Command> commands = {onnxopt::cli::InfoCommand(),
                                                       onnxopt::cli::OptimizeCommand(),
                                                       onnxopt::cli::ReplayCommand(),
                                                       onnxopt::cli::PatternsCommand(),
                                                       onnxopt::cli::RunCommand(),
                                                       onnxopt::cli::VerifyCommand(),
                                                       onnxopt::cli::DiffCommand(),
                                                       onnxopt::cli::MemoryCommand()};
  std::vector<std::string> args(argv + 1, argv + argc);
  if (args.empty()) {
    PrintHelp(commands);
    return onnxopt::cli::kUsage;
  }
  if (args[0] == "-h" || args[0] == "--help" || args[0] == "help") {
    PrintHelp(commands);
    return onnxopt::cli::kOk;
  }
  if (args[0] == "--version") {
    PrintVersion();
    return onnxopt::cli::kOk;
  }
  for (const auto& command : commands) {
    if (command.name != args[0]) continue;
    std::vector<std::string> rest(args.begin() + 1, args.end());
    for (const auto& arg : rest) {
      if (arg == "-h" || arg == "--help") {
        std::cout << command.help << CommonOptionsHelp();
        return onnxopt::cli::kOk;
      }
    }
    try {
      ApplyCommonOptions(rest);
    } catch (const onnxopt::cli::UsageError& error) {
      std::cerr << "onnxopt " << command.name << ": " << error.what() << "\nTry 'onnxopt " << command.name
                << " --help' for more information.\n";
      return onnxopt::cli::kUsage;
    }
    return command.run(rest);
  }
  std::vector<std::string> names;
  for (const auto& command : commands) names.push_back(command.name);
  const std::string suggestion = onnxopt::utils::DidYouMean(onnxopt::utils::CloseNames(args[0], names));
  if (!suggestion.empty()) {
    std::cerr << "onnxopt: unknown command '" << args[0] << "'" << suggestion
              << "\nTry 'onnxopt --help' for the list of commands.\n";
    return onnxopt::cli::kUsage;
  }
  std::cerr << "onnxopt: unknown command '" << args[0] << "'\n";
  PrintHelp(commands);
  return onnxopt::cli::kUsage;
}
