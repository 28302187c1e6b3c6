// Seed examples and boundary/topology scenarios: T01-T13 and T18-T32 of
// shared/docs/declarative-fusion.md §11.
#include <gtest/gtest.h>

#include <map>
#include <set>
#include <string>
#include <vector>

#include "onnx_core/builder/graph_builder.h"
#include "onnx_core/common/error.h"
#include "onnx_core/optimizer/graph_graph.h"
#include "onnx_core/optimizer/pattern_alternatives.h"
#include "tests/onnx_core/fusion/test_rules.h"
#include "tests/support/test_support.h"

namespace onnxopt::testing {
namespace {

constexpr std::string_view kAddZeroRule = "AddZero/add_zero";

TEST(DeclarativeSeed, T01_AddZeroBasic) {
  ExpectRewritten(AddZeroRules(), kAddZeroModel, R"(
    <ir_version: 8, opset_import: ["" : 17]>
    g (float[2,3] a) => (float[2,3] u) { u = Relu(a) })");
}

TEST(DeclarativeSeed, T02_AddZeroNonzero) {
  RuleRun run = ExpectUnchanged(AddZeroRules(), R"(
    <ir_version: 8, opset_import: ["" : 17]>
    g (float[2,3] a) => (float[2,3] u) <float[1] Z = {1.0}> {
      t = Add(a, Z)
      u = Relu(t)
    })");
  EXPECT_EQ(run.NoMatches(kAddZeroRule, kRejectedByRequirements), 1u) << run.Reasons(kAddZeroRule);
}

TEST(DeclarativeSeed, T03_AddZeroBroadcastGrows) {
  ExpectUnchanged(AddZeroRules(), R"(
    <ir_version: 8, opset_import: ["" : 17]>
    g (float[3] a) => (float[2,3] u) <float[2,3] Z = {0.0, 0.0, 0.0, 0.0, 0.0, 0.0}> {
      t = Add(a, Z)
      u = Relu(t)
    })");
}

constexpr std::string_view kCommuted = R"(
    <ir_version: 8, opset_import: ["" : 17]>
    g (float[2,3] a) => (float[2,3] u) <float[1] Z = {0.0}> {
      t = Add(Z, a)
      u = Relu(t)
    })";

TEST(DeclarativeSeed, T04_AddZeroCommutedNeedsItsOwnPattern) {
  ExpectUnchanged(AddZeroRules(), kCommuted);
  ExpectRewritten(AddZeroRules() + ZeroAddRules(), kCommuted, R"(
    <ir_version: 8, opset_import: ["" : 17]>
    g (float[2,3] a) => (float[2,3] u) { u = Relu(a) })");
}

TEST(DeclarativeSeed, T05_AddZeroGraphOutputKeepsItsName) {
  ExpectRewritten(AddZeroRules(), R"(
    <ir_version: 8, opset_import: ["" : 17]>
    g (float[2,3] a) => (float[2,3] y) <float[1] Z = {0.0}> { y = Add(a, Z) })",
                  R"(
    <ir_version: 8, opset_import: ["" : 17]>
    g (float[2,3] a) => (float[2,3] y) { y = Identity(a) })");
}

TEST(DeclarativeSeed, T06_ChainInOneBatch) {
  RuleRun run = ExpectRewritten(AddZeroRules(), R"(
    <ir_version: 8, opset_import: ["" : 17]>
    g (float[2,3] a) => (float[2,3] u) <float[1] Z = {0.0}> {
      t1 = Add(a, Z)
      t2 = Add(t1, Z)
      u = Relu(t2)
    })",
                                R"(
    <ir_version: 8, opset_import: ["" : 17]>
    g (float[2,3] a) => (float[2,3] u) { u = Relu(a) })");
  std::vector<std::size_t> iterations;
  for (const auto& record : run.records)
    if (record.Name() == kAddZeroRule) iterations.push_back(record.iteration);
  ASSERT_EQ(iterations.size(), 2u);
  EXPECT_EQ(iterations[0], iterations[1]) << "both Adds are rewritten in one batch";
}

constexpr std::string_view kMatMulAdd = " t = MatMul(a, W)\n y = Add(t, c)\n";

// The T07 family: `a` @ W [8,16] + c; the body is given.
std::string GemmModel(std::string_view inputs, std::string_view outputs, std::string_view body = kMatMulAdd) {
  std::string weights = "<float[8,16] W = {";
  for (int i = 0; i < 128; ++i) weights += (i ? ", " : "") + std::to_string(i % 16 + 1) + ".0";
  weights += "}>";
  return std::string(R"(<ir_version: 8, opset_import: ["" : 17]> g ()") + std::string(inputs) + ") => (" +
         std::string(outputs) + ") " + weights + " {\n" + std::string(body) + "}";
}

constexpr std::string_view kGemmInputs = "float[4,8] a, float[16] c";

TEST(DeclarativeSeed, T07_MatMulAddToGemm) {
  RuleRun run = ExpectRewritten(GemmRules(), GemmModel(kGemmInputs, "float[4,16] y"),
                                GemmModel(kGemmInputs, "float[4,16] y", " y = Gemm(a, W, c)\n"));
  ASSERT_EQ(run.applied, 1u);
  EXPECT_EQ(run.records[0].matched_nodes, (std::vector<std::size_t>{0, 1})) << "MatMul and Add, by position";
}

TEST(DeclarativeSeed, T08_MatMulAddRank3) {
  ExpectUnchanged(GemmRules(), GemmModel("float[2,4,8] a, float[16] c", "float[2,4,16] y"));
}

TEST(DeclarativeSeed, T09_MatMulAddBiasGrows) {
  ExpectUnchanged(GemmRules(), GemmModel("float[4,8] a, float[3,4,16] c", "float[3,4,16] y"));
}

constexpr std::string_view kSharedProduct = " t = MatMul(a, W)\n y = Add(t, c)\n z = Relu(t)\n";

TEST(DeclarativeSeed, T10_SharedIntermediateViolatesTheBoundary) {
  RuleRun run = ExpectUnchanged(GemmRules(), GemmModel(kGemmInputs, "float[4,16] y, float[4,16] z", kSharedProduct));
  EXPECT_EQ(run.NoMatches("MatMulAddToGemm/matmul_add",
                          "value 't' is read by Relu 'z' outside the match and is not a declared output"),
            1u)
      << run.Reasons("MatMulAddToGemm/matmul_add");
}

TEST(DeclarativeSeed, T11_SharedIntermediateDeclared) {
  ExpectRewritten(GemmRules(true), GemmModel(kGemmInputs, "float[4,16] y, float[4,16] z", kSharedProduct),
                  GemmModel(kGemmInputs, "float[4,16] y, float[4,16] z",
                            " y = Gemm(a, W, c)\n t = MatMul(a, W)\n z = Relu(t)\n"));
}

TEST(DeclarativeSeed, T12_IntermediateIsGraphOutput) {
  RuleRun run = ExpectUnchanged(GemmRules(), GemmModel(kGemmInputs, "float[4,16] y, float[4,16] t"));
  EXPECT_EQ(run.NoMatches("MatMulAddToGemm/matmul_add", "value 't' is a graph output and not a declared output"), 1u)
      << run.Reasons("MatMulAddToGemm/matmul_add");
}

TEST(DeclarativeSeed, T13_IntermediateReadBySubgraph) {
  RuleRun run = ExpectUnchanged(
      GemmRules(), GemmModel("float[4,8] a, float[16] c, bool b", "float[4,16] y, float[4,16] z",
                             R"( t = MatMul(a, W)
 y = Add(t, c)
 z = If(b) <then_branch = g1 () => (float[4,16] o1) { o1 = Identity(t) },
            else_branch = g2 () => (float[4,16] o2) { o2 = Neg(t) }>
)"));
  EXPECT_EQ(run.NoMatches("MatMulAddToGemm/matmul_add", "value 't' is read by a subgraph and not a declared output"),
            1u)
      << run.Reasons("MatMulAddToGemm/matmul_add");
}

TEST(DeclarativeSeed, T59_ReportCounters) {
  // T01 and T10 rules on the T10 model: AddZero finds no Add with a constant; the Gemm rule
  // meets the shared product.
  RuleRun run = ExpectUnchanged(AddZeroRules() + GemmRules(),
                                GemmModel(kGemmInputs, "float[4,16] y, float[4,16] z", kSharedProduct));
  std::map<std::string, core::builder::PatternStats> stats;
  for (const auto& entry : run.report.patterns) stats[entry.name] = entry;
  // Candidates: the rule's anchor op (Add) in each of the iterations that ran it.
  EXPECT_EQ(stats["MatMulAddToGemm/matmul_add"].match_calls, 1u);
  EXPECT_EQ(stats["MatMulAddToGemm/matmul_add"].matched, 0u);
  EXPECT_EQ(stats["MatMulAddToGemm/matmul_add"].applied, 0u);
  EXPECT_EQ(run.NoMatches("MatMulAddToGemm/matmul_add",
                          "value 't' is read by Relu 'z' outside the match and is not a declared output"),
            1u)
      << "a boundary rejection with its reason";
  EXPECT_EQ(run.NoMatches(kAddZeroRule, "a pattern constant is bound to a value that is not a constant of the graph"),
            1u)
      << run.Reasons(kAddZeroRule);
  EXPECT_EQ(stats[std::string(kAddZeroRule)].match_calls, 1u);
}

// The per-rule lines of T59 (fusion::ReportRules): candidates, topological matches,
// boundary rejections with reasons, MeetRequirements rejections, overlaps skipped, applied
// and callback time, on the T10 model (nothing rewritten) ...
TEST(DeclarativeSeed, T59_ReportRulesOnTheSharedProduct) {
  const Rules rules = AddZeroRules() + GemmRules();
  const RuleRun run =
      RunRules(rules, ParseText(GemmModel(kGemmInputs, "float[4,16] y, float[4,16] z", kSharedProduct)));
  const std::vector<fusion::RuleReport> lines = fusion::ReportRules(run.report, rules);
  ASSERT_EQ(lines.size(), 2u);
  const fusion::RuleReport& add_zero = lines[0];
  EXPECT_EQ(add_zero.pass, "AddZero");
  EXPECT_EQ(add_zero.candidates, 1u);
  EXPECT_EQ(add_zero.topological_matches, 0u) << "the constant is not one: rejected in the walk";
  EXPECT_EQ(add_zero.boundary_rejections, 0u);
  EXPECT_EQ(add_zero.reasons,
            (std::map<std::string, std::size_t>{{"a pattern constant is bound to a value that is not a constant of "
                                                 "the graph",
                                                 1}}));
  const fusion::RuleReport& gemm = lines[1];
  EXPECT_EQ(gemm.pass, "MatMulAddToGemm");
  EXPECT_EQ(gemm.candidates, 1u);
  EXPECT_EQ(gemm.topological_matches, 0u);
  EXPECT_EQ(gemm.boundary_rejections, 1u);
  EXPECT_EQ(gemm.requirement_rejections, 0u);
  EXPECT_EQ(gemm.overlaps_skipped, 0u);
  EXPECT_EQ(gemm.applied, 0u);
  EXPECT_EQ(gemm.callback_time_ns, 0) << "no callback ran";
  EXPECT_EQ(gemm.reasons, (std::map<std::string, std::size_t>{
                              {"value 't' is read by Relu 'z' outside the match and is not a declared output", 1}}));
}

// ... and on overlapping and rejected matches: Relu(Relu(x)) on a chain of four Relus
// (T31: iteration 1 tries r1..y, r3's match overlaps r2's; iteration 2 tries the two Relus
// left; iteration 3 the last one), and AddZero rejected by its MeetRequirements (T02).
TEST(DeclarativeSeed, T59_ReportRulesCountsOverlapsRejectionsAndCallbackTime) {
  const Rules relu_relu = LambdaRules(
      "ReluRelu",
      [] {
        PatternBuilder b("relu_relu");
        return std::vector<Pattern>{b.Build({b.Op("Relu", {b.Op("Relu", {b.Input()})})})};
      },
      [](const MatchResult&, ReplacementBuilder& rb) { return rb.Build({rb.Op("Relu", {rb.Input(0)})}); });
  const RuleRun run = RunRules(relu_relu, ParseText(R"(
    <ir_version: 8, opset_import: ["" : 17]>
    g (float[3] a) => (float[3] y) { r1 = Relu(a)
 r2 = Relu(r1)
 r3 = Relu(r2)
 y = Relu(r3) })"));
  ASSERT_EQ(run.applied, 3u);
  const std::vector<fusion::RuleReport> lines = fusion::ReportRules(run.report, relu_relu);
  ASSERT_EQ(lines.size(), 1u);
  EXPECT_EQ(lines[0].candidates, 7u);
  EXPECT_EQ(lines[0].topological_matches, 4u);
  EXPECT_EQ(lines[0].overlaps_skipped, 1u);
  EXPECT_EQ(lines[0].applied, 3u);
  EXPECT_EQ(lines[0].requirement_rejections, 0u);
  EXPECT_EQ(lines[0].boundary_rejections, 0u);
  EXPECT_GT(lines[0].callback_time_ns, 0) << "4 MeetRequirements and 3 Replacement calls";
  EXPECT_EQ(lines[0].reasons, (std::map<std::string, std::size_t>{{"an input is not produced by a node", 3}}));

  const Rules add_zero = AddZeroRules();
  const RuleRun rejected = RunRules(add_zero, ParseText(R"(
    <ir_version: 8, opset_import: ["" : 17]>
    g (float[2,3] a) => (float[2,3] u) <float[1] Z = {1.0}> {
      t = Add(a, Z)
      u = Relu(t)
    })"));
  const std::vector<fusion::RuleReport> rejected_lines = fusion::ReportRules(rejected.report, add_zero);
  ASSERT_EQ(rejected_lines.size(), 1u);
  EXPECT_EQ(rejected_lines[0].topological_matches, 1u);
  EXPECT_EQ(rejected_lines[0].requirement_rejections, 1u);
  EXPECT_EQ(rejected_lines[0].applied, 0u);
  EXPECT_EQ(rejected_lines[0].reasons,
            (std::map<std::string, std::size_t>{{std::string(kRejectedByRequirements), 1}}));
}

// A group skips an alternative whose walk from the anchor equals one that already failed:
// only the declared outputs (or labels) may differ.
TEST(DeclarativeCompile, SameWalkComparesAllButTheDeclaredOutputs) {
  auto chain = [](const char* inner, bool declare_inner, const char* label) {
    PatternBuilder b("chain");
    auto first = b.Op(inner, {b.Input()}).Label(label);
    auto second = b.Op("Cast", {first});
    return fusion::PatternMatcher(declare_inner ? b.Build({second, first}) : b.Build({second}), {});
  };
  EXPECT_TRUE(chain("Cast", false, "first").SameWalk(chain("Cast", true, "other")));
  EXPECT_FALSE(chain("Cast", false, "first").SameWalk(chain("Relu", false, "first")));
  PatternBuilder b("with_attribute");
  auto x = b.Input();
  const fusion::PatternMatcher with_attribute(b.Build({b.Op("Cast", {b.Op("Cast", {x}).Attr("to", std::int64_t{1})})}),
                                              {});
  EXPECT_FALSE(chain("Cast", false, "first").SameWalk(with_attribute));
}

// The patterns of one pass that share an anchor operator compile into one engine pattern
// (one Match call per candidate); records still name the alternative that matched.
TEST(DeclarativeCompile, PatternsSharingAnAnchorAreOneEnginePattern) {
  // Relu(Relu(x)) => Relu(x); Relu(Abs(x)) => Abs(x); Neg(Neg(x)) => x (another anchor).
  const Rules rules = LambdaRules(
      "Chains",
      [] {
        std::vector<Pattern> patterns;
        for (const char* inner : {"Relu", "Abs"}) {
          PatternBuilder b(std::string("relu_") + (inner[0] == 'R' ? "relu" : "abs"));
          patterns.push_back(b.Build({b.Op("Relu", {b.Op(inner, {b.Input()})})}));
        }
        PatternBuilder b("neg_neg");
        patterns.push_back(b.Build({b.Op("Neg", {b.Op("Neg", {b.Input()})})}));
        return patterns;
      },
      [](const MatchResult& m, ReplacementBuilder& rb) {
        if (m.PatternName() == "neg_neg") return rb.Build({rb.Input(0)});
        return rb.Build({rb.Op(m.PatternName() == "relu_relu" ? "Relu" : "Abs", {rb.Input(0)})});
      });
  ASSERT_EQ(rules.size(), 2u);
  EXPECT_EQ(rules[0]->Name(), "Chains/relu_relu|relu_abs");
  EXPECT_EQ(rules[0]->FastOpType(), std::set<std::string>{"Relu"});
  EXPECT_EQ(fusion::ReportedNames(*rules[0]),
            (std::vector<std::string>{"Chains/relu_relu|relu_abs", "Chains/relu_relu", "Chains/relu_abs"}));
  EXPECT_EQ(rules[1]->Name(), "Chains/neg_neg");
  EXPECT_EQ(fusion::ReportedNames(*rules[1]), std::vector<std::string>{"Chains/neg_neg"});
  RuleRun run = ExpectRewritten(rules, R"(
    <ir_version: 8, opset_import: ["" : 17]>
    g (float[3] a) => (float[3] y) {
      r = Relu(a)
      y1 = Relu(r)
      b = Abs(a)
      y2 = Relu(b)
      n = Neg(a)
      y3 = Neg(n)
      s = Add(y1, y2)
      y = Add(s, y3)
    })",
                                R"(
    <ir_version: 8, opset_import: ["" : 17]>
    g (float[3] a) => (float[3] y) {
      y1 = Relu(a)
      y2 = Abs(a)
      s = Add(y1, y2)
      y = Add(s, a)
    })");
  std::vector<std::string> names;
  for (const auto& record : run.records)
    if (record.Name().rfind("Chains/", 0) == 0) names.push_back(record.Name() + "@" + std::to_string(record.iteration));
  EXPECT_EQ(names, (std::vector<std::string>{"Chains/relu_relu@1", "Chains/relu_abs@1", "Chains/neg_neg@1"}));
  std::map<std::string, core::builder::PatternStats> stats;
  for (const auto& entry : run.report.patterns) stats[entry.name] = entry;
  // Iteration 1 tries the 3 Relus (r fails, y1 and y2 match), iteration 2 the one left.
  EXPECT_EQ(stats["Chains/relu_relu|relu_abs"].match_calls, 4u);
  EXPECT_EQ(stats["Chains/relu_relu|relu_abs"].matched, 2u);
  EXPECT_EQ(stats["Chains/relu_relu"].applied, 1u);
  EXPECT_EQ(stats["Chains/relu_abs"].applied, 1u);
  EXPECT_EQ(stats["Chains/relu_relu"].match_calls, 0u) << "the alternatives are not called by the driver";
  // A rejected candidate reports the first alternative's reason, under the group's name.
  EXPECT_EQ(run.NoMatches("Chains/relu_relu|relu_abs", "an input is not produced by a node"), 2u)
      << run.Reasons("Chains/relu_relu|relu_abs");
}

// Relu(Abs(a)) where Abs's output is also read outside: relu_relu fails in its walk,
// relu_abs on the boundary; the group reports the boundary, which says what to change.
TEST(DeclarativeCompile, AGroupReportsTheAlternativeThatGotPastTheWalk) {
  const Rules rules = LambdaRules(
      "Pair",
      [] {
        std::vector<Pattern> patterns;
        for (const char* inner : {"Relu", "Abs"}) {
          PatternBuilder b(std::string("relu_") + (inner[0] == 'R' ? "relu" : "abs"));
          patterns.push_back(b.Build({b.Op("Relu", {b.Op(inner, {b.Input()})})}));
        }
        return patterns;
      },
      [](const MatchResult&, ReplacementBuilder& rb) { return rb.Build({rb.Op("Relu", {rb.Input(0)})}); });
  const RuleRun run = RunRules(rules, ParseText(R"(
    <ir_version: 8, opset_import: ["" : 17]>
    g (float[3] a) => (float[3] y) {
      b = Abs(a)
      r = Relu(b)
      n = Neg(b)
      y = Add(r, n)
    })"));
  EXPECT_EQ(run.applied, 0u);
  EXPECT_EQ(run.NoMatches("Pair/relu_relu|relu_abs",
                          "value 'b' is read by Neg 'n' outside the match and is not a declared output"),
            1u)
      << run.Reasons("Pair/relu_relu|relu_abs");
}

// The driver accepts a match naming another pattern only from a PatternAlternatives that
// owns it.
class Impostor final : public core::builder::PatternOptimization, public core::builder::PatternAlternatives {
 public:
  explicit Impostor(std::shared_ptr<const core::builder::PatternOptimization> other) : other_(std::move(other)) {}
  std::string Name() const override { return "Impostor"; }
  std::set<std::string> FastOpType() const override { return {"Relu"}; }
  core::builder::MatchResult Match(core::builder::GraphGraph& graph, const NodeProto& candidate) const override {
    return other_->Match(graph, candidate);
  }
  utils::RepeatedProtoField<NodeProto> Apply(core::builder::GraphGraph&,
                                             const std::vector<const NodeProto*>&) const override {
    return {};
  }
  const std::shared_ptr<const core::builder::PatternOptimization>* FindAlternative(
      const core::builder::PatternOptimization&) const override {
    return nullptr;  // owns none
  }

 private:
  std::shared_ptr<const core::builder::PatternOptimization> other_;
};

TEST(DeclarativeCompile, TheDriverRefusesAMatchOfAPatternTheGroupDoesNotOwn) {
  const Rules relu_relu = LambdaRules(
      "ReluRelu",
      [] {
        PatternBuilder b("relu_relu");
        return std::vector<Pattern>{b.Build({b.Op("Relu", {b.Op("Relu", {b.Input()})})})};
      },
      [](const MatchResult&, ReplacementBuilder& rb) { return rb.Build({rb.Op("Relu", {rb.Input(0)})}); });
  core::builder::GraphBuilder builder{ParseText(R"(
    <ir_version: 8, opset_import: ["" : 17]>
    g (float[3] a) => (float[3] y) { r = Relu(a)
 y = Relu(r) })")};
  core::builder::OptimizerOptions options;
  options.registered = core::builder::PatternSelection::None();
  core::builder::GraphGraph graph(builder, {std::make_shared<Impostor>(relu_relu[0])}, options);
  try {
    graph.Optimize();
    ADD_FAILURE() << "no error";
  } catch (const BuilderError& error) {
    const std::string message = error.what();
    EXPECT_NE(message.find("Impostor::Match returned a result of another pattern"), std::string::npos) << message;
  }
}

}  // namespace
}  // namespace onnxopt::testing
