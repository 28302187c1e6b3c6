// The layout family's helpers: axes, permutations, Shape ranges and the graph queries.

#include "onnx_extensions/patterns/layout/layout_matchers.h"

#include <gtest/gtest.h>

#include "onnx_core/builder/graph_builder.h"
#include "onnx_core/optimizer/graph_graph.h"
#include "onnx_core/optimizer/match.h"
#include "tests/onnx_extensions/patterns/graph_fixture.h"

namespace onnxopt::onnx_patterns::layout {
namespace {


TEST(LayoutAxes, NormalizesAgainstTheRankKeepingTheOrder) {
  EXPECT_EQ(NormalizeAxes({-1, 0}, 3), (Ints{2, 0}));
  EXPECT_EQ(NormalizeAxes({2, -3}, 3), (Ints{2, 0}));
  EXPECT_EQ(NormalizeAxes({}, 0), Ints{});
}

TEST(LayoutAxes, RefusesOutOfRangeAndRepeatedAxes) {
  EXPECT_EQ(NormalizeAxes({3}, 3), std::nullopt);
  EXPECT_EQ(NormalizeAxes({-4}, 3), std::nullopt);
  EXPECT_EQ(NormalizeAxes({1, -2}, 3), std::nullopt) << "-2 is 1 again";
  EXPECT_EQ(NormalizeAxes({0, 0}, std::nullopt), std::nullopt);
}

TEST(LayoutAxes, WithoutRankAcceptsOnlyNonNegativeAxes) {
  EXPECT_EQ(NormalizeAxes({5, 1}, std::nullopt), (Ints{5, 1}));
  EXPECT_EQ(NormalizeAxes({-1}, std::nullopt), std::nullopt);
  EXPECT_TRUE(HasNegativeAxis({0, -1}));
  EXPECT_FALSE(HasNegativeAxis({0, 1}));
}

TEST(LayoutAxes, ComposesUnsqueezesWithTheSecondAxesInOutputCoordinates) {
  // (2,3) -> a1 = [0] -> (1,2,3) -> a2 = [3] -> (1,2,3,1)
  EXPECT_EQ(ComposeUnsqueezeAxes({0}, {3}), (Ints{0, 3}));
  // a1 == a2 = [1]: the first 1 moves right by one.
  EXPECT_EQ(ComposeUnsqueezeAxes({1}, {1}), (Ints{1, 2}));
  // a1 > a2: [a2, a1 + 1].
  EXPECT_EQ(ComposeUnsqueezeAxes({2}, {0}), (Ints{0, 3}));
  // (2,3) -> a1 = [-1] = [2] -> (2,3,1) -> a2 = [-1] = [3] -> (2,3,1,1); upstream gives [-1, 0].
  EXPECT_EQ(ComposeUnsqueezeAxes({2}, {3}), (Ints{2, 3}));
  // Unsorted first axes [3, 1] on rank 2 (upstream asserts): U = (d0,1,d1,1); a2 = [0, 2].
  EXPECT_EQ(ComposeUnsqueezeAxes({3, 1}, {0, 2}), (Ints{0, 2, 3, 5}));
  // Unknown rank, so unbounded axes: counted, not walked (2^62 steps before), and a
  // position beyond int64 composes to nothing.
  EXPECT_EQ(ComposeUnsqueezeAxes({std::int64_t{1} << 62}, {2}), (Ints{2, (std::int64_t{1} << 62) + 1}));
  EXPECT_EQ(ComposeUnsqueezeAxes({INT64_MAX}, {0}), std::nullopt);
  EXPECT_EQ(ComposeUnsqueezeAxes({INT64_MAX}, {1}), std::nullopt);
  EXPECT_EQ(ComposeUnsqueezeAxes({INT64_MAX - 1}, {INT64_MAX}), (Ints{INT64_MAX - 1, INT64_MAX}));
}

TEST(LayoutPermutations, InvertsAndComposes) {
  const Ints p = {1, 2, 0};
  EXPECT_TRUE(IsPermutation(p));
  EXPECT_EQ(InversePermutation(p), (Ints{2, 0, 1})) << "not p itself: p is not an involution";
  EXPECT_TRUE(IsIdentityPermutation(ComposePermutations(p, InversePermutation(p))));
  // Transpose<[2,0,1]>(Transpose<[1,0,2]>(x)): output axis i is axis p1[p2[i]] of x.
  EXPECT_EQ(ComposePermutations({1, 0, 2}, {2, 0, 1}), (Ints{2, 1, 0}));
  EXPECT_EQ(ComposePermutations({1, 2, 0}, {1, 2, 0}), (Ints{2, 0, 1}));
}

TEST(LayoutPermutations, RecognizesPermutations) {
  EXPECT_TRUE(IsPermutation({}));
  EXPECT_FALSE(IsPermutation({0, 0}));
  EXPECT_FALSE(IsPermutation({0, 2}));
  EXPECT_FALSE(IsPermutation({-1, 0}));
  EXPECT_TRUE(IsIdentityPermutation({0, 1, 2}));
  EXPECT_FALSE(IsIdentityPermutation({0, 2, 1}));
}

TEST(LayoutShape, ResolvesStartAndEndAsTheOperator) {
  NodeProto shape;
  shape.set_op_type("Shape");
  const AxisRange all = ShapeRange(shape, 4);
  EXPECT_EQ(all.start, 0);
  EXPECT_EQ(all.end, 4);
  core::builder::AddIntAttribute(shape, "start", -3);
  core::builder::AddIntAttribute(shape, "end", 100);
  const AxisRange clamped = ShapeRange(shape, 4);
  EXPECT_EQ(clamped.start, 1);
  EXPECT_EQ(clamped.end, 4);
  shape.mutable_attribute(0)->set_i(-10);
  shape.mutable_attribute(1)->set_i(-1);
  const AxisRange negative = ShapeRange(shape, 4);
  EXPECT_EQ(negative.start, 0);
  EXPECT_EQ(negative.end, 3);
  shape.mutable_attribute(0)->set_i(2);
  shape.mutable_attribute(1)->set_i(1);
  EXPECT_TRUE(ShapeRange(shape, 4).Empty());
}

using onnxopt::onnx_patterns::testing::GraphFixture;

constexpr std::string_view kGraph = R"ONNX(
  <ir_version: 8, opset_import: ["" : 18]>
  g (float[2,3] X, float[A,3] W, float[3,1] O, int64[1] dynamic) => (float[3,2] Y, float[A,3] V, float[2,3] S)
    <int64[1] one = {1}, int64 scalar = {1}, int64[2] pair = {0, -1}, int64[0] none = {}> {
    t = Transpose<perm = [1, 0]>(X)
    Y = Transpose<perm = [0, 1]>(t)
    u = Transpose<perm = [1, 0]>(W)
    V = Transpose(u)
    k = Add(pair, one)
    S = Transpose(t)
    q1 = Squeeze(O, one)
    q2 = Squeeze(X)
    q3 = Squeeze(W)
    q4 = Squeeze(O, dynamic)
    q5 = Squeeze(O, none)
  })ONNX";

TEST(LayoutGraphQueries, ReadsConstantOneDimensionalAxes) {
  GraphFixture f(kGraph);
  EXPECT_EQ(ConstantAxes(f.graph, "one"), Ints{1});
  EXPECT_EQ(ConstantAxes(f.graph, "pair"), (Ints{0, -1}));
  EXPECT_EQ(ConstantAxes(f.graph, "k"), (Ints{1, 0})) << "a computed constant";
  EXPECT_EQ(ConstantAxes(f.graph, "scalar"), std::nullopt) << "rank 0";
  EXPECT_EQ(ConstantAxes(f.graph, "dynamic"), std::nullopt);
}

TEST(LayoutGraphQueries, ReadsTheAxesASqueezeRemoves) {
  GraphFixture f(kGraph);
  std::string_view why;
  EXPECT_EQ(SqueezedAxes(f.graph, *f.graph.NodeBefore("q1"), &why), Ints{1});
  EXPECT_EQ(SqueezedAxes(f.graph, *f.graph.NodeBefore("q2"), &why), Ints{}) << "(2,3) has no 1";
  EXPECT_EQ(SqueezedAxes(f.graph, *f.graph.NodeBefore("q3"), &why), std::nullopt);
  EXPECT_EQ(why, "a Squeeze has no axes input and the shape of its input is not static");
  EXPECT_EQ(SqueezedAxes(f.graph, *f.graph.NodeBefore("q4"), &why), std::nullopt);
  EXPECT_EQ(why, "the axes of a Squeeze are not a constant 1-D tensor");
  EXPECT_EQ(SqueezedAxes(f.graph, *f.graph.NodeBefore("q5"), &why), std::nullopt);
  EXPECT_EQ(why, "the axes of a Squeeze are empty");
}

TEST(LayoutGraphQueries, ReadsPermAndSaysWhyNot) {
  GraphFixture f(kGraph);
  std::string_view why;
  EXPECT_EQ(TransposePerm(f.graph, *f.graph.NodeBefore("t"), &why), (Ints{1, 0}));
  EXPECT_EQ(TransposePerm(f.graph, *f.graph.NodeBefore("V"), &why), std::nullopt);
  EXPECT_EQ(why, "a Transpose has no perm attribute");
  // Inference refuses a graph with such a Transpose: a node outside it, reading X (rank 2).
  NodeProto longer = *f.graph.NodeBefore("t");
  longer.mutable_attribute(0)->add_ints(2);
  EXPECT_EQ(TransposePerm(f.graph, longer, &why), std::nullopt);
  EXPECT_EQ(why, "the perm of a Transpose is not a permutation of its input axes");
  NodeProto repeated = *f.graph.NodeBefore("t");
  repeated.mutable_attribute(0)->set_ints(1, 1);
  why = {};
  EXPECT_EQ(TransposePerm(f.graph, repeated, &why), std::nullopt);
  EXPECT_EQ(why, "the perm of a Transpose is not a permutation of its input axes");
}

TEST(LayoutGraphQueries, ListsDataConsumersInGraphOrder) {
  GraphFixture f(kGraph);
  const std::vector<const NodeProto*> readers = DataConsumers(f.graph, "t", "Transpose");
  ASSERT_EQ(readers.size(), 2u);
  EXPECT_EQ(readers[0]->output(0), "Y");
  EXPECT_EQ(readers[1]->output(0), "S");
  EXPECT_TRUE(DataConsumers(f.graph, "t", "Reshape").empty());
  EXPECT_TRUE(DataConsumers(f.graph, "one", "Add").empty()) << "read as second input";
}

TEST(LayoutGraphQueries, TellsWhetherAValueExistsBeforeANode) {
  GraphFixture f(kGraph);
  const NodeProto& u = *f.graph.NodeBefore("u");
  EXPECT_TRUE(DefinedBefore(f.graph, "X", u)) << "a graph input";
  EXPECT_TRUE(DefinedBefore(f.graph, "one", u)) << "an initializer";
  EXPECT_TRUE(DefinedBefore(f.graph, "t", u));
  EXPECT_FALSE(DefinedBefore(f.graph, "u", u)) << "its own output";
  EXPECT_FALSE(DefinedBefore(f.graph, "k", u));
}

}  // namespace
}  // namespace onnxopt::onnx_patterns::layout
