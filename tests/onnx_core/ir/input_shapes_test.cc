#include "onnx_core/ir/input_shapes.h"

#include <gtest/gtest.h>

#include "onnx_core/common/error.h"
#include "tests/support/test_support.h"

namespace onnxopt::core::ir {
namespace {

using ::onnxopt::testing::ParseText;

// Two inputs share the symbol `batch`; the output and a nested graph spell it too.
ModelProto ModelWithSymbols() {
  return ParseText(R"ONNX(
    <ir_version: 8, opset_import: ["" : 18]>
    g (float[batch, 3] x, float[batch, seq] m, bool c) => (float[batch, 3] y) {
      y = If(c) <then_branch = t () => (float[batch, 3] a) { a = Identity(x) },
                 else_branch = e () => (float[batch, 3] b) { b = Neg(x) }>
    })ONNX");
}

std::string Dims(const ValueInfoProto& value) {
  std::string text;
  for (const auto& dim : value.type().tensor_type().shape().dim())
    text += (text.empty() ? "" : ",") + (dim.has_dim_value() ? std::to_string(dim.dim_value()) : dim.dim_param());
  return text;
}

TEST(InputShapeSettings, ADimBindsTheSymbolEverywhere) {
  ModelProto model = ModelWithSymbols();
  ApplyInputShapeSettings(model, {.input_shapes = {}, .dims = {{"batch", 4}}});
  EXPECT_EQ(Dims(model.graph().input(0)), "4,3");
  EXPECT_EQ(Dims(model.graph().input(1)), "4,seq");
  EXPECT_EQ(Dims(model.graph().output(0)), "4,3");
  EXPECT_EQ(Dims(model.graph().node(0).attribute(0).g().output(0)), "4,3");
}

TEST(InputShapeSettings, AnInputShapeBindsTheSymbolsItReplaces) {
  ModelProto model = ModelWithSymbols();
  ApplyInputShapeSettings(model, {.input_shapes = {{"x", {2, 3}}}, .dims = {}});
  EXPECT_EQ(Dims(model.graph().input(0)), "2,3");
  // m shares `batch` with x, so it agrees with the shape given for x.
  EXPECT_EQ(Dims(model.graph().input(1)), "2,seq");
  EXPECT_EQ(Dims(model.graph().output(0)), "2,3");
}

TEST(InputShapeSettings, GivesAShapeToAnInputThatHadNone) {
  ModelProto model = ParseText(R"ONNX(
    <ir_version: 8, opset_import: ["" : 18]>
    g (float x) => (float y) { y = Neg(x) })ONNX");
  model.mutable_graph()->mutable_input(0)->mutable_type()->mutable_tensor_type()->clear_shape();
  ApplyInputShapeSettings(model, {.input_shapes = {{"x", {5, 1}}}, .dims = {}});
  EXPECT_EQ(Dims(model.graph().input(0)), "5,1");
}

// Each contradiction is refused before anything changes.
TEST(InputShapeSettings, RefusesWhatContradictsTheModel) {
  const ModelProto original = ModelWithSymbols();
  const std::vector<std::pair<InputShapeSettings, std::string>> cases = {
      {{.input_shapes = {{"z", {1, 3}}}, .dims = {}}, "no input named 'z' (inputs: 'x', 'm', 'c')"},
      {{.input_shapes = {{"x", {1, 3, 1}}}, .dims = {}}, "input 'x' has rank 2, not 3"},
      {{.input_shapes = {{"x", {1, 4}}}, .dims = {}}, "dimension 1 of input 'x' is 3, not 4"},
      {{.input_shapes = {{"x", {1, 3}}}, .dims = {{"batch", 2}}}, "dimension 'batch' would be both 2 and 1"},
      {{.input_shapes = {{"x", {1, 3}}, {"m", {2, 5}}}, .dims = {}}, "dimension 'batch' would be both 2 and 1"},
      {{.input_shapes = {}, .dims = {{"sequence", 8}}}, "--dim sequence=8: no input of the model has a dimension named 'sequence'"},
      {{.input_shapes = {}, .dims = {{"batch", -1}}}, "--dim batch: a dimension cannot be negative (-1)"},
  };
  for (const auto& [settings, message] : cases) {
    ModelProto model = original;
    try {
      ApplyInputShapeSettings(model, settings);
      ADD_FAILURE() << "accepted " << DescribeInputShapeSettings(settings);
    } catch (const ModelError& error) {
      EXPECT_NE(std::string(error.what()).find(message), std::string::npos) << error.what();
    }
    EXPECT_EQ(model.SerializeAsString(), original.SerializeAsString()) << DescribeInputShapeSettings(settings);
  }
}

TEST(InputShapeSettings, DescribesThemAsTheCommandLineSpellsThem) {
  EXPECT_EQ(DescribeInputShapeSettings({}), "");
  EXPECT_EQ(DescribeInputShapeSettings({.input_shapes = {{"x", {1, 3}}, {"a:0", {2}}}, .dims = {{"seq", 8}}}),
            "--overwrite-input-shape a:0:2 --overwrite-input-shape x:1,3 --dim seq=8");
}

TEST(InputShapeSettings, ParsesTheCommandLinesSpellings) {
  const InputShapeSettings settings =
      ParseInputShapeSettings({"x:1,3", "a:0:2", "scalar:"}, {"seq=8", "batch=1", "seq=0"});
  const InputShapeSettings expected{.input_shapes = {{"x", {1, 3}}, {"a:0", {2}}, {"scalar", {}}},
                                    .dims = {{"seq", 0}, {"batch", 1}}};
  EXPECT_EQ(settings, expected);
  // What it describes, it parses back.
  EXPECT_EQ(ParseInputShapeSettings({"a:0:2", "scalar:", "x:1,3"}, {"batch=1", "seq=0"}), expected);
  EXPECT_EQ(ParseInputShapeSettings({}, {"n=2147483648"}).dims.at("n"), std::int64_t{1} << 31);
}

TEST(InputShapeSettings, RefusesMalformedSpellingsNamingTheOption) {
  const auto refusal = [](const std::vector<std::string>& shapes, const std::vector<std::string>& dims) {
    try {
      ParseInputShapeSettings(shapes, dims);
    } catch (const Error& error) {
      return std::string(error.what());
    }
    return std::string("accepted");
  };
  EXPECT_EQ(refusal({"x3,4"}, {}), "--overwrite-input-shape expects NAME:D0,D1,..., got 'x3,4'");
  EXPECT_EQ(refusal({":3"}, {}), "--overwrite-input-shape expects NAME:D0,D1,..., got ':3'");
  EXPECT_EQ(refusal({"x:3,a"}, {}), "--overwrite-input-shape x expects an integer in [0, 2147483648], got 'a'");
  EXPECT_EQ(refusal({"x:3,"}, {}), "--overwrite-input-shape x expects an integer in [0, 2147483648], got ''");
  EXPECT_EQ(refusal({"x:-1"}, {}), "--overwrite-input-shape x expects an integer in [0, 2147483648], got '-1'");
  EXPECT_EQ(refusal({"x:1", "x:2"}, {}), "--overwrite-input-shape: input 'x' is given twice");
  EXPECT_EQ(refusal({}, {"batch"}), "--dim expects NAME=VALUE, got 'batch'");
  EXPECT_EQ(refusal({}, {"=3"}), "--dim expects NAME=VALUE, got '=3'");
  EXPECT_EQ(refusal({}, {"n=2147483649"}), "--dim expects an integer in [0, 2147483648], got '2147483649'");
  EXPECT_EQ(refusal({}, {"n=1.5"}), "--dim expects an integer in [0, 2147483648], got '1.5'");
}

}  // namespace
}  // namespace onnxopt::core::ir
