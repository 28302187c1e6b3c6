// The index and the structural queries of GraphGraph.

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "onnx_core/common/error.h"
#include "onnx_core/optimizer/graph_graph.h"
#include "onnx_core/optimizer/match.h"
#include "tests/onnx_core/optimizer/test_patterns.h"
#include "tests/support/test_support.h"

namespace onnxopt::testing {
namespace {

using core::builder::GraphBuilder;
using core::builder::GraphGraph;
using core::builder::OptimizerOptions;
using core::builder::PatternSelection;

constexpr std::string_view kModel = R"ONNX(
  <ir_version: 8, opset_import: ["" : 18]>
  g (bool c, float[2] x, float[2] w) => (float[2] y, float[2] z) <float[2] w = {1.0, 2.0}, float[2] k = {3.0, 4.0}> {
    a = Neg(x)
    b = Add(a, a)
    y = Mul(b, k)
    z = If(c) <
      then_branch = t () => (float[2] t_out) { t_out = Abs(b) },
      else_branch = e () => (float[2] e_out) { e_out = Identity(w) }
    >
  })ONNX";

struct Fixture {
  GraphBuilder builder{ParseText(kModel)};
  GraphGraph graph{builder, {}, SelectRegistered(PatternSelection::None())};
  const NodeProto& Node(int i) const { return builder.Nodes().Get(i); }
};

TEST(GraphGraph, IndexesProducersAndConsumers) {
  Fixture f;
  EXPECT_EQ(f.graph.NodeBefore("b"), &f.Node(1));
  EXPECT_EQ(f.graph.NodeBefore("x"), nullptr) << "inputs have no producer";
  EXPECT_EQ(f.graph.NodeBefore("k"), nullptr) << "initializers have no producer";
  EXPECT_EQ(f.graph.NodeBefore("nowhere"), nullptr);
  // Add reads `a` twice: one consumer.
  EXPECT_EQ(f.graph.NextNodes("a"), (std::vector<const NodeProto*>{&f.Node(1)}));
  EXPECT_EQ(f.graph.NextNodes("b"), (std::vector<const NodeProto*>{&f.Node(2)})) << "the If reads b in a subgraph only";
  EXPECT_TRUE(f.graph.NextNodes("y").empty());
  EXPECT_EQ(f.graph.Predecessors(f.Node(2)), (std::vector<const NodeProto*>{&f.Node(1)}));
  EXPECT_EQ(f.graph.Successors(f.Node(0)), (std::vector<const NodeProto*>{&f.Node(1)}));
  EXPECT_EQ(f.graph.Position(f.Node(3)), 3u);
  NodeProto foreign;
  EXPECT_THROW(f.graph.Position(foreign), BuilderError);
  EXPECT_EQ(f.graph.NodeCount(), 4u);
}

TEST(GraphGraph, ClassifiesUses) {
  Fixture f;
  EXPECT_TRUE(f.graph.IsOutput("y"));
  EXPECT_FALSE(f.graph.IsOutput("b"));
  EXPECT_TRUE(f.graph.IsUsedBySubgraph("b"));
  EXPECT_TRUE(f.graph.IsUsedBySubgraph("w"));
  EXPECT_FALSE(f.graph.IsUsedBySubgraph("a"));
  EXPECT_TRUE(f.graph.IsUsed("a"));
  EXPECT_FALSE(f.graph.IsUsedMoreThanOnce("a")) << "two reads by one node are one use";
  EXPECT_TRUE(f.graph.IsUsedMoreThanOnce("b")) << "read by Mul and by the then branch";
  EXPECT_TRUE(f.graph.IsUsedMoreThanOnce("y")) << "a graph output";
  EXPECT_FALSE(core::builder::HasOneUse(f.graph, "a"))
      << "Add(a, a) uses a twice for a rewrite: replacing one input would leave the other";
  EXPECT_FALSE(core::builder::HasOneUse(f.graph, "b"));
  EXPECT_TRUE(core::builder::HasOneUse(f.graph, "x"));
  EXPECT_EQ(core::builder::SoleConsumer(f.graph, "x", "Neg"), &f.Node(0));
  EXPECT_EQ(core::builder::SoleConsumer(f.graph, "x", "Abs"), nullptr) << "another op type";
  EXPECT_EQ(core::builder::SoleConsumer(f.graph, "a", "Add"), nullptr) << "read twice by Add";
  EXPECT_EQ(core::builder::SoleConsumer(f.graph, "b", "Mul"), nullptr) << "b has two uses";
}

TEST(GraphGraph, ConstantsAreInitializersThatNoInputOverrides) {
  Fixture f;
  EXPECT_TRUE(f.graph.IsConstant("k"));
  EXPECT_FALSE(f.graph.IsConstant("w")) << "w is also a graph input: the caller may override it";
  EXPECT_FALSE(f.graph.IsConstant("x"));
  EXPECT_FALSE(f.graph.IsConstant("a")) << "computed from an input";
  ASSERT_NE(f.graph.GetComputedConstant("k"), nullptr);
  EXPECT_EQ(f.graph.GetComputedConstant("k")->name(), "k");
  EXPECT_EQ(f.graph.GetComputedConstant("x"), nullptr);
  EXPECT_EQ(core::builder::ConstantInts(f.graph, "k"), std::nullopt) << "float values";
  EXPECT_EQ(core::builder::OnnxOpset(f.graph), 18);
}

TEST(GraphGraph, ReadsIntegerConstantsAndRanks) {
  GraphBuilder builder(ParseText(R"ONNX(
    <ir_version: 8, opset_import: ["" : 18]>
    g (float[2,3] x) => (float[3,2] y) <int32[2] shape = {3, 2}> {
      y = Reshape(x, shape)
    })ONNX"));
  builder.InferShapes();  // graph inputs only: no shape function is registered here
  GraphGraph graph(builder, {}, SelectRegistered(PatternSelection::None()));
  EXPECT_EQ(core::builder::ConstantInts(graph, "shape"), (std::vector<std::int64_t>{3, 2}));
  EXPECT_EQ(core::builder::ConstantInts(graph, "x"), std::nullopt);
  EXPECT_EQ(core::builder::RankOf(graph, "x"), 2u);
  EXPECT_EQ(core::builder::RankOf(graph, "y"), std::nullopt);
  // FindShape: GetShape when HasShape, else null.
  ASSERT_TRUE(graph.HasShape("x"));
  EXPECT_EQ(graph.FindShape("x"), &graph.GetShape("x"));
  EXPECT_FALSE(graph.HasShape("y"));
  EXPECT_EQ(graph.FindShape("y"), nullptr);
  EXPECT_EQ(graph.FindShape("missing"), nullptr);
}

TEST(MatchVocabulary, ReadsOpsAndAttributes) {
  const ModelProto model = ParseText(R"ONNX(
    <ir_version: 8, opset_import: ["" : 18, "custom" : 1]>
    g (float[2,3] x) => (float[3,2] y, float[3,2] z) {
      t = Transpose <perm = [1, 0]> (x)
      y = Neg(t)
      z = custom.Transpose(t)
    })ONNX");
  GraphBuilder builder{ModelProto(model)};
  GraphGraph graph(builder, {}, SelectRegistered(PatternSelection::None()));
  const NodeProto& transpose = builder.Nodes().Get(0);
  EXPECT_TRUE(core::builder::IsOp(transpose, "Transpose"));
  EXPECT_FALSE(core::builder::IsOp(builder.Nodes().Get(2), "Transpose")) << "custom domain";
  EXPECT_EQ(core::builder::ProducerOf(graph, "t", "Transpose"), &transpose);
  EXPECT_EQ(core::builder::ProducerOf(graph, "t", "Neg"), nullptr);
  EXPECT_EQ(core::builder::IntsAttr(transpose, "perm"), (std::vector<std::int64_t>{1, 0}));
  EXPECT_EQ(core::builder::IntAttr(transpose, "perm"), std::nullopt) << "INTS is not INT";
  EXPECT_EQ(core::builder::IntAttr(transpose, "axis"), std::nullopt);
  const std::string name = core::builder::DerivedNodeName(graph, "SomePattern", builder.Nodes().Get(1));
  EXPECT_EQ(name, "SomePattern--y");
  EXPECT_NE(core::builder::DerivedNodeName(graph, "SomePattern", builder.Nodes().Get(1)), name) << "unique";
  const NodeProto identity = core::builder::IdentityNode(graph, "SomePattern", builder.Nodes().Get(1), "x", "y");
  EXPECT_EQ(identity.op_type(), "Identity");
  EXPECT_EQ(identity.domain(), "");
  EXPECT_TRUE(identity.name().starts_with("SomePattern--y")) << identity.name();
  EXPECT_NE(identity.name(), name) << "named from the replaced node, unique";
  EXPECT_EQ(std::vector<std::string>(identity.input().begin(), identity.input().end()), std::vector<std::string>{"x"});
  EXPECT_EQ(std::vector<std::string>(identity.output().begin(), identity.output().end()), std::vector<std::string>{"y"});
}

}  // namespace
}  // namespace onnxopt::testing
