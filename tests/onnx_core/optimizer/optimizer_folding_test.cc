// Constant queries and the folding of nodes a rewrite adds (needs kernels).

#include <gtest/gtest.h>

#include "onnx_core/eval/tensor.h"
#include "onnx_core/ir/constant_values.h"
#include "onnx_core/ir/model_io.h"
#include "onnx_core/optimizer/graph_graph.h"
#include "onnx_core/optimizer/local_rewriting.h"
#include "onnx_core/optimizer/match.h"
#include "onnx_extensions/kernels/register_kernels.h"
#include "onnx_extensions/shapes/register_shape_functions.h"
#include "tests/onnx_core/optimizer/test_patterns.h"
#include "tests/support/test_support.h"

namespace onnxopt::testing {
namespace {

using core::builder::GraphBuilder;
using core::builder::GraphGraph;
using core::builder::LocalRewriting;
using core::builder::MatchResult;
using core::builder::OptimizerOptions;
using core::builder::PatternOptimization;
using core::builder::PatternSelection;

class Registered : public ::testing::Test {
 protected:
  void SetUp() override {
    onnx_shapes::RegisterShapeFunctions();
    onnx_kernels::RegisterKernels();
  }
};

using ConstantQueries = Registered;

TEST_F(ConstantQueries, FollowChainsOfFoldableNodes) {
  GraphBuilder builder(ParseText(R"ONNX(
    <ir_version: 8, opset_import: ["" : 18]>
    g (float[2,3] x) => (float[2,3] y) <float[1] one = {1.0}> {
      two = Add(one, one)
      c = Constant <value = float[1] {2.0}> ()
      shape = Shape(x)
      noise = RandomNormal <shape = [1]> ()
      both = Add(two, noise)
      y = Mul(x, two)
    })ONNX"));
  builder.InferShapes();
  GraphGraph graph(builder, {}, SelectRegistered(PatternSelection::None()));
  EXPECT_TRUE(graph.IsConstant("two"));
  EXPECT_TRUE(graph.IsConstant("c"));
  EXPECT_TRUE(graph.IsConstant("shape")) << "x has a static shape";
  EXPECT_FALSE(graph.IsConstant("noise"));
  EXPECT_FALSE(graph.IsConstant("both"));
  EXPECT_FALSE(graph.IsConstant("y"));
  EXPECT_TRUE(graph.IsConstantScalar("two", 2.0));
  EXPECT_TRUE(graph.IsConstantScalar("c", 2.0));
  EXPECT_FALSE(graph.IsConstantScalar("two", 1.0));
  EXPECT_FALSE(graph.IsConstantScalar("shape", 2.0)) << "shape has two elements";
  const TensorProto* shape = graph.GetComputedConstant("shape");
  ASSERT_NE(shape, nullptr);
  EXPECT_EQ(shape->int64_data_size(), 2);
  EXPECT_EQ(graph.GetComputedConstant("both"), nullptr);
}

// Folding leaves DequantizeLinear (FoldOptions::fold_dequantize_linear): its output and
// what it feeds are not constants to the patterns either, or a rewrite would materialize
// the float weights (or add a node on them that folding then leaves to run).
TEST_F(ConstantQueries, DequantizedValuesAreConstantOnlyWhenFoldingTakesThem) {
  GraphBuilder builder(ParseText(R"ONNX(
    <ir_version: 8, opset_import: ["" : 18]>
    g (float[2] x) => (float[2] y) <int8[2] q = {1, 2}, float s = {0.5}> {
      w = DequantizeLinear(q, s)
      t = Neg(w)
      y = Mul(x, t)
    })ONNX"));
  builder.InferShapes();
  GraphGraph kept(builder, {}, SelectRegistered(PatternSelection::None()));
  EXPECT_TRUE(kept.IsConstant("q"));
  EXPECT_FALSE(kept.IsConstant("w"));
  EXPECT_FALSE(kept.IsConstant("t"));
  EXPECT_EQ(kept.GetComputedConstant("w"), nullptr);
  OptimizerOptions options = SelectRegistered(PatternSelection::None());
  options.fold.fold_dequantize_linear = true;
  GraphGraph folded(builder, {}, options);
  EXPECT_TRUE(folded.IsConstant("t"));
  ASSERT_NE(folded.GetComputedConstant("t"), nullptr);
  EXPECT_EQ(core::eval::Tensor::FromProto(*folded.GetComputedConstant("t")).ToDoubleVector(),
            (std::vector<double>{-0.5, -1.0}));
}

TEST_F(ConstantQueries, ComputedValuesHoldAtMostTheirAllowance) {
  // Three ConstantOfShape of 4 KiB each (not folded: they would grow the model). Computed
  // values are kept for the whole optimization; beyond their allowance none is computed.
  GraphBuilder builder(ParseText(R"ONNX(
    <ir_version: 8, opset_import: ["" : 18]>
    g (float[1024] x) => (float[1024] y) <int64[1] n = {1024}> {
      a = ConstantOfShape <value = float[1] {1.0}> (n)
      b = ConstantOfShape <value = float[1] {2.0}> (n)
      c = ConstantOfShape <value = float[1] {3.0}> (n)
      ab = Add(a, b)
      abc = Add(ab, c)
      y = Add(x, abc)
    })ONNX"));
  builder.InferShapes();
  OptimizerOptions options = SelectRegistered(PatternSelection::None());
  options.fold.max_computed_bytes = 10 << 10;  // two of them with their protos' fields, not three
  GraphGraph graph(builder, {}, options);
  const TensorProto* a = graph.GetComputedConstant("a");
  const TensorProto* b = graph.GetComputedConstant("b");
  ASSERT_NE(a, nullptr);
  ASSERT_NE(b, nullptr);
  EXPECT_EQ(a->raw_data().size() + b->raw_data().size(), 8192u);
  EXPECT_EQ(graph.GetComputedConstant("c"), nullptr);
  EXPECT_EQ(graph.GetComputedConstant("abc"), nullptr) << "its inputs are beyond the allowance too";
  // With the default allowance (256 MiB) all three are.
  GraphGraph roomy(builder, {}, SelectRegistered(PatternSelection::None()));
  EXPECT_NE(roomy.GetComputedConstant("abc"), nullptr);
}

TEST_F(ConstantQueries, BroadcastScalarsMayHaveAnyRankOfOnes) {
  GraphBuilder builder(ParseText(R"ONNX(
    <ir_version: 8, opset_import: ["" : 18]>
    g (float[2] x) => (float[2] y) <float[1,1] ones = {1.0}, float[2] pair = {1.0, 1.0}> {
      y = Mul(x, ones)
    })ONNX"));
  GraphGraph graph(builder, {}, SelectRegistered(PatternSelection::None()));
  EXPECT_FALSE(graph.IsConstantScalar("ones", 1.0));
  EXPECT_TRUE(graph.IsConstantScalar("ones", 1.0, /*broadcast=*/true));
  EXPECT_FALSE(graph.IsConstantScalar("pair", 1.0, true));
}

TEST_F(ConstantQueries, MatchHelpersReadFoldedConstants) {
  GraphBuilder builder(ParseText(R"ONNX(
    <ir_version: 8, opset_import: ["" : 18]>
    g (float[2,3] x) => (float[2,3] y) <float[1] one = {1.5}, int64[1] k = {2}, int64[1] zero = {0}> {
      three = Add(one, one)
      column = Unsqueeze(three, zero)
      twice = Mul(k, k)
      size = Size(x)
      y = Mul(x, three)
    })ONNX"));
  builder.InferShapes();
  GraphGraph graph(builder, {}, SelectRegistered(PatternSelection::None()));
  EXPECT_TRUE(core::builder::IsConstantScalarShaped(graph, "three"));
  EXPECT_EQ(core::builder::ConstantScalar(graph, "three"), 3.0);
  EXPECT_EQ(core::builder::ConstantScalarInt(graph, "three"), std::nullopt) << "a float";
  EXPECT_EQ(core::builder::ConstantScalarInt(graph, "twice"), 4);
  EXPECT_EQ(core::builder::ConstantScalarInt(graph, "size"), 6) << "Size of a static shape, shape ()";
  EXPECT_FALSE(core::builder::IsConstantScalarShaped(graph, "column")) << "shape (1, 1)";
  EXPECT_EQ(core::builder::ConstantScalar(graph, "column"), std::nullopt);
  const auto column = core::builder::ConstantDoubles(graph, "column");
  ASSERT_TRUE(column.has_value());
  EXPECT_EQ(column->dims, (std::vector<std::int64_t>{1, 1}));
  EXPECT_EQ(column->elements, (std::vector<double>{3.0}));
  EXPECT_EQ(core::builder::ConstantScalar(graph, "y"), std::nullopt);
  EXPECT_EQ(core::builder::StaticDims(graph, "column"), (std::vector<std::int64_t>{1, 1})) << "inferred";
  EXPECT_EQ(core::builder::StaticDims(graph, "y"), (std::vector<std::int64_t>{2, 3}));
  EXPECT_EQ(core::builder::StaticDim(graph, "column", -1), 1);
}

/// Constant() => Identity(initializer): a pattern that creates an initializer in Apply.
class ConstantToInitializer final : public PatternOptimization {
 public:
  std::string Name() const override { return "ConstantToInitializer"; }
  std::set<std::string> FastOpType() const override { return {"Constant"}; }
  MatchResult Match(GraphGraph&, const NodeProto& node) const override { return Matched({&node}); }
  utils::RepeatedProtoField<NodeProto> Apply(GraphGraph& graph,
                                             const std::vector<const NodeProto*>& nodes) const override {
    const std::string name = graph.MakeInitializer(nodes[0]->output(0) + "_init",
                                                   *core::ir::ConstantNodeValue(*nodes[0]));
    utils::RepeatedProtoField<NodeProto> result;
    NodeProto& identity = *result.Add();
    identity.set_op_type("Identity");
    identity.add_input(name);
    identity.add_output(nodes[0]->output(0));
    return result;
  }
};

using FoldingOfRewrites = Registered;

TEST_F(FoldingOfRewrites, InitializersMadeInApplyBelongToTheRecord) {
  const ModelProto original = ParseText(R"ONNX(
    <ir_version: 8, opset_import: ["" : 18]>
    g (float[2] x) => (float[2] y) <float[2] k = {1.0, 2.0}> {
      c = Constant <value = float[2] {3.0, 4.0}> ()
      kc = Add(k, c)
      y = Add(x, kc)
    })ONNX");
  GraphBuilder builder{ModelProto(original)};
  GraphGraph graph(builder, {std::make_shared<ConstantToInitializer>()}, SelectRegistered(PatternSelection::None()));
  const std::vector<LocalRewriting> records = graph.Optimize();
  ASSERT_GE(records.size(), 1u);
  ASSERT_EQ(records[0].added_initializers.size(), 1);
  EXPECT_EQ(records[0].added_initializers.Get(0).name(), "c_init");
  EXPECT_EQ(records[0].added_initializer_positions, (std::vector<std::size_t>{1}));
  // The Identity is not folded (that would copy the tensor) but removed by cleanup;
  // Add(k, c_init) stays: folding is limited to the nodes a batch adds.
  ASSERT_EQ(builder.Nodes().size(), 2);
  EXPECT_EQ(builder.Nodes().Get(0).input(1), "c_init");
  const GraphProto replayed = core::builder::Replay(original, records);
  EXPECT_EQ(core::ir::SerializeDeterministic(replayed), core::ir::SerializeDeterministic(builder.Graph()));
}

TEST_F(FoldingOfRewrites, AddedNodesWithConstantInputsBecomeInitializersOfTheRecord) {
  const ModelProto original = ParseText(R"ONNX(
    <ir_version: 8, opset_import: ["" : 18]>
    g (float[2] x) => (float[2] y) <float[2] k = {1.0, 2.0}> {
      y = Sub(x, k)
    })ONNX");
  GraphBuilder builder{ModelProto(original)};
  // Sub(x, k) => Add(x, Neg(k)): the Neg reads an initializer and folds.
  auto pattern = std::make_shared<SubToAddNegPattern>();
  GraphGraph graph(builder, {pattern}, SelectRegistered(PatternSelection::None()));
  core::builder::OptimizationReport report;
  const std::vector<LocalRewriting> records = graph.Optimize(-1, &report);
  ASSERT_GE(records.size(), 1u);
  const LocalRewriting& record = records[0];
  EXPECT_EQ(record.Name(), "SubToAddNegPattern");
  ASSERT_EQ(record.added_nodes.size(), 1) << "the Neg was folded away";
  EXPECT_EQ(record.added_nodes.Get(0).op_type(), "Add");
  ASSERT_EQ(record.added_initializers.size(), 1);
  EXPECT_EQ(record.added_initializers.Get(0).name(), "negated");
  EXPECT_EQ(record.added_initializer_positions, (std::vector<std::size_t>{1}));
  EXPECT_EQ(builder.Nodes().size(), 1);
  // k is unused now and goes; the folded constant stays.
  ASSERT_EQ(builder.Initializers().size(), 1);
  EXPECT_EQ(builder.Initializers().Get(0).name(), "negated");
  EXPECT_GT(report.constant_folding_time_ns, 0);
  const GraphProto replayed = core::builder::Replay(original, records);
  EXPECT_EQ(core::ir::SerializeDeterministic(replayed), core::ir::SerializeDeterministic(builder.Graph()));
}

TEST_F(FoldingOfRewrites, FoldsEveryConstantNodeFirstWhenAsked) {
  const ModelProto original = ParseText(R"ONNX(
    <ir_version: 8, opset_import: ["" : 18]>
    g (float[2] x) => (float[2] y) <float[2] k = {1.0, 2.0}> {
      k2 = Mul(k, k)
      y = Add(x, k2)
    })ONNX");
  GraphBuilder builder{ModelProto(original)};
  OptimizerOptions options = SelectRegistered(PatternSelection::None());
  options.fold_constants_first = true;
  GraphGraph graph(builder, {}, options);
  const std::vector<LocalRewriting> records = graph.Optimize();
  ASSERT_GE(records.size(), 1u);
  EXPECT_EQ(records[0].Name(), "FoldConstants");
  EXPECT_EQ(records[0].matched_nodes, (std::vector<std::size_t>{0}));
  ASSERT_EQ(builder.Nodes().size(), 1);
  const GraphProto replayed = core::builder::Replay(original, records);
  EXPECT_EQ(core::ir::SerializeDeterministic(replayed), core::ir::SerializeDeterministic(builder.Graph()));
}

}  // namespace
}  // namespace onnxopt::testing
