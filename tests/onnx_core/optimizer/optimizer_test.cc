// The match/apply loop, records and replay, with the engine alone.

#include <cstdlib>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "onnx_core/common/error.h"
#include "onnx_core/ir/model_io.h"
#include "onnx_core/optimizer/graph_graph.h"
#include "onnx_core/optimizer/local_rewriting.h"
#include "onnx_core/optimizer/rewrite_file.h"
#include "tests/onnx_core/optimizer/optimize_fixture.h"
#include "tests/onnx_core/optimizer/test_patterns.h"
#include "tests/support/test_support.h"

namespace onnxopt::testing {
namespace {

using core::builder::GraphBuilder;
using core::builder::LocalRewriting;
using core::builder::OptimizationReport;
using core::builder::OptimizerOptions;
using core::builder::PatternSelection;
using core::builder::PhaseNodes;
using ::testing::HasSubstr;

constexpr std::string_view kTwoChains = R"ONNX(
  <ir_version: 8, opset_import: ["" : 18]>
  g (float[2] a, float[2] b) => (float[2] y, float[2] z) {
    a1 = Neg(a)
    a2 = Neg(a1)
    b1 = Neg(b)
    b2 = Neg(b1)
    y = Abs(a2)
    z = Relu(b2)
  })ONNX";

TEST(Optimize, AppliesSeveralDisjointRewritesInOneIteration) {
  Outcome run = Optimize(kTwoChains, {std::make_shared<NegNegPattern>()});
  EXPECT_EQ(NodesText(run.optimized.graph()), "y = Abs(a); z = Relu(b); ");
  ASSERT_EQ(RecordsOf(run, "NegNegPattern"), 2u);
  EXPECT_EQ(run.records[0].iteration, run.records[1].iteration) << "both rewrites belong to one batch";
  EXPECT_EQ(run.records[0].matched_nodes, (std::vector<std::size_t>{0, 1}));
  EXPECT_EQ(run.records[1].matched_nodes, (std::vector<std::size_t>{2, 3}));
  EXPECT_EQ(run.records[0].added_nodes_positions, (std::vector<std::size_t>{0}));
  EXPECT_EQ(run.records[1].added_nodes_positions, (std::vector<std::size_t>{1}));
  // The Identity nodes are removed by the cleanup pass, recorded after the batch.
  EXPECT_EQ(run.records[2].Name(), "RemoveIdentityNodes");
  EXPECT_EQ(run.report.patterns.at(0).applied, 2u);
  EXPECT_EQ(run.report.nodes_before, 6u);
  EXPECT_EQ(run.report.nodes_after, 2u);
  ExpectReplayed(run);
}

TEST(Optimize, OnePatternAddsSeveralNodes) {
  Outcome run = Optimize(R"ONNX(
    <ir_version: 8, opset_import: ["" : 18]>
    g (float[2] a, float[2] b) => (float[2] y) {
      s = Sub(a, b)
      y = Abs(s)
    })ONNX",
                     {std::make_shared<SubToAddNegPattern>()});
  EXPECT_EQ(NodesText(run.optimized.graph()), "negated = Neg(b); s = Add(a,negated); y = Abs(s); ");
  ASSERT_EQ(run.records.size(), 1u);
  EXPECT_EQ(run.records[0].added_nodes.size(), 2);
  EXPECT_EQ(run.records[0].added_nodes_positions, (std::vector<std::size_t>{0, 1}));
  ExpectReplayed(run);
}

TEST(Optimize, ReplayReproducesEveryBatchExactly) {
  // Rewrites, identity removal, dead code and duplicate removal all take part.
  Outcome run = Optimize(R"ONNX(
    <ir_version: 8, opset_import: ["" : 18]>
    g (float[2] a, float[2] b) => (float[2] y, float[2] z) {
      dead = Exp(a)
      s = Sub(a, b)
      t = Sub(a, b)
      n1 = Neg(s)
      n2 = Neg(n1)
      y = Add(n2, t)
      z = Identity(t)
    })ONNX",
                     {std::make_shared<NegNegPattern>(), std::make_shared<SubToAddNegPattern>()});
  EXPECT_GE(run.records.size(), 4u);
  ExpectReplayed(run);
  // Replay needs no pattern object: the records alone carry the rewrite.
  for (LocalRewriting& record : run.records) record.pattern = std::make_shared<core::builder::NamedOperation>(record.Name());
  ExpectReplayed(run);
}

TEST(Optimize, ReplayRejectsRecordsThatDoNotFitTheModel) {
  Outcome run = Optimize(kTwoChains, {std::make_shared<NegNegPattern>()});
  const ModelProto other = ParseText(R"ONNX(
    <ir_version: 8, opset_import: ["" : 18]>
    g (float[2] a) => (float[2] y) { y = Neg(a) })ONNX");
  try {
    core::builder::Replay(other, run.records);
    FAIL() << "Replay accepted records of another model";
  } catch (const BuilderError& error) {
    EXPECT_THAT(error.what(), HasSubstr("Replay: batch"));
    EXPECT_THAT(error.what(), HasSubstr("position"));
  }
}

// Refers a tensor's data to a file outside any model folder.
void MakeExternal(TensorProto& tensor, const std::string& name) {
  tensor.set_name(name);
  tensor.set_data_type(TensorProto::FLOAT);
  tensor.add_dims(2);
  tensor.set_data_location(TensorProto::EXTERNAL);
  onnx::StringStringEntryProto& location = *tensor.add_external_data();
  location.set_key("location");
  location.set_value("../../../etc/passwd");
}

TEST(Optimize, ReplayRefusesRecordsAddingTensorsWithExternalData) {
  // Optimize rewrites a model whose external data is loaded: a record never adds a tensor
  // that refers to a file. One that does would make replay save a model pointing anywhere.
  const Outcome run = Optimize(kTwoChains, {std::make_shared<NegNegPattern>()});
  std::vector<LocalRewriting> as_initializer = run.records;
  MakeExternal(*as_initializer[1].added_initializers.Add(), "w");
  as_initializer[1].added_initializer_positions.push_back(0);
  // In a Constant's value, inside the branch of an If the record adds.
  std::vector<LocalRewriting> in_branch = run.records;
  AttributeProto& branch = *in_branch[1].added_nodes.Mutable(0)->add_attribute();
  branch.set_name("then_branch");
  branch.set_type(AttributeProto::GRAPH);
  NodeProto& constant = *branch.mutable_g()->add_node();
  constant.set_op_type("Constant");
  constant.add_output("c");
  AttributeProto& value = *constant.add_attribute();
  value.set_name("value");
  value.set_type(AttributeProto::TENSOR);
  MakeExternal(*value.mutable_t(), "inner");
  for (const auto& [records, tensor] : {std::pair{&as_initializer, "'w'"}, std::pair{&in_branch, "'inner'"}}) {
    GraphBuilder builder{ModelProto(run.original)};
    try {
      core::builder::Replay(builder, *records);
      ADD_FAILURE() << "Replay accepted a record adding tensor " << tensor << " with external data";
    } catch (const BuilderError& error) {
      EXPECT_THAT(error.what(), HasSubstr(std::string("record 1 adds tensor ") + tensor +
                                          " with its data in external file '../../../etc/passwd'"));
    }
  }
  ExpectReplayed(run);  // the records as recorded still replay
}

constexpr std::string_view kNestedIfs = R"ONNX(
  <ir_version: 8, opset_import: ["" : 18]>
  g (bool c, bool d, float[2] x) => (float[2] y) {
    outer = Neg(x)
    y = If(c) <
      then_branch = then_g () => (float[2] t) {
        t1 = Neg(outer)
        t2 = Neg(t1)
        t = If(d) <
          then_branch = inner_then () => (float[2] u) {
            u1 = Neg(t2)
            u = Neg(u1)
          },
          else_branch = inner_else () => (float[2] v) { v = Identity(t2) }
        >
      },
      else_branch = else_g () => (float[2] e) {
        e1 = Neg(x)
        e = Neg(e1)
      }
    >
  })ONNX";

TEST(Optimize, OptimizesSubgraphsFirstAndReplayRoutesByPath) {
  Outcome run = Optimize(kNestedIfs, {std::make_shared<NegNegPattern>()});
  std::set<std::string> paths;
  for (const LocalRewriting& record : run.records) {
    std::string path;
    for (const auto& key : record.graph_path) path += "/" + key.ToString();
    if (record.Name() == "NegNegPattern") paths.insert(path);
  }
  EXPECT_EQ(paths, (std::set<std::string>{"/y:then_branch", "/y:then_branch/t:then_branch", "/y:else_branch"}));
  // Innermost first: the first record belongs to the deepest graph.
  EXPECT_EQ(run.records.front().graph_path.size(), 2u);
  ASSERT_EQ(run.report.subgraphs.size(), 4u);
  EXPECT_EQ(run.report.subgraphs[0].path, "y:then_branch/t:then_branch");
  EXPECT_GT(run.report.subgraph_optimization_time_ns, 0);
  const GraphProto& then_graph = run.optimized.graph().node(1).attribute(0).g();
  EXPECT_EQ(NodesText(then_graph), "t = If(d); ") << "t1/t2 cancel; the nested graph reads 'outer'";
  ExpectReplayed(run);
}

TEST(Optimize, ReplayNamesANestedGraphTheModelDoesNotHave) {
  Outcome run = Optimize(kNestedIfs, {std::make_shared<NegNegPattern>()});
  // The first record is in y:then_branch/t:then_branch; the last nested one in
  // y:else_branch. Point the last at a branch that does not exist, after the graphs
  // around it were found for the batches before.
  std::size_t last_nested = 0;
  for (std::size_t r = 0; r < run.records.size(); ++r)
    if (!run.records[r].graph_path.empty()) last_nested = r;
  ASSERT_EQ(run.records[last_nested].graph_path.size(), 1u);
  run.records[last_nested].graph_path.back().attribute = "other_branch";
  try {
    core::builder::Replay(ParseText(kNestedIfs), run.records);
    FAIL() << "Replay accepted a record of a nested graph the model does not have";
  } catch (const BuilderError& error) {
    EXPECT_THAT(error.what(), HasSubstr("no nested graph 'y:other_branch' in graph ''"));
  }
}

TEST(Optimize, DoNotRemoveProtectsNodes) {
  ModelProto model = ParseText(R"ONNX(
    <ir_version: 8, opset_import: ["" : 18]>
    g (float[2] a, float[2] b) => (float[2] y, float[2] z) {
      a1 = Neg(a)
      y = Neg(a1)
      b1 = Neg(b)
      z = Neg(b1)
    })ONNX");
  // The text syntax of onnx 1.12 cannot name nodes.
  model.mutable_graph()->mutable_node(0)->set_name("keep_DONOTREMOVE_a1");
  Outcome run = Optimize(std::move(model), {std::make_shared<NegNegPattern>()});
  EXPECT_EQ(NodesText(run.optimized.graph()), "a1 = Neg(a); y = Neg(a1); z = Identity(b); ");

  OptimizerOptions options;
  options.do_not_remove = [](const NodeProto& node) { return node.output(0) == "b1"; };
  Outcome custom = Optimize(R"ONNX(
    <ir_version: 8, opset_import: ["" : 18]>
    g (float[2] b) => (float[2] z) {
      b1 = Neg(b)
      z = Neg(b1)
    })ONNX",
                        {std::make_shared<NegNegPattern>()}, -1, options);
  EXPECT_EQ(NodesText(custom.optimized.graph()), "b1 = Neg(b); z = Neg(b1); ");
}

TEST(Optimize, RunsLowerPrioritiesFirstAndRaisesTheThreshold) {
  // First (priority 0) turns Exp into Log; Second (priority 1) turns Log into Sin. The
  // graph's own Log is only touched once priority 0 matches nothing anymore.
  Outcome run = Optimize(R"ONNX(
    <ir_version: 8, opset_import: ["" : 18]>
    g (float[2] a) => (float[2] y, float[2] z) {
      y = Exp(a)
      z = Log(a)
    })ONNX",
                     {std::make_shared<RenameOpPattern>("Second", "Log", "Sin", 1),
                      std::make_shared<RenameOpPattern>("First", "Exp", "Log", 0)});
  ASSERT_GE(run.records.size(), 2u);
  EXPECT_EQ(run.records[0].Name(), "First");
  EXPECT_EQ(run.records[0].added_nodes.Get(0).op_type(), "Log");
  ASSERT_GE(run.records.size(), 3u);
  EXPECT_EQ(run.records[1].Name(), "Second");
  EXPECT_EQ(run.records[2].Name(), "Second");
  EXPECT_EQ(run.records[1].iteration, run.records[2].iteration) << "both Log nodes in one batch";
  EXPECT_EQ(NodesText(run.optimized.graph()), "y = Sin(a); z = Sin(a); ");
  EXPECT_EQ(run.report.patterns.at(0).name, "First") << "the report lists patterns in driver order";
}

TEST(Optimize, DoesNotRetryLowerPrioritiesOnAnUnchangedGraph) {
  // Priority 0 rejects the Neg; nothing of priority 1 applies; priority 2 renames the Neg.
  // Raising the threshold leaves the graph as it was, so NegNegPattern runs once before
  // the rename (and finds no Neg after it).
  Outcome run = Optimize(R"ONNX(
    <ir_version: 8, opset_import: ["" : 18]>
    g (float[2] a) => (float[2] y) { y = Neg(a) })ONNX",
                         {std::make_shared<NegNegPattern>(0), std::make_shared<RenameOpPattern>("One", "Exp", "Log", 1),
                          std::make_shared<RenameOpPattern>("Two", "Neg", "Sin", 2)});
  EXPECT_EQ(NodesText(run.optimized.graph()), "y = Sin(a); ");
  EXPECT_EQ(run.report.iterations, 4u);
  ASSERT_EQ(run.report.patterns.at(0).name, "NegNegPattern");
  EXPECT_EQ(run.report.patterns.at(0).match_calls, 1u);
  ASSERT_EQ(run.report.patterns.at(2).name, "Two");
  EXPECT_EQ(run.report.patterns.at(2).match_calls, 1u);
}

TEST(Optimize, ImportsTheDomainsRewritesIntroduce) {
  Outcome run = Optimize(R"ONNX(
    <ir_version: 8, opset_import: ["" : 18]>
    g (float[2] a) => (float[2] y) { y = Gelu(a) })ONNX",
                         {std::make_shared<RenameOpPattern>("ToContrib", "Gelu", "FastGelu", 0, "com.microsoft")});
  ASSERT_EQ(run.optimized.opset_import_size(), 2);
  EXPECT_EQ(run.optimized.opset_import(1).domain(), "com.microsoft");
  EXPECT_EQ(run.optimized.opset_import(1).version(), 1);
  GraphBuilder replayed{ModelProto(run.original)};
  core::builder::Replay(replayed, run.records);
  EXPECT_EQ(core::ir::SerializeDeterministic(std::move(replayed).TakeModel()),
            core::ir::SerializeDeterministic(run.optimized))
      << "Replay imports the same domains";
}

TEST(Optimize, StopsAtMaxIterAndSaysSo) {
  Outcome run = Optimize(R"ONNX(
    <ir_version: 8, opset_import: ["" : 18]>
    g (float[2] a) => (float[2] y) { y = Abs(a) })ONNX",
                     {std::make_shared<AbsForeverPattern>()}, 5);
  EXPECT_TRUE(run.report.reached_max_iter);
  EXPECT_EQ(run.report.iterations, 5u);
  EXPECT_EQ(RecordsOf(run, "AbsForeverPattern"), 5u);
  EXPECT_THAT(run.report.ToString(), HasSubstr("stopped at the iteration bound (max_iter = 5)"));
  EXPECT_THAT(run.report.ToJson(), HasSubstr("\"reached_max_iter\":true"));

  // The default bound is max(node count, 10) * number of priorities.
  Outcome bounded = Optimize(R"ONNX(
    <ir_version: 8, opset_import: ["" : 18]>
    g (float[2] a) => (float[2] y) { y = Abs(a) })ONNX",
                         {std::make_shared<AbsForeverPattern>()});
  EXPECT_TRUE(bounded.report.reached_max_iter);
  EXPECT_EQ(bounded.report.max_iter, 10);
  EXPECT_EQ(bounded.report.iterations, 10u);
}

TEST(Optimize, ReportsNoMatchReasonsWithTheirSourceLine) {
  OptimizerOptions options;
  options.collect_no_match = true;
  Outcome run = Optimize(R"ONNX(
    <ir_version: 8, opset_import: ["" : 18]>
    g (float[2] a) => (float[2] y, float[2] z) {
      n = Neg(a)
      y = Neg(n)
      z = Abs(n)
    })ONNX",
                     {std::make_shared<NegNegPattern>()}, -1, options);
  ASSERT_FALSE(run.report.no_matches.empty());
  const auto& first = run.report.no_matches.front();
  EXPECT_EQ(first.pattern, "NegNegPattern");
  EXPECT_THAT(first.file, HasSubstr("test_patterns.h"));
  EXPECT_GT(first.line, 0u);
  std::set<std::string> reasons;
  for (const auto& entry : run.report.no_matches) reasons.insert(entry.reason);
  EXPECT_EQ(reasons, (std::set<std::string>{"the input is not produced by Neg", "the first Neg has other readers"}));
  EXPECT_THAT(run.report.ToString(), HasSubstr("the first Neg has other readers (test_patterns.h:"));
}

TEST(Optimize, ApplyWithNodesNoMatchReturnedThrowsWithItsCallSite) {
  GraphBuilder builder(ParseText(kTwoChains));
  GraphGraph graph(builder, {}, SelectRegistered(PatternSelection::None()));
  NegNegPattern pattern;
  const NodeProto* abs = graph.NodeBefore("y");
  try {
    pattern.Apply(graph, {abs});
    FAIL() << "Apply accepted an Abs node";
  } catch (const BuilderError& error) {
    EXPECT_THAT(error.what(), HasSubstr("NegNegPattern::Apply called with nodes no match returned"));
    EXPECT_THAT(error.what(), HasSubstr("test_patterns.h:"));
  }
}

// Claims to replace Neg but redefines a value another node produces.
class RedefiningPattern final : public PatternOptimization {
 public:
  std::string Name() const override { return "RedefiningPattern"; }
  std::set<std::string> FastOpType() const override { return {"Neg"}; }
  MatchResult Match(GraphGraph&, const NodeProto& node) const override { return Matched({&node}); }
  utils::RepeatedProtoField<NodeProto> Apply(GraphGraph&, const std::vector<const NodeProto*>& nodes) const override {
    utils::RepeatedProtoField<NodeProto> result;
    NodeProto& node = *result.Add() = *nodes[0];
    node.add_output("other");
    return result;
  }
};

TEST(Optimize, RejectsAReplacementThatRedefinesAnExistingValue) {
  try {
    Optimize(R"ONNX(
      <ir_version: 8, opset_import: ["" : 18]>
      g (float[2] a) => (float[2] y, float[2] other) {
        y = Neg(a)
        other = Abs(a)
      })ONNX",
             {std::make_shared<RedefiningPattern>()});
    FAIL() << "the batch was applied";
  } catch (const BuilderError& error) {
    EXPECT_THAT(error.what(), HasSubstr("RedefiningPattern: a replacement node redefines 'other'"));
  }
}

// Replaces each Neg by Mul(x, -1) with a new initializer, and throws on the Neg of 'b'.
class ThrowingAfterInitializerPattern final : public PatternOptimization {
 public:
  std::string Name() const override { return "ThrowingAfterInitializerPattern"; }
  std::set<std::string> FastOpType() const override { return {"Neg"}; }
  MatchResult Match(GraphGraph&, const NodeProto& node) const override { return Matched({&node}); }
  utils::RepeatedProtoField<NodeProto> Apply(GraphGraph& graph, const std::vector<const NodeProto*>& nodes) const override {
    TensorProto minus_one;
    minus_one.set_data_type(TensorProto::FLOAT);
    minus_one.add_float_data(-1.0f);
    const std::string factor = graph.MakeInitializer("minus_one", std::move(minus_one));
    if (nodes[0]->input(0) == "b") throw BuilderError("cannot rewrite the Neg of b");
    utils::RepeatedProtoField<NodeProto> result;
    NodeProto& mul = *result.Add();
    mul.set_op_type("Mul");
    mul.add_input(nodes[0]->input(0));
    mul.add_input(factor);
    mul.add_output(nodes[0]->output(0));
    return result;
  }
};

TEST(Optimize, AFailedBatchLeavesNoInitializerBehind) {
  GraphBuilder builder(ParseText(R"ONNX(
    <ir_version: 8, opset_import: ["" : 18]>
    g (float[2] a, float[2] b) => (float[2] y, float[2] z) {
      y = Neg(a)
      z = Neg(b)
    })ONNX"));
  const std::string before = core::ir::SerializeDeterministic(builder.ToModel());
  GraphGraph graph(builder, {std::make_shared<ThrowingAfterInitializerPattern>()},
                   SelectRegistered(PatternSelection::None()));
  EXPECT_THROW(graph.Optimize(), BuilderError);
  EXPECT_EQ(builder.Initializers().size(), 0) << "the first Apply's initializer was undone";
  EXPECT_EQ(core::ir::SerializeDeterministic(builder.ToModel()), before);
}

// Matches Mul(Exp(x), y) where y is computed between the two: the replacement reads y,
// so it must go where the Mul was (insert_at), not where the Exp was.
class ExpMulPattern final : public PatternOptimization {
 public:
  explicit ExpMulPattern(bool use_insert_at) : use_insert_at_(use_insert_at) {}
  std::string Name() const override { return "ExpMulPattern"; }
  std::set<std::string> FastOpType() const override { return {"Mul"}; }
  MatchResult Match(GraphGraph& graph, const NodeProto& node) const override {
    const NodeProto* exp = core::builder::ProducerOf(graph, node.input(0), "Exp");
    if (!exp) return NoMatch(node, "the first input is not produced by Exp");
    return Matched({exp, &node}, use_insert_at_ ? &node : nullptr);
  }
  utils::RepeatedProtoField<NodeProto> Apply(GraphGraph&, const std::vector<const NodeProto*>& nodes) const override {
    utils::RepeatedProtoField<NodeProto> result;
    NodeProto& node = *result.Add();
    node.set_op_type("ExpTimes");
    node.set_domain("test");
    node.add_input(nodes[0]->input(0));
    node.add_input(nodes[1]->input(1));
    node.add_output(nodes[1]->output(0));
    return result;
  }

 private:
  bool use_insert_at_;
};

constexpr std::string_view kGap = R"ONNX(
  <ir_version: 8, opset_import: ["" : 18, "test" : 1]>
  g (float[2] a) => (float[2] y) {
    e = Exp(a)
    s = Sin(a)
    y = Mul(e, s)
  })ONNX";

TEST(Optimize, InsertAtPlacesTheReplacementAfterTheGap) {
  Outcome run = Optimize(kGap, {std::make_shared<ExpMulPattern>(true)});
  EXPECT_EQ(NodesText(run.optimized.graph()), "s = Sin(a); y = ExpTimes(a,s); ");
  EXPECT_EQ(run.records[0].matched_nodes, (std::vector<std::size_t>{0, 2}));
  EXPECT_EQ(run.records[0].added_nodes_positions, (std::vector<std::size_t>{1}));
  ExpectReplayed(run);
}

TEST(Optimize, WithoutInsertAtAReplacementBeforeItsInputIsAContractError) {
  EXPECT_THROW(
      {
        try {
          Optimize(kGap, {std::make_shared<ExpMulPattern>(false)});
        } catch (const BuilderError& error) {
          EXPECT_THAT(error.what(), HasSubstr("which produces its input 's' (set insert_at)"));
          throw;
        }
      },
      BuilderError);
}

TEST(Optimize, MatchesOverlappingAnEarlierOneWaitForTheNextIteration) {
  // n1, n2, n3: NegNeg matches (n1, n2) first; (n2, n3) overlaps and is skipped.
  Outcome run = Optimize(R"ONNX(
    <ir_version: 8, opset_import: ["" : 18]>
    g (float[2] a) => (float[2] y) {
      n1 = Neg(a)
      n2 = Neg(n1)
      y = Neg(n2)
    })ONNX",
                     {std::make_shared<NegNegPattern>()});
  EXPECT_EQ(NodesText(run.optimized.graph()), "y = Neg(a); ");
  EXPECT_EQ(run.report.patterns.at(0).applied, 1u);
  ExpectReplayed(run);
}

// Two disjoint matches of one round: AddNegToSub removes n, whose value DistributeMul's
// replacement reads. The later one in the driver's order waits for the next round (it was
// an internal error, "a replacement node reads 'n', whose producer ... the batch removes").
constexpr const char* kReadAcrossMatches = R"ONNX(
    <ir_version: 8, opset_import: ["" : 18]>
    g (float[2] x, float[2] y, float[2] c) => (float[2] z) {
      n = Neg(x)
      e = Add(y, n)
      z = Mul(e, c)
    })ONNX";

TEST(Optimize, AMatchReadingWhatAnotherMatchRemovesWaitsForTheNextRound) {
  Outcome run = Optimize(kReadAcrossMatches, {std::make_shared<AddNegToSubPattern>(),
                                              std::make_shared<DistributeMulPattern>()});
  // DistributeMul waited; then the Add it needs is gone.
  EXPECT_EQ(NodesText(run.optimized.graph()), "e = Sub(y,x); z = Mul(e,c); ");
  EXPECT_EQ(run.report.patterns.at(1).matched, 1u);
  EXPECT_EQ(run.report.patterns.at(1).applied, 0u);
  ExpectReplayed(run);
}

TEST(Optimize, TheFirstOfTwoConflictingMatchesGoesThrough) {
  Outcome run = Optimize(kReadAcrossMatches, {std::make_shared<DistributeMulPattern>(),
                                              std::make_shared<AddNegToSubPattern>()});
  // DistributeMul applied; AddNegToSub waited, and then the Add had no reader left. The
  // batch was planned twice: the first plan's names stay taken.
  EXPECT_EQ(NodesText(run.optimized.graph()),
            "n = Neg(x); DistributeMulPattern_2 = Mul(y,c); DistributeMulPattern_3 = Mul(n,c); "
            "z = Add(DistributeMulPattern_2,DistributeMulPattern_3); ");
  EXPECT_EQ(run.report.patterns.at(0).applied, 1u);
  EXPECT_EQ(run.report.patterns.at(1).applied, 0u);
  ExpectReplayed(run);
}

// The driver makes a round's Match calls node after node, and claims the matches pattern
// after pattern: a node an earlier pattern's match includes is not tried by the later
// ones then, and is tried at their turn when that match is not claimed after all.
constexpr const char* kNegChain = R"ONNX(
    <ir_version: 8, opset_import: ["" : 18]>
    g (float[2] a) => (float[2] y) {
      n1 = Neg(a)
      y = Neg(n1)
    })ONNX";

TEST(Optimize, ALaterPatternDoesNotGetANodeAnEarlierOneClaimed) {
  Outcome run = Optimize(kNegChain, {std::make_shared<NegNegPattern>(),
                                     std::make_shared<RenameOpPattern>("NegToSin", "Neg", "Sin", 1)});
  EXPECT_EQ(NodesText(run.optimized.graph()), "y = Identity(a); ");
  EXPECT_EQ(run.report.patterns.at(1).name, "NegToSin");
  EXPECT_EQ(run.report.patterns.at(1).match_calls, 0u);
  ExpectReplayed(run);
}

TEST(Optimize, ALaterPatternGetsANodeWhenTheEarlierMatchIsNotClaimed) {
  // NegNeg matches (n1, y), but y may not be removed: NegToSin takes n1 in the same batch.
  OptimizerOptions options;
  options.do_not_remove = [](const NodeProto& node) { return node.output(0) == "y"; };
  Outcome run = Optimize(kNegChain,
                         {std::make_shared<NegNegPattern>(),
                          std::make_shared<RenameOpPattern>("NegToSin", "Neg", "Sin", 1)},
                         -1, options);
  EXPECT_EQ(NodesText(run.optimized.graph()), "n1 = Sin(a); y = Neg(n1); ");
  ASSERT_EQ(run.records.size(), 1u);
  EXPECT_EQ(run.records[0].Name(), "NegToSin");
  EXPECT_EQ(run.records[0].iteration, 1u);
  EXPECT_EQ(run.report.patterns.at(0).matched, 1u);
  // n1 and y in the first round; y again in the second (it matched, but may not be removed).
  EXPECT_EQ(run.report.patterns.at(1).match_calls, 3u);
  ExpectReplayed(run);
}

// Every Neg reading the anchor's input, made an Abs, in one match that any of them anchors
// (as a declarative rule of k alike branches over one value); counts its Match calls.
class AllNegReadersToAbsPattern final : public core::builder::PatternOptimization {
 public:
  explicit AllNegReadersToAbsPattern(std::shared_ptr<int> calls) : calls_(std::move(calls)) {}
  std::string Name() const override { return "AllNegReadersToAbsPattern"; }
  std::set<std::string> FastOpType() const override { return {"Neg"}; }
  core::builder::MatchResult Match(GraphGraph& graph, const NodeProto& node) const override {
    ++*calls_;
    std::vector<const NodeProto*> readers;
    for (const NodeProto* reader : graph.NextNodes(node.input(0)))
      if (reader->op_type() == "Neg") readers.push_back(reader);
    return Matched(readers);
  }
  utils::RepeatedProtoField<NodeProto> Apply(GraphGraph&, const std::vector<const NodeProto*>& nodes) const override {
    utils::RepeatedProtoField<NodeProto> result;
    for (const NodeProto* node : nodes) (*result.Add() = *node).set_op_type("Abs");
    return result;
  }

 private:
  std::shared_ptr<int> calls_;
};

// The walk tries the pattern on the last reader first; its match includes the others, so
// their calls wait for the claims, and the first reader's, in graph order, claims them all.
// One call per reader made k matches of k nodes each: cubic for a matcher that binds every
// branch by scanning the readers (the declarative rules).
TEST(Optimize, ANodeInAMatchOfItsOwnPatternIsTriedOnlyIfThatMatchIsNotClaimed) {
  std::string text = "<ir_version: 8, opset_import: [\"\" : 18]>\ng (float[2] a) => (";
  std::string body;
  for (int i = 0; i < 6; ++i) {
    text += std::string(i ? ", " : "") + "float[2] y" + std::to_string(i);
    body += "  y" + std::to_string(i) + " = Neg(a)\n";
  }
  text += ") {\n" + body + "}";
  auto calls = std::make_shared<int>(0);
  Outcome run = Optimize(text, {std::make_shared<AllNegReadersToAbsPattern>(calls)});
  EXPECT_EQ(NodesText(run.optimized.graph()),
            "y0 = Abs(a); y1 = Abs(a); y2 = Abs(a); y3 = Abs(a); y4 = Abs(a); y5 = Abs(a); ");
  ASSERT_EQ(run.records.size(), 1u);
  // First round: the last reader in the walk, the first at the claims; second round: none
  // (no Neg is left).
  EXPECT_EQ(*calls, 2);
  EXPECT_EQ(run.report.patterns.at(0).match_calls, 1u);
  ExpectReplayed(run);
}

TEST(OptimizationReport, PrintsPhasesPatternsAndCleanup) {
  Outcome run = Optimize(kTwoChains, {std::make_shared<NegNegPattern>()});
  const std::string text = run.report.ToString();
  EXPECT_THAT(text, HasSubstr("optimization: 6 -> 2 nodes"));
  EXPECT_THAT(text, HasSubstr("matching"));
  EXPECT_THAT(text, HasSubstr("NegNegPattern"));
  EXPECT_THAT(text, HasSubstr("RemoveIdentityNodes"));
  const std::string json = run.report.ToJson();
  for (const char* key : {"\"format\":\"onnxopt-optimization-report\"", "\"time_ns\"", "\"patterns\"", "\"cleanup\"",
                          "\"subgraphs\"", "\"no_matches\"", "\"iterations\""})
    EXPECT_THAT(json, HasSubstr(key));
  EXPECT_EQ(run.report.TotalTimeNs(),
            run.report.matching_time_ns + run.report.rewriting_time_ns + run.report.cleanup_time_ns +
                run.report.constant_folding_time_ns + run.report.shape_inference_time_ns +
                run.report.indexing_time_ns + run.report.subgraph_optimization_time_ns);
}

TEST(OptimizationReport, CountsTheNodesEachPhaseVisited) {
  Outcome run = Optimize(kTwoChains, {std::make_shared<NegNegPattern>()});
  const PhaseNodes& visited = run.report.nodes_visited;
  // Shapes of the 6 nodes as loaded, then of the 2 Identity nodes the batch added.
  EXPECT_EQ(visited.shape_inference, 6u + 2u);
  // Cleanup before the loop: 4 passes over 6 nodes. After the batch (4 nodes, no new
  // initializer; it changed too much of the graph for the cleanup to look only around it):
  // identities, unused nodes and duplicates, each walking the nodes it finds (4, then 2
  // once the identities are gone).
  EXPECT_EQ(visited.cleanup, 4u * 6u + 4u + 2u + 2u);
  // Iteration 1: the index and incremental matching's comparison over 6 nodes; iteration 2
  // (nothing left to match): the same over 2.
  EXPECT_EQ(visited.indexing, 6u + 6u + 2u + 2u);
  EXPECT_EQ(visited.matching, 4u);   // the 4 Neg nodes of iteration 1
  EXPECT_EQ(visited.rewriting, 6u);  // one batch over the 6 nodes
  EXPECT_EQ(visited.constant_folding, 0u);  // the added Identity nodes are left to the cleanup
  EXPECT_EQ(visited.graph_passes, 0u);
  EXPECT_EQ(visited.Total(), 8u + 32u + 16u + 4u + 6u);
  EXPECT_THAT(run.report.ToString(), HasSubstr("matching          "));
  EXPECT_THAT(run.report.ToJson(), HasSubstr("\"nodes_visited\":{\"total\":66,\"indexing\":16,\"matching\":4,"));
}

// Runs `text` with `patterns` three ways: the whole-graph version (ONNXOPT_INCREMENTAL=0),
// as users run it, and checked (ONNXOPT_CHECK_INCREMENTAL=1, which fails on a difference
// between a local decision and the whole-graph pass).
struct ThreeRuns {
  Outcome whole, incremental, checked;
};
ThreeRuns RunThreeWays(std::string_view text, const Patterns& patterns) {
  auto run_with = [&](const char* incremental, const char* check) {
    setenv("ONNXOPT_INCREMENTAL", incremental, 1);
    setenv("ONNXOPT_CHECK_INCREMENTAL", check, 1);
    Outcome run = Optimize(text, patterns);
    unsetenv("ONNXOPT_INCREMENTAL");
    unsetenv("ONNXOPT_CHECK_INCREMENTAL");
    return run;
  };
  return ThreeRuns{run_with("0", "0"), run_with("1", "0"), run_with("1", "1")};
}

// The records without their times (which differ run to run), serialized.
std::string RecordsText(std::vector<LocalRewriting> records) {
  for (LocalRewriting& record : records) record.match_time_ns = record.apply_time_ns = 0;
  return core::builder::SerializeRewrites(records);
}

void ExpectSameAsWholeGraph(const ThreeRuns& runs) {
  for (const Outcome* run : {&runs.incremental, &runs.checked}) {
    EXPECT_EQ(core::ir::SerializeDeterministic(run->optimized), core::ir::SerializeDeterministic(runs.whole.optimized));
    EXPECT_EQ(RecordsText(run->records), RecordsText(runs.whole.records));
  }
}

// `count` + 1 Sigmoid nodes in a chain from input `a` to graph output `tail`: the part of a
// graph a batch leaves alone. The cleanup looks only around a batch that changes at most
// an eighth of the graph.
std::string UntouchedChain(int count) {
  std::string text = "t1 = Sigmoid(a)\n";
  for (int i = 2; i <= count; ++i) text += "t" + std::to_string(i) + " = Sigmoid(t" + std::to_string(i - 1) + ")\n";
  return text + "tail = Sigmoid(t" + std::to_string(count) + ")\n";
}

// After a batch the cleanup looks only around it: the identity, unused-node and duplicate
// passes are decided from what the batch removed and added. Sub => Add(a, Neg(b)) leaves
// nothing to clean.
TEST(OptimizationReport, CleanupAfterABatchLooksOnlyAroundIt) {
  const std::string sub = R"ONNX(
    <ir_version: 8, opset_import: ["" : 18]>
    g (float[2] a, float[2] b) => (float[2] y, float[2] tail) {
      y = Sub(a, b)
    )ONNX" + UntouchedChain(23) + "}";
  const ThreeRuns runs = RunThreeWays(sub, {std::make_shared<SubToAddNegPattern>()});
  EXPECT_THAT(NodesText(runs.incremental.optimized.graph()), HasSubstr("negated = Neg(b); y = Add(a,negated); "));
  ExpectSameAsWholeGraph(runs);
  // Before the loop: 4 passes over 25 nodes. After the batch (26 nodes): the whole-graph
  // version runs the identity, dead-code and duplicate passes over the graph; the
  // incremental one checks the 2 added nodes for readers, and records nothing.
  EXPECT_EQ(runs.incremental.report.nodes_visited.cleanup, 4u * 25u + 2u);
  EXPECT_EQ(runs.whole.report.nodes_visited.cleanup, 4u * 25u + 3u * 26u);
}

// Max(a, b) => Identity(a) leaves b's producers and the weight they read unused, and the
// Identity's reader Relu(y) becomes Relu(a), a duplicate of the Relu already reading a:
// each pass finds what the whole-graph version finds, recorded the same.
TEST(OptimizationReport, CleanupAfterABatchFindsWhatTheWholeGraphPassesFind) {
  const std::string max = R"ONNX(
    <ir_version: 8, opset_import: ["" : 18]>
    g (float[2] a) => (float[2] out, float[2] tail) <float[2] w = {1.0, 2.0}> {
      c = Abs(w)
      b = Neg(c)
      s2 = Relu(a)
      y = Max(a, b)
      s1 = Relu(y)
      out = Add(s2, s1)
    )ONNX" + UntouchedChain(23) + "}";
  const ThreeRuns runs = RunThreeWays(max, {std::make_shared<MaxTakesFirstPattern>()});
  EXPECT_THAT(NodesText(runs.incremental.optimized.graph()), HasSubstr("s2 = Relu(a); out = Add(s2,s2); "));
  EXPECT_EQ(runs.incremental.optimized.graph().node_size(), 2 + 24);
  EXPECT_EQ(runs.incremental.optimized.graph().initializer_size(), 0);
  ExpectSameAsWholeGraph(runs);
  std::vector<std::string> passes;
  for (const LocalRewriting& record : runs.incremental.records) passes.push_back(record.Name());
  EXPECT_EQ(passes, (std::vector<std::string>{"MaxTakesFirstPattern", "RemoveIdentityNodes", "RemoveUnusedNodes",
                                              "RemoveDuplicateNodes"}));
  // Before the loop: 4 passes over 30 nodes. After the batch (30 nodes): the Identity and
  // its reader; the added node and, following what lost its reader, Neg and Abs checked;
  // the identity and unused-node records (snapshots of 30 and 29 nodes); the duplicate
  // pass over the 27 nodes left.
  EXPECT_EQ(runs.incremental.report.nodes_visited.cleanup, 4u * 30u + 2u + 3u + 30u + 29u + 27u);
}

// An Identity writing a graph output is taken over by its input's producer, which only the
// whole-graph identity pass does: the cleanup after that batch looks at the whole graph.
TEST(OptimizationReport, CleanupAfterABatchFallsBackToTheWholeGraph) {
  const std::string chain_to_output = R"ONNX(
    <ir_version: 8, opset_import: ["" : 18]>
    g (float[2] a) => (float[2] y, float[2] tail) {
      a1 = Abs(a)
      n1 = Neg(a1)
      y = Neg(n1)
    )ONNX" + UntouchedChain(23) + "}";
  const ThreeRuns runs = RunThreeWays(chain_to_output, {std::make_shared<NegNegPattern>()});
  EXPECT_THAT(NodesText(runs.incremental.optimized.graph()), HasSubstr("y = Abs(a); "));
  ExpectSameAsWholeGraph(runs);
  // Before the loop: 4 passes over 27 nodes. After the batch (26 nodes): the identity pass
  // (Abs takes the output over), then the dead-code and duplicate passes over 25 nodes, as
  // the whole-graph version does.
  EXPECT_EQ(runs.incremental.report.nodes_visited.cleanup, 4u * 27u + 26u + 25u + 25u);
  EXPECT_EQ(runs.whole.report.nodes_visited.cleanup, runs.incremental.report.nodes_visited.cleanup);
}

TEST(LocalRewriting, ToStringSummarizesTheRecord) {
  Outcome run = Optimize(kTwoChains, {std::make_shared<NegNegPattern>()});
  EXPECT_EQ(run.records[0].ToString(), "NegNegPattern (batch 1): removes nodes [0, 1], adds 1 nodes at [0]");
}

// --- Rewrites that add local functions ----------------------------------------------------

constexpr std::string_view kTwoNegAbs = R"ONNX(
  <ir_version: 8, opset_import: ["" : 18]>
  g (float[2] a, float[2] b) => (float[2] y, float[2] z) {
    a1 = Abs(a)
    y = Neg(a1)
    b1 = Abs(b)
    z = Neg(b1)
  })ONNX";

// The whole model (not only the graph) that replaying `records` on the original gives.
std::string ReplayedModel(const Outcome& run, const std::vector<LocalRewriting>& records) {
  GraphBuilder builder{ModelProto(run.original)};
  core::builder::Replay(builder, records);
  return core::ir::SerializeDeterministic(std::move(builder).TakeModel());
}

std::string Imports(const ModelProto& model) {
  std::string text;
  for (const OperatorSetIdProto& opset : model.opset_import())
    text.append("'").append(opset.domain()).append("':").append(std::to_string(opset.version())).append(" ");
  return text;
}

TEST(Optimize, RecordsTheFunctionsABatchAddsAndReplayAddsThemAgain) {
  Outcome run = Optimize(kTwoNegAbs, {std::make_shared<NegAbsFunctionPattern>()});
  EXPECT_EQ(NodesText(run.optimized.graph()), "y = NegAbs(a); z = NegAbs(b); ");
  ASSERT_EQ(run.optimized.functions_size(), 1);
  EXPECT_EQ(core::ir::SerializeDeterministic(run.optimized.functions(0)),
            core::ir::SerializeDeterministic(NegAbsFunctionPattern::Body(18)));
  EXPECT_EQ(Imports(run.optimized), "'':18 'intermediate':1 ");
  // Both matches belong to one batch; only the first use of the function adds it.
  ASSERT_EQ(RecordsOf(run, "NegAbsFunctionPattern"), 2u);
  EXPECT_EQ(run.records[0].iteration, run.records[1].iteration);
  ASSERT_EQ(run.records[0].added_functions.size(), 1);
  EXPECT_EQ(run.records[0].added_functions.Get(0).name(), "NegAbs");
  EXPECT_EQ(run.records[1].added_functions.size(), 0);
  EXPECT_THAT(run.records[0].ToString(), HasSubstr("adds local function 'intermediate.NegAbs'"));

  const std::string optimized = core::ir::SerializeDeterministic(run.optimized);
  EXPECT_EQ(ReplayedModel(run, run.records), optimized);
  // Through the rewrite file, without the pattern objects.
  EXPECT_EQ(ReplayedModel(run, core::builder::ParseRewrites(core::builder::SerializeRewrites(run.records))), optimized);
}

TEST(Optimize, FunctionsAddedInANestedGraphBelongToTheModel) {
  Outcome run = Optimize(R"ONNX(
    <ir_version: 8, opset_import: ["" : 18]>
    g (bool c, float[2] x) => (float[2] y) {
      y = If(c) <
        then_branch = then_g () => (float[2] t) { t1 = Abs(x)  t = Neg(t1) },
        else_branch = else_g () => (float[2] e) { e1 = Abs(x)  e = Neg(e1) }
      >
    })ONNX",
                         {std::make_shared<NegAbsFunctionPattern>()});
  ASSERT_EQ(run.optimized.functions_size(), 1);
  EXPECT_EQ(Imports(run.optimized), "'':18 'intermediate':1 ");
  EXPECT_EQ(NodesText(run.optimized.graph().node(0).attribute(0).g()), "t = NegAbs(x); ");
  EXPECT_EQ(NodesText(run.optimized.graph().node(0).attribute(1).g()), "e = NegAbs(x); ");
  std::size_t added = 0;
  for (const LocalRewriting& record : run.records) {
    if (record.added_functions.empty()) continue;
    ++added;
    EXPECT_FALSE(record.graph_path.empty()) << record.ToString();
  }
  EXPECT_EQ(added, 1u) << "the second branch reuses the function the first added";
  EXPECT_EQ(ReplayedModel(run, run.records), core::ir::SerializeDeterministic(run.optimized));
}

TEST(Optimize, RemovesFunctionsNothingCallsAnyMoreAndReplaysTheRemoval) {
  // The function's calls are renamed away by a later priority: the function is unused.
  Outcome run = Optimize(kTwoNegAbs, {std::make_shared<NegAbsFunctionPattern>(),
                                      std::make_shared<RenameOpPattern>("CallToRelu", "NegAbs", "Relu", 2)});
  EXPECT_EQ(NodesText(run.optimized.graph()), "y = Relu(a); z = Relu(b); ");
  EXPECT_EQ(run.optimized.functions_size(), 0);
  ASSERT_EQ(RecordsOf(run, "RemoveUnusedFunctions"), 1u);
  const auto removal = std::find_if(run.records.begin(), run.records.end(),
                                    [](const LocalRewriting& r) { return r.Name() == "RemoveUnusedFunctions"; });
  EXPECT_EQ(removal->removed_functions, (std::vector<std::size_t>{0}));
  EXPECT_TRUE(removal->graph_path.empty());
  const auto stats = std::find_if(run.report.cleanup.begin(), run.report.cleanup.end(),
                                  [](const auto& s) { return s.name == "RemoveUnusedFunctions"; });
  ASSERT_NE(stats, run.report.cleanup.end());
  EXPECT_EQ(stats->removed_functions, 1u);
  EXPECT_THAT(run.report.ToString(), HasSubstr("-1 local functions"));
  EXPECT_THAT(run.report.ToJson(), HasSubstr("\"removed_functions\":1"));
  const std::string optimized = core::ir::SerializeDeterministic(run.optimized);
  EXPECT_EQ(ReplayedModel(run, run.records), optimized);
  EXPECT_EQ(ReplayedModel(run, core::builder::ParseRewrites(core::builder::SerializeRewrites(run.records))), optimized);
}

TEST(Optimize, RemovesAFunctionWhoseLastCallIsDeadCode) {
  Outcome run = Optimize(R"ONNX(
    <ir_version: 8, opset_import: ["" : 18, "local" : 1]>
    g (float[2] a) => (float[2] y) {
      dead = local.Twice(a)
      y = local.Once(a)
    }
    <domain: "local", opset_import: ["" : 18]>
    Twice (x) => (r) { t = Neg(x)  r = Neg(t) }
    <domain: "local", opset_import: ["" : 18]>
    Once (x) => (r) { r = Neg(x) })ONNX",
                         {});
  ASSERT_EQ(run.optimized.functions_size(), 1);
  EXPECT_EQ(run.optimized.functions(0).name(), "Once");
  EXPECT_EQ(RecordsOf(run, "RemoveUnusedFunctions"), 1u);
  EXPECT_EQ(ReplayedModel(run, run.records), core::ir::SerializeDeterministic(run.optimized));
}

TEST(Optimize, AnotherBodyUnderAnExistingFunctionNameIsAContractError) {
  GraphBuilder builder(ParseText(kTwoNegAbs));
  GraphGraph graph(builder, {std::make_shared<NegAbsFunctionPattern>(/*unique_body_names=*/true)},
                   SelectRegistered(PatternSelection::None()));
  try {
    graph.Optimize();
    ADD_FAILURE() << "no error";
  } catch (const BuilderError& error) {
    EXPECT_THAT(error.what(), HasSubstr("already has local function 'intermediate.NegAbs' with another content"));
  }
}

}  // namespace
}  // namespace onnxopt::testing
