// `onnxopt run` and `onnxopt verify` end to end: outputs, .npy files and their escaped
// names, random inputs that agree with tests/ort/compare_models.js, exit codes.

#include <cmath>
#include <cstdint>
#include <filesystem>
#include <limits>
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

constexpr float kInf = std::numeric_limits<float>::infinity();
constexpr float kNan = std::numeric_limits<float>::quiet_NaN();

// A model without inputs whose output y is a constant of `elem_type` (FLOAT or FLOAT16).
ModelProto ConstantModel(const std::vector<float>& values, int elem_type = TensorProto::FLOAT) {
  ModelProto model = ParseText(R"ONNX(
    <ir_version: 8, opset_import: ["" : 18]>
    g () => (float[N] y) { y = Constant <value = float[1] {0}> () })ONNX");
  TensorProto& value = *model.mutable_graph()->mutable_node(0)->mutable_attribute(0)->mutable_t();
  value.Clear();
  value.set_data_type(elem_type);
  value.add_dims(static_cast<std::int64_t>(values.size()));
  for (float v : values) {
    if (elem_type == TensorProto::FLOAT16) {
      const std::uint16_t bits = core::eval::FloatToHalf(v);
      value.mutable_raw_data()->append(reinterpret_cast<const char*>(&bits), 2);
    } else {
      value.add_float_data(v);
    }
  }
  model.mutable_graph()->mutable_output(0)->mutable_type()->mutable_tensor_type()->set_elem_type(elem_type);
  return model;
}

// Training-mode Dropout: y drops half of x at random; z = Relu(x) draws nothing.
constexpr const char* kDropout = R"ONNX(
  <ir_version: 8, opset_import: ["" : 18]>
  g (float[8,8] x) => (float[8,8] y, float[8,8] z) {
    ratio = Constant <value = float {0.5}> ()
    mode = Constant <value = bool {1}> ()
    y = Dropout (x, ratio, mode)
    z = Relu (x)
  })ONNX";

// The same computation, but the Dropout node is another one (its output has another
// name): it draws other numbers.
constexpr const char* kDropoutRenamed = R"ONNX(
  <ir_version: 8, opset_import: ["" : 18]>
  g (float[8,8] x) => (float[8,8] y, float[8,8] z) {
    ratio = Constant <value = float {0.5}> ()
    mode = Constant <value = bool {1}> ()
    d = Dropout (x, ratio, mode)
    y = Identity (d)
    z = Relu (x)
  })ONNX";

template <class T>
Tensor TypedTensor(int elem_type, std::vector<std::int64_t> shape, const std::vector<T>& values) {
  Tensor tensor(elem_type, std::move(shape));
  for (std::size_t i = 0; i < values.size(); ++i) tensor.MutableData<T>()[i] = values[i];
  return tensor;
}

Tensor FloatTensor(std::vector<std::int64_t> shape, const std::vector<float>& values) {
  return TypedTensor(TensorProto::FLOAT, std::move(shape), values);
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
  std::string Save(const std::string& name, const ModelProto& model) {
    WriteFile(dir_ / name, core::ir::SerializeDeterministic(model));
    return (dir_ / name).string();
  }
  // verify A B and verify B A: the same exit code, returned.
  int VerifyBothWays(const std::string& a, const std::string& b, const std::vector<std::string>& options = {},
                     const std::string& expected_text = "") {
    std::vector<std::string> forward = {"verify", a, b}, backward = {"verify", b, a};
    forward.insert(forward.end(), options.begin(), options.end());
    backward.insert(backward.end(), options.begin(), options.end());
    const CommandResult one = Onnxopt(forward), other = Onnxopt(backward);
    EXPECT_EQ(one.exit_code, other.exit_code) << "the order of the models changed the verdict:\n"
                                              << one.output << "\n---\n" << other.output;
    if (!expected_text.empty()) {
      ExpectContains(one, expected_text);
      ExpectContains(other, expected_text);
    }
    return one.exit_code;
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

// run writes 2- and 4-bit integer outputs as int8/uint8 .npy files (NumPy has no such
// dtype); those files are taken back as inputs of those types, values in range only.
TEST_F(RunVerifyTest, RunTakesEightBitNpyFilesForTwoAndFourBitInputs) {
  // Written with int8 and uint8 (the text parser of onnx 1.12 predates the smaller types).
  ModelProto typed = ParseText(R"ONNX(
    <ir_version: 10, opset_import: ["" : 25]>
    g (int8[4] x, uint8[2] u) => (int8[4] y, float[2] v) {
      y = Identity (x)
      v = Cast <to = 1> (u)
    })ONNX");
  GraphProto& graph = *typed.mutable_graph();
  graph.mutable_input(0)->mutable_type()->mutable_tensor_type()->set_elem_type(core::eval::kInt2);
  graph.mutable_input(1)->mutable_type()->mutable_tensor_type()->set_elem_type(core::eval::kUint4);
  graph.mutable_output(0)->mutable_type()->mutable_tensor_type()->set_elem_type(core::eval::kInt2);
  const std::string model = Save("m.onnx", typed);
  const std::string x = Npy("x.npy", TypedTensor<std::int8_t>(TensorProto::INT8, {4}, {-2, -1, 0, 1}));
  const std::string u = Npy("u.npy", TypedTensor<std::uint8_t>(TensorProto::UINT8, {2}, {0, 15}));
  const auto out = dir_ / "out";
  auto result = Onnxopt({"run", model, "--input", "x=" + x, "--input", "u=" + u, "--output-dir", out.string()});
  ASSERT_EQ(result.exit_code, 0) << result.output;
  ExpectContains(result, "v: float[2] min=0 max=15");
  const Tensor y = core::eval::ReadNpy(out / "y.npy");  // written back as int8
  ASSERT_EQ(y.elem_type(), TensorProto::INT8);
  EXPECT_EQ(y.ToInt64Vector(), (std::vector<std::int64_t>{-2, -1, 0, 1}));
  auto again = Onnxopt({"run", model, "--input", "x=" + (out / "y.npy").string(), "--input", "u=" + u});
  EXPECT_EQ(again.exit_code, 0) << again.output;

  // Out of the type's range, or of the other signedness: the file's fault.
  const std::string wide = Npy("wide.npy", TypedTensor<std::int8_t>(TensorProto::INT8, {4}, {-2, 2, 0, 1}));
  auto outside = Onnxopt({"run", model, "--input", "x=" + wide, "--input", "u=" + u});
  EXPECT_EQ(outside.exit_code, 2) << outside.output;
  ExpectContains(outside, "invalid input file '" + wide + "': element 1 is 2, outside the range of INT2 [-2, 1]");
  auto unsigned_x = Onnxopt({"run", model, "--input", "x=" + u, "--input", "u=" + u});
  EXPECT_EQ(unsigned_x.exit_code, 2) << unsigned_x.output;
  ExpectContains(unsigned_x, "is uint8[2], declared with element type INT2");
}

// The summary is computed in pieces of 65 536 elements (a whole output converted to
// doubles would double or quadruple its memory): the NaNs, the extremes and the mean of all
// pieces are in it.
TEST_F(RunVerifyTest, RunSummarizesOutputsLargerThanOnePiece) {
  const std::string model = Model("m.onnx", kAddRelu);
  std::vector<float> values(150000, 1.0f);
  values[5] = kNan;       // first piece
  values[70000] = 9;      // second piece
  values[100000] = kNan;  // second piece
  values[149999] = -7;    // third piece
  const std::string x = Npy("x.npy", FloatTensor({50000, 3}, values));
  const std::string b = Npy("b.npy", Tensor(TensorProto::FLOAT, {3}));
  auto result = Onnxopt({"run", model, "--input", "x=" + x, "--input", "b=" + b});
  ASSERT_EQ(result.exit_code, 0) << result.output;
  // 149 998 numbers: 149 996 ones, 9 and -7.
  ExpectContains(result, "out/1: float[50000,3] min=-7 max=9 mean=1 nan=2 [1, 1, 1, 1, 1, nan, ...]");
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

// --- verify: how elements compare -------------------------------------------------------

TEST_F(RunVerifyTest, VerifyMatchesInfinitiesOnlyWithTheSameInfinity) {
  const std::string inf = Save("inf.onnx", ConstantModel({kInf, 1}));
  EXPECT_EQ(VerifyBothWays(inf, Save("big.onnx", ConstantModel({3e38f, 1})), {}, "MISMATCH y"), 5);
  EXPECT_EQ(VerifyBothWays(inf, Save("one.onnx", ConstantModel({1, 1})), {}, "MISMATCH y"), 5);
  EXPECT_EQ(VerifyBothWays(inf, Save("minus.onnx", ConstantModel({-kInf, 1})), {}, "1/2 elements differ, first at 0: "), 5);
  ExpectContains(Onnxopt({"verify", inf, Save("minus.onnx", ConstantModel({-kInf, 1}))}), "first at 0: inf vs -inf");
  EXPECT_EQ(VerifyBothWays(inf, Save("inf2.onnx", ConstantModel({kInf, 1})), {}, "EQUIVALENT"), 0);
  // Even a tolerance larger than every finite number does not make a number infinite.
  EXPECT_EQ(VerifyBothWays(inf, Save("big.onnx", ConstantModel({3e38f, 1})), {"--atol", "1e300", "--rtol", "1e300"}), 5);
}

TEST_F(RunVerifyTest, VerifyMatchesNanOnlyWithNan) {
  const std::string nan = Save("nan.onnx", ConstantModel({kNan, 1}));
  EXPECT_EQ(VerifyBothWays(nan, Save("nan2.onnx", ConstantModel({-kNan, 1})), {}, "EQUIVALENT"), 0);
  EXPECT_EQ(VerifyBothWays(nan, Save("zero.onnx", ConstantModel({0, 1})), {}, "MISMATCH y"), 5);
  EXPECT_EQ(VerifyBothWays(nan, Save("inf.onnx", ConstantModel({kInf, 1})), {}, "MISMATCH y"), 5);
}

TEST_F(RunVerifyTest, VerifyToleratesRelativeToTheLargerMagnitude) {
  // |10 - 11.05| = 1.05 <= 0.1 * 11.05 but > 0.1 * 10: a tolerance relative to one side
  // would accept one order and refuse the other.
  const std::string ten = Save("ten.onnx", ConstantModel({10})), more = Save("more.onnx", ConstantModel({11.05f}));
  EXPECT_EQ(VerifyBothWays(ten, more, {"--atol", "0", "--rtol", "0.1"}, "EQUIVALENT"), 0);
  EXPECT_EQ(VerifyBothWays(ten, more, {"--atol", "0", "--rtol", "0.095"}, "MISMATCH y"), 5);
  EXPECT_EQ(VerifyBothWays(ten, more, {"--atol", "1.06", "--rtol", "0"}, "EQUIVALENT"), 0);
}

TEST_F(RunVerifyTest, VerifyUsesTolerancesOfTheElementType) {
  // 1 and 1 + 2^-9 (two units in the last place of float16 near 1): within float16's
  // default tolerance, not within float's.
  const float next = 1.0f + 1.0f / 512;
  EXPECT_EQ(VerifyBothWays(Save("h1.onnx", ConstantModel({1, 2}, TensorProto::FLOAT16)),
                           Save("h2.onnx", ConstantModel({next, 2}, TensorProto::FLOAT16)), {},
                           "EQUIVALENT (seed 0, float16: atol 0.001, rtol 0.002)"),
            0);
  EXPECT_EQ(VerifyBothWays(Save("f1.onnx", ConstantModel({1, 2})), Save("f2.onnx", ConstantModel({next, 2})), {},
                           "float: atol 0.0001, rtol 0.001"),
            5);
  // Given tolerances apply to every type.
  EXPECT_EQ(VerifyBothWays(Save("h1.onnx", ConstantModel({1, 2}, TensorProto::FLOAT16)),
                           Save("h2.onnx", ConstantModel({next, 2}, TensorProto::FLOAT16)), {"--rtol", "0", "--atol", "0"},
                           "MISMATCH y"),
            5);
  // Eight units in the last place (what computing in another precision gives) and 10%
  // are no rounding.
  EXPECT_EQ(VerifyBothWays(Save("h1.onnx", ConstantModel({1, 2}, TensorProto::FLOAT16)),
                           Save("h8.onnx", ConstantModel({1.0f + 8.0f / 1024, 2}, TensorProto::FLOAT16)), {},
                           "MISMATCH y"),
            5);
  EXPECT_EQ(VerifyBothWays(Save("h1.onnx", ConstantModel({1, 2}, TensorProto::FLOAT16)),
                           Save("h3.onnx", ConstantModel({1.1f, 2}, TensorProto::FLOAT16))),
            5);
}

TEST_F(RunVerifyTest, VerifyDrawsTheInputsBothModelsNeed) {
  // b needs only x; a needs x and b: either order runs both on the same x.
  const std::string both = Model("a.onnx", kAddRelu);
  const std::string one = Model("o.onnx", R"ONNX(
    <ir_version: 8, opset_import: ["" : 18]>
    g (float[N,3] x) => (float[N,3] y, float[N,3] out1) { out1 = Identity (x)  y = Relu (x) })ONNX");
  EXPECT_EQ(VerifyBothWays(both, one, {"--atol", "10"}, "EQUIVALENT"), 0);
}

// --- verify --empty-dims -------------------------------------------------------------------

// y = Reshape(x, Concat(Shape(x)[0], [3, 5])): [N, 3, 5] for every N, 0 included.
constexpr const char* kReshapeByShape = R"ONNX(
  <ir_version: 8, opset_import: ["" : 18]>
  g (float[N,15] x) => (float[N,3,5] y) {
    n = Shape <start = 0, end = 1> (x)
    tail = Constant <value = int64[2] {3, 5}> ()
    shape = Concat <axis = 0> (n, tail)
    y = Reshape (x, shape)
  })ONNX";

// The same y as kReshapeByShape for N > 0, but with N = 0 the 0 (copied from x) beside the
// -1 leaves the -1 undetermined: Reshape fails, as in onnxruntime.
constexpr const char* kReshapeMinusOne = R"ONNX(
  <ir_version: 8, opset_import: ["" : 18]>
  g (float[N,15] x) => (float[N,3,5] y) {
    shape = Constant <value = int64[3] {0, -1, 5}> ()
    y = Reshape (x, shape)
  })ONNX";

TEST_F(RunVerifyTest, VerifyEmptyDimsFindsAReshapeThatFailsOnlyWithADimensionZero) {
  const std::string original = Model("a.onnx", kReshapeByShape), rewritten = Model("b.onnx", kReshapeMinusOne);
  const CommandResult seed = Onnxopt({"verify", original, rewritten});
  EXPECT_EQ(seed.exit_code, 0) << "one seed, N = 2, by default:\n" << seed.output;
  EXPECT_EQ(seed.output.find("empty"), std::string::npos) << seed.output;
  const CommandResult empty = Onnxopt({"verify", original, rewritten, "--empty-dims"});
  EXPECT_EQ(empty.exit_code, 5) << empty.output;
  ExpectContains(empty, "EQUIVALENT (seed 0");
  ExpectContains(empty, "empty-dimension set N = 0:\nsymbolic dims: N=0\n");
  ExpectContains(empty, "FAILS " + rewritten + " with N = 0, where " + original +
                            " runs: node 'y' (Reshape): cannot reshape float[0,15] to [0,-1,5]");
  ExpectContains(empty, "empty dims: NOT EQUIVALENT with N = 0 (" + rewritten + " fails to run where " + original +
                            " runs)\n");
}

TEST_F(RunVerifyTest, VerifyEmptyDimsSkipsADimensionTheOriginalCannotRunWith) {
  // MODEL_A is the reference: kReshapeMinusOne fails with N = 0, so that set is skipped.
  const std::string model = Model("b.onnx", kReshapeMinusOne);
  const CommandResult result = Onnxopt({"verify", model, model, "--empty-dims"});
  EXPECT_EQ(result.exit_code, 0) << result.output;
  ExpectContains(result, "skipped: " + model + " does not run with N = 0: node 'y' (Reshape)");
  ExpectContains(result, "empty dims: EQUIVALENT on 0 of 1 empty-dimension set (N=0 does not run in " + model + ")\n");
}

TEST_F(RunVerifyTest, VerifyEmptyDimsFindsAWrongShapeAfterASkippedSet) {
  // y = Reshape(x, [batch, -1]) versus Reshape(x, [-1, 12]): equal while seq = 2. With
  // batch = 0 the original's -1 is undetermined (skipped); with seq = 0 the shapes differ.
  const std::string original = Model("a.onnx", R"ONNX(
    <ir_version: 8, opset_import: ["" : 18]>
    g (float[batch,seq,6] x) => (float[batch,?] y) {
      n = Shape <start = 0, end = 1> (x)
      rest = Constant <value = int64[1] {-1}> ()
      shape = Concat <axis = 0> (n, rest)
      y = Reshape (x, shape)
    })ONNX");
  const std::string rewritten = Model("b.onnx", R"ONNX(
    <ir_version: 8, opset_import: ["" : 18]>
    g (float[batch,seq,6] x) => (float[batch,?] y) {
      shape = Constant <value = int64[2] {-1, 12}> ()
      y = Reshape (x, shape)
    })ONNX");
  const CommandResult result = Onnxopt({"verify", original, rewritten, "--empty-dims", "--seed", "3"});
  EXPECT_EQ(result.exit_code, 5) << result.output;
  ExpectContains(result, "empty-dimension set batch = 0:\nsymbolic dims: batch=0 seq=2\nskipped: " + original +
                             " does not run with batch = 0");
  ExpectContains(result, "empty-dimension set seq = 0:\nsymbolic dims: batch=2 seq=0\n"
                         "MISMATCH y (float[2,0] vs float[0,12])\nNOT EQUIVALENT (seed 3");
  ExpectContains(result, "empty dims: NOT EQUIVALENT with seq = 0\n");
  // --dim seq=2 fixes seq: only batch is set to 0, and that set is skipped.
  const CommandResult fixed = Onnxopt({"verify", original, rewritten, "--empty-dims", "--dim", "seq=2"});
  EXPECT_EQ(fixed.exit_code, 0) << fixed.output;
  EXPECT_EQ(fixed.output.find("seq = 0"), std::string::npos) << fixed.output;
  ExpectContains(fixed, "empty dims: EQUIVALENT on 0 of 1 empty-dimension set (batch=0 does not run in " + original +
                            ")\n");
}

TEST_F(RunVerifyTest, VerifyEmptyDimsWithoutSymbolicDimensionsComparesOnce) {
  const std::string model = Save("c.onnx", ConstantModel({1, 2}));
  const CommandResult result = Onnxopt({"verify", model, model, "--empty-dims"});
  EXPECT_EQ(result.exit_code, 0) << result.output;
  ExpectContains(result, "EQUIVALENT (seed 0");
  ExpectContains(result, "empty dims: no symbolic input dimension to set to 0\n");
  EXPECT_EQ(result.output.find("empty-dimension set"), std::string::npos) << result.output;
  const CommandResult fixed = Onnxopt({"verify", Model("a.onnx", kAddRelu), Model("b.onnx", kAddMax), "--empty-dims",
                                       "--dim", "N=3"});
  EXPECT_EQ(fixed.exit_code, 0) << fixed.output;
  ExpectContains(fixed, "empty dims: no symbolic input dimension to set to 0\n");
}

TEST_F(RunVerifyTest, VerifyEmptyDimsTriesAtMostEightDimensions) {
  // Ten symbolic dimensions a..j: the first eight by name get a set each.
  const std::string model = Model("m.onnx", R"ONNX(
    <ir_version: 8, opset_import: ["" : 18]>
    g (float[a,b,c,d,e] x, float[f,g,h,i,j] z) => (float[a,b,c,d,e] y, float[f,g,h,i,j] w) {
      y = Relu (x)
      w = Neg (z)
    })ONNX");
  const CommandResult result = Onnxopt({"verify", model, model, "--empty-dims"});
  EXPECT_EQ(result.exit_code, 0) << result.output;
  ExpectContains(result, "empty-dimension set h = 0:");
  EXPECT_EQ(result.output.find("empty-dimension set i = 0:"), std::string::npos) << result.output;
  ExpectContains(result, "empty dims: EQUIVALENT on 8 empty-dimension sets (at most 8 symbolic dims are tried: i "
                         "and j were left out)\n");
}

// --- verify: random operators ------------------------------------------------------------

TEST_F(RunVerifyTest, VerifyFindsAModelWithRandomOperatorsEquivalentToItself) {
  const std::string corpus = (CorpusDir() / "bug_2of3_s.onnx").string();
  const CommandResult result = Onnxopt({"verify", corpus, corpus});
  EXPECT_EQ(result.exit_code, 0) << result.output;
  ExpectContains(result, "EQUIVALENT");
  EXPECT_EQ(result.output.find("not comparable"), std::string::npos) << result.output;
  const std::string dropout = Model("d.onnx", kDropout);
  EXPECT_EQ(VerifyBothWays(dropout, Model("d2.onnx", kDropout), {"--seed", "4"}, "ok       y"), 0);
}

TEST_F(RunVerifyTest, RunDrawsRandomOperatorsFromTheSeed) {
  const std::string model = Model("d.onnx", kDropout);
  const std::string x = Npy("x.npy", FloatTensor({8, 8}, std::vector<float>(64, 1.0f)));
  auto run = [&](const std::string& seed, const std::string& folder) {
    const CommandResult result =
        Onnxopt({"run", model, "--input", "x=" + x, "--seed", seed, "--output-dir", (dir_ / folder).string()});
    EXPECT_EQ(result.exit_code, 0) << result.output;
    return ReadFile(dir_ / folder / "y.npy");
  };
  // Same inputs: the mask alone depends on the seed.
  EXPECT_EQ(run("1", "one"), run("1", "again"));
  EXPECT_NE(run("1", "one"), run("2", "two"));
}

TEST_F(RunVerifyTest, VerifyLeavesOutOutputsOfRandomNodesOnlyOneModelHas) {
  const std::string dropout = Model("a.onnx", kDropout), renamed = Model("b.onnx", kDropoutRenamed);
  EXPECT_EQ(VerifyBothWays(dropout, renamed, {}, "not comparable y (depends on random node '"), 0);
  const CommandResult result = Onnxopt({"verify", dropout, renamed});
  ExpectContains(result, "not comparable y (depends on random node 'y' (Dropout), which only " + dropout + " has)");
  ExpectContains(result, "ok       z");
  ExpectContains(result, "not compared: 1 of 2 common outputs depend on random nodes");
  // The deterministic output is still compared.
  const std::string differs = Model("c.onnx", R"ONNX(
    <ir_version: 8, opset_import: ["" : 18]>
    g (float[8,8] x) => (float[8,8] y, float[8,8] z) {
      ratio = Constant <value = float {0.5}> ()
      mode = Constant <value = bool {1}> ()
      d = Dropout (x, ratio, mode)
      y = Identity (d)
      z = Abs (x)
    })ONNX");
  EXPECT_EQ(VerifyBothWays(dropout, differs, {}, "MISMATCH z"), 5);
  // The same random node with another ratio (an input): it draws the same numbers but
  // keeps others; the models differ, and verify says so.
  std::string ratio = kDropout;
  ratio.replace(ratio.find("0.5"), 3, "0.25");
  EXPECT_EQ(VerifyBothWays(dropout, Model("r.onnx", ratio.c_str()), {}, "MISMATCH y"), 5);
}

TEST_F(RunVerifyTest, VerifyComparesARandomNodeByItsName) {
  // Removing `y = Identity(d)` makes the Dropout compute y: the node keeps its name, and
  // with it its draws.
  ModelProto model = ParseText(kDropoutRenamed);
  NodeProto& dropout = *model.mutable_graph()->mutable_node(2);
  ASSERT_EQ(dropout.op_type(), "Dropout");
  dropout.set_name("drop");
  const std::string with_name = Save("named.onnx", model);
  dropout.set_output(0, "y");
  model.mutable_graph()->mutable_node()->DeleteSubrange(3, 1);  // the Identity
  EXPECT_EQ(VerifyBothWays(with_name, Save("bypassed.onnx", model), {"--atol", "0", "--rtol", "0"}, "ok       y"), 0);
  // Another name draws other numbers: not comparable.
  model.mutable_graph()->mutable_node(2)->set_name("drop2");
  EXPECT_EQ(VerifyBothWays(with_name, Save("renamed.onnx", model), {}, "not comparable y (depends on random node 'drop"),
            0);

  // The same on a corpus graph with two training-mode Dropouts, optimized by onnxopt
  // (which removes the Identity behind the second one).
  const std::string corpus = (CorpusDir() / "bug_2of3_s.onnx").string();
  const std::string optimized = (dir_ / "opt.onnx").string();
  ASSERT_EQ(Onnxopt({"optimize", corpus, "-o", optimized, "-q"}).exit_code, 0);
  const CommandResult result = Onnxopt({"verify", corpus, optimized});
  EXPECT_EQ(result.exit_code, 0) << result.output;
  ExpectContains(result, "ok       getitem_2");
  EXPECT_EQ(result.output.find("not comparable"), std::string::npos) << result.output;
}

TEST_F(RunVerifyTest, VerifyComparesDropoutInInferenceMode) {
  // Without training_mode (or with a constant false), Dropout is the identity.
  const std::string inference = Model("a.onnx", R"ONNX(
    <ir_version: 8, opset_import: ["" : 18]>
    g (float[8,8] x) => (float[8,8] y) {
      ratio = Constant <value = float {0.5}> ()
      mode = Constant <value = bool {0}> ()
      d = Dropout (x, ratio, mode)
      e = Dropout (d)
      y = Relu (e)
    })ONNX");
  const std::string plain = Model("b.onnx", R"ONNX(
    <ir_version: 8, opset_import: ["" : 18]>
    g (float[8,8] x) => (float[8,8] y) { y = Relu (x) })ONNX");
  EXPECT_EQ(VerifyBothWays(inference, plain, {}, "ok       y"), 0);
  const std::string abs = Model("c.onnx", R"ONNX(
    <ir_version: 8, opset_import: ["" : 18]>
    g (float[8,8] x) => (float[8,8] y) { y = Abs (x) })ONNX");
  EXPECT_EQ(VerifyBothWays(inference, abs, {}, "MISMATCH y"), 5);
}

TEST_F(RunVerifyTest, VerifyFollowsRandomNodesIntoNestedGraphs) {
  // The Dropout sits in a branch of an If whose output y is renamed in the other model.
  auto model = [&](const std::string& name, const std::string& dropout_output) {
    std::string text = R"ONNX(
      <ir_version: 8, opset_import: ["" : 18]>
      g (bool c, float[8,8] x) => (float[8,8] y, float[8,8] z) {
        ratio = Constant <value = float {0.5}> ()
        mode = Constant <value = bool {1}> ()
        y = If (c) <
          then_branch = t () => (float[8,8] DROP) { DROP = Dropout (x, ratio, mode) },
          else_branch = e () => (float[8,8] q) { q = Identity (x) }
        >
        z = Neg (x)
      })ONNX";
    text.replace(text.find("DROP"), 4, dropout_output);
    text.replace(text.find("DROP"), 4, dropout_output);
    return Model(name, text.c_str());
  };
  EXPECT_EQ(VerifyBothWays(model("a.onnx", "p"), model("b.onnx", "p"), {}, "ok       y"), 0);
  EXPECT_EQ(VerifyBothWays(model("a.onnx", "p"), model("b.onnx", "p2"), {}, "not comparable y (depends on random node '"),
            0);
  const CommandResult result = Onnxopt({"verify", model("a.onnx", "p"), model("b.onnx", "p2")});
  ExpectContains(result, "not comparable y (depends on random node 'p' (Dropout)");
  ExpectContains(result, "ok       z");
}

TEST_F(RunVerifyTest, VerifyFollowsRandomNodesIntoLocalFunctions) {
  // y calls a function whose body drops at random, z does not: both models call it alike,
  // then the function's Dropout is renamed in the second.
  auto model = [&](const std::string& name, const std::string& dropout_output) {
    std::string text = R"ONNX(
      <ir_version: 8, opset_import: ["" : 18, "local" : 1]>
      g (float[8,8] x) => (float[8,8] y, float[8,8] z) {
        y = local.Drop (x)
        z = Neg (x)
      }
      <domain: "local", opset_import: ["" : 18]>
      Drop (a) => (b) {
        ratio = Constant <value = float {0.5}> ()
        mode = Constant <value = bool {1}> ()
        DROP = Dropout (a, ratio, mode)
        b = Identity (DROP)
      })ONNX";
    for (int i = 0; i < 2; ++i) text.replace(text.find("DROP"), 4, dropout_output);
    return Model(name, text.c_str());
  };
  const std::string base = model("a.onnx", "p");
  EXPECT_EQ(VerifyBothWays(base, model("b.onnx", "p"), {"--atol", "0", "--rtol", "0"}, "ok       y"), 0);
  const CommandResult result = Onnxopt({"verify", base, model("c.onnx", "p2")});
  EXPECT_EQ(result.exit_code, 0) << result.output;
  ExpectContains(result, "not comparable y (depends on random node 'p' (Dropout), which only " + base + " has)");
  ExpectContains(result, "ok       z");
}

TEST_F(RunVerifyTest, HelpDescribesExitCodesAndExamples) {
  auto run = Onnxopt({"run", "--help"});
  EXPECT_EQ(run.exit_code, 0);
  ExpectContains(run, "examples:");
  auto verify = Onnxopt({"verify", "--help"});
  EXPECT_EQ(verify.exit_code, 0);
  ExpectContains(verify, "5 the outputs differ");
  ExpectContains(verify, "--empty-dims");
  ExpectContains(Onnxopt({"--help"}), "verify");
}

}  // namespace
}  // namespace onnxopt::testing
