// Boundary, topology and arity: T18-T32 of shared/docs/declarative-fusion.md §11.
#include <gtest/gtest.h>

#include "tests/onnx_core/fusion/test_rules.h"
#include "tests/support/test_support.h"

namespace onnxopt::testing {
namespace {

using fusion::OpKey;

// s = Abs(x); outputs (Exp(s), Relu(s)) => s' = Abs(x); outputs (Exp(s'), s') (Relu∘Abs = Abs).
Rules AbsExpReluRules() {
  return LambdaRules(
      "AbsExpRelu",
      [] {
        PatternBuilder b("multi_output");
        auto s = b.Op("Abs", {b.Input()});
        return std::vector<Pattern>{b.Build({b.Op("Exp", {s}), b.Op("Relu", {s})})};
      },
      [](const MatchResult&, ReplacementBuilder& rb) {
        auto s = rb.Op("Abs", {rb.Input(0)});
        return rb.Build({rb.Op("Exp", {s}), s});
      });
}

constexpr std::string_view kHeader = R"(<ir_version: 8, opset_import: ["" : 17]>)";

std::string Model(std::string_view signature, std::string_view body) {
  std::string text(kHeader);
  text.append(" g ").append(signature).append(" {\n").append(body).append("\n}");
  return text;
}

TEST(DeclarativeTopology, T18_MultiOutput) {
  ExpectRewritten(AbsExpReluRules(),
                  Model("(float[3] a) => (float[3] y)", "s = Abs(a)\n e = Exp(s)\n r = Relu(s)\n y = Add(e, r)"),
                  Model("(float[3] a) => (float[3] y)", "r = Abs(a)\n e = Exp(r)\n y = Add(e, r)"));
}

TEST(DeclarativeTopology, T19_MultiOutputCandidateOrder) {
  std::string before, after;
  for (int i = 0; i < 4; ++i) {
    const std::string n = std::to_string(i);
    before += "s" + n + " = Abs(a" + n + ")\n e" + n + " = Exp(s" + n + ")\n";
  }
  // Each replacement goes where its last matched node (its Relu) was: in reverse order.
  for (int i = 3; i >= 0; --i) {
    const std::string n = std::to_string(i);
    after += "r" + n + " = Abs(a" + n + ")\n e" + n + " = Exp(r" + n + ")\n";
  }
  for (int i = 3; i >= 0; --i) before += "r" + std::to_string(i) + " = Relu(s" + std::to_string(i) + ")\n";
  const std::string tail = "d = Exp(b)\n y0 = Add(e0, r0)\n y1 = Add(e1, r1)\n y2 = Add(e2, r2)\n y3 = Add(e3, r3)\n";
  const std::string signature =
      "(float[3] a0, float[3] a1, float[3] a2, float[3] a3, float[3] b) => (float[3] y0, float[3] y1, float[3] y2, "
      "float[3] y3, float[3] d)";
  RuleRun run = ExpectRewritten(AbsExpReluRules(), Model(signature, before + tail), Model(signature, after + tail));
  EXPECT_EQ(run.applied, 4u);
}

TEST(DeclarativeTopology, T20_MultiOutputInconsistent) {
  const Rules rules = LambdaRules(
      "Inconsistent",
      [] {
        PatternBuilder b("inconsistent");
        auto x = b.Input();
        return std::vector<Pattern>{b.Build({b.Op("Exp", {b.Op("Abs", {x})}), b.Op("Relu", {x})})};
      },
      [](const MatchResult&, ReplacementBuilder& rb) {
        auto x = rb.Input(0);
        return rb.Build({rb.Op("Exp", {rb.Op("Abs", {x})}), rb.Op("Relu", {x})});
      });
  ExpectUnchanged(rules,
                  Model("(float[3] a) => (float[3] y)", "s = Abs(a)\n e = Exp(s)\n r = Relu(s)\n y = Add(e, r)"));
}

Rules NegNegRules() {
  return LambdaRules(
      "NegNeg",
      [] {
        PatternBuilder b("neg_neg");
        return std::vector<Pattern>{b.Build({b.Op("Neg", {b.Op("Neg", {b.Input()})})})};
      },
      [](const MatchResult&, ReplacementBuilder& rb) { return rb.Build({rb.Input(0)}); });
}

TEST(DeclarativeTopology, T21_PlaceholderBindsAnything) {
  RuleRun run = ExpectRewritten(NegNegRules(), Model("(float[3] a, int64 n) => (float[3] y0, float[3] y1, float[3] y2, float[3] y3)",
                                                     R"(K = Constant<value = float[3] {1.0, 2.0, 3.0}>()
 p = Neg(a)
 y0 = Neg(p)
 q = Neg(K)
 y1 = Neg(q)
 m = Abs(a)
 u = Neg(m)
 y2 = Neg(u)
 c = Constant<value = bool {1}>()
 y3 = Loop(n, c, a) <body = g2 (int64 i, bool cond, float[3] v) => (bool cond_out, float[3] v_out) {
   cond_out = Identity(cond)
   w = Neg(m)
   z = Neg(w)
   v_out = Add(v, z)
 }>)"),
                                Model("(float[3] a, int64 n) => (float[3] y0, float[3] y1, float[3] y2, float[3] y3)",
                                      R"(y1 = Constant<value = float[3] {1.0, 2.0, 3.0}>()
 y0 = Identity(a)
 y2 = Abs(a)
 c = Constant<value = bool {1}>()
 y3 = Loop(n, c, a) <body = g2 (int64 i, bool cond, float[3] v) => (bool cond_out, float[3] v_out) {
   cond_out = Identity(cond)
   v_out = Add(v, y2)
 }>)"));
  bool nested = false;
  for (const auto& record : run.records) nested |= record.Name() == "NegNeg/neg_neg" && !record.graph_path.empty();
  EXPECT_TRUE(nested) << "the Loop body's rewrite is recorded with its subgraph path";
}

Rules MulSquareRecorder() {
  return RecordingRule("MulSquare", [] {
    PatternBuilder b("mul_square");
    auto x = b.Input();
    return std::vector<Pattern>{b.Build({b.Op("Mul", {x, x})})};
  });
}

TEST(DeclarativeTopology, T22_PlaceholderPerValue) {
  const std::string_view rule = "MulSquare/mul_square";
  RuleRun same = ExpectUnchanged(MulSquareRecorder(), Model("(float[3] a) => (float[3] y)", "y = Mul(a, a)"));
  EXPECT_EQ(same.NoMatches(rule, kRejectedByRequirements), 1u) << same.Reasons(rule);
  RuleRun two = ExpectUnchanged(MulSquareRecorder(), Model("(float[3] a, float[3] b) => (float[3] y)", "y = Mul(a, b)"));
  EXPECT_EQ(two.NoMatches(rule, kRejectedByRequirements), 0u);
  RuleRun split = ExpectUnchanged(MulSquareRecorder(),
                                  Model("(float[4] a) => (float[2] y)", "s0, s1 = Split<num_outputs = 2>(a)\n y = Mul(s0, s1)"));
  EXPECT_EQ(split.NoMatches(rule, kRejectedByRequirements), 0u) << "GE quirk 2 is not reproduced";
}

TEST(DeclarativeTopology, T23_PlaceholderBoundInside) {
  const Rules rules = LambdaRules(
      "ReluAdd",
      [] {
        PatternBuilder b("relu_add");
        auto z = b.Input(), x = b.Input();
        return std::vector<Pattern>{b.Build({b.Op("Add", {b.Op("Relu", {z}), x})})};
      },
      [](const MatchResult&, ReplacementBuilder& rb) { return rb.Build({rb.Op("Add", {rb.Input(0), rb.Input(1)})}); });
  RuleRun run = ExpectUnchanged(rules, Model("(float[3] a) => (float[3] y)", "r = Relu(a)\n y = Add(r, r)"));
  EXPECT_EQ(run.NoMatches("ReluAdd/relu_add", "placeholder 1 is bound to 'r', which is produced inside the match"), 1u)
      << run.Reasons("ReluAdd/relu_add");
}

TEST(DeclarativeTopology, T24_ExternalConsumerBetween) {
  ExpectRewritten(
      AbsExpReluRules(),
      Model("(float[3] a) => (float[3] y)", "s = Abs(a)\n e = Exp(s)\n n = Neg(e)\n r = Relu(s)\n y = Add(n, r)"),
      Model("(float[3] a) => (float[3] y)", "r = Abs(a)\n e = Exp(r)\n n = Neg(e)\n y = Add(n, r)"));
}

TEST(DeclarativeTopology, T25_CycleRejected) {
  const Rules rules = RecordingRule("Cycle", [] {
    PatternBuilder b("cycle");
    auto x = b.Input(), y = b.Input();
    auto s = b.Op("Abs", {x});
    auto r = b.Op("Relu", {s});
    return std::vector<Pattern>{b.Build({s, b.Op("Add", {r, y})})};
  });
  RuleRun run = ExpectUnchanged(rules, Model("(float[3] a) => (float[3] t)",
                                             "s = Abs(a)\n r = Relu(s)\n e = Neg(s)\n t = Add(r, e)"));
  EXPECT_EQ(run.NoMatches("Cycle/cycle", "replacement cannot be placed: an input is computed after a reader of an "
                                         "output (it would create a cycle)"),
            1u)
      << run.Reasons("Cycle/cycle");
}

Rules ConvRecorder(bool with_bias) {
  return RecordingRule(with_bias ? "Conv3" : "Conv2", [with_bias] {
    PatternBuilder b("conv");
    std::vector<fusion::ValueRef> inputs = b.Inputs(with_bias ? 3 : 2);
    return std::vector<Pattern>{b.Build({b.Op("Conv", inputs)})};
  });
}

std::size_t RecordedMatches(const Rules& rules, std::string_view model) {
  RuleRun run = RunRules(rules, ParseWithEmptyInputs(model));
  EXPECT_EQ(run.applied, 0u);
  std::size_t count = 0;
  for (const auto& entry : run.report.no_matches)
    if (entry.reason == kRejectedByRequirements) count += entry.count;
  return count;
}

// Matches (topological) of `rules` on `body`, a graph over x [1,2,5,5], weights W and bias B.
std::size_t ConvMatches(const Rules& rules, std::string_view body) {
  return RecordedMatches(rules, Model("(float[1,2,5,5] x) => (float[1,2,3,3] y) <float[2,2,3,3] W = {"
                                      "1.0,1.0,1.0,1.0,1.0,1.0,1.0,1.0,1.0,1.0,1.0,1.0,1.0,1.0,1.0,1.0,1.0,1.0,"
                                      "1.0,1.0,1.0,1.0,1.0,1.0,1.0,1.0,1.0,1.0,1.0,1.0,1.0,1.0,1.0,1.0,1.0,1.0}, "
                                      "float[2] B = {1.0, 2.0}>",
                                      body));
}

TEST(DeclarativeTopology, T26_InputCountExact) {
  EXPECT_EQ(ConvMatches(ConvRecorder(false), "y = Conv(x, W, B)"), 0u);
  EXPECT_EQ(ConvMatches(ConvRecorder(false), "y = Conv(x, W)"), 1u);
  EXPECT_EQ(ConvMatches(ConvRecorder(false), "y = Conv(x, W, EMPTY)"), 1u) << "a trailing \"\" is no input";
  EXPECT_EQ(ConvMatches(ConvRecorder(true), "y = Conv(x, W, B)"), 1u);
  EXPECT_EQ(ConvMatches(ConvRecorder(true), "y = Conv(x, W)"), 0u);
  EXPECT_EQ(ConvMatches(ConvRecorder(true), "y = Conv(x, W, EMPTY)"), 0u);
}

TEST(DeclarativeTopology, T27_AbsentMiddleInput) {
  const Rules rules = RecordingRule("ClipMax", [] {
    PatternBuilder b("clip_max");
    auto x = b.Input(), m = b.Input();
    return std::vector<Pattern>{b.Build({b.Op("Clip", {x, b.Absent(), m})})};
  });
  EXPECT_EQ(RecordedMatches(rules, Model("(float[3] a, float L, float M) => (float[3] y)", "y = Clip(a, EMPTY, M)")), 1u);
  EXPECT_EQ(RecordedMatches(rules, Model("(float[3] a, float L, float M) => (float[3] y)", "y = Clip(a, L, M)")), 0u);
}

TEST(DeclarativeTopology, T28_OutputSlotAndCount) {
  const Rules rules = RecordingRule("SecondHalf", [] {
    PatternBuilder b("second_half");
    auto split = b.Op("Split", {b.Input()}).Outputs(2);
    return std::vector<Pattern>{b.Build({b.Op("Identity", {split.Out(1)})})};
  });
  // Matched directly: the driver's cleanup would remove the Identity first.
  const std::string two = "(float[4] a) => (float[2] y, float[2] z)";
  // s0 is read by nobody: the Split's undeclared output has no outside reader.
  EXPECT_EQ(MatchAt(rules[0], Model("(float[4] a) => (float[2] y)", "s0, s1 = Split<num_outputs = 2>(a)\n y = Identity(s1)"),
                    "y")
                .reason,
            kRejectedByRequirements);
  EXPECT_EQ(MatchAt(rules[0], Model(two, "s0, s1 = Split<num_outputs = 2>(a)\n y = Identity(s0)\n z = Neg(s1)"), "y")
                .reason,
            "an input comes from another output slot of its producer");
  EXPECT_EQ(MatchAt(rules[0],
                    Model("(float[6] a) => (float[2] y, float[2] z, float[2] w)",
                          "s0, s1, s2 = Split<num_outputs = 3>(a)\n y = Identity(s1)\n z = Neg(s0)\n w = Neg(s2)"),
                    "y")
                .reason,
            "the output count differs from the pattern node's");
}

TEST(DeclarativeTopology, T29_Injective) {
  const Rules rules = RecordingRule("ReluPair", [] {
    PatternBuilder b("relu_pair");
    auto x1 = b.Input(), x2 = b.Input();
    return std::vector<Pattern>{b.Build({b.Op("Add", {b.Op("Relu", {x1}), b.Op("Relu", {x2})})})};
  });
  EXPECT_EQ(MatchAt(rules[0], Model("(float[3] a) => (float[3] y)", "r = Relu(a)\n y = Add(r, r)"), "y").reason,
            "two pattern nodes would bind the same node");
  // Matched directly: the driver's cleanup would merge the two equal Relus first.
  const DirectMatch distinct =
      MatchAt(rules[0], Model("(float[3] a) => (float[3] y)", "r1 = Relu(a)\n r2 = Relu(a)\n y = Add(r1, r2)"), "y");
  EXPECT_EQ(distinct.reason, kRejectedByRequirements) << "x1 = x2 = a: a topological match";
}

TEST(DeclarativeTopology, T30_VariadicExactArity) {
  const Rules rules = RecordingRule(
      "Concat2",
      [] {
        PatternBuilder b("concat2");
        auto x1 = b.Input(), x2 = b.Input();
        return std::vector<Pattern>{b.Build({b.Op("Concat", {x1, x2}).Attr("axis", 0)})};
      },
      fusion::PatternMatcherConfigBuilder().EnableIrAttrMatch().Build());
  EXPECT_EQ(RecordedMatches(rules, Model("(float[3] a, float[3] b) => (float[6] y)", "y = Concat<axis = 0>(a, b)")), 1u);
  EXPECT_EQ(RecordedMatches(rules, Model("(float[3] a, float[3] b) => (float[9] y)", "y = Concat<axis = 0>(a, b, a)")),
            0u);
}

TEST(DeclarativeTopology, T31_OverlapResolution) {
  const Rules rules = LambdaRules(
      "ReluRelu",
      [] {
        PatternBuilder b("relu_relu");
        return std::vector<Pattern>{b.Build({b.Op("Relu", {b.Op("Relu", {b.Input()})})})};
      },
      [](const MatchResult&, ReplacementBuilder& rb) { return rb.Build({rb.Op("Relu", {rb.Input(0)})}); });
  RuleRun run = ExpectRewritten(rules,
                                Model("(float[3] a) => (float[3] y)", "r1 = Relu(a)\n r2 = Relu(r1)\n r3 = Relu(r2)\n y = Relu(r3)"),
                                Model("(float[3] a) => (float[3] y)", "y = Relu(a)"));
  std::vector<std::size_t> iterations;
  for (const auto& record : run.records)
    if (record.Name() == "ReluRelu/relu_relu") iterations.push_back(record.iteration);
  ASSERT_EQ(iterations.size(), 3u);
  EXPECT_EQ(iterations[0], iterations[1]);
  EXPECT_LT(iterations[1], iterations[2]);
  EXPECT_EQ(run.records[0].matched_nodes, (std::vector<std::size_t>{0, 1}));
  EXPECT_EQ(run.records[1].matched_nodes, (std::vector<std::size_t>{2, 3}));
}

// T32 (idempotence) is checked by every ExpectRewritten: the second optimization applies
// no rule.

}  // namespace
}  // namespace onnxopt::testing
