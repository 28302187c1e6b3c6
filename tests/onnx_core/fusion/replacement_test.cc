// Pattern and replacement validation, DecomposePass: T14-T17 and T44-T50 of
// shared/docs/declarative-fusion.md §11.
#include <gtest/gtest.h>

#include <set>

#include "onnx_core/builder/graph_builder.h"
#include "onnx_core/common/error.h"
#include "onnx_core/ir/model_io.h"
#include "onnx_extensions/shapes/register_shape_functions.h"
#include "tests/onnx_core/fusion/test_rules.h"
#include "tests/onnx_extensions/patterns/pattern_test_util.h"
#include "tests/support/test_support.h"

namespace onnxopt::testing {
namespace {

using fusion::OpKey;
using fusion::PatternError;
using fusion::ValueRef;

std::string Model(std::string_view signature, std::string_view body, int opset = 17) {
  std::string text = R"(<ir_version: 8, opset_import: ["" : )" + std::to_string(opset) + "]>";
  text.append(" g ").append(signature).append(" {\n").append(body).append("\n}");
  return text;
}

// --- T44: patterns are checked when they are built -----------------------------------

std::string BuildError(const std::function<void()>& build) {
  try {
    build();
  } catch (const PatternError& e) {
    return e.what();
  }
  return "no error";
}

TEST(DeclarativeValidation, T44_RejectsBadPatterns) {
  std::set<std::string> messages;
  auto expect = [&](const std::function<void()>& build, const std::string& message) {
    const std::string error = BuildError(build);
    EXPECT_EQ(error, message);
    messages.insert(error);
  };
  expect(
      [] {
        PatternBuilder b("long_chain");
        ValueRef value = b.Input();
        for (std::size_t i = 0; i <= fusion::kMaxPatternNodes; ++i) value = b.Op("Relu", {value});
        b.Build({value});
      },
      "pattern 'long_chain': it has 4097 nodes, more than the 4096 a pattern may have");
  expect(
      [] {
        PatternBuilder b("with_if");
        b.Build({b.Op("If", {b.Input()})});
      },
      "pattern 'with_if': node 0 (If) holds subgraphs, which a pattern cannot match");
  expect(
      [] {
        PatternBuilder b("two_parts");
        auto relu = b.Op("Relu", {b.Input()}).Label("r");
        auto abs = b.Op("Abs", {b.Input()}).Label("a");
        b.Build({relu, abs});
      },
      "pattern 'two_parts': node 1 (Abs 'a') is not connected to the anchor node 0 (Relu 'r') (disconnected parts "
      "are separate patterns)");
  expect(
      [] {
        PatternBuilder b("unused_input");
        std::vector<ValueRef> inputs = b.Inputs(2);
        b.Build({b.Op("Relu", {inputs[1]})});
      },
      "pattern 'unused_input': placeholder 0 is declared but no node reads it");
  expect(
      [] {
        PatternBuilder b("placeholder_output");
        auto x = b.Input();
        b.Build({b.Op("Relu", {x}), x});
      },
      "pattern 'placeholder_output': output 1 is placeholder 0, not a node output");
  expect(
      [] {
        PatternBuilder b("twice");
        auto y = b.Op("Relu", {b.Input()});
        b.Build({y, y});
      },
      "pattern 'twice': output 0 of node 0 (Relu) is declared twice as an output (outputs 0 and 1)");
  expect(
      [] {
        PatternBuilder b("dangling");
        auto x = b.Input();
        b.Op("Neg", {x}).Label("lost");
        b.Build({b.Op("Relu", {x})});
      },
      "pattern 'dangling': node 0 (Neg 'lost') reaches no output");
  expect(
      [] {
        PatternBuilder b("constant_output");
        b.Build({b.AnyConstant("c")});
      },
      "pattern 'constant_output': output 0 is constant 'c', not produced by an ordinary node");
  expect([] { Pattern::FromText("cyclic (x) => (y) { a = Relu(x, b)\n b = Neg(a)\n y = Abs(a) }"); },
         "pattern 'cyclic': node 0 (Relu) reads a value defined nowhere or is on a cycle");
  EXPECT_EQ(messages.size(), 9u) << "one distinct message per rule";
}

TEST(DeclarativeValidation, PatternFromText) {
  const Pattern pattern = Pattern::FromText(R"(
    add_zero (x) => (y) {
      c = onnxopt.pattern.AnyConstant()
      y = Add(x, c)
    })");
  EXPECT_EQ(pattern.Name(), "add_zero");
  EXPECT_EQ(pattern.NumInputs(), 1u);
  EXPECT_EQ(pattern.Anchor().op_type, "Add");
  EXPECT_EQ(pattern.ToString(), "add_zero (1 inputs) { node 0 (Add 'y')(placeholder 0, constant 'c'); }");
}

// --- T45-T48: replacements are checked when they are applied -------------------------


// The message of the BuilderError `rules` raise on `model`, after checking that the
// builder is left as the previous batch left it (no batch here: as it was loaded).
std::string ApplyError(const Rules& rules, std::string_view model) {
  onnx_shapes::RegisterShapeFunctions();  // the element types the checks compare
  const ModelProto original = ParseText(model);
  core::builder::GraphBuilder builder{ModelProto(original)};
  core::builder::OptimizerOptions options;
  options.registered = core::builder::PatternSelection::None();
  core::builder::GraphGraph graph(builder, rules, options);
  std::string message = "no error";
  try {
    graph.Optimize();
  } catch (const BuilderError& e) {
    message = e.what();
    message = message.substr(0, message.find(" [at "));  // without the C++ location
  }
  EXPECT_EQ(CanonicalGraph(builder.ToModel().graph()), CanonicalGraph(original.graph())) << "the builder changed";
  return message;
}

TEST(DeclarativeValidation, T45_ReplacementArity) {
  const Rules two_inputs = LambdaRules(
      "TooManyInputs",
      [] {
        PatternBuilder b("add_constant");
        return std::vector<Pattern>{b.Build({b.Op("Add", {b.Input(), b.AnyConstant()})})};
      },
      [](const MatchResult&, ReplacementBuilder& rb) { return rb.Build({rb.Op("Add", {rb.Input(0), rb.Input(1)})}); });
  EXPECT_EQ(ApplyError(two_inputs, kAddZeroModel),
            "TooManyInputs/add_constant: the replacement uses input 1 but the match has 1 inputs");
  const Rules one_output = LambdaRules(
      "TooFewOutputs",
      [] {
        PatternBuilder b("multi_output");
        auto s = b.Op("Abs", {b.Input()});
        return std::vector<Pattern>{b.Build({b.Op("Exp", {s}), b.Op("Relu", {s})})};
      },
      [](const MatchResult&, ReplacementBuilder& rb) { return rb.Build({rb.Op("Abs", {rb.Input(0)})}); });
  EXPECT_EQ(ApplyError(one_output, Model("(float[3] a) => (float[3] y)",
                                         "s = Abs(a)\n e = Exp(s)\n r = Relu(s)\n y = Add(e, r)")),
            "TooFewOutputs/multi_output: the replacement has 1 outputs, the match has 2");
}

TEST(DeclarativeValidation, T46_ReplacementUnusedInputIsFine) {
  const Rules rules = LambdaRules(
      "WhereTrue",
      [] {
        PatternBuilder b("where_true");
        auto condition = b.AnyConstant("condition");
        auto x0 = b.Input(), x1 = b.Input();
        return std::vector<Pattern>{b.Build({b.Op("Where", {condition, x0, x1})})};
      },
      [](const MatchResult&, ReplacementBuilder& rb) { return rb.Build({rb.Input(0)}); },
      [](const MatchResult& m, PassContext& ctx) {
        return core::builder::AllElementsEqual(m.ConstantValue("condition"), 1.0) &&
               SameTypeAndShape(ctx.Graph(), m.Input(0), m.Output(0));
      });
  ExpectRewritten(rules,
                  Model("(float[3] a, float[3] b) => (float[3] u) <bool[3] K = {1, 1, 1}>", "y = Where(K, a, b)\n u = Relu(y)"),
                  Model("(float[3] a, float[3] b) => (float[3] u)", "u = Relu(a)"));
}

// y = Mul(x, 1); s = Shape(y)  =>  y: x (passthrough), s: a constant (the static shape of x).
// (The spec's T47 uses Identity, which the driver's cleanup removes before any rule runs.)
TEST(DeclarativeValidation, T47_ReplacementPassthroughAndConstant) {
  const Rules rules = LambdaRules(
      "ShapeOfCopy",
      [] {
        PatternBuilder b("shape_of_copy");
        auto y = b.Op("Mul", {b.Input(), b.AnyConstant("one")});
        return std::vector<Pattern>{b.Build({y, b.Op("Shape", {y})})};
      },
      [](const MatchResult& m, ReplacementBuilder& rb) {
        (void)m;
        return rb.Build({rb.Input(0), rb.Constant(core::builder::IntTensor({3}))});
      },
      [](const MatchResult& m, PassContext& ctx) {
        return core::builder::AllElementsEqual(m.ConstantValue("one"), 1.0) &&
               SameTypeAndShape(ctx.Graph(), m.Input(0), m.Output(0)) &&
               core::builder::StaticDims(ctx.Graph(), m.Input(0)) == std::vector<std::int64_t>{3};
      });
  RuleRun run = ExpectRewritten(
      rules,
      Model("(float[3] a) => (float[3] u, float[3] v) <float[1] K = {1.0}>",
            "y = Mul(a, K)\n s = Shape(y)\n u = Add(y, y)\n v = Cast<to = 1>(s)"),
      Model("(float[3] a) => (float[3] u, float[3] v) <int64[1] s = {3}>", "u = Add(a, a)\n v = Cast<to = 1>(s)"));
  bool recorded = false;
  for (const auto& record : run.records)
    if (record.Name() == "ShapeOfCopy/shape_of_copy") recorded = record.added_initializers.size() == 1;
  EXPECT_TRUE(recorded) << "the constant output is an initializer recorded in added_initializers";
}

// T47 as the spec writes it, with Identity. The driver's cleanup removes Identity nodes
// before any rule runs (there is no option to skip it), so the compiled rule is matched and
// applied directly on a GraphGraph, as the driver would: the passthrough output becomes an
// Identity copy of `a` named `y` (which the cleanup then removes, giving u = Add(a, a)), and
// the constant output an int64 initializer [3] copied under the name `s`.
TEST(DeclarativeValidation, T47_IdentityVersionAppliedDirectly) {
  const Rules rules = LambdaRules(
      "ShapeOfIdentity",
      [] {
        PatternBuilder b("shape_of_identity");
        auto y = b.Op("Identity", {b.Input()});
        return std::vector<Pattern>{b.Build({y, b.Op("Shape", {y})})};
      },
      [](const MatchResult&, ReplacementBuilder& rb) {
        return rb.Build({rb.Input(0), rb.Constant(core::builder::IntTensor({3}))});
      },
      [](const MatchResult& m, PassContext& ctx) {
        return core::builder::StaticDims(ctx.Graph(), m.Input(0)) == std::vector<std::int64_t>{3};
      });
  onnx_shapes::RegisterShapeFunctions();
  core::builder::GraphBuilder builder{ParseText(Model("(float[3] a) => (float[3] u, float[3] v)",
                                                      "y = Identity(a)\n s = Shape(y)\n u = Add(y, y)\n "
                                                      "v = Cast<to = 1>(s)"))};
  builder.InferShapes();
  core::builder::OptimizerOptions options;
  options.registered = core::builder::PatternSelection::None();
  core::builder::GraphGraph graph(builder, rules, options);
  ASSERT_EQ(rules[0]->FastOpType().size(), 1u);
  const std::string anchor = *rules[0]->FastOpType().begin();
  const NodeProto* candidate = nullptr;
  for (const NodeProto& node : builder.Nodes())
    if (node.op_type() == anchor) candidate = &node;
  ASSERT_NE(candidate, nullptr);
  const core::builder::MatchResult match = rules[0]->Match(graph, *candidate);
  ASSERT_TRUE(match) << match.ToString();
  const int initializers = builder.Initializers().size();
  const utils::RepeatedProtoField<NodeProto> emitted = rules[0]->Apply(graph, match.nodes);
  ASSERT_EQ(emitted.size(), 2);
  EXPECT_EQ(emitted[0].op_type(), "Identity");
  EXPECT_EQ(std::vector<std::string>(emitted[0].input().begin(), emitted[0].input().end()),
            std::vector<std::string>{"a"});
  EXPECT_EQ(std::vector<std::string>(emitted[0].output().begin(), emitted[0].output().end()),
            std::vector<std::string>{"y"});
  EXPECT_EQ(emitted[1].op_type(), "Identity");
  EXPECT_EQ(std::vector<std::string>(emitted[1].output().begin(), emitted[1].output().end()),
            std::vector<std::string>{"s"});
  ASSERT_EQ(builder.Initializers().size(), initializers + 1) << "one initializer added";
  const TensorProto& added = builder.Initializers().Get(initializers);
  EXPECT_EQ(emitted[1].input(0), added.name());
  EXPECT_EQ(added.data_type(), TensorProto::INT64);
  EXPECT_EQ(std::vector<std::int64_t>(added.dims().begin(), added.dims().end()), std::vector<std::int64_t>{1});
  EXPECT_TRUE(core::builder::AllElementsEqual(added, 3.0)) << added.ShortDebugString();
}

TEST(DeclarativeValidation, T48_ReplacementTypeMismatch) {
  // R: a float16 constant where the match produced float32. (Outputs computed by new nodes
  // are not checked here: the driver infers them after the batch.)
  const Rules rules = LambdaRules(
      "HalfZero",
      [] {
        PatternBuilder b("add_constant");
        return std::vector<Pattern>{b.Build({b.Op("Add", {b.Input(), b.AnyConstant()})})};
      },
      [](const MatchResult&, ReplacementBuilder& rb) {
        TensorProto half;
        half.set_data_type(TensorProto::FLOAT16);
        half.set_raw_data(std::string(2, '\0'));
        return rb.Build({rb.Constant(half)});
      });
  EXPECT_EQ(ApplyError(rules, kAddZeroModel),
            "HalfZero/add_constant: replacement output 0 has element type 10 where the match produced 1 ('t')");
  // An output computed by a new node: its type is inferred when the replacement is built.
  const Rules computed = LambdaRules(
      "HalfCast",
      [] {
        PatternBuilder b("add_constant");
        return std::vector<Pattern>{b.Build({b.Op("Add", {b.Input(), b.AnyConstant()})})};
      },
      [](const MatchResult&, ReplacementBuilder& rb) {
        return rb.Build({rb.Op("Cast", {rb.Input(0)}).Attr("to", std::int64_t{TensorProto::FLOAT16})});
      });
  EXPECT_EQ(ApplyError(computed, kAddZeroModel),
            "HalfCast/add_constant: replacement output 0 has element type 10 where the match produced 1 ('t')");
  // The same through an intermediate node: Cast to float16, then Relu.
  const Rules through = LambdaRules(
      "HalfRelu",
      [] {
        PatternBuilder b("add_constant");
        return std::vector<Pattern>{b.Build({b.Op("Add", {b.Input(), b.AnyConstant()})})};
      },
      [](const MatchResult&, ReplacementBuilder& rb) {
        auto half = rb.Op("Cast", {rb.Input(0)}).Attr("to", std::int64_t{TensorProto::FLOAT16});
        return rb.Build({rb.Op("Relu", {half})});
      });
  EXPECT_EQ(ApplyError(through, kAddZeroModel),
            "HalfRelu/add_constant: replacement output 0 has element type 10 where the match produced 1 ('t')");
}

// The spec's T48 for shapes: a zero [2, 3] broadcasts a [3] input, which a passthrough (or a
// node of the input's shape) would not (meet_requirements forgot to compare the shapes).
TEST(DeclarativeValidation, T48_ReplacementShapeMismatch) {
  constexpr std::string_view model = R"(
    <ir_version: 8, opset_import: ["" : 17]>
    g (float[3] a) => (float[2,3] u) <float[2,3] Z = {0.0, 0.0, 0.0, 0.0, 0.0, 0.0}> {
      t = Add(a, Z)
      u = Relu(t)
    })";
  auto add_constant = [] {
    PatternBuilder b("add_constant");
    return std::vector<Pattern>{b.Build({b.Op("Add", {b.Input(), b.AnyConstant()})})};
  };
  const Rules passthrough =
      LambdaRules("KeepInput", add_constant, [](const MatchResult&, ReplacementBuilder& rb) { return rb.Build({rb.Input(0)}); });
  EXPECT_EQ(ApplyError(passthrough, model),
            "KeepInput/add_constant: replacement output 0 has shape [3] where the match produced [2,3] ('t')");
  const Rules computed = LambdaRules("AbsInput", add_constant, [](const MatchResult&, ReplacementBuilder& rb) {
    return rb.Build({rb.Op("Abs", {rb.Input(0)})});
  });
  EXPECT_EQ(ApplyError(computed, model),
            "AbsInput/add_constant: replacement output 0 has shape [3] where the match produced [2,3] ('t')");
  // A node the replacement builds that is invalid with its inputs' shapes.
  const Rules invalid = LambdaRules("GemmInput", add_constant, [](const MatchResult&, ReplacementBuilder& rb) {
    return rb.Build({rb.Op("Gemm", {rb.Input(0), rb.Input(0)})});
  });
  EXPECT_EQ(ApplyError(invalid, model),
            "GemmInput/add_constant: the replacement builds an invalid node: node 'GemmInput/add_constant' (Gemm): "
            "Gemm-13 takes 2-D A and B; found rank 1");
}

// --- DecomposePass: T14-T17, T49 -----------------------------------------------------

// Conv with group g > 1 => g Convs of group 1 over equal Splits of X (axis 1), W and B
// (axis 0), concatenated on axis 1.
class GroupedConvSplit final : public fusion::DecomposePass {
 public:
  GroupedConvSplit() : DecomposePass({OpKey{"", "Conv"}}) {}
  bool MeetRequirements(const NodeProto& node, PassContext&) const override {
    return core::builder::IntAttr(node, "group").value_or(1) > 1;
  }
  ReplacementGraph Replacement(const NodeProto& node, ReplacementBuilder& rb, PassContext& ctx) const override {
    const std::int64_t groups = *core::builder::IntAttr(node, "group");
    auto split = [&](ValueRef value, std::int64_t axis) {
      auto op = rb.Op("Split", {value}).Attr("axis", axis).Outputs(static_cast<std::size_t>(groups));
      if (ctx.Opset() >= 18) op.Attr("num_outputs", groups);
      std::vector<ValueRef> parts;
      for (std::int64_t i = 0; i < groups; ++i) parts.push_back(op.Out(static_cast<std::size_t>(i)));
      return parts;
    };
    const std::vector<ValueRef> xs = split(rb.Input(0), 1), ws = split(rb.Input(1), 0);
    const std::vector<ValueRef> bs = rb.Present(2) ? split(rb.Input(2), 0) : std::vector<ValueRef>{};
    std::vector<ValueRef> convs;
    for (std::int64_t i = 0; i < groups; ++i) {
      std::vector<ValueRef> inputs{xs[i], ws[i]};
      if (!bs.empty()) inputs.push_back(bs[i]);
      auto conv = rb.Op("Conv", inputs);
      for (const AttributeProto& attribute : node.attribute())
        if (attribute.name() != "group") conv.Attr(attribute);
      conv.Attr("group", std::int64_t{1});
      convs.push_back(conv);
    }
    return rb.Build({rb.Op("Concat", convs).Attr("axis", std::int64_t{1})});
  }
};

Rules GroupedConvRules() {
  return Shared(fusion::Compile(std::make_shared<GroupedConvSplit>(), "GroupedConvSplit"));
}

constexpr std::string_view kConvSignature = "(float[1,4,5,5] X, float[6,2,3,3] W) => (float[1,6,5,5] Y)";

TEST(DeclarativeDecompose, T14_GroupedConvOpset13) {
  ExpectRewritten(GroupedConvRules(),
                  Model(kConvSignature, "Y = Conv<group = 2, pads = [1, 1, 1, 1]>(X, W)", 13),
                  Model(kConvSignature, R"(x0, x1 = Split<axis = 1>(X)
 w0, w1 = Split<axis = 0>(W)
 c0 = Conv<pads = [1, 1, 1, 1], group = 1>(x0, w0)
 c1 = Conv<pads = [1, 1, 1, 1], group = 1>(x1, w1)
 Y = Concat<axis = 1>(c0, c1))",
                        13));
}

TEST(DeclarativeDecompose, T15_GroupedConvOpset18) {
  ExpectRewritten(GroupedConvRules(), Model(kConvSignature, "Y = Conv<group = 2, pads = [1, 1, 1, 1]>(X, W)", 18),
                  Model(kConvSignature, R"(x0, x1 = Split<axis = 1, num_outputs = 2>(X)
 w0, w1 = Split<axis = 0, num_outputs = 2>(W)
 c0 = Conv<pads = [1, 1, 1, 1], group = 1>(x0, w0)
 c1 = Conv<pads = [1, 1, 1, 1], group = 1>(x1, w1)
 Y = Concat<axis = 1>(c0, c1))",
                        18));
}

TEST(DeclarativeDecompose, T16_GroupedConvBias) {
  constexpr std::string_view signature = "(float[1,4,5,5] X, float[6,2,3,3] W, float[6] B) => (float[1,6,3,3] Y)";
  ExpectRewritten(GroupedConvRules(), Model(signature, "Y = Conv<group = 2>(X, W, B)", 13),
                  Model(signature, R"(x0, x1 = Split<axis = 1>(X)
 w0, w1 = Split<axis = 0>(W)
 b0, b1 = Split<axis = 0>(B)
 c0 = Conv<group = 1>(x0, w0, b0)
 c1 = Conv<group = 1>(x1, w1, b1)
 Y = Concat<axis = 1>(c0, c1))",
                        13));
}

TEST(DeclarativeDecompose, T17_Group1Untouched) {
  constexpr std::string_view signature = "(float[1,2,5,5] X, float[6,2,3,3] W) => (float[1,6,3,3] Y)";
  for (const std::string body : {"Y = Conv<group = 1>(X, W)", "Y = Conv(X, W)"}) {
    RuleRun run = ExpectUnchanged(GroupedConvRules(), Model(signature, body, 13));
    EXPECT_EQ(run.NoMatches("GroupedConvSplit", "MeetRequirements rejected the node"), 1u) << body;
  }
}

// A DecomposePass given as a function.
class LambdaDecompose final : public fusion::DecomposePass {
 public:
  using ReplacementFn = std::function<ReplacementGraph(const NodeProto&, ReplacementBuilder&)>;
  LambdaDecompose(std::string op_type, ReplacementFn replacement)
      : DecomposePass({OpKey{"", std::move(op_type)}}), replacement_(std::move(replacement)) {}
  ReplacementGraph Replacement(const NodeProto& node, ReplacementBuilder& rb, PassContext&) const override {
    return replacement_(node, rb);
  }

 private:
  ReplacementFn replacement_;
};

std::shared_ptr<const core::builder::PatternOptimization> Decompose(std::string op_type,
                                                                    LambdaDecompose::ReplacementFn replacement) {
  return Shared(fusion::Compile(std::make_shared<LambdaDecompose>(op_type, std::move(replacement)), "Decompose" + op_type))
      .at(0);
}

TEST(DeclarativeDecompose, T49_ArityAndSlots) {
  const auto two_outputs = Decompose("Conv", [](const NodeProto&, ReplacementBuilder& rb) {
    auto conv = rb.Op("Conv", {rb.Input(0), rb.Input(1)});
    return rb.Build({conv, rb.Op("Neg", {conv})});
  });
  EXPECT_EQ(ApplyError({two_outputs}, Model("(float[1,2,5,5] X, float[6,2,3,3] W) => (float[1,6,3,3] Y)",
                                            "Y = Conv(X, W)")),
            "DecomposeConv: the replacement has 2 outputs, the match has 1");

  std::size_t mul_inputs = 0;
  const auto square = Decompose("Mul", [&](const NodeProto&, ReplacementBuilder& rb) {
    mul_inputs = rb.NumInputs();
    return rb.Build({rb.Op("Mul", {rb.Input(1), rb.Input(0)})});
  });
  const std::vector<NodeProto> squared =
      ApplyAt(square, ParseText(Model("(float[3] a) => (float[3] y)", "y = Mul(a, a)")), "y");
  EXPECT_EQ(mul_inputs, 2u) << "one input per slot (D10)";
  ASSERT_EQ(squared.size(), 1u);
  EXPECT_EQ(squared[0].input(0), "a");
  EXPECT_EQ(squared[0].input(1), "a");

  bool middle_present = true;
  const auto clip = Decompose("Clip", [&](const NodeProto&, ReplacementBuilder& rb) {
    middle_present = rb.Present(1);
    return rb.Build({rb.Op("Clip", {rb.Input(0), rb.Input(1), rb.Input(2)})});
  });
  const std::vector<NodeProto> clipped = ApplyAt(
      clip, ParseWithEmptyInputs(Model("(float[3] a, float M) => (float[3] y)", "y = Clip(a, EMPTY, M)")), "y");
  EXPECT_FALSE(middle_present);
  ASSERT_EQ(clipped.size(), 1u);
  EXPECT_EQ(clipped[0].input(1), "") << "an absent input writes \"\"";
  EXPECT_EQ(clipped[0].input(2), "M");

  // An output slot the node leaves empty (LayerNormalization's mean): whatever the
  // replacement gives for it, a passthrough here, is not produced (no Identity into "").
  const auto layer_norm = Decompose("LayerNormalization", [](const NodeProto&, ReplacementBuilder& rb) {
    return rb.Build({rb.Op("Relu", {rb.Input(0)}), rb.Input(0),
                     rb.Op("ReduceMean", {rb.Input(0)}).Attr("axes", std::vector<std::int64_t>{-1})});
  });
  ModelProto normalized = ParseText(Model("(float[2,3] x, float[3] s) => (float[2,3] y, float[2,1] inv)",
                                          "y, EMPTY, inv = LayerNormalization(x, s)"));
  normalized.mutable_graph()->mutable_node(0)->set_output(1, "");
  const std::vector<NodeProto> decomposed = ApplyAt(layer_norm, normalized, "y");
  ASSERT_EQ(decomposed.size(), 2u);
  EXPECT_EQ(decomposed[0].op_type(), "Relu");
  EXPECT_EQ(decomposed[0].output(0), "y");
  EXPECT_EQ(decomposed[1].op_type(), "ReduceMean");
  EXPECT_EQ(decomposed[1].output(0), "inv");
}

// --- T50: fresh names ----------------------------------------------------------------

TEST(DeclarativeValidation, T50_FreshNames) {
  // Sub(x, z) => Add(x, Neg(z)): the Neg output is a new value.
  const Rules rules = LambdaRules(
      "SubToAdd",
      [] {
        PatternBuilder b("sub");
        auto x = b.Input(), z = b.Input();
        return std::vector<Pattern>{b.Build({b.Op("Sub", {x, z})})};
      },
      [](const MatchResult&, ReplacementBuilder& rb) {
        return rb.Build({rb.Op("Add", {rb.Input(0), rb.Op("Neg", {rb.Input(1)})})});
      });
  // Names the rule's generator starts from (the text syntax cannot write '/': set after parsing).
  ModelProto before = ParseText(
      Model("(float[3] a, float[3] b) => (float[3] y)", "taken = Neg(a)\n Gemm_0 = Abs(taken)\n y = Sub(Gemm_0, b)"));
  int index = 0;
  for (NodeProto& node : *before.mutable_graph()->mutable_node()) {
    for (std::string& name : *node.mutable_input())
      if (name == "taken") name = "SubToAdd/sub";
    for (std::string& name : *node.mutable_output())
      if (name == "taken") name = "SubToAdd/sub";
    node.set_name("SubToAdd/sub_" + std::to_string(index++));
  }
  RuleRun run = ExpectRewritten(rules, before,
                                Model("(float[3] a, float[3] b) => (float[3] y)",
                                      "n = Neg(a)\n g = Abs(n)\n m = Neg(b)\n y = Add(g, m)"));
  std::set<std::string> values, nodes;
  for (const NodeProto& node : run.model.graph().node()) {
    for (const std::string& output : node.output()) EXPECT_TRUE(values.insert(output).second) << output;
    if (!node.name().empty()) {
      EXPECT_TRUE(nodes.insert(node.name()).second) << node.name();
    }
  }
  EXPECT_TRUE(values.contains("SubToAdd/sub"));
  EXPECT_TRUE(values.contains("Gemm_0"));
  EXPECT_TRUE(values.contains("y")) << "the boundary output keeps its name";
}

}  // namespace
}  // namespace onnxopt::testing
