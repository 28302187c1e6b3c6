// `onnxopt diff`: the structural comparison of two models, in text and JSON.

#include <gtest/gtest.h>

#include <string>

#include "onnx_core/ir/model_io.h"
#include "tests/support/test_support.h"

namespace onnxopt::testing {
namespace {

constexpr const char* kBefore = R"ONNX(
  <ir_version: 8, opset_import: ["" : 18]>
  g (float[2,3] x, float[3] bias) => (float[2,3] y) {
    a = Identity (x)
    b = Relu (a)
    c = Relu (a)
    y = Add (b, c)
  })ONNX";

// What an optimizer could make of it: one Relu, the Identity gone, an input dropped, an
// output retyped.
constexpr const char* kAfter = R"ONNX(
  <ir_version: 8, opset_import: ["" : 18]>
  g (float[2,3] x) => (float[2,?] y) {
    b = Relu (x)
    y = Add (b, b)
  })ONNX";

class DiffTest : public ::testing::Test {
 protected:
  std::string Write(const char* name, const char* text) {
    const std::filesystem::path path = dir_ / name;
    WriteFile(path, core::ir::SerializeDeterministic(ParseText(text)));
    return path.string();
  }
  TempDir dir_;
};

TEST_F(DiffTest, ReportsOperatorsNodesAndSignatureChanges) {
  const CommandResult result = RunCommand({OnnxoptExe().string(), "diff", Write("a.onnx", kBefore), Write("b.onnx", kAfter)});
  ASSERT_EQ(result.exit_code, 0) << result.output;
  EXPECT_NE(result.output.find("nodes: 4 -> 2 (-2)"), std::string::npos) << result.output;
  EXPECT_NE(result.output.find("Relu                            2 -> 1 (-1)"), std::string::npos) << result.output;
  EXPECT_NE(result.output.find("Identity                        1 -> 0 (-1)"), std::string::npos) << result.output;
  EXPECT_EQ(result.output.find("Add "), std::string::npos) << "unchanged counts are not listed:\n" << result.output;
  EXPECT_NE(result.output.find("nodes only in A (2):\n  (output a)\n  (output c)\n"), std::string::npos) << result.output;
  EXPECT_NE(result.output.find("input bias: float[3] -> (absent)"), std::string::npos) << result.output;
  EXPECT_NE(result.output.find("output y: float[2,3] -> float[2,?]"), std::string::npos) << result.output;
}

TEST_F(DiffTest, JsonListsTheSameFacts) {
  const CommandResult result =
      RunCommand({OnnxoptExe().string(), "diff", Write("a.onnx", kBefore), Write("b.onnx", kAfter), "--json"});
  ASSERT_EQ(result.exit_code, 0) << result.output;
  EXPECT_NE(result.output.find("\"nodes\":[4,2]"), std::string::npos) << result.output;
  EXPECT_NE(result.output.find("\"Relu\":[2,1]"), std::string::npos) << result.output;
  EXPECT_NE(result.output.find("\"removed_nodes\":[\"(output a)\",\"(output c)\"]"), std::string::npos) << result.output;
  EXPECT_NE(result.output.find("\"added_nodes\":[]"), std::string::npos) << result.output;
  EXPECT_NE(result.output.find("{\"name\":\"bias\",\"a\":\"float[3]\",\"b\":null}"), std::string::npos) << result.output;
}

TEST_F(DiffTest, IdenticalModelsShowNoChange) {
  const std::string model = Write("a.onnx", kBefore);
  const CommandResult result = RunCommand({OnnxoptExe().string(), "diff", model, model});
  ASSERT_EQ(result.exit_code, 0) << result.output;
  EXPECT_NE(result.output.find("nodes: 4 -> 4 (0)"), std::string::npos) << result.output;
  EXPECT_EQ(result.output.find("operators whose count changed"), std::string::npos) << result.output;
  EXPECT_NE(result.output.find("inputs and outputs: the same names and types"), std::string::npos) << result.output;
}

TEST_F(DiffTest, BadArgumentsAndFiles) {
  const CommandResult missing = RunCommand({OnnxoptExe().string(), "diff", Write("a.onnx", kBefore)});
  EXPECT_EQ(missing.exit_code, 1) << missing.output;
  const std::filesystem::path garbage = dir_ / "garbage.onnx";
  WriteFile(garbage, "not a model");
  const CommandResult invalid = RunCommand({OnnxoptExe().string(), "diff", garbage.string(), Write("b.onnx", kAfter)});
  EXPECT_EQ(invalid.exit_code, 2) << invalid.output;
  EXPECT_NE(invalid.output.find("garbage.onnx"), std::string::npos) << invalid.output;
}

}  // namespace
}  // namespace onnxopt::testing
