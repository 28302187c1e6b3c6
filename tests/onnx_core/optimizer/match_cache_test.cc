// Incremental matching (onnx_core/optimizer/match_cache.h): a node on which nothing
// matched is tried again when something its patterns looked at changed, including
// changes that reach it only through constness, a value's readers, or the whole graph.
// Each case fails if the cache skipped the node: the second pattern would not fire.

#include <gtest/gtest.h>

#include <cstdlib>
#include <string>

#include "onnx_core/ir/model_io.h"
#include "onnx_core/optimizer/match.h"
#include "onnx_core/optimizer/rewrite_file.h"
#include "onnx_extensions/kernels/register_kernels.h"
#include "onnx_extensions/shapes/register_shape_functions.h"
#include "tests/onnx_core/optimizer/optimize_fixture.h"
#include "tests/onnx_core/optimizer/test_patterns.h"

namespace onnxopt::testing {
namespace {

/// Sub(x, x) of a float[2] => Constant zeros.
class SubSelfPattern final : public PatternOptimization {
 public:
  std::string Name() const override { return "SubSelfPattern"; }
  std::set<std::string> FastOpType() const override { return {"Sub"}; }
  MatchResult Match(GraphGraph&, const NodeProto& node) const override {
    if (node.input(0) != node.input(1)) return NoMatch(node, "the operands differ");
    return Matched({&node});
  }
  utils::RepeatedProtoField<NodeProto> Apply(GraphGraph&, const std::vector<const NodeProto*>& nodes) const override {
    utils::RepeatedProtoField<NodeProto> result;
    NodeProto& constant = *result.Add();
    constant.set_op_type("Constant");
    constant.add_output(nodes[0]->output(0));
    AttributeProto& value = *constant.add_attribute();
    value.set_name("value");
    value.set_type(AttributeProto::TENSOR);
    value.mutable_t()->set_data_type(TensorProto::FLOAT);
    value.mutable_t()->add_dims(2);
    value.mutable_t()->add_float_data(0);
    value.mutable_t()->add_float_data(0);
    return result;
  }
};

/// Add(a, b) with a constant b => Sum(a, b).
class AddConstantPattern final : public PatternOptimization {
 public:
  std::string Name() const override { return "AddConstantPattern"; }
  std::set<std::string> FastOpType() const override { return {"Add"}; }
  MatchResult Match(GraphGraph& graph, const NodeProto& node) const override {
    if (!graph.IsConstant(node.input(1))) return NoMatch(node, "the second operand is not constant");
    return Matched({&node});
  }
  utils::RepeatedProtoField<NodeProto> Apply(GraphGraph&, const std::vector<const NodeProto*>& nodes) const override {
    utils::RepeatedProtoField<NodeProto> result;
    NodeProto& sum = *result.Add() = *nodes[0];
    sum.set_op_type("Sum");
    return result;
  }
};

/// Abs(x) => Max(x, Neg(x)), once the graph has at most two nodes (a query about the whole
/// graph: GraphGraph::NodeCount).
class AbsInSmallGraphPattern final : public PatternOptimization {
 public:
  std::string Name() const override { return "AbsInSmallGraphPattern"; }
  std::set<std::string> FastOpType() const override { return {"Abs"}; }
  MatchResult Match(GraphGraph& graph, const NodeProto& node) const override {
    if (graph.NodeCount() > 2) return NoMatch(node, "the graph has more than two nodes");
    return Matched({&node});
  }
  utils::RepeatedProtoField<NodeProto> Apply(GraphGraph& graph,
                                             const std::vector<const NodeProto*>& nodes) const override {
    utils::RepeatedProtoField<NodeProto> result;
    const std::string negated = graph.Builder().UniqueName("negated");
    NodeProto& neg = *result.Add();
    neg.set_op_type("Neg");
    neg.add_input(nodes[0]->input(0));
    neg.add_output(negated);
    NodeProto& max = *result.Add();
    max.set_op_type("Max");
    max.add_input(nodes[0]->input(0));
    max.add_input(negated);
    max.add_output(nodes[0]->output(0));
    return result;
  }
};

class IncrementalMatching : public ::testing::Test {
 protected:
  void SetUp() override {
    onnx_shapes::RegisterShapeFunctions();
    onnx_kernels::RegisterKernels();
  }
  void TearDown() override {
    unsetenv("ONNXOPT_INCREMENTAL");
    unsetenv("ONNXOPT_CHECK_INCREMENTAL");
  }

  // Optimizes with incremental matching (checked) and without: both must give `expected`
  // and the same records.
  static void ExpectBothWays(std::string_view text, const Patterns& patterns, const std::string& expected) {
    setenv("ONNXOPT_CHECK_INCREMENTAL", "1", 1);
    const Outcome incremental = Optimize(text, patterns);
    unsetenv("ONNXOPT_CHECK_INCREMENTAL");
    setenv("ONNXOPT_INCREMENTAL", "0", 1);
    const Outcome whole = Optimize(text, patterns);
    unsetenv("ONNXOPT_INCREMENTAL");
    EXPECT_EQ(NodesText(incremental.optimized.graph()), expected);
    EXPECT_EQ(NodesText(whole.optimized.graph()), expected);
    EXPECT_EQ(WithoutTimes(incremental.records), WithoutTimes(whole.records));
    ExpectReplayed(incremental);
  }

  static std::string WithoutTimes(std::vector<LocalRewriting> records) {
    for (LocalRewriting& record : records) record.match_time_ns = record.apply_time_ns = 0;
    return core::builder::SerializeRewrites(records);
  }
};

// Round 1: the Sub becomes a Constant, and neither Add matches (u is not constant). The first
// Add's query walks up to t; the second gets the answer about u from the index's memory,
// and reads nothing but u. Round 2: only t changed, yet u is now constant: the cache must
// follow constness from t to u, or it skips the second Add.
TEST_F(IncrementalMatching, FollowsConstnessDownstreamOfAChange) {
  ExpectBothWays(R"ONNX(
    <ir_version: 8, opset_import: ["" : 18]>
    g (float[2] x, float[2] a, float[2] b) => (float[2] w1, float[2] w2) {
      t = Sub(x, x)
      u = Relu(t)
      w1 = Add(a, u)
      w2 = Add(b, u)
    })ONNX",
                 {std::make_shared<SubSelfPattern>(), std::make_shared<AddConstantPattern>()},
                 "t = Constant(); u = Relu(t); w1 = Sum(a,u); w2 = Sum(b,u); ");
}

// Round 1: Neg(Neg(x)) does not match, the first Neg has a second reader (the Sub). Round
// 2: the Sub is gone; only the readers of n1 changed, which is what NegNegPattern asked.
TEST_F(IncrementalMatching, SeesAValueLoseAReader) {
  ExpectBothWays(R"ONNX(
    <ir_version: 8, opset_import: ["" : 18]>
    g (float[2] x) => (float[2] y, float[2] s) {
      n1 = Neg(x)
      y = Neg(n1)
      s = Sub(n1, n1)
    })ONNX",
                 {std::make_shared<SubSelfPattern>(), std::make_shared<NegNegPattern>()},
                 "y = Identity(x); s = Constant(); ");
}

// The Abs reads no value, but asked for the node count: it is tried again every round.
TEST_F(IncrementalMatching, TriesWholeGraphQueriesAgainEveryRound) {
  ExpectBothWays(R"ONNX(
    <ir_version: 8, opset_import: ["" : 18]>
    g (float[2] x, float[2] c) => (float[2] y, float[2] z) {
      n1 = Neg(c)
      z = Neg(n1)
      y = Abs(x)
    })ONNX",
                 {std::make_shared<NegNegPattern>(), std::make_shared<AbsInSmallGraphPattern>()},
                 "z = Identity(c); negated = Neg(x); y = Max(x,negated); ");
}

}  // namespace
}  // namespace onnxopt::testing
