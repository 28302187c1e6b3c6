// Matcher options and captures: T33-T43 of shared/docs/declarative-fusion.md §11.
#include <gtest/gtest.h>

#include <cstring>

#include "onnx_core/eval/tensor.h"
#include "tests/onnx_core/fusion/test_rules.h"
#include "tests/support/test_support.h"

namespace onnxopt::testing {
namespace {

using fusion::PatternMatcherConfigBuilder;

std::string Model(std::string_view signature, std::string_view body, int ir_version = 8) {
  std::string text = "<ir_version: " + std::to_string(ir_version) + R"(, opset_import: ["" : 17]>)";
  text.append(" g ").append(signature).append(" {\n").append(body).append("\n}");
  return text;
}

TensorProto Scalar(int data_type, const void* bytes, std::size_t size, std::vector<std::int64_t> dims = {}) {
  TensorProto tensor;
  tensor.set_data_type(data_type);
  for (std::int64_t dim : dims) tensor.add_dims(dim);
  tensor.set_raw_data(std::string(static_cast<const char*>(bytes), size));
  return tensor;
}

TensorProto Float(float value, std::vector<std::int64_t> dims = {}) {
  return Scalar(TensorProto::FLOAT, &value, sizeof value, std::move(dims));
}

// Add(x, <constant>) with the constant as given (AnyConstant when null).
Rules AddConstantRecorder(const TensorProto* constant, fusion::PatternMatcherConfig config) {
  return RecordingRule(
      "AddConstant",
      [constant] {
        PatternBuilder b("add_constant");
        auto x = b.Input();
        auto c = constant ? b.Constant(*constant, "c") : b.AnyConstant("c");
        return std::vector<Pattern>{b.Build({b.Op("Add", {x, c})})};
      },
      config);
}

std::size_t Matches(const Rules& rules, const ModelProto& model) {
  RuleRun run = RunRules(rules, model);
  EXPECT_EQ(run.applied, 0u);
  return run.NoMatches(rules[0]->Name(), kRejectedByRequirements);
}

// `y = Add(a, Z)` over `a` of `type` with the initializer Z replaced by `z`.
ModelProto AddInitializer(const TensorProto& z, std::string_view type = "float") {
  const std::string t(type);
  ModelProto model = ParseText(Model("(" + t + "[3] a) => (" + t + "[3] y) <float[1] Z = {0.0}>", "y = Add(a, Z)"));
  TensorProto& init = *model.mutable_graph()->mutable_initializer(0);
  init = z;
  init.set_name("Z");
  return model;
}

TEST(DeclarativeOptions, T33_ConstValueMatchOff) {
  const TensorProto zero = Float(0.0f);
  const Rules rules = AddConstantRecorder(&zero, {});
  EXPECT_EQ(Matches(rules, AddInitializer(Float(5.0f))), 1u) << "the value is ignored";
  EXPECT_EQ(Matches(rules, ParseText(Model("(float[3] a, float[3] b) => (float[3] y)", "y = Add(a, b)"))), 0u)
      << "not a constant";
  EXPECT_EQ(Matches(rules, ParseText(Model("(float[3] a, float[3] b) => (float[3] y) <float[3] b = {1.0, 2.0, 3.0}>",
                                           "y = Add(a, b)", 3))),
            0u)
      << "an initializer that is also a graph input can be overridden";
}

TEST(DeclarativeOptions, T34_ConstValueMatchOn) {
  const TensorProto zero = Float(0.0f);
  const Rules rules = AddConstantRecorder(&zero, PatternMatcherConfigBuilder().EnableConstValueMatch().Build());
  EXPECT_EQ(Matches(rules, AddInitializer(Float(0.0f))), 1u);
  EXPECT_EQ(Matches(rules, AddInitializer(Float(0.0f, {1}))), 0u) << "shape [1] is not shape []";
  const std::uint16_t half_zero = 0;
  EXPECT_EQ(Matches(rules, AddInitializer(Scalar(TensorProto::FLOAT16, &half_zero, 2), "float16")), 0u);
  EXPECT_EQ(Matches(rules, AddInitializer(Float(-0.0f))), 0u) << "-0.0 differs bit for bit";
  const std::int64_t int_zero = 0;
  EXPECT_EQ(Matches(rules, AddInitializer(Scalar(TensorProto::INT64, &int_zero, 8), "int64")), 0u);
  EXPECT_EQ(Matches(rules, ParseText(Model("(float[3] a) => (float[3] y)",
                                           "z = Constant<value_float = 0.0>()\n y = Add(a, z)"))),
            1u)
      << "a Constant node's value_float is normalized to a tensor";
}

// T34, last sentence: rewriting Add(a, z) away leaves z's Constant node to its other reader.
TEST(DeclarativeOptions, T34_ConstantStillUsedElsewhereSurvives) {
  const Rules rules = LambdaRules(
      "AddZeroValue",
      [] {
        PatternBuilder b("add_zero");
        auto x = b.Input();
        return std::vector<Pattern>{b.Build({b.Op("Add", {x, b.Constant(Float(0.0f), "zero")})})};
      },
      [](const MatchResult&, ReplacementBuilder& rb) { return rb.Build({rb.Input(0)}); },
      [](const MatchResult& m, PassContext& ctx) { return SameTypeAndShape(ctx.Graph(), m.Input(0), m.Output(0)); },
      PatternMatcherConfigBuilder().EnableConstValueMatch().Build());
  ExpectRewritten(rules,
                  Model("(float[3] a) => (float[3] u, float[3] w)",
                        "z = Constant<value_float = 0.0>()\n t = Add(a, z)\n u = Relu(t)\n w = Mul(a, z)"),
                  Model("(float[3] a) => (float[3] u, float[3] w)",
                        "z = Constant<value_float = 0.0>()\n u = Relu(a)\n w = Mul(a, z)"));
}

TEST(DeclarativeOptions, T35_ConstValueMatchOnValueless) {
  const Rules rules = AddConstantRecorder(nullptr, PatternMatcherConfigBuilder().EnableConstValueMatch().Build());
  EXPECT_EQ(Matches(rules, AddInitializer(Float(5.0f))), 1u);
}

// y = Mul(x, K) with K all ones and the shape kept => x.
Rules MulOneRules() {
  return LambdaRules(
      "MulOne",
      [] {
        PatternBuilder b("mul_one");
        return std::vector<Pattern>{b.Build({b.Op("Mul", {b.Input(), b.AnyConstant("one")})})};
      },
      [](const MatchResult&, ReplacementBuilder& rb) { return rb.Build({rb.Input(0)}); },
      [](const MatchResult& m, PassContext& ctx) {
        return core::builder::AllElementsEqual(m.ConstantValue("one"), 1.0) &&
               SameTypeAndShape(ctx.Graph(), m.Input(0), m.Output(0));
      });
}

TEST(DeclarativeOptions, T36_SharedConstant) {
  for (const std::string body : {"t = Mul(a, K)\n u = Mul(t, K)\n y = Relu(u)",
                                 "L = Constant<value = float[3] {1.0, 1.0, 1.0}>()\n t = Mul(a, L)\n u = Mul(t, L)\n "
                                 "y = Relu(u)"}) {
    RuleRun run = ExpectRewritten(MulOneRules(),
                                  Model("(float[3] a) => (float[3] y) <float[3] K = {1.0, 1.0, 1.0}>", body),
                                  Model("(float[3] a) => (float[3] y)", "y = Relu(a)"));
    std::vector<std::size_t> iterations;
    for (const auto& record : run.records)
      if (record.Name() == "MulOne/mul_one") iterations.push_back(record.iteration);
    ASSERT_EQ(iterations.size(), 2u) << body;
    EXPECT_EQ(iterations[0], iterations[1]) << "one batch: the shared constant is not claimed";
  }
}

Rules TransposeRecorder(fusion::PatternMatcherConfig config) {
  return RecordingRule(
      "Transpose10",
      [] {
        PatternBuilder b("transpose10");
        return std::vector<Pattern>{b.Build({b.Op("Transpose", {b.Input()}).Attr("perm", std::vector<std::int64_t>{1, 0})})};
      },
      config);
}

TEST(DeclarativeOptions, T37_AttributeMatchOff) {
  EXPECT_EQ(Matches(TransposeRecorder({}),
                    ParseText(Model("(float[2,3,4] a) => (float[2,4,3] y)", "y = Transpose<perm = [0, 2, 1]>(a)"))),
            1u);
  PatternBuilder b("transpose10");
  const Pattern pattern = b.Build({b.Op("Transpose", {b.Input()}).Attr("perm", std::vector<std::int64_t>{1, 0})});
  ASSERT_EQ(pattern.IgnoredAttributeDiagnostics().size(), 1u);
  EXPECT_EQ(pattern.IgnoredAttributeDiagnostics()[0],
            "pattern 'transpose10': attributes on node 0 (Transpose) are ignored because attribute matching is off");
}

TEST(DeclarativeOptions, T38_AttributeMatchOn) {
  const auto on = PatternMatcherConfigBuilder().EnableIrAttrMatch().Build();
  EXPECT_EQ(Matches(TransposeRecorder(on),
                    ParseText(Model("(float[2,3] a) => (float[3,2] y)", "y = Transpose<perm = [1, 0]>(a)"))),
            1u);
  EXPECT_EQ(Matches(TransposeRecorder(on),
                    ParseText(Model("(float[2,3,4] a) => (float[2,4,3] y)", "y = Transpose<perm = [0, 2, 1]>(a)"))),
            0u);
  const Rules gemm = RecordingRule(
      "Gemm",
      [] {
        PatternBuilder b("gemm");
        std::vector<fusion::ValueRef> inputs = b.Inputs(3);
        return std::vector<Pattern>{b.Build({b.Op("Gemm", inputs)})};
      },
      on);
  const std::string signature = "(float[2,3] a, float[3,4] b, float[4] c) => (float[2,4] y)";
  // The schema's defaults (Gemm-13: transB 0, alpha 1.0): an explicit default is an unset
  // attribute, another value is not.
  EXPECT_EQ(Matches(gemm, ParseText(Model(signature, "y = Gemm<transB = 0>(a, b, c)"))), 1u);
  EXPECT_EQ(Matches(gemm, ParseText(Model(signature, "y = Gemm(a, b, c)"))), 1u);
  EXPECT_EQ(Matches(gemm, ParseText(Model("(float[2,3] a, float[4,3] b, float[4] c) => (float[2,4] y)",
                                          "y = Gemm<transB = 1>(a, b, c)"))),
            0u);
  EXPECT_EQ(Matches(gemm, ParseText(Model(signature, "y = Gemm<alpha = 1.0, transA = 0>(a, b, c)"))), 1u);
  EXPECT_EQ(Matches(gemm, ParseText(Model(signature, "y = Gemm<alpha = 2.0>(a, b, c)"))), 0u);
  // The other way round: a pattern that spells a default out matches a node without it.
  const Rules explicit_default = RecordingRule(
      "GemmTransB0",
      [] {
        PatternBuilder b("gemm_transb0");
        std::vector<fusion::ValueRef> inputs = b.Inputs(3);
        return std::vector<Pattern>{b.Build({b.Op("Gemm", inputs).Attr("transB", 0)})};
      },
      on);
  EXPECT_EQ(Matches(explicit_default, ParseText(Model(signature, "y = Gemm(a, b, c)"))), 1u);
  EXPECT_EQ(Matches(explicit_default, ParseText(Model(signature, "y = Gemm<transB = 0>(a, b, c)"))), 1u);
  EXPECT_EQ(Matches(explicit_default, ParseText(Model("(float[2,3] a, float[4,3] b, float[4] c) => (float[2,4] y)",
                                                      "y = Gemm<transB = 1>(a, b, c)"))),
            0u);
  const Rules leaky = RecordingRule(
      "Leaky",
      [] {
        PatternBuilder b("leaky");
        return std::vector<Pattern>{b.Build({b.Op("LeakyRelu", {b.Input()}).Attr("alpha", 0.01f)})};
      },
      on);
  EXPECT_EQ(Matches(leaky, ParseText(Model("(float[3] a) => (float[3] y)", "y = LeakyRelu<alpha = 0.01>(a)"))), 1u);
  EXPECT_EQ(Matches(leaky, ParseText(Model("(float[3] a) => (float[3] y)", "y = LeakyRelu<alpha = 0.0100001>(a)"))),
            0u)
      << "floats compare bit for bit";
  EXPECT_EQ(Matches(leaky, ParseText(Model("(float[3] a) => (float[3] y)", "y = LeakyRelu(a)"))), 1u)
      << "LeakyRelu-16's alpha defaults to 0.01";
  // The spec's 0.0099999998 is the float32 nearest to 0.01 (attributes are float32), so it
  // is 0.01f bit for bit and matches; 0.0100001 above is the case that differs.
  EXPECT_EQ(Matches(leaky, ParseText(Model("(float[3] a) => (float[3] y)", "y = LeakyRelu<alpha = 0.0099999998>(a)"))),
            1u);
}

TEST(DeclarativeOptions, T39_AttributeMatchOnChecksTypes) {
  const Rules rules = RecordingRule(
      "ReluAbs",
      [] {
        PatternBuilder b("relu_abs");
        return std::vector<Pattern>{b.Build({b.Op("Relu", {b.Op("Abs", {b.Input()})})})};
      },
      PatternMatcherConfigBuilder().EnableIrAttrMatch().Build());
  EXPECT_EQ(Matches(rules, ParseText(Model("(float[3] a) => (float[3] y)", "n = Neg(a)\n y = Relu(n)"))), 0u)
      << "GE quirk 1 is not reproduced";
}

// What the T40-T43 predicates saw, copied out of the callback.
struct Seen {
  std::vector<std::string> captured;
  std::string mm_by_name, mm_producer, out_of_range;
  std::vector<std::string> matched, inputs, outputs;
  std::string text;
  float zero = -1;
};

std::string Outputs(const NodeProto* node) { return node->op_type() + ":" + node->output(0); }

TEST(DeclarativeCaptures, T40_CaptureIntermediate) {
  auto seen = std::make_shared<Seen>();
  const Rules rules = LambdaRules(
      "Capture",
      [] {
        PatternBuilder b("matmul_add");
        auto a = b.Input(), w = b.Input(), c = b.Input();
        auto mm = b.Op("MatMul", {a, w});
        auto y = b.Op("Add", {mm, c});
        Pattern p = b.Build({y});
        p.Capture(mm, "mm");
        p.Capture(y);
        return std::vector<Pattern>{p};
      },
      [](const MatchResult&, ReplacementBuilder& rb) { return rb.Build({rb.Input(0)}); },
      [seen](const MatchResult& m, PassContext& ctx) {
        seen->captured = {m.Captured(0), m.Captured(1)};
        seen->mm_by_name = m.Captured("mm");
        seen->mm_producer = ctx.Graph().NodeBefore(m.Captured("mm"))->op_type();
        try {
          m.Captured(2);
        } catch (const std::out_of_range& e) {
          seen->out_of_range = e.what();
        }
        return false;
      });
  RunRules(rules, ParseText(Model("(float[4,8] a, float[8,16] w, float[16] c) => (float[4,16] y)",
                                  "t = MatMul(a, w)\n y = Add(t, c)")));
  EXPECT_EQ(seen->captured, (std::vector<std::string>{"t", "y"}));
  EXPECT_EQ(seen->mm_by_name, "t");
  EXPECT_EQ(seen->mm_producer, "MatMul");
  EXPECT_EQ(seen->out_of_range, "Capture/matmul_add: the pattern has 2 captures, capture 2 was asked");
}

TEST(DeclarativeCaptures, T42_CapturePlaceholderAndDuplicate) {
  auto seen = std::make_shared<Seen>();
  const Rules rules = LambdaRules(
      "Duplicate",
      [] {
        PatternBuilder b("matmul_add");
        auto a = b.Input(), w = b.Input(), c = b.Input();
        auto y = b.Op("Add", {b.Op("MatMul", {a, w}), c});
        Pattern p = b.Build({y});
        p.Capture(y);
        p.Capture(y);
        p.Capture(a);
        return std::vector<Pattern>{p};
      },
      [](const MatchResult&, ReplacementBuilder& rb) { return rb.Build({rb.Input(0)}); },
      [seen](const MatchResult& m, PassContext&) {
        seen->captured = {m.Captured(0), m.Captured(1), m.Captured(2)};
        return false;
      });
  RunRules(rules, ParseText(Model("(float[4,8] a, float[8,16] w, float[16] c) => (float[4,16] y)",
                                  "t = MatMul(a, w)\n y = Add(t, c)")));
  EXPECT_EQ(seen->captured, (std::vector<std::string>{"y", "y", "a"})) << "both duplicate indices resolve (D6)";
}

TEST(DeclarativeCaptures, T43_MatchView) {
  auto seen = std::make_shared<Seen>();
  auto pass = std::make_shared<LambdaPass>(
      [] {
        PatternBuilder b("add_zero");
        auto x = b.Input();
        return std::vector<Pattern>{b.Build({b.Op("Add", {x, b.AnyConstant("zero")}).Label("add")})};
      },
      [](const MatchResult&, ReplacementBuilder& rb) { return rb.Build({rb.Input(0)}); },
      [seen](const MatchResult& m, PassContext&) {
        for (const NodeProto* node : m.MatchedNodes()) seen->matched.push_back(Outputs(node));
        seen->inputs = {m.Input(0)};
        seen->outputs = {m.Output(0)};
        seen->zero = core::eval::Tensor::FromProto(m.ConstantValue("zero")).ToDoubleVector().at(0);
        seen->text = m.ToString();
        return false;
      });
  RunRules(Shared(fusion::Compile(pass, "View")),
           ParseText(Model("(float[2,3] a) => (float[2,3] u) <float[1] Z = {0.0}>", "t = Add(a, Z)\n u = Relu(t)")));
  EXPECT_EQ(seen->matched, (std::vector<std::string>{"Add:t"})) << "no constants, no placeholders";
  EXPECT_EQ(seen->inputs, (std::vector<std::string>{"a"}));
  EXPECT_EQ(seen->outputs, (std::vector<std::string>{"t"}));
  EXPECT_EQ(seen->zero, 0.0f);
  EXPECT_EQ(seen->text, "View/add_zero: Add -> 't'");

  auto gemm_seen = std::make_shared<Seen>();
  const Rules gemm = LambdaRules(
      "GemmView",
      [] {
        PatternBuilder b("matmul_add");
        auto a = b.Input(), w = b.Input(), c = b.Input();
        return std::vector<Pattern>{b.Build({b.Op("Add", {b.Op("MatMul", {a, w}), c})})};
      },
      [](const MatchResult&, ReplacementBuilder& rb) { return rb.Build({rb.Input(0)}); },
      [gemm_seen](const MatchResult& m, PassContext&) {
        for (const NodeProto* node : m.MatchedNodes()) gemm_seen->matched.push_back(Outputs(node));
        gemm_seen->inputs = {m.Input(0), m.Input(1), m.Input(2)};
        return false;
      });
  RunRules(gemm, ParseText(Model("(float[4,8] a, float[8,16] w, float[16] c) => (float[4,16] y)",
                                 "t = MatMul(a, w)\n y = Add(t, c)")));
  EXPECT_EQ(gemm_seen->matched, (std::vector<std::string>{"MatMul:t", "Add:y"})) << "graph order";
  EXPECT_EQ(gemm_seen->inputs, (std::vector<std::string>{"a", "w", "c"}));
}

}  // namespace
}  // namespace onnxopt::testing
