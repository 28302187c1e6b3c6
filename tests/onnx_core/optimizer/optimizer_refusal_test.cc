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

// Transpose<perm=[1, 0]>(input): its signature is valid whatever the input; shape
// inference refuses the perm unless the input is a matrix.
NodeProto MatrixTranspose(const std::string& input, const std::string& output) {
  NodeProto transpose;
  transpose.set_op_type("Transpose");
  transpose.add_input(input);
  transpose.add_output(output);
  AttributeProto& perm = *transpose.add_attribute();
  perm.set_name("perm");
  perm.set_type(AttributeProto::INTS);
  perm.add_ints(1);
  perm.add_ints(0);
  return transpose;
}

// Neg(x) => MatrixTranspose(x).
class NegToTransposePattern final : public PatternOptimization {
 public:
  std::string Name() const override { return "NegToTransposePattern"; }
  std::set<std::string> FastOpType() const override { return {"Neg"}; }
  MatchResult Match(GraphGraph&, const NodeProto& node) const override { return Matched({&node}); }
  utils::RepeatedProtoField<NodeProto> Apply(GraphGraph&, const std::vector<const NodeProto*>& nodes) const override {
    utils::RepeatedProtoField<NodeProto> result;
    *result.Add() = MatrixTranspose(nodes[0]->input(0), nodes[0]->output(0));
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
  EXPECT_THAT(run.report.ToString(), HasSubstr("rewrites refused, a replacement node is not valid in the model "
                                               "(1):\n  NegToGelu: Gelu (output 'y')"));
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

// A replacement whose signature is valid but whose shapes are not (found by inferring
// them before the batch is applied) is refused like one whose signature is not.
TEST_F(RefusedRewrites, AReplacementThatShapeInferenceRefusesIsNotApplied) {
  const Outcome run = Optimize(kNegAbs, {std::make_shared<NegToTransposePattern>()});
  EXPECT_EQ(NodesText(run.optimized.graph()), "y = Neg(a); z = Abs(y); ");
  EXPECT_TRUE(run.records.empty());
  EXPECT_THAT(run.report.refused_rewrites,
              ElementsAre("NegToTransposePattern: Transpose (output 'y'): Transpose-13 perm is a permutation of [0, 1) "
                          "(the input rank); found perm [1,0]"));
  ASSERT_EQ(run.report.patterns.size(), 1u);
  EXPECT_EQ(run.report.patterns[0].refused, 1u);
  EXPECT_THAT(run.report.ToString(), HasSubstr("rewrites refused, a replacement node is not valid in the model (1)"));
}

TEST_F(RefusedRewrites, TheSameReplacementIsAppliedWhereItsShapesFit) {
  const Outcome run = Optimize(R"ONNX(
    <ir_version: 8, opset_import: ["" : 18]>
    g (float[2, 3] a) => (float[3, 2] z) {
      y = Neg(a)
      z = Abs(y)
    })ONNX",
                               {std::make_shared<NegToTransposePattern>()});
  EXPECT_EQ(NodesText(run.optimized.graph()), "y = Transpose(a); z = Abs(y); ");
  EXPECT_TRUE(run.report.refused_rewrites.empty());
  ExpectReplayed(run);
}

TEST_F(RefusedRewrites, TheRestOfABatchWithAReplacementShapeInferenceRefusesIsApplied) {
  // The batch is planned again without the refused match (ShapesAhead below checks that the
  // failed inference left no trace, NonZero's fresh symbol included).
  const Outcome run = Optimize(R"ONNX(
    <ir_version: 8, opset_import: ["" : 18]>
    g (float[2] a) => (float[2] y, float[2] s, float[2] c) {
      s = Sin(a)
      y = Neg(a)
      c = Cos(a)
    })ONNX",
                               {std::make_shared<RenameOpPattern>("SinToNonZero", "Sin", "NonZero", 0),
                                std::make_shared<NegToTransposePattern>(),
                                std::make_shared<RenameOpPattern>("CosToExp", "Cos", "Exp", 0)});
  EXPECT_EQ(NodesText(run.optimized.graph()), "s = NonZero(a); y = Neg(a); c = Exp(a); ");
  EXPECT_EQ(RecordsOf(run, "SinToNonZero"), 1u);
  EXPECT_EQ(RecordsOf(run, "CosToExp"), 1u);
  EXPECT_EQ(run.report.refused_rewrites.size(), 1u);
  ExpectReplayed(run);
}

TEST(ShapesAhead, AnInvalidNodeLeavesTheGraphsShapesAsTheyWere) {
  onnx_shapes::RegisterShapeFunctions();
  GraphBuilder builder{ParseText(R"ONNX(
    <ir_version: 8, opset_import: ["" : 18]>
    g (float[2] a) => (float[2] y) {
      y = Neg(a)
    })ONNX")};
  builder.InferShapes();
  const std::size_t diagnostics = builder.Shapes()->Diagnostics().size();
  NodeProto non_zero;
  non_zero.set_op_type("NonZero");
  non_zero.add_input("a");
  non_zero.add_output("nz");  // a fresh symbol for its count
  const NodeProto transpose = MatrixTranspose("a", "t");
  GraphBuilder::PendingShapes pending = builder.InferShapesAhead({&non_zero, &transpose});
  ASSERT_TRUE(pending.invalid.has_value());
  EXPECT_EQ(pending.invalid->position, 1u);
  EXPECT_EQ(pending.overlay, nullptr);
  EXPECT_EQ(builder.GetShape("nz"), nullptr);
  EXPECT_EQ(builder.Shapes()->Diagnostics().size(), diagnostics);
  // The same NonZero inferred now gets the symbol it would have got first.
  GraphBuilder::PendingShapes again = builder.InferShapesAhead({&non_zero});
  ASSERT_FALSE(again.invalid.has_value());
  GraphBuilder fresh{builder.ToModel()};
  fresh.InferShapes();
  GraphBuilder::PendingShapes first = fresh.InferShapesAhead({&non_zero});
  ASSERT_FALSE(first.invalid.has_value());
  EXPECT_EQ(again.overlay->Find("nz")->ToString(), first.overlay->Find("nz")->ToString());
  EXPECT_EQ(builder.GetShape("nz"), nullptr) << "not committed";
  builder.CommitShapes(std::move(again));
  ASSERT_NE(builder.GetShape("nz"), nullptr);
  EXPECT_EQ(builder.GetShape("nz")->ToString(), first.overlay->Find("nz")->ToString());
}

}  // namespace
}  // namespace onnxopt::testing
