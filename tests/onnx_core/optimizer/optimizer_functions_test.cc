// Calls of local functions that a rewrite adds: shape inference, the evaluator, constant
// folding, the model checks and `onnxopt verify` handle them (needs kernels and shape
// functions).

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "onnx_core/eval/evaluator.h"
#include "onnx_core/eval/tensor.h"
#include "onnx_core/eval/value_comparison.h"
#include "onnx_core/ir/graph_check.h"
#include "onnx_core/ir/model_io.h"
#include "onnx_core/optimizer/graph_graph.h"
#include "onnx_core/shapes/model_validity.h"
#include "onnx_extensions/kernels/register_kernels.h"
#include "onnx_extensions/shapes/register_shape_functions.h"
#include "tests/onnx_core/optimizer/test_patterns.h"
#include "tests/support/test_support.h"

namespace onnxopt::testing {
namespace {

using core::builder::GraphBuilder;
using core::builder::PatternSelection;
using ::testing::HasSubstr;

class FunctionCalls : public ::testing::Test {
 protected:
  void SetUp() override {
    onnx_shapes::RegisterShapeFunctions();
    onnx_kernels::RegisterKernels();
  }
};

// y: Neg(Abs(a)) on a symbolic shape; z: the same on a constant.
constexpr std::string_view kModel = R"ONNX(
  <ir_version: 8, opset_import: ["" : 18]>
  g (float[N,3] a) => (float[N,3] y, float[2] z) {
    a1 = Abs(a)
    y = Neg(a1)
    c = Constant <value = float[2] {-1.5, 2.0}> ()
    c1 = Abs(c)
    z = Neg(c1)
  })ONNX";

struct Optimized {
  ModelProto original;
  ModelProto optimized;
  std::string y_shape;  // what inference knew of y right after the rewrite
};

Optimized OptimizeWithFunctions() {
  Optimized run;
  run.original = ParseText(kModel);
  GraphBuilder builder{ModelProto(run.original)};
  GraphGraph graph(builder, {std::make_shared<NegAbsFunctionPattern>()}, SelectRegistered(PatternSelection::None()));
  graph.Optimize();
  const core::shapes::SymTensor* y = builder.GetShape("y");
  run.y_shape = y ? y->ToString() : "unknown";
  run.optimized = std::move(builder).TakeModel();
  return run;
}

TEST_F(FunctionCalls, ShapeInferenceReadsTheAddedFunction) {
  const Optimized run = OptimizeWithFunctions();
  ASSERT_EQ(run.optimized.functions_size(), 1);
  ASSERT_EQ(run.optimized.graph().node(0).op_type(), "NegAbs");
  // Inferred through the body when the driver inferred the added call...
  EXPECT_EQ(run.y_shape, "float[N,3]");
  // ... and when the whole optimized model is inferred again.
  GraphBuilder again{ModelProto(run.optimized)};
  again.InferShapes();
  ASSERT_NE(again.GetShape("y"), nullptr);
  EXPECT_EQ(again.GetShape("y")->ToString(), "float[N,3]");
  ASSERT_NE(again.GetShape("z"), nullptr);
  EXPECT_EQ(again.GetShape("z")->ToString(), "float[2]");
  // The optimized model passes the checks of loading.
  EXPECT_NO_THROW(core::ir::CheckModel(run.optimized));
  EXPECT_NO_THROW(core::shapes::ValidateModel(run.optimized, "optimized"));
}

TEST_F(FunctionCalls, TheEvaluatorRunsTheAddedFunction) {
  const Optimized run = OptimizeWithFunctions();
  core::eval::Tensor a(TensorProto::FLOAT, {2, 3});
  float* data = a.MutableData<float>();
  for (int i = 0; i < 6; ++i) data[i] = static_cast<float>(i) - 2.5f;
  const core::eval::ValueMap inputs{{"a", a}};
  const core::eval::ValueMap expected = core::eval::Run(run.original, inputs);
  const core::eval::ValueMap actual = core::eval::Run(run.optimized, inputs);
  for (const char* name : {"y", "z"}) {
    SCOPED_TRACE(name);
    const core::eval::Comparison comparison = core::eval::CompareValues(expected.at(name), actual.at(name), {});
    EXPECT_TRUE(comparison.ok) << comparison.reason;
  }
}

TEST_F(FunctionCalls, ConstantFoldingLeavesCallsOfLocalFunctions) {
  // z's call has a constant input: folding computes operators that have a kernel, and a
  // call of a local function has none, so the call stays (and computes the same).
  const Optimized run = OptimizeWithFunctions();
  const GraphProto& graph = run.optimized.graph();
  ASSERT_EQ(graph.node_size(), 3);
  EXPECT_EQ(graph.node(2).op_type(), "NegAbs");
  EXPECT_EQ(graph.node(2).output(0), "z");
  EXPECT_EQ(graph.initializer_size(), 0);
}

TEST_F(FunctionCalls, VerifyFindsTheRewrittenModelEquivalent) {
  const Optimized run = OptimizeWithFunctions();
  TempDir dir;
  WriteFile(dir / "original.onnx", core::ir::SerializeDeterministic(run.original));
  WriteFile(dir / "optimized.onnx", core::ir::SerializeDeterministic(run.optimized));
  const CommandResult result = RunCommand({OnnxoptExe().string(), "verify", (dir / "original.onnx").string(),
                                           (dir / "optimized.onnx").string(), "--atol", "0", "--rtol", "0"});
  EXPECT_EQ(result.exit_code, 0) << result.output;
  EXPECT_THAT(result.output, HasSubstr("ok       y"));
  EXPECT_THAT(result.output, HasSubstr("ok       z"));
  // And a wrong body is caught: the function computes Abs only.
  ModelProto broken = run.optimized;
  broken.mutable_functions(0)->mutable_node()->RemoveLast();
  broken.mutable_functions(0)->mutable_node(0)->set_output(0, "Y");
  WriteFile(dir / "broken.onnx", core::ir::SerializeDeterministic(broken));
  const CommandResult wrong =
      RunCommand({OnnxoptExe().string(), "verify", (dir / "original.onnx").string(), (dir / "broken.onnx").string()});
  EXPECT_NE(wrong.exit_code, 0) << wrong.output;
}

}  // namespace
}  // namespace onnxopt::testing
