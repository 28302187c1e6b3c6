// Graph passes (graph_pass.h): recorded as one batch from what they changed, replayed
// exactly, reported; and the stages the driver runs patterns and passes in.

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <functional>

#include "onnx_core/common/error.h"
#include "onnx_core/optimizer/graph_pass.h"
#include "tests/onnx_core/optimizer/optimize_fixture.h"
#include "tests/onnx_core/optimizer/test_patterns.h"

namespace onnxopt::testing {
namespace {

using core::builder::GraphPass;
using core::builder::OptimizationStage;
using core::builder::PassResult;
using ::testing::HasSubstr;

// A pass whose edit is a lambda: each test writes the edit it needs.
class LambdaPass final : public GraphPass {
 public:
  using Edit = std::function<void(GraphGraph&, PassResult&)>;
  LambdaPass(std::string name, Edit edit, OptimizationStage stage = OptimizationStage::kMain, bool subgraphs = true)
      : name_(std::move(name)), edit_(std::move(edit)), stage_(stage), subgraphs_(subgraphs) {}
  std::string Name() const override { return name_; }
  OptimizationStage Stage() const override { return stage_; }
  bool RunsOnSubgraphs() const override { return subgraphs_; }
  bool ListsEveryModifiedNode() const override { return lists_every_modified_node; }
  void Run(GraphGraph& graph, PassResult& result) const override { edit_(graph, result); }

  bool lists_every_modified_node = false;

 private:
  std::string name_;
  Edit edit_;
  OptimizationStage stage_;
  bool subgraphs_;
};

NodeProto& NodeNamed(GraphBuilder& builder, std::string_view output) {
  for (NodeProto& node : builder.Nodes())
    if (node.output_size() > 0 && node.output(0) == output) return node;
  throw BuilderError("no node produces '" + std::string(output) + "'");
}

constexpr std::string_view kChain = R"ONNX(
  <ir_version: 8, opset_import: ["" : 18]>
  g (float[2] a, float[2] b) => (float[2] y, float[2] z) {
    p = Abs(a)
    q = Neg(b)
    y = Relu(p)
    z = Sigmoid(q)
  })ONNX";

TEST(GraphPass, EditsInPlaceAreRecordedAsOneBatchAndReplayedExactly) {
  // Changes an operator in place (not declared), deletes a node, appends a new node and an
  // initializer, and counts.
  auto pass = std::make_shared<LambdaPass>("EditingPass", [](GraphGraph& graph, PassResult& result) {
    GraphBuilder& builder = graph.Builder();
    NodeNamed(builder, "y").set_op_type("Elu");
    builder.Nodes().DeleteSubrange(1, 1);  // q = Neg(b)
    NodeProto& sigmoid = NodeNamed(builder, "z");
    sigmoid.set_input(0, "b");
    sigmoid.set_output(0, "z_pre");
    TensorProto& scale = *builder.Initializers().Add();
    scale.set_name(builder.UniqueName("scale"));
    scale.set_data_type(TensorProto::FLOAT);
    scale.add_dims(2);
    scale.add_float_data(2.0f);
    scale.add_float_data(3.0f);
    NodeProto& mul = *builder.Nodes().Add();
    mul.set_op_type("Mul");
    mul.add_input("z_pre");
    mul.add_input(scale.name());
    mul.add_output("z");
    result.counters["edits"] = 4;
  });
  Outcome run = Optimize(kChain, {pass});
  EXPECT_EQ(NodesText(run.optimized.graph()), "p = Abs(a); y = Elu(p); z_pre = Sigmoid(b); z = Mul(z_pre,scale); ");
  ASSERT_EQ(RecordsOf(run, "EditingPass"), 1u);
  const LocalRewriting& record = run.records.front();
  EXPECT_EQ(record.matched_nodes, (std::vector<std::size_t>{1, 2, 3})) << "Neg removed, Relu and Sigmoid changed";
  EXPECT_EQ(record.added_nodes_positions, (std::vector<std::size_t>{1, 2, 3}));
  EXPECT_EQ(record.added_initializer_positions, (std::vector<std::size_t>{0}));
  ASSERT_EQ(run.report.passes.size(), 1u);
  EXPECT_EQ(run.report.passes[0].name, "EditingPass");
  EXPECT_EQ(run.report.passes[0].stage, "main");
  EXPECT_EQ(run.report.passes[0].runs, 1u);
  EXPECT_EQ(run.report.passes[0].changed, 1u);
  EXPECT_EQ(run.report.passes[0].counters.at("edits"), 4);
  EXPECT_THAT(run.report.ToString(), HasSubstr("EditingPass"));
  EXPECT_THAT(run.report.ToJson(), HasSubstr("\"edits\":4"));
  ExpectReplayed(run);
  for (LocalRewriting& r : run.records) r.pattern = std::make_shared<core::builder::NamedOperation>(r.Name());
  ExpectReplayed(run);
}

TEST(GraphPass, AMovedNodeIsRecordedAtItsNewPlace) {
  // Swaps two independent nodes without declaring it.
  auto pass = std::make_shared<LambdaPass>("SwappingPass", [](GraphGraph& graph, PassResult&) {
    graph.Builder().Nodes().SwapElements(0, 1);
  });
  Outcome run = Optimize(kChain, {pass});
  EXPECT_EQ(NodesText(run.optimized.graph()), "q = Neg(b); p = Abs(a); y = Relu(p); z = Sigmoid(q); ");
  ASSERT_EQ(RecordsOf(run, "SwappingPass"), 1u);
  ExpectReplayed(run);
}

// Relu -> Elu in place; `listed`: whether the pass says so in modified_nodes.
std::shared_ptr<LambdaPass> ListingPass(bool listed) {
  auto pass = std::make_shared<LambdaPass>("ListingPass", [listed](GraphGraph& graph, PassResult& result) {
    NodeProto& relu = NodeNamed(graph.Builder(), "y");
    relu.set_op_type("Elu");
    if (listed) result.modified_nodes.push_back(&relu);
  });
  pass->lists_every_modified_node = true;
  return pass;
}

TEST(GraphPass, APassThatListsItsEditsIsTakenAtItsWord) {
  // The driver compares no content: the listed node is the whole batch, and replays.
  Outcome run = Optimize(kChain, {ListingPass(/*listed=*/true)});
  EXPECT_EQ(NodesText(run.optimized.graph()), "p = Abs(a); q = Neg(b); y = Elu(p); z = Sigmoid(q); ");
  ASSERT_EQ(RecordsOf(run, "ListingPass"), 1u);
  EXPECT_EQ(run.records.front().matched_nodes, (std::vector<std::size_t>{2}));
  EXPECT_EQ(run.records.front().added_nodes_positions, (std::vector<std::size_t>{2}));
  ExpectReplayed(run);
}

TEST(GraphPass, AnEditItDoesNotListFailsTheIncrementalCheck) {
  // Unchecked, the edit goes unseen (no record): that is the contract the check enforces.
  EXPECT_EQ(RecordsOf(Optimize(kChain, {ListingPass(/*listed=*/false)}), "ListingPass"), 0u);
  setenv("ONNXOPT_CHECK_INCREMENTAL", "1", 1);
  try {
    Optimize(kChain, {ListingPass(/*listed=*/false)});
    unsetenv("ONNXOPT_CHECK_INCREMENTAL");
    FAIL() << "the unlisted edit was not found";
  } catch (const BuilderError& error) {
    unsetenv("ONNXOPT_CHECK_INCREMENTAL");
    EXPECT_THAT(error.what(), HasSubstr("ListingPass: Elu (output 'y') changed in place but is not in "
                                        "PassResult::modified_nodes"));
  }
  setenv("ONNXOPT_CHECK_INCREMENTAL", "1", 1);
  const Outcome listed = Optimize(kChain, {ListingPass(/*listed=*/true)});
  unsetenv("ONNXOPT_CHECK_INCREMENTAL");
  EXPECT_EQ(RecordsOf(listed, "ListingPass"), 1u);
}

TEST(GraphPass, APassThatChangesNothingLeavesNoRecord) {
  int calls = 0;
  auto pass = std::make_shared<LambdaPass>("IdlePass", [&](GraphGraph& graph, PassResult& result) {
    ++calls;
    // Rewriting a node with its own content is no change.
    NodeProto& node = graph.Builder().Nodes()[0];
    node.set_op_type(std::string(node.op_type()));
    result.modified_nodes.clear();
  });
  Outcome run = Optimize(kChain, {pass});
  EXPECT_EQ(calls, 1);
  EXPECT_EQ(RecordsOf(run, "IdlePass"), 0u);
  ASSERT_EQ(run.report.passes.size(), 1u);
  EXPECT_EQ(run.report.passes[0].runs, 1u);
  EXPECT_EQ(run.report.passes[0].changed, 0u);
}

TEST(GraphPass, ItsErrorsNameIt) {
  auto pass = std::make_shared<LambdaPass>("FailingPass", [](GraphGraph&, PassResult&) {
    throw BuilderError("cannot handle this graph");
  });
  try {
    Optimize(kChain, {pass});
    FAIL() << "the pass's error was swallowed";
  } catch (const BuilderError& error) {
    EXPECT_THAT(error.what(), HasSubstr("FailingPass: cannot handle this graph"));
  }
}

TEST(GraphPass, NeverMatchesAndCannotBeApplied) {
  LambdaPass pass("SomePass", [](GraphGraph&, PassResult&) {});
  GraphBuilder builder(ParseText(kChain));
  GraphGraph graph(builder, {}, SelectRegistered(PatternSelection::None()));
  EXPECT_FALSE(pass.Match(graph, builder.Nodes()[0]));
  EXPECT_THROW(pass.Apply(graph, {&builder.Nodes()[0]}), BuilderError);
}

constexpr std::string_view kWithBranch = R"ONNX(
  <ir_version: 8, opset_import: ["" : 18]>
  g (bool c, float[2] x) => (float[2] y) {
    y = If(c) <
      then_branch = then_g () => (float[2] t) { t = Neg(x) },
      else_branch = else_g () => (float[2] e) { e = Abs(x) }
    >
  })ONNX";

TEST(GraphPass, RunsOnNestedGraphsUnlessItSaysOtherwise) {
  for (const bool subgraphs : {true, false}) {
    std::vector<std::string> seen;
    auto pass = std::make_shared<LambdaPass>(
        "VisitingPass",
        [&](GraphGraph& graph, PassResult&) { seen.push_back(graph.Builder().PathString()); },
        OptimizationStage::kMain, subgraphs);
    Outcome run = Optimize(kWithBranch, {pass});
    if (subgraphs)
      EXPECT_EQ(seen, (std::vector<std::string>{"y:then_branch", "y:else_branch", ""}));
    else
      EXPECT_EQ(seen, (std::vector<std::string>{""}));
  }
}

constexpr std::string_view kTwoNegs = R"ONNX(
  <ir_version: 8, opset_import: ["" : 18]>
  g (float[2] a) => (float[2] y) {
    a1 = Neg(a)
    a2 = Neg(a1)
    y = Abs(a2)
  })ONNX";

// NegNegPattern at another stage.
class StagedNegNeg final : public PatternOptimization {
 public:
  StagedNegNeg(std::string name, OptimizationStage stage) : name_(std::move(name)), stage_(stage) {}
  std::string Name() const override { return name_; }
  OptimizationStage Stage() const override { return stage_; }
  std::set<std::string> FastOpType() const override { return inner_.FastOpType(); }
  MatchResult Match(GraphGraph& graph, const NodeProto& node) const override {
    MatchResult match = inner_.Match(graph, node);
    return match ? Matched(match.nodes, match.insert_at) : match;
  }
  utils::RepeatedProtoField<NodeProto> Apply(GraphGraph& graph, const std::vector<const NodeProto*>& nodes) const override {
    return inner_.Apply(graph, nodes);
  }

 private:
  NegNegPattern inner_;
  std::string name_;
  OptimizationStage stage_;
};

// Records, at each call, which stage saw which node count and whether shapes were known.
TEST(OptimizationStages, RunInOrderWithPassesBeforeTheStagesPatterns) {
  std::vector<std::string> log;
  auto logger = [&](std::string label) {
    return [&log, label](GraphGraph& graph, PassResult&) {
      log.push_back(label + (graph.HasType("a") ? " typed" : " untyped"));
    };
  };
  Outcome run = Optimize(kTwoNegs,
                         {std::make_shared<LambdaPass>("Final", logger("final"), OptimizationStage::kFinal),
                          std::make_shared<LambdaPass>("After", logger("after"), OptimizationStage::kAfterPatterns),
                          std::make_shared<LambdaPass>("Main", logger("main"), OptimizationStage::kMain),
                          std::make_shared<LambdaPass>("Early", logger("early"),
                                                       OptimizationStage::kBeforeShapeInference),
                          std::make_shared<StagedNegNeg>("EarlyNegNeg", OptimizationStage::kBeforeShapeInference)});
  EXPECT_EQ(log, (std::vector<std::string>{"early untyped", "main typed", "after typed", "final typed"}));
  EXPECT_EQ(NodesText(run.optimized.graph()), "y = Abs(a); ");
  ASSERT_FALSE(run.records.empty());
  EXPECT_EQ(run.records.front().Name(), "EarlyNegNeg") << "the early stage's pattern ran before shape inference";
  EXPECT_EQ(run.report.nodes_before, 3u) << "counted before the first stage";
  ExpectReplayed(run);
}

TEST(OptimizationStages, AfterPatternsSeesTheMainStagesResult) {
  std::size_t negs_seen = 99;
  auto counter = std::make_shared<LambdaPass>(
      "CountNegs",
      [&](GraphGraph& graph, PassResult&) {
        negs_seen = 0;
        for (const NodeProto& node : graph.Builder().Nodes()) negs_seen += node.op_type() == "Neg";
      },
      OptimizationStage::kAfterPatterns);
  Outcome run = Optimize(kTwoNegs, {counter, std::make_shared<NegNegPattern>()});
  EXPECT_EQ(negs_seen, 0u);
}

}  // namespace
}  // namespace onnxopt::testing
