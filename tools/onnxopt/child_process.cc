#include "tools/onnxopt/child_process.h"

#include <fcntl.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include "onnx_core/common/error.h"
#include "onnx_core/common/quote.h"

extern char** environ;

namespace onnxopt::cli {

int RunProgram(const std::vector<std::string>& arguments, std::string_view purpose, ChildOutput redirect) {
  std::vector<char*> argv;
  std::vector<std::string> copies = arguments;
  for (std::string& argument : copies) argv.push_back(argument.data());
  argv.push_back(nullptr);
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  for (const auto& [fd, path] : {std::pair{STDOUT_FILENO, redirect.output}, std::pair{STDERR_FILENO, redirect.error}})
    if (path) posix_spawn_file_actions_addopen(&actions, fd, path->c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0600);
  pid_t child = 0;
  const int started = ::posix_spawnp(&child, argv[0], &actions, nullptr, argv.data(), environ);
  posix_spawn_file_actions_destroy(&actions);
  const std::string program = Quote(arguments[0]);
  if (started != 0) throw IoError("cannot run " + program + " " + std::string(purpose) + ": " + std::strerror(started));
  int status = 0;
  while (::waitpid(child, &status, 0) < 0)
    if (errno != EINTR) throw IoError("waiting for " + program + ": " + std::strerror(errno));
  if (!WIFEXITED(status))
    throw IoError(program + " " + std::string(purpose) + " was stopped by a signal (" +
                  (WIFSIGNALED(status) ? ::strsignal(WTERMSIG(status)) : "unknown") + ")");
  return WEXITSTATUS(status);
}

}  // namespace onnxopt::cli
