// examples/custom_pattern: an application that links onnx_core alone and brings its own
// pattern.

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "onnx_core/ir/model_io.h"
#include "tests/support/test_support.h"

namespace onnxopt::testing {
namespace {

using ::testing::HasSubstr;

TEST(CustomPatternExample, RewritesMulByOneAndLeavesOtherMulsAlone) {
  TempDir dir;
  ModelProto model = ParseText(R"ONNX(
    <ir_version: 8, opset_import: ["" : 18]>
    g (float[2,3] x, float s) => (float[2,3] y, float[1] z) <float one = {1.0}, float[1] vector_one = {1.0}> {
      a = Mul(x, one)
      y = Relu(a)
      z = Mul(s, vector_one)
    })ONNX");
  core::ir::SaveModel(model, dir / "in.onnx");
  const CommandResult result = RunCommand({CUSTOM_PATTERN_EXE, (dir / "in.onnx").string(), (dir / "out.onnx").string()});
  ASSERT_EQ(result.exit_code, 0) << result.output;
  EXPECT_THAT(result.output, HasSubstr("MulByOnePattern (batch 1): removes nodes [0], adds 1 nodes at [0]"));
  const ModelProto optimized = core::ir::LoadModel(dir / "out.onnx");
  ASSERT_EQ(optimized.graph().node_size(), 2);
  EXPECT_EQ(optimized.graph().node(0).op_type(), "Relu");
  EXPECT_EQ(optimized.graph().node(0).input(0), "x");
  EXPECT_EQ(optimized.graph().node(1).op_type(), "Mul") << "s is a scalar: Mul(s, [1]) has shape [1]";
}

TEST(CustomPatternExample, ReportsAnUnreadableModel) {
  TempDir dir;
  WriteFile(dir / "bad.onnx", "not a model");
  const CommandResult result = RunCommand({CUSTOM_PATTERN_EXE, (dir / "bad.onnx").string(), (dir / "out.onnx").string()});
  EXPECT_EQ(result.exit_code, 2);
  EXPECT_THAT(result.output, HasSubstr("custom_pattern:"));
  EXPECT_TRUE(ListFiles(dir.path()).size() == 1) << "no output file";
}

}  // namespace
}  // namespace onnxopt::testing
