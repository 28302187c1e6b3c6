// The driver refuses a replacement the model cannot hold: a node that breaks its
// operator's signature at the opset the model imports (needs the registered schemas).

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cstdlib>

#include "onnx_core/ir/graph_check.h"
#include "onnx_core/optimizer/match.h"
#include "onnx_extensions/kernels/register_kernels.h"
#include "onnx_extensions/shapes/register_shape_functions.h"
#include "tests/onnx_core/optimizer/optimize_fixture.h"
#include "tests/onnx_core/optimizer/test_patterns.h"

namespace onnxopt::testing {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;

// Neg(x) => Reshape(x, shape) with `shape` a new initializer [-1]: valid from opset 5,
// where Reshape takes its shape as an input; before, Reshape-1 takes one input.
class NegToReshapePattern final : public PatternOptimization {
 public:
  std::string Name() const override { return "NegToReshapePattern"; }
  std::set<std::string> FastOpType() const override { return {"Neg"}; }
  MatchResult Match(GraphGraph&, const NodeProto& node) const override { return Matched({&node}); }
  utils::RepeatedProtoField<NodeProto> Apply(GraphGraph& graph, const std::vector<const NodeProto*>& nodes) const override {
    TensorProto shape;
    shape.set_data_type(TensorProto::INT64);
    shape.add_dims(1);
    shape.add_int64_data(-1);
    utils::RepeatedProtoField<NodeProto> result;
    NodeProto& reshape = *result.Add();
    reshape.set_op_type("Reshape");
    reshape.add_input(nodes[0]->input(0));
    reshape.add_input(graph.MakeInitializer("shape", std::move(shape)));
    reshape.add_output(nodes[0]->output(0));
    return result;
  }
};

class RefusedRewrites : public ::testing::Test {
 protected:
  void SetUp() override {
    onnx_shapes::RegisterShapeFunctions();
    onnx_kernels::RegisterKernels();
    // Every round also tries the nodes incremental matching skips: a refused match that
    // incremental matching forgot would fail the run.
    setenv("ONNXOPT_CHECK_INCREMENTAL", "1", 1);
  }
  void TearDown() override { unsetenv("ONNXOPT_CHECK_INCREMENTAL"); }
};

constexpr std::string_view kNegAbs = R"ONNX(
  <ir_version: 8, opset_import: ["" : 18]>
  g (float[2] a) => (float[2] z) {
    y = Neg(a)
    z = Abs(y)
  })ONNX";

TEST_F(RefusedRewrites, AReplacementOfAnOperatorTheOpsetDoesNotDefineIsNotApplied) {
  // Gelu exists from opset 20.
  const Outcome run = Optimize(kNegAbs, {std::make_shared<RenameOpPattern>("NegToGelu", "Neg", "Gelu", 0)});
  EXPECT_EQ(NodesText(run.optimized.graph()), "y = Neg(a); z = Abs(y); ");
  EXPECT_TRUE(run.records.empty());
  EXPECT_NO_THROW(core::ir::CheckModel(run.optimized));
  EXPECT_THAT(run.report.refused_rewrites,
              ElementsAre("NegToGelu: Gelu (output 'y'): Gelu exists from opset 20 of ai.onnx on; found opset 18 of "
                          "ai.onnx imported"));
  ASSERT_EQ(run.report.patterns.size(), 1u);
  EXPECT_EQ(run.report.patterns[0].refused, 1u) << "refused once, then not tried on that node again";
  EXPECT_EQ(run.report.patterns[0].applied, 0u);
  EXPECT_FALSE(run.report.reached_max_iter);
  EXPECT_THAT(run.report.ToString(), HasSubstr("rewrites refused, a replacement node is not valid at the model's "
                                               "opset (1):\n  NegToGelu: Gelu (output 'y')"));
  EXPECT_THAT(run.report.ToJson(), HasSubstr("\"refused_rewrites\":[\"NegToGelu: Gelu (output 'y')"));
}

TEST_F(RefusedRewrites, TheSameReplacementIsAppliedWhereTheOpsetDefinesIt) {
  const Outcome run = Optimize(R"ONNX(
    <ir_version: 8, opset_import: ["" : 20]>
    g (float[2] a) => (float[2] z) {
      y = Neg(a)
      z = Abs(y)
    })ONNX",
                               {std::make_shared<RenameOpPattern>("NegToGelu", "Neg", "Gelu", 0)});
  EXPECT_EQ(NodesText(run.optimized.graph()), "y = Gelu(a); z = Abs(y); ");
  EXPECT_TRUE(run.report.refused_rewrites.empty());
  ExpectReplayed(run);
}

TEST_F(RefusedRewrites, ARefusedApplyLeavesNoInitializerBehind) {
  // The shape of the failure the graph fuzzer found (reproducer
  // transpose-equal-reshape-opset3-shape-input): a Reshape with a shape input at opset 3.
  const Outcome old_opset = Optimize(R"ONNX(
    <ir_version: 3, opset_import: ["" : 3]>
    g (float[2] a) => (float[2] z) {
      y = Neg(a)
      z = Abs(y)
    })ONNX",
                                     {std::make_shared<NegToReshapePattern>()});
  EXPECT_EQ(NodesText(old_opset.optimized.graph()), "y = Neg(a); z = Abs(y); ");
  EXPECT_EQ(old_opset.optimized.graph().initializer_size(), 0);
  EXPECT_THAT(old_opset.report.refused_rewrites,
              ElementsAre("NegToReshapePattern: Reshape (output 'y'): Reshape-1 has 1 inputs; found 2"));
  EXPECT_NO_THROW(core::ir::CheckModel(old_opset.optimized));

  const Outcome new_opset = Optimize(kNegAbs, {std::make_shared<NegToReshapePattern>()});
  EXPECT_EQ(NodesText(new_opset.optimized.graph()), "y = Reshape(a,shape); z = Abs(y); ");
  EXPECT_EQ(new_opset.optimized.graph().initializer_size(), 1);
  ExpectReplayed(new_opset);
}

TEST_F(RefusedRewrites, TheOtherRewritesOfTheBatchAreApplied) {
  const Outcome run = Optimize(R"ONNX(
    <ir_version: 8, opset_import: ["" : 18]>
    g (float[2] a) => (float[2] y, float[2] s) {
      y = Neg(a)
      s = Sin(a)
    })ONNX",
                               {std::make_shared<RenameOpPattern>("NegToGelu", "Neg", "Gelu", 0),
                                std::make_shared<RenameOpPattern>("SinToCos", "Sin", "Cos", 0)});
  EXPECT_EQ(NodesText(run.optimized.graph()), "y = Neg(a); s = Cos(a); ");
  EXPECT_EQ(RecordsOf(run, "SinToCos"), 1u);
  EXPECT_EQ(run.report.refused_rewrites.size(), 1u);
  ExpectReplayed(run);
}

TEST_F(RefusedRewrites, AMatchARefusedOneHeldBackIsAppliedNext) {
  // NegToGelu comes first and claims both Negs; its refusals free them for NegNegPattern,
  // whose match overlapped them.
  const Outcome run = Optimize(R"ONNX(
    <ir_version: 8, opset_import: ["" : 18]>
    g (float[2] a) => (float[2] y) {
      n = Neg(a)
      y = Neg(n)
    })ONNX",
                               {std::make_shared<RenameOpPattern>("NegToGelu", "Neg", "Gelu", 0),
                                std::make_shared<NegNegPattern>(0)});
  EXPECT_EQ(NodesText(run.optimized.graph()), "y = Identity(a); ");
  EXPECT_EQ(RecordsOf(run, "NegNegPattern"), 1u);
  EXPECT_EQ(run.report.patterns.at(0).refused, 2u);
  ExpectReplayed(run);
}

// The inputs' types are checked as shape inference checks them: Not takes booleans.
TEST_F(RefusedRewrites, AReplacementReadingATypeItsOperatorDoesNotTakeIsNotApplied) {
  const Outcome run = Optimize(kNegAbs, {std::make_shared<RenameOpPattern>("NegToNot", "Neg", "Not", 0)});
  EXPECT_EQ(NodesText(run.optimized.graph()), "y = Neg(a); z = Abs(y); ");
  EXPECT_THAT(run.report.refused_rewrites,
              ElementsAre("NegToNot: Not (output 'y'): input 0 'X' of Not-1 has type T: tensor(bool); found "
                          "tensor(float)"));
}

}  // namespace
}  // namespace onnxopt::testing
