#include "tests/support/test_support.h"

#include <fcntl.h>
#include <onnx/defs/parser.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <array>
#include <chrono>
#include <cstdlib>
#include <fstream>
#include <random>
#include <sstream>
#include <stdexcept>

#include <gtest/gtest.h>

#include "onnx_core/eval/tensor.h"

namespace fs = std::filesystem;

namespace onnxopt::testing {

TempDir::TempDir() {
  std::random_device device;
  for (int attempt = 0; attempt < 100; ++attempt) {
    fs::path candidate = fs::temp_directory_path() / ("onnxopt-test-" + std::to_string(device()));
    if (fs::create_directory(candidate)) {
      path_ = candidate;
      return;
    }
  }
  throw std::runtime_error("cannot create a temporary folder");
}

TempDir::~TempDir() {
  std::error_code ignored;
  for (auto it = fs::recursive_directory_iterator(path_, ignored); it != fs::recursive_directory_iterator();
       it.increment(ignored)) {
    if (it->is_directory(ignored) && !it->is_symlink(ignored))
      fs::permissions(it->path(), fs::perms::owner_all, fs::perm_options::add, ignored);
  }
  fs::permissions(path_, fs::perms::owner_all, fs::perm_options::add, ignored);
  fs::remove_all(path_, ignored);
}

ModelProto ParseText(std::string_view text) {
  ModelProto model;
  std::string copy(text);
  auto status = onnx::OnnxParser::Parse(model, copy.c_str());
  if (!status.IsOK()) {
    ADD_FAILURE() << "ONNX text does not parse: " << status.ErrorMessage() << "\n" << text;
    throw std::runtime_error("ONNX text does not parse: " + status.ErrorMessage());
  }
  return model;
}

fs::path SourceDir() {
  if (const char* dir = std::getenv("ONNXOPT_SOURCE_DIR")) return dir;
  return ONNXOPT_DEFAULT_SOURCE_DIR;
}

fs::path CorpusDir() { return SourceDir().parent_path() / "shared" / "corpus"; }

std::vector<fs::path> CorpusModels() {
  std::vector<fs::path> models;
  for (const auto& entry : fs::directory_iterator(CorpusDir()))
    if (entry.path().extension() == ".onnx") models.push_back(entry.path());
  std::sort(models.begin(), models.end());
  return models;
}

fs::path OnnxoptExe() {
  if (const char* exe = std::getenv("ONNXOPT_EXE")) return exe;
  return ONNXOPT_DEFAULT_EXE;
}

void WriteFile(const fs::path& path, std::string_view bytes) {
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  out.write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
  if (!out) throw std::runtime_error("cannot write " + path.string());
}

std::string ReadFile(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw std::runtime_error("cannot read " + path.string());
  std::ostringstream content;
  content << in.rdbuf();
  return content.str();
}

CommandResult RunCommand(const std::vector<std::string>& argv, const CommandLimits& limits) {
  int pipe_fds[2];
  if (pipe(pipe_fds) != 0) throw std::runtime_error("pipe failed");
  const auto start = std::chrono::steady_clock::now();
  pid_t pid = fork();
  if (pid < 0) throw std::runtime_error("fork failed");
  if (pid == 0) {
    if (limits.seconds > 0) alarm(limits.seconds);  // survives exec; SIGALRM ends the command
#if !defined(__SANITIZE_ADDRESS__)
    if (limits.address_space_bytes > 0) {
      const rlimit address_space{limits.address_space_bytes, limits.address_space_bytes};
      setrlimit(RLIMIT_AS, &address_space);
    }
#endif
    dup2(pipe_fds[1], STDOUT_FILENO);
    dup2(pipe_fds[1], STDERR_FILENO);
    close(pipe_fds[0]);
    close(pipe_fds[1]);
    std::vector<char*> args;
    for (const auto& arg : argv) args.push_back(const_cast<char*>(arg.c_str()));
    args.push_back(nullptr);
    execv(args[0], args.data());
    _exit(127);
  }
  close(pipe_fds[1]);
  CommandResult result;
  std::array<char, 4096> buffer;
  ssize_t count;
  while ((count = read(pipe_fds[0], buffer.data(), buffer.size())) > 0) result.output.append(buffer.data(), count);
  close(pipe_fds[0]);
  int status = 0;
  rusage usage{};
  wait4(pid, &status, 0, &usage);
  result.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  result.peak_rss_kib = usage.ru_maxrss;
  result.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  return result;
}

ModelProto Float16RoundingAmplifier(bool reassociated, float b) {
  using core::eval::Tensor;
  constexpr int kTerms = 1024;
  // The text syntax has no float16 literals: the initializers are set below.
  ModelProto model = ParseText(reassociated ? R"ONNX(
    <ir_version: 8, opset_import: ["" : 18]>
    g (float16[4,1024] X) => (float16[4,8] Y) <float W = {0}, float ab = {0}> {
      m = Mul(X, ab)
      Y = MatMul(m, W)
    })ONNX"
                                            : R"ONNX(
    <ir_version: 8, opset_import: ["" : 18]>
    g (float16[4,1024] X) => (float16[4,8] Y) <float W = {0}, float a = {0}, float b = {0}> {
      m1 = Mul(X, a)
      m = Mul(m1, b)
      Y = MatMul(m, W)
    })ONNX");
  auto set = [&](int index, Tensor value) {
    TensorProto& initializer = *model.mutable_graph()->mutable_initializer(index);
    initializer = value.ToProto(initializer.name());
  };
  Tensor weights(TensorProto::FLOAT16, {kTerms, 8});
  std::uint32_t state = 12345;
  std::uint16_t* w = weights.MutableData<std::uint16_t>();
  for (int i = 0; i < kTerms * 8; ++i) {
    state = state * 1664525u + 1013904223u;
    w[i] = core::eval::FloatToHalf(static_cast<float>(state >> 8) / static_cast<float>(1u << 24) * 2.0f - 1.0f);
  }
  set(0, weights);
  auto scalar = [](float value) {
    Tensor tensor(TensorProto::FLOAT16, {});
    *tensor.MutableData<std::uint16_t>() = core::eval::FloatToHalf(value);
    return tensor;
  };
  const float a = 1.7f;
  if (reassociated) {
    set(1, scalar(core::eval::HalfToFloat(core::eval::FloatToHalf(a)) * b));
  } else {
    set(1, scalar(a));
    set(2, scalar(b));
  }
  return model;
}

ModelProto CallChainModel(int depth, int width, const std::string& leaf_domain, const std::string& leaf_op) {
  ModelProto model = ParseText(R"ONNX(
    <ir_version: 8, opset_import: ["" : 18, "local" : 1]>
    g (float[2] x) => (float[2] y) { y = local.F0 (x) })ONNX");
  auto* leaf_import = model.add_opset_import();
  leaf_import->set_domain(leaf_domain);
  leaf_import->set_version(1);
  for (int level = 0; level < depth; ++level) {
    FunctionProto& function = *model.add_functions();
    function.set_name("F" + std::to_string(level));
    function.set_domain("local");
    function.add_input("x");
    function.add_output("y");
    *function.mutable_opset_import() = model.opset_import();
    const bool leaf = level == depth - 1;
    const int calls = leaf ? 1 : width;
    for (int call = 0; call < calls; ++call) {
      NodeProto& node = *function.add_node();
      node.set_domain(leaf ? leaf_domain : "local");
      node.set_op_type(leaf ? leaf_op : "F" + std::to_string(level + 1));
      node.add_input(call == 0 ? "x" : "t" + std::to_string(call - 1));
      node.add_output(call == calls - 1 ? "y" : "t" + std::to_string(call));
    }
  }
  return model;
}

std::vector<fs::path> ListFiles(const fs::path& dir) {
  std::vector<fs::path> files;
  for (const auto& entry : fs::recursive_directory_iterator(dir))
    if (!entry.is_directory()) files.push_back(entry.path());
  std::sort(files.begin(), files.end());
  return files;
}

}  // namespace onnxopt::testing
