// The matcher vocabulary (onnx_core/optimizer/match.h) on initializers and declared
// shapes, and the predicate form of ExpectMatchedNodes. Folded constants and inferred
// shapes need kernels and shape functions: optimizer_folding_test.cc covers them.

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <limits>
#include <string>
#include <tuple>
#include <utility>

#include "onnx_core/common/error.h"
#include "onnx_core/eval/tensor.h"
#include "onnx_core/optimizer/graph_graph.h"
#include "onnx_core/optimizer/match.h"
#include "tests/onnx_core/optimizer/test_patterns.h"
#include "tests/support/test_support.h"

namespace onnxopt::testing {
namespace {

using core::builder::GraphBuilder;
using core::builder::GraphGraph;
using core::builder::PatternSelection;
using core::shapes::SymDim;
using ::testing::HasSubstr;

constexpr std::string_view kConstants = R"ONNX(
  <ir_version: 8, opset_import: ["" : 18]>
  g (float[2] x, int64[1] dynamic) => (float[2] y)
    <float scalar = {2.5}, float[1] one = {4.0}, float[2] pair = {1.0, 2.0}, float[2,1] column = {3.0, 5.0},
     int64[1] big = {9223372036854775807}, int32 small = {-3}, bool[1] yes = {1}, string[1] word = {"a"}> {
    y = Mul(x, pair)
  })ONNX";

struct ConstantsFixture {
  GraphBuilder builder{ParseText(kConstants)};
  GraphGraph graph{builder, {}, SelectRegistered(PatternSelection::None())};
};

TEST(MatchVocabulary, TellsConstantScalarShapes) {
  ConstantsFixture f;
  EXPECT_TRUE(core::builder::IsConstantScalarShaped(f.graph, "scalar")) << "shape ()";
  EXPECT_TRUE(core::builder::IsConstantScalarShaped(f.graph, "one")) << "shape (1,)";
  EXPECT_TRUE(core::builder::IsConstantScalarShaped(f.graph, "word")) << "any element type";
  EXPECT_FALSE(core::builder::IsConstantScalarShaped(f.graph, "pair"));
  EXPECT_FALSE(core::builder::IsConstantScalarShaped(f.graph, "column"));
  EXPECT_FALSE(core::builder::IsConstantScalarShaped(f.graph, "dynamic")) << "a graph input";
  EXPECT_FALSE(core::builder::IsConstantScalarShaped(f.graph, "y"));
}

TEST(MatchVocabulary, ReadsConstantScalarsAsDoubles) {
  ConstantsFixture f;
  EXPECT_EQ(core::builder::ConstantScalar(f.graph, "scalar"), 2.5);
  EXPECT_EQ(core::builder::ConstantScalar(f.graph, "one"), 4.0);
  EXPECT_EQ(core::builder::ConstantScalar(f.graph, "small"), -3.0);
  EXPECT_EQ(core::builder::ConstantScalar(f.graph, "yes"), 1.0) << "booleans read as 0/1";
  EXPECT_EQ(core::builder::ConstantScalar(f.graph, "word"), std::nullopt) << "strings are not numbers";
  EXPECT_EQ(core::builder::ConstantScalar(f.graph, "pair"), std::nullopt);
  EXPECT_EQ(core::builder::ConstantScalar(f.graph, "dynamic"), std::nullopt);
}

TEST(MatchVocabulary, ReadsIntegerConstantScalarsExactly) {
  ConstantsFixture f;
  EXPECT_EQ(core::builder::ConstantScalarInt(f.graph, "big"), std::numeric_limits<std::int64_t>::max());
  EXPECT_EQ(core::builder::ConstantScalarInt(f.graph, "small"), -3);
  EXPECT_EQ(core::builder::ConstantScalarInt(f.graph, "one"), std::nullopt) << "a float is not an integer";
  EXPECT_EQ(core::builder::ConstantScalarInt(f.graph, "dynamic"), std::nullopt);
}

TEST(MatchVocabulary, ReadsNumericConstantsWithTheirDims) {
  ConstantsFixture f;
  const auto column = core::builder::ConstantDoubles(f.graph, "column");
  ASSERT_TRUE(column.has_value());
  EXPECT_EQ(column->dims, (std::vector<std::int64_t>{2, 1}));
  EXPECT_EQ(column->elements, (std::vector<double>{3.0, 5.0}));
  const auto scalar = core::builder::ConstantDoubles(f.graph, "scalar");
  ASSERT_TRUE(scalar.has_value());
  EXPECT_TRUE(scalar->dims.empty());
  EXPECT_EQ(scalar->elements, (std::vector<double>{2.5}));
  EXPECT_EQ(core::builder::ConstantDoubles(f.graph, "word"), std::nullopt);
  EXPECT_EQ(core::builder::ConstantDoubles(f.graph, "x"), std::nullopt);
}

TEST(MatchVocabulary, TellsConstantsFilledWithOneValue) {
  ModelProto model = ParseText(kConstants);
  // raw_data initializers (what exporters write), read in place: float, float16, int64.
  auto add_raw = [&](const std::string& name, int type, std::string bytes) {
    TensorProto& tensor = *model.mutable_graph()->add_initializer();
    tensor.set_name(name);
    tensor.set_data_type(type);
    tensor.add_dims(2);
    tensor.set_raw_data(std::move(bytes));
  };
  const float ones[2] = {1.0f, 1.0f}, mixed[2] = {1.0f, 0.5f};
  const std::uint16_t half_ones[2] = {0x3C00, 0x3C00};  // float16 1.0
  const std::int64_t zeros[2] = {0, 0};
  add_raw("raw_ones", TensorProto::FLOAT, std::string(reinterpret_cast<const char*>(ones), sizeof ones));
  add_raw("raw_mixed", TensorProto::FLOAT, std::string(reinterpret_cast<const char*>(mixed), sizeof mixed));
  add_raw("raw_half_ones", TensorProto::FLOAT16, std::string(reinterpret_cast<const char*>(half_ones), sizeof half_ones));
  add_raw("raw_zeros", TensorProto::INT64, std::string(reinterpret_cast<const char*>(zeros), sizeof zeros));
  GraphBuilder builder(std::move(model));
  GraphGraph graph(builder, {}, SelectRegistered(PatternSelection::None()));
  EXPECT_TRUE(core::builder::IsConstantFilledWith(graph, "raw_ones", 1.0));
  EXPECT_FALSE(core::builder::IsConstantFilledWith(graph, "raw_ones", 0.0));
  EXPECT_FALSE(core::builder::IsConstantFilledWith(graph, "raw_mixed", 1.0)) << "the second element differs";
  EXPECT_TRUE(core::builder::IsConstantFilledWith(graph, "raw_half_ones", 1.0));
  EXPECT_TRUE(core::builder::IsConstantFilledWith(graph, "raw_zeros", 0.0));
  EXPECT_TRUE(core::builder::IsConstantFilledWith(graph, "scalar", 2.5)) << "typed fields";
  EXPECT_FALSE(core::builder::IsConstantFilledWith(graph, "pair", 1.0));
  EXPECT_FALSE(core::builder::IsConstantFilledWith(graph, "word", 0.0)) << "strings are not numbers";
  EXPECT_FALSE(core::builder::IsConstantFilledWith(graph, "x", 0.0)) << "a graph input";
}

TEST(MatchVocabulary, AddsIntegerAttributesThatReadBack) {
  NodeProto node;
  core::builder::AddIntAttribute(node, "axis", -1);
  core::builder::AddIntsAttribute(node, "perm", {2, 0, 1});
  core::builder::AddIntsAttribute(node, "empty", {});
  ASSERT_EQ(node.attribute_size(), 3);
  EXPECT_EQ(core::builder::IntAttr(node, "axis"), -1);
  EXPECT_EQ(core::builder::IntsAttr(node, "perm"), (std::vector<std::int64_t>{2, 0, 1}));
  EXPECT_EQ(core::builder::IntsAttr(node, "empty"), std::vector<std::int64_t>{});
  EXPECT_EQ(node.attribute(2).type(), AttributeProto::INTS) << "typed even when empty";
}

TEST(MatchVocabulary, ReadsConstantIntegersAsShapeValues) {
  ConstantsFixture f;
  EXPECT_EQ(core::builder::ShapeValue(f.graph, "big"),
            (std::vector<SymDim>{SymDim(std::numeric_limits<std::int64_t>::max())}));
  EXPECT_EQ(core::builder::ShapeValue(f.graph, "small"), (std::vector<SymDim>{SymDim(-3)})) << "int32 too";
  EXPECT_EQ(core::builder::ShapeValue(f.graph, "dynamic"), std::nullopt) << "no value inferred for an input";
  EXPECT_EQ(core::builder::ShapeValue(f.graph, "missing"), std::nullopt);
}

TEST(MatchVocabulary, ReadsInt64ConstantsFromEitherStorage) {
  // The text syntax stores int64 initializers in int64_data; raw_data is what exporters
  // write. Both are read without converting the tensor; other integer types convert.
  ModelProto model = ParseText(kConstants);
  TensorProto raw = core::builder::IntTensor({4, -1, 0}, {3});
  raw.set_name("raw");
  *model.mutable_graph()->add_initializer() = raw;
  TensorProto truncated = raw;
  truncated.set_name("truncated");
  truncated.mutable_raw_data()->resize(8);
  *model.mutable_graph()->add_initializer() = truncated;
  GraphBuilder builder{std::move(model)};
  GraphGraph graph{builder, {}, SelectRegistered(PatternSelection::None())};
  EXPECT_EQ(core::builder::ConstantInts(graph, "raw"), (std::vector<std::int64_t>{4, -1, 0}));
  EXPECT_EQ(core::builder::ConstantInts(graph, "big"), std::vector<std::int64_t>{std::numeric_limits<std::int64_t>::max()});
  EXPECT_EQ(core::builder::ConstantInts(graph, "small"), std::vector<std::int64_t>{-3}) << "int32";
  EXPECT_EQ(core::builder::ConstantInts(graph, "pair"), std::nullopt) << "float";
  EXPECT_EQ(core::builder::ConstantInts(graph, "dynamic"), std::nullopt) << "a graph input";
}

TEST(MatchVocabulary, TellsNormalNumbersOfEachFloatType) {
  using core::builder::IsNormalIn;
  EXPECT_TRUE(IsNormalIn(1e30, TensorProto::FLOAT));
  EXPECT_FALSE(IsNormalIn(1e39, TensorProto::FLOAT)) << "overflows float";
  EXPECT_TRUE(IsNormalIn(1e39, TensorProto::DOUBLE));
  EXPECT_FALSE(IsNormalIn(1e-39, TensorProto::FLOAT)) << "subnormal in float";
  EXPECT_FALSE(IsNormalIn(70000.0, TensorProto::FLOAT16)) << "above float16's largest, 65504";
  EXPECT_FALSE(IsNormalIn(1e-5, TensorProto::FLOAT16)) << "subnormal in float16";
  EXPECT_TRUE(IsNormalIn(1e38, TensorProto::BFLOAT16)) << "float's exponent range";
  EXPECT_FALSE(IsNormalIn(0.0, TensorProto::FLOAT));
  EXPECT_FALSE(IsNormalIn(std::numeric_limits<double>::infinity(), TensorProto::DOUBLE));
  EXPECT_FALSE(IsNormalIn(std::numeric_limits<double>::quiet_NaN(), TensorProto::FLOAT));
  EXPECT_TRUE(IsNormalIn(-3.0, TensorProto::INT64));
  EXPECT_FALSE(IsNormalIn(0.0, TensorProto::INT64));
}

// What the rule vouches for, checked the way the operators compute: DequantizeLinear
// gives float(q - zp) * s in float32, QuantizeLinear rounds x / s to the nearest even
// integer and adds zp. Every int16 value, over scales across float32's normal range.
TEST(MatchVocabulary, QuantizationRoundTripsWhereTheRuleSays) {
  using core::builder::QuantizationRoundTripsExactly;
  const auto scale = [](std::vector<float> values) {
    TensorProto tensor;
    tensor.set_data_type(TensorProto::FLOAT);
    tensor.add_dims(static_cast<std::int64_t>(values.size()));
    for (const float v : values) tensor.add_float_data(v);
    return tensor;
  };
  TensorProto half_scale;  // float16 0.5
  half_scale.set_data_type(TensorProto::FLOAT16);
  half_scale.add_dims(1);
  half_scale.add_int32_data(0x3800);
  const std::vector<float> scales = {1.1754944e-38f * 65536.0f, 3.0517578e-05f, 0.0123f, 0.1f, 1.0f / 3.0f,
                                     7.0f, 12345.678f, 3.4028235e38f / 65536.0f};
  for (const float s : scales) {
    ASSERT_TRUE(QuantizationRoundTripsExactly(TensorProto::INT16, scale({s}))) << s;
    for (const int zero_point : {-32768, -1, 0, 12345, 32767})
      for (int q = -32768; q <= 32767; ++q) {
        const float x = static_cast<float>(q - zero_point) * s;
        const long back = std::lrint(x / s) + zero_point;
        ASSERT_EQ(back, q) << "scale " << s << ", zero point " << zero_point;
      }
  }
  EXPECT_TRUE(QuantizationRoundTripsExactly(TensorProto::UINT8, scale({0.5, 2.0})));
  EXPECT_FALSE(QuantizationRoundTripsExactly(TensorProto::INT32, scale({0.5}))) << "32-bit data";
  EXPECT_FALSE(QuantizationRoundTripsExactly(TensorProto::UINT8, half_scale)) << "a float16 scale";
  EXPECT_FALSE(QuantizationRoundTripsExactly(TensorProto::UINT8, scale({0.5, 0.0}))) << "a zero scale";
  EXPECT_FALSE(QuantizationRoundTripsExactly(TensorProto::UINT8, scale({1e-40f}))) << "subnormal";
  EXPECT_FALSE(QuantizationRoundTripsExactly(TensorProto::UINT8, scale({1e34f}))) << "overflows with 65535";
}

TEST(MatchVocabulary, TellsWhichRegroupedProductsMayOverflow) {
  // The text syntax has no float16 literal: the initializers get their float16 bits here.
  ModelProto model = ParseText(R"ONNX(
    <ir_version: 8, opset_import: ["" : 18]>
    g (float16[2] x, float16[2] y) => (float16[2] z)
      <float[1] small = {0}, float third = {0}, float large = {0}, float tiny = {0}> {
      z = Mul(x, y)
    })ONNX");
  const std::uint16_t bits[] = {0x3ECD, 0x3548, 0x5CB0, 0x1419};  // 1.7, 0.33, 300, 0.001
  for (int i = 0; i < 4; ++i) {
    TensorProto& tensor = *model.mutable_graph()->mutable_initializer(i);
    tensor.set_data_type(TensorProto::FLOAT16);
    tensor.clear_float_data();
    tensor.add_int32_data(bits[i]);
  }
  GraphBuilder builder(std::move(model));
  GraphGraph graph(builder, {}, SelectRegistered(PatternSelection::None()));
  using core::builder::RegroupedProductMayOverflow;
  EXPECT_TRUE(RegroupedProductMayOverflow(graph, TensorProto::FLOAT16, "x", "y")) << "two variables";
  EXPECT_TRUE(RegroupedProductMayOverflow(graph, TensorProto::FLOAT16, "x", "small")) << "one variable";
  EXPECT_FALSE(RegroupedProductMayOverflow(graph, TensorProto::FLOAT16, "small", "third"));
  EXPECT_TRUE(RegroupedProductMayOverflow(graph, TensorProto::FLOAT16, "large", "large")) << "90000 > 65504";
  EXPECT_TRUE(RegroupedProductMayOverflow(graph, TensorProto::FLOAT16, "tiny", "tiny")) << "1e-6 is subnormal";
  EXPECT_FALSE(RegroupedProductMayOverflow(graph, TensorProto::FLOAT, "x", "y")) << "float32's range";
  EXPECT_FALSE(RegroupedProductMayOverflow(graph, TensorProto::BFLOAT16, "x", "y")) << "float32's exponent range";
}

TEST(MatchVocabulary, TellsPlainReshapesAndWhyNot) {
  GraphBuilder builder(ParseText(R"ONNX(
    <ir_version: 8, opset_import: ["" : 18]>
    g (float[2,3] x, int64[2] s) => (float[3,2] a, float[3,2] b, float[2,3] c) {
      a = Reshape(x, s)
      b = Reshape<allowzero = 1>(x, s)
      c = Identity(x)
    })ONNX"));
  const auto& nodes = builder.Nodes();
  EXPECT_TRUE(core::builder::IsPlainReshape(nodes.Get(0)));
  EXPECT_EQ(core::builder::WhyNotPlainReshape(nodes.Get(0)), "");
  EXPECT_EQ(core::builder::WhyNotPlainReshape(nodes.Get(1)), "the Reshape has allowzero=1");
  EXPECT_EQ(core::builder::WhyNotPlainReshape(nodes.Get(2)), "the node is not a default-domain Reshape with two inputs");
}

TEST(MatchVocabulary, TellsWhereAReshapeMayInferAMinusOne) {
  using core::builder::MinusOneInferableAt;
  using core::shapes::SymShape;
  const SymShape output({SymDim(2), SymDim::Symbol("N"), SymDim(4)});
  EXPECT_TRUE(MinusOneInferableAt(output, 1)) << "the other dims are positive integers";
  EXPECT_FALSE(MinusOneInferableAt(output, 0)) << "N may be 0 at run time";
  EXPECT_FALSE(MinusOneInferableAt(SymShape({SymDim(0), SymDim(3)}), 1)) << "an empty tensor";
  EXPECT_TRUE(MinusOneInferableAt(SymShape({SymDim(5)}), 0)) << "no other dim";
  EXPECT_FALSE(MinusOneInferableAt(output, 3)) << "beyond the rank";
  EXPECT_FALSE(MinusOneInferableAt(SymShape(), 0)) << "an unknown rank";
  const SymShape unknown_middle({SymDim(2), SymDim(), SymDim(4)});
  EXPECT_TRUE(MinusOneInferableAt(unknown_middle, 1)) << "the -1 stands for the unknown dim";
  EXPECT_FALSE(MinusOneInferableAt(unknown_middle, 0));
}

TEST(MatchVocabulary, AddsReplacementNodesNamedAfterTheirOrigin) {
  ConstantsFixture f;
  utils::RepeatedProtoField<NodeProto> replacement;
  NodeProto& node = core::builder::AddNode(replacement, f.graph, "SomePattern", f.builder.Nodes().Get(0), "Add",
                                           {"x", "pair"}, "sum");
  core::builder::AddIntAttribute(node, "unused", 1);
  ASSERT_EQ(replacement.size(), 1);
  EXPECT_EQ(replacement.Get(0).op_type(), "Add");
  EXPECT_EQ(replacement.Get(0).domain(), "");
  EXPECT_THAT(replacement.Get(0).input(), ::testing::ElementsAre("x", "pair"));
  EXPECT_THAT(replacement.Get(0).output(), ::testing::ElementsAre("sum"));
  EXPECT_THAT(replacement.Get(0).name(), HasSubstr("SomePattern--"));
  EXPECT_EQ(replacement.Get(0).attribute_size(), 1) << "the returned reference is the appended node";
  std::string_view why;
  const std::optional<int> rejected = core::builder::Reject(&why, "because");
  EXPECT_FALSE(rejected.has_value());
  EXPECT_EQ(why, "because");
}

TEST(MatchVocabulary, ReadsDeclaredShapes) {
  GraphBuilder builder(ParseText(R"ONNX(
    <ir_version: 8, opset_import: ["" : 18]>
    g (float[N,3] x, float[2,3] s, float u) => (float[N,3] y) {
      y = Add(x, s)
    })ONNX"));
  builder.InferShapes();  // graph inputs only: no shape function is registered here
  GraphGraph graph(builder, {}, SelectRegistered(PatternSelection::None()));
  const core::shapes::SymShape* x = core::builder::KnownShape(graph, "x");
  ASSERT_NE(x, nullptr);
  EXPECT_EQ(x->Dims(), (std::vector<SymDim>{SymDim::Symbol("N"), SymDim(3)}));
  EXPECT_EQ(core::builder::KnownShape(graph, "missing"), nullptr);
  EXPECT_EQ(core::builder::StaticDims(graph, "x"), std::nullopt) << "N is symbolic";
  EXPECT_EQ(core::builder::StaticDims(graph, "s"), (std::vector<std::int64_t>{2, 3}));
  EXPECT_EQ(core::builder::StaticDims(graph, "u"), std::vector<std::int64_t>{}) << "a scalar";
  EXPECT_EQ(core::builder::StaticDim(graph, "x", 1), 3);
  EXPECT_EQ(core::builder::StaticDim(graph, "x", -1), 3) << "negative axes count from the end";
  EXPECT_EQ(core::builder::StaticDim(graph, "x", 0), std::nullopt) << "symbolic";
  EXPECT_EQ(core::builder::StaticDim(graph, "x", 2), std::nullopt) << "out of range";
  EXPECT_EQ(core::builder::StaticDim(graph, "s", -2), 2);
  EXPECT_EQ(core::builder::StaticDim(graph, "missing", 0), std::nullopt);
}

TEST(MatchVocabulary, NormalizesAxes) {
  EXPECT_EQ(core::builder::NormalizeAxis(1, 3), 1);
  EXPECT_EQ(core::builder::NormalizeAxis(-1, 3), 2);
  EXPECT_EQ(core::builder::NormalizeAxis(-3, 3), 0);
  EXPECT_EQ(core::builder::NormalizeAxis(3, 3), std::nullopt);
  EXPECT_EQ(core::builder::NormalizeAxis(-4, 3), std::nullopt);
  EXPECT_EQ(core::builder::NormalizeAxis(0, 0), std::nullopt) << "a scalar has no axis";
}

TEST(MatchVocabulary, BroadcastsSymbolicShapes) {
  const SymDim n = SymDim::Symbol("N"), m = SymDim::Symbol("M");
  EXPECT_EQ(core::builder::PadLeft({n, 3}, 4), (std::vector<SymDim>{1, 1, n, 3}));
  EXPECT_EQ(core::builder::PadLeft({n, 3}, 1), (std::vector<SymDim>{n, 3})) << "never shortens";
  EXPECT_EQ(core::builder::Broadcast({n, 1}, {3}), (std::vector<SymDim>{n, 3}));
  EXPECT_EQ(core::builder::Broadcast({1, 4}, {n, 1, 1}), (std::vector<SymDim>{n, 1, 4}));
  EXPECT_EQ(core::builder::Broadcast({n, 2}, {n, 2}), (std::vector<SymDim>{n, 2}));
  EXPECT_EQ(core::builder::Broadcast({}, {2}), (std::vector<SymDim>{2}));
  EXPECT_EQ(core::builder::Broadcast({2, 3}, {4, 3}), std::nullopt);
  EXPECT_EQ(core::builder::Broadcast({n}, {m}), std::nullopt) << "N and M may differ";
  EXPECT_EQ(core::builder::Broadcast({n}, {3}), std::nullopt) << "N may be 1 or 3";
}

TEST(MatchVocabulary, ReadsFloatAndStringAttributesAndOptionalInputs) {
  GraphBuilder builder(ParseText(R"ONNX(
    <ir_version: 8, opset_import: ["" : 18]>
    g (float[2] x, int64[2] pads, float hi) => (float[2] y, float[2] z) {
      y = LeakyRelu <alpha = 0.25> (x)
      p = Pad <mode = "reflect"> (x, pads)
      z = Clip(y, , hi)
    })ONNX"));
  const NodeProto& leaky = builder.Nodes().Get(0);
  const NodeProto& pad = builder.Nodes().Get(1);
  const NodeProto& clip = builder.Nodes().Get(2);
  EXPECT_EQ(core::builder::FloatAttr(leaky, "alpha"), 0.25f);
  EXPECT_EQ(core::builder::FloatAttr(leaky, "beta"), std::nullopt);
  EXPECT_EQ(core::builder::FloatAttr(pad, "mode"), std::nullopt) << "a STRING is not a FLOAT";
  EXPECT_EQ(core::builder::StringAttr(pad, "mode"), "reflect");
  EXPECT_EQ(core::builder::StringAttr(leaky, "alpha"), std::nullopt) << "a FLOAT is not a STRING";
  EXPECT_EQ(core::builder::StringAttr(pad, "value"), std::nullopt);
  EXPECT_EQ(core::builder::OptionalInput(clip, 0), "y");
  EXPECT_EQ(core::builder::OptionalInput(clip, 1), "") << "empty";
  EXPECT_EQ(core::builder::OptionalInput(clip, 2), "hi");
  EXPECT_EQ(core::builder::OptionalInput(clip, 3), "") << "past the end";
}

TEST(MatchVocabulary, BuildsIntegerTensors) {
  const TensorProto matrix = core::builder::IntTensor({1, -2, 3, 4, 5, 6}, {2, 3});
  EXPECT_EQ(matrix.data_type(), TensorProto::INT64);
  EXPECT_EQ(std::vector<std::int64_t>(matrix.dims().begin(), matrix.dims().end()), (std::vector<std::int64_t>{2, 3}));
  EXPECT_EQ(core::eval::Tensor::FromProto(matrix).ToInt64Vector(), (std::vector<std::int64_t>{1, -2, 3, 4, 5, 6}));

  const TensorProto vector = core::builder::IntTensor({7, 8});
  EXPECT_EQ(vector.data_type(), TensorProto::INT64);
  EXPECT_EQ(std::vector<std::int64_t>(vector.dims().begin(), vector.dims().end()), (std::vector<std::int64_t>{2}));
  EXPECT_EQ(core::eval::Tensor::FromProto(vector).ToInt64Vector(), (std::vector<std::int64_t>{7, 8}));

  const TensorProto narrow = core::builder::IntTensor({-1}, {}, TensorProto::INT32);
  EXPECT_EQ(narrow.data_type(), TensorProto::INT32);
  EXPECT_EQ(narrow.dims_size(), 0);
  EXPECT_EQ(core::eval::Tensor::FromProto(narrow).ToInt64Vector(), (std::vector<std::int64_t>{-1}));

  EXPECT_THROW(core::builder::IntTensor({1, 2, 3}, {2}), BuilderError);
  EXPECT_THROW(core::builder::IntTensor({1}, {1}, TensorProto::FLOAT), BuilderError);
}

bool IsUnary(const NodeProto& node) { return node.input_size() == 1; }

TEST(MatchVocabulary, ExpectMatchedNodesAcceptsPredicates) {
  GraphBuilder builder(ParseText(R"ONNX(
    <ir_version: 8, opset_import: ["" : 18]>
    g (float[2] x) => (float[2] y) {
      a = Neg(x)
      y = Add(a, x)
    })ONNX"));
  const NodeProto* neg = &builder.Nodes().Get(0);
  const NodeProto* add = &builder.Nodes().Get(1);
  const NegNegPattern pattern;
  const core::builder::ExpectedNode unary{"unary node", IsUnary};
  const core::builder::ExpectedNode any{"any node", [](const NodeProto&) { return true; }};
  EXPECT_NO_THROW(core::builder::ExpectMatchedNodes(pattern, {neg, add}, {unary, any}));
  auto message = [&](const std::vector<const NodeProto*>& nodes) -> std::string {
    try {
      core::builder::ExpectMatchedNodes(pattern, nodes, {unary, unary});
    } catch (const BuilderError& error) {
      return error.what();
    }
    return "no error";
  };
  EXPECT_THAT(message({neg, add}), HasSubstr("NegNegPattern::Apply called with nodes no match returned: node 1 is "
                                             "Add -> 'y', expected unary node"));
  EXPECT_THAT(message({neg, nullptr}), HasSubstr("node 1 is null, expected unary node"));
  EXPECT_THAT(message({neg}), HasSubstr("expected 2 nodes, got 1"));
  EXPECT_THAT(message({neg}), HasSubstr("match_test.cc:")) << "the call site";
}

// The permutation helpers the layout patterns and the transpose optimizer share.
TEST(MatchVocabulary, InvertsAndComposesPermutations) {
  using core::builder::ComposePermutations;
  using core::builder::InversePermutation;
  using core::builder::IsIdentityPermutation;
  using core::builder::IsPermutation;
  EXPECT_TRUE(IsPermutation({}));
  EXPECT_TRUE(IsPermutation({2, 0, 1}));
  EXPECT_FALSE(IsPermutation({0, 0}));
  EXPECT_FALSE(IsPermutation({0, 2}));
  EXPECT_FALSE(IsPermutation({-1, 0}));
  // Up to 64 axes a bit mask checks them; beyond, a vector.
  for (const std::size_t rank : {std::size_t{64}, std::size_t{65}, std::size_t{100}}) {
    std::vector<std::int64_t> reversed(rank);
    for (std::size_t i = 0; i < rank; ++i) reversed[i] = static_cast<std::int64_t>(rank - 1 - i);
    EXPECT_TRUE(IsPermutation(reversed)) << rank;
    std::vector<std::int64_t> repeated = reversed;
    repeated.back() = repeated.front();
    EXPECT_FALSE(IsPermutation(repeated)) << rank;
    std::vector<std::int64_t> too_large = reversed;
    too_large.front() = static_cast<std::int64_t>(rank);
    EXPECT_FALSE(IsPermutation(too_large)) << rank;
  }
  EXPECT_EQ(InversePermutation({1, 2, 0}), (std::vector<std::int64_t>{2, 0, 1}));
  EXPECT_EQ(ComposePermutations({1, 2, 0}, {1, 2, 0}), (std::vector<std::int64_t>{2, 0, 1}));
  EXPECT_TRUE(IsIdentityPermutation(ComposePermutations({0, 3, 1, 2}, {0, 2, 3, 1})));
  EXPECT_FALSE(IsIdentityPermutation({1, 0}));
}

TEST(MatchVocabulary, ComposesToIdentityAgreesWithCompose) {
  using core::builder::ComposePermutations;
  using core::builder::ComposesToIdentity;
  using core::builder::IsIdentityPermutation;
  using Perm = std::vector<std::int64_t>;
  const std::vector<Perm> perms{{}, {0}, {1, 0}, {0, 3, 1, 2}, {0, 2, 3, 1}, {1, 2, 0}, {2, 0, 1}, {0, 1, 2, 3}};
  for (const Perm& first : perms) {
    for (const Perm& second : perms) {
      if (first.size() != second.size()) continue;
      EXPECT_EQ(ComposesToIdentity(first, second), IsIdentityPermutation(ComposePermutations(first, second)));
    }
  }
  EXPECT_FALSE(ComposesToIdentity({1, 0}, {0, 1, 2}));
}

TEST(MatchVocabulary, TellsTheFirstQualifyingReader) {
  GraphBuilder builder(ParseText(R"ONNX(
    <ir_version: 8, opset_import: ["" : 18]>
    g (float[2] x) => (float[2] a, float[2] b, float[2] c) {
      a = Relu(x)
      b = Neg(x)
      c = Neg(x)
    })ONNX"));
  GraphGraph graph{builder, {}, SelectRegistered(PatternSelection::None())};
  auto neg = [](const NodeProto& node) { return node.op_type() == "Neg"; };
  EXPECT_TRUE(core::builder::IsFirstReader(graph, "x", *graph.NodeBefore("b"), neg));
  EXPECT_FALSE(core::builder::IsFirstReader(graph, "x", *graph.NodeBefore("c"), neg));
  EXPECT_FALSE(core::builder::IsFirstReader(graph, "x", *graph.NodeBefore("a"), neg)) << "a does not qualify";
  EXPECT_FALSE(core::builder::IsFirstReader(graph, "a", *graph.NodeBefore("b"), neg)) << "no reader";
}

TEST(MatchVocabulary, TellsWhetherBinaryOperatorsBroadcastMultidirectionally) {
  const std::pair<int, bool> cases[] = {{1, false}, {6, false}, {7, true}, {18, true}};
  for (const auto& [opset, multidirectional] : cases) {
    GraphBuilder builder(ParseText(R"ONNX(<ir_version: 7, opset_import: ["" : )ONNX" + std::to_string(opset) +
                                   R"ONNX(]> g (float[2] x) => (float[2] y) { y = Neg(x) })ONNX"));
    GraphGraph graph{builder, {}, SelectRegistered(PatternSelection::None())};
    EXPECT_EQ(core::builder::BroadcastsMultidirectionally(graph), multidirectional) << "opset " << opset;
  }
}

}  // namespace
}  // namespace onnxopt::testing
