// onnxopt: the command line. Each subcommand lives in its own command_*.cc file.

#include <exception>
#include <iostream>
#include <string>
#include <vector>

#include "onnx_extensions/kernels/register_kernels.h"
#include "onnx_extensions/patterns/dispatch_table.h"
#include "onnx_extensions/shapes/register_shape_functions.h"
#include "tools/onnxopt/cli.h"

namespace {

void PrintHelp(const std::vector<onnxopt::cli::Command>& commands) {
  std::cout << "onnxopt: rewrite ONNX models into smaller, faster graphs that compute the same outputs.\n\n"
               "usage: onnxopt COMMAND [OPTIONS] ...\n\ncommands:\n";
  for (const auto& command : commands)
    std::cout << "  " << command.name << std::string(12 - command.name.size(), ' ') << command.summary << "\n";
  std::cout << "\n'onnxopt COMMAND --help' describes a command.\n"
               "Exit codes: 0 success, 1 usage error, 2 invalid model or unreadable/unwritable file, 3 internal error,\n"
               "5 (verify) the models' outputs differ.\n";
}

}  // namespace

int main(int argc, char** argv) {
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
                                                       onnxopt::cli::VerifyCommand()};
  std::vector<std::string> args(argv + 1, argv + argc);
  if (args.empty()) {
    PrintHelp(commands);
    return onnxopt::cli::kUsage;
  }
  if (args[0] == "-h" || args[0] == "--help" || args[0] == "help") {
    PrintHelp(commands);
    return onnxopt::cli::kOk;
  }
  for (const auto& command : commands) {
    if (command.name != args[0]) continue;
    std::vector<std::string> rest(args.begin() + 1, args.end());
    for (const auto& arg : rest) {
      if (arg == "-h" || arg == "--help") {
        std::cout << command.help;
        return onnxopt::cli::kOk;
      }
    }
    return command.run(rest);
  }
  std::cerr << "onnxopt: unknown command '" << args[0] << "'\n";
  PrintHelp(commands);
  return onnxopt::cli::kUsage;
}
