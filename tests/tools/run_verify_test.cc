// `onnxopt run` and `onnxopt verify` end to end: outputs, .npy files and their escaped
// names, random inputs that agree with tests/ort/compare_models.js, exit codes.

#include <cstdint>
#include <filesystem>
#include <string>
#include <utility>
#include <vector>

#include <gtest/gtest.h>

#include "onnx_core/eval/tensor.h"
#include "onnx_core/ir/model_io.h"
#include "onnx_core/eval/npy.h"
#include "tests/support/test_support.h"

namespace onnxopt::testing {
namespace {

using core::eval::Tensor;

// y = Relu(x + b) with x float[N,3] and b float[3]; out1 = x + b (renamed "out/1" by
// RunVerifyTest::Model: the text syntax has no quoted names).
constexpr const char* kAddRelu = R"ONNX(
  <ir_version: 8, opset_import: ["" : 18]>
  g (float[N,3] x, float[3] b) => (float[N,3] y, float[N,3] out1) {
    out1 = Add (x, b)
    y = Relu (out1)
  })ONNX";

// The same y with Max(s, 0) instead of Relu: equal outputs.
constexpr const char* kAddMax = R"ONNX(
  <ir_version: 8, opset_import: ["" : 18]>
  g (float[N,3] x, float[3] b) => (float[N,3] y, float[N,3] out1) {
    out1 = Add (x, b)
    zero = Constant <value = float {0}> ()
    y = Max (out1, zero)
  })ONNX";

// y = Abs(x + b): differs from Relu on negative sums.
constexpr const char* kAddAbs = R"ONNX(
  <ir_version: 8, opset_import: ["" : 18]>
  g (float[N,3] x, float[3] b) => (float[N,3] y, float[N,3] out1) {
    out1 = Add (x, b)
    y = Abs (out1)
  })ONNX";

Tensor FloatTensor(std::vector<std::int64_t> shape, const std::vector<float>& values) {
  Tensor tensor(TensorProto::FLOAT, std::move(shape));
  for (std::size_t i = 0; i < values.size(); ++i) tensor.MutableData<float>()[i] = values[i];
  return tensor;
}

class RunVerifyTest : public ::testing::Test {
 protected:
  std::string Model(const std::string& name, const char* text) {
    ModelProto model = ParseText(text);
    // A name that is not a valid file name, to check the escaping.
    auto rename = [](std::string* name) {
      if (*name == "out1") *name = "out/1";
    };
    for (auto& node : *model.mutable_graph()->mutable_node()) {
      for (auto& input : *node.mutable_input()) rename(&input);
      for (auto& output : *node.mutable_output()) rename(&output);
    }
    for (auto& output : *model.mutable_graph()->mutable_output()) rename(output.mutable_name());
    const auto path = dir_ / name;
    WriteFile(path, core::ir::SerializeDeterministic(model));
    return path.string();
  }
  std::string Npy(const std::string& name, const Tensor& tensor) {
    core::eval::WriteNpy(tensor, dir_ / name);
    return (dir_ / name).string();
  }
  CommandResult Onnxopt(std::vector<std::string> args) {
    args.insert(args.begin(), OnnxoptExe().string());
    return RunCommand(args);
  }
  static void ExpectContains(const CommandResult& result, const std::string& text) {
    EXPECT_NE(result.output.find(text), std::string::npos) << "expected '" << text << "' in:\n" << result.output;
  }
  TempDir dir_;
};

TEST_F(RunVerifyTest, RunComputesOutputsFromNpyInputs) {
  const std::string model = Model("m.onnx", kAddRelu);
  const std::string x = Npy("x.npy", FloatTensor({2, 3}, {1, -2, 3, -4, 5, -6}));
  const std::string b = Npy("b.npy", FloatTensor({3}, {0.5f, 0.5f, 0.5f}));
  const auto out = dir_ / "out";
  auto result = Onnxopt({"run", model, "--input", "x=" + x, "--input=b=" + b, "--output-dir", out.string()});
  ASSERT_EQ(result.exit_code, 0) << result.output;
  ExpectContains(result, "y: float[2,3] min=0 max=5.5");
  ExpectContains(result, "out/1: float[2,3]");
  ExpectContains(result, "out%2F1.npy (output 'out/1')");
  EXPECT_TRUE(core::eval::ReadNpy(out / "y.npy") == FloatTensor({2, 3}, {1.5f, 0, 3.5f, 0, 5.5f, 0}));
  EXPECT_TRUE(core::eval::ReadNpy(out / "out%2F1.npy") == FloatTensor({2, 3}, {1.5f, -1.5f, 3.5f, -3.5f, 5.5f, -5.5f}));
}

TEST_F(RunVerifyTest, RandomInputsFollowTheOnnxruntimeHarness) {
  // x + b with b = 0 shows x: mulberry32(7) gives -0.97659051, -0.87608349, 0.95381528
  // first, as in tests/ort/compare_models.js.
  const std::string model = Model("m.onnx", kAddRelu);
  const std::string b = Npy("b.npy", Tensor(TensorProto::FLOAT, {3}));
  const auto out = dir_ / "out";
  auto result = Onnxopt({"run", model, "--random-inputs", "--seed", "7", "--dim", "N=1", "--input", "b=" + b,
                         "--output-dir", out.string()});
  ASSERT_EQ(result.exit_code, 0) << result.output;
  ExpectContains(result, "symbolic dims: N=1");
  const Tensor x = core::eval::ReadNpy(out / "out%2F1.npy");
  ASSERT_EQ(x.shape(), (std::vector<std::int64_t>{1, 3}));
  EXPECT_FLOAT_EQ(x.Data<float>()[0], -0.976590514f);
  EXPECT_FLOAT_EQ(x.Data<float>()[1], -0.876083493f);
  EXPECT_FLOAT_EQ(x.Data<float>()[2], 0.953815281f);
  // The same seed gives the same inputs, another seed others.
  auto again = Onnxopt({"run", model, "--random-inputs", "--seed", "7", "--dim", "N=1", "--input", "b=" + b,
                        "--output-dir", (dir_ / "again").string()});
  auto other = Onnxopt({"run", model, "--random-inputs", "--seed", "8", "--dim", "N=1", "--input", "b=" + b,
                        "--output-dir", (dir_ / "other").string()});
  ASSERT_EQ(again.exit_code, 0) << again.output;
  ASSERT_EQ(other.exit_code, 0) << other.output;
  EXPECT_EQ(ReadFile(dir_ / "again" / "out%2F1.npy"), ReadFile(out / "out%2F1.npy"));
  EXPECT_NE(ReadFile(dir_ / "other" / "out%2F1.npy"), ReadFile(out / "out%2F1.npy"));
}

TEST_F(RunVerifyTest, RunRejectsBadCommandLines) {
  const std::string model = Model("m.onnx", kAddRelu);
  auto missing = Onnxopt({"run", model});
  EXPECT_EQ(missing.exit_code, 1) << missing.output;
  ExpectContains(missing, "no value for input 'x'");
  auto unknown = Onnxopt({"run", model, "--random-inputs", "--input", "z=z.npy"});
  EXPECT_EQ(unknown.exit_code, 1) << unknown.output;
  ExpectContains(unknown, "no input named 'z'");
  auto range = Onnxopt({"run", model, "--float-range", "3"});
  EXPECT_EQ(range.exit_code, 1) << range.output;
  ExpectContains(range, "--float-range and --int-max need --random-inputs");
  auto dim = Onnxopt({"run", model, "--random-inputs", "--dim", "N"});
  EXPECT_EQ(dim.exit_code, 1) << dim.output;
  ExpectContains(dim, "NAME=VALUE");
}

TEST_F(RunVerifyTest, RunReportsInvalidInputsAndKernelFailures) {
  const std::string model = Model("m.onnx", kAddRelu);
  WriteFile(dir_ / "bad.npy", "not a npy file at all");
  auto bad = Onnxopt({"run", model, "--random-inputs", "--input", "x=" + (dir_ / "bad.npy").string()});
  EXPECT_EQ(bad.exit_code, 2) << bad.output;
  ExpectContains(bad, "onnxopt run: invalid input file '" + (dir_ / "bad.npy").string() + "': not a .npy file");
  EXPECT_EQ(bad.output.find("invalid model"), std::string::npos) << bad.output;

  // Shapes that do not broadcast: the kernel fails and the message names the node.
  const std::string unranked = Model("u.onnx", R"ONNX(
    <ir_version: 8, opset_import: ["" : 18]>
    g (float[A] x, float[B] b) => (float[C] y) { y = Add (x, b) })ONNX");
  const std::string x = Npy("x.npy", FloatTensor({2}, {1, 2}));
  const std::string b = Npy("b.npy", FloatTensor({3}, {1, 2, 3}));
  auto broadcast = Onnxopt({"run", unranked, "--input", "x=" + x, "--input", "b=" + b});
  EXPECT_EQ(broadcast.exit_code, 2) << broadcast.output;
  ExpectContains(broadcast, "Add");

  const std::string custom = Model("c.onnx", R"ONNX(
    <ir_version: 8, opset_import: ["" : 18, "my.domain" : 1]>
    g (float[2] x) => (float[2] y) { y = my.domain.Frobnicate (x) })ONNX");
  auto no_kernel = Onnxopt({"run", custom, "--random-inputs"});
  EXPECT_EQ(no_kernel.exit_code, 2) << no_kernel.output;
  ExpectContains(no_kernel, "Frobnicate");
}

// A .npy header: `descr`, `fortran_order` and `shape` as numpy writes them, then `data`.
std::string NpyBytes(const std::string& descr, bool fortran, const std::string& shape, const std::string& data) {
  std::string header = "{'descr': '" + descr + "', 'fortran_order': " + (fortran ? "True" : "False") +
                       ", 'shape': " + shape + ", }";
  header += std::string(63 - (10 + header.size()) % 64, ' ') + "\n";
  const std::uint16_t length = static_cast<std::uint16_t>(header.size());
  return std::string("\x93NUMPY\x01\x00", 8) + static_cast<char>(length & 0xff) + static_cast<char>(length >> 8) +
         header + data;
}

TEST_F(RunVerifyTest, RunBlamesTheInputFileForEveryNpyProblem) {
  const std::string model = Model("relu.onnx", R"ONNX(
    <ir_version: 8, opset_import: ["" : 18]>
    g (float[2,3] x) => (float[2,3] y) { y = Relu (x) })ONNX");
  const std::string floats(24, '\0');
  const std::pair<std::string, std::string> files[] = {
      {"", "too short to be a .npy file"},
      {"NOT A NUMPY FILE, NOT AT ALL", "not a .npy file (bad magic string)"},
      {NpyBytes("<f4", false, "(2, 3)", floats.substr(0, 20)), "truncated data"},
      {NpyBytes("<f4", false, "(2, 3)", floats + "xy"), "the file has 2 bytes after the data"},
      {NpyBytes("<f4", true, "(2, 3)", floats), "Fortran-order arrays are not supported"},
      {NpyBytes("|O", false, "(3,)", floats), "unsupported dtype '|O'"},
      {NpyBytes(">f4", false, "(2, 3)", floats), "unsupported dtype '>f4'"},
      {NpyBytes("<f4", false, "(2, 3", floats), "malformed header"},
      // Valid files whose array is not what the model declares.
      {NpyBytes("<i8", false, "(2, 3)", floats + floats), "input 'x' is int64[2,3], declared with element type FLOAT"},
      {NpyBytes("<f4", false, "(6,)", floats), "input 'x' is float[6], declared with rank 2"},
      {NpyBytes("<f4", false, "(3, 2)", floats), "input 'x' is float[3,2], dimension 0 is declared as 2"},
  };
  int index = 0;
  for (const auto& [bytes, words] : files) {
    SCOPED_TRACE(words);
    const std::filesystem::path file = dir_ / ("bad" + std::to_string(index++) + ".npy");
    WriteFile(file, bytes);
    const CommandResult result = Onnxopt({"run", model, "--input", "x=" + file.string()});
    EXPECT_EQ(result.exit_code, 2) << result.output;
    ExpectContains(result, "onnxopt run: invalid input file '" + file.string() + "': " + words);
    EXPECT_EQ(result.output.find("invalid model"), std::string::npos) << result.output;
  }
}

TEST_F(RunVerifyTest, VerifyAcceptsEquivalentModels) {
  auto result = Onnxopt({"verify", Model("a.onnx", kAddRelu), Model("b.onnx", kAddMax), "--seed", "3", "--dim", "N=5"});
  EXPECT_EQ(result.exit_code, 0) << result.output;
  ExpectContains(result, "ok       y max_abs_diff=0");
  ExpectContains(result, "EQUIVALENT (seed 3");
}

TEST_F(RunVerifyTest, VerifyReportsDifferentOutputs) {
  auto result = Onnxopt({"verify", Model("a.onnx", kAddRelu), Model("b.onnx", kAddAbs)});
  EXPECT_EQ(result.exit_code, 5) << result.output;
  ExpectContains(result, "MISMATCH y");
  ExpectContains(result, "ok       out/1");
  ExpectContains(result, "NOT EQUIVALENT");
  // A tolerance above every difference accepts them.
  auto tolerant = Onnxopt({"verify", Model("a.onnx", kAddRelu), Model("b.onnx", kAddAbs), "--atol", "10"});
  EXPECT_EQ(tolerant.exit_code, 0) << tolerant.output;
}

TEST_F(RunVerifyTest, VerifyReportsDifferentOutputNames) {
  const std::string other = Model("o.onnx", R"ONNX(
    <ir_version: 8, opset_import: ["" : 18]>
    g (float[N,3] x, float[3] b) => (float[N,3] y) { y = Add (x, b) })ONNX");
  auto result = Onnxopt({"verify", Model("a.onnx", kAddRelu), other});
  EXPECT_EQ(result.exit_code, 5) << result.output;
  ExpectContains(result, "MISMATCH out/1: not an output of");
}

TEST_F(RunVerifyTest, VerifyRejectsBadCommandLines) {
  const std::string model = Model("a.onnx", kAddRelu);
  EXPECT_EQ(Onnxopt({"verify", model}).exit_code, 1);
  EXPECT_EQ(Onnxopt({"verify", model, model, "--atol", "-1"}).exit_code, 1);
  EXPECT_EQ(Onnxopt({"verify", model, (dir_ / "missing.onnx").string()}).exit_code, 2);
}

TEST_F(RunVerifyTest, HelpDescribesExitCodesAndExamples) {
  auto run = Onnxopt({"run", "--help"});
  EXPECT_EQ(run.exit_code, 0);
  ExpectContains(run, "examples:");
  auto verify = Onnxopt({"verify", "--help"});
  EXPECT_EQ(verify.exit_code, 0);
  ExpectContains(verify, "5 the outputs differ");
  ExpectContains(Onnxopt({"--help"}), "verify");
}

}  // namespace
}  // namespace onnxopt::testing
