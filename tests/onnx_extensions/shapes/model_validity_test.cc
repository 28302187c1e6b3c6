// Invalid models are refused, valid neighbours accepted (validity_cases.cc): at load
// (ir::CheckModel: names, operator signatures, opset versions) or when shapes are
// inferred (type constraints, InferenceContext::Refuse in the shape functions), with a
// ModelError naming the node, the rule and what was found. Then the same through every
// command that reads a model for computation.

#include <map>
#include <string>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "onnx_core/common/error.h"
#include "onnx_core/ir/model_io.h"
#include "onnx_core/optimizer/rewrite_file.h"
#include "onnx_core/shapes/inference.h"
#include "onnx_core/shapes/shape_registry.h"
#include "onnx_extensions/shapes/register_shape_functions.h"
#include "tests/onnx_extensions/shapes/validity_cases.h"
#include "tests/support/test_support.h"

namespace onnxopt::testing {
namespace {

using ::testing::HasSubstr;

// Loads `model` as the commands do (parse + graph check) and infers its shapes; the
// message of the ModelError raised, "" when the model is accepted.
std::string Refusal(const ModelProto& model) {
  onnx_shapes::RegisterShapeFunctions();
  try {
    const ModelProto loaded = core::ir::ParseModel(core::ir::SerializeDeterministic(model), "model");
    core::shapes::ShapesContext context;
    core::shapes::InferGraph(loaded, loaded.graph(), context);
  } catch (const ModelError& error) {
    return error.what();
  }
  return "";
}

class ModelValidityTest : public ::testing::TestWithParam<ValidityCase> {};

TEST_P(ModelValidityTest, RefusesInvalidAndAcceptsValid) {
  const ValidityCase& c = GetParam();
  const std::string refusal = Refusal(ParseText(c.model));
  if (c.refusal.empty()) {
    EXPECT_EQ(refusal, "") << c.family << ": a valid model is refused";
    return;
  }
  ASSERT_NE(refusal, "") << c.family << ": an invalid model is accepted";
  for (const std::string& word : c.refusal) EXPECT_THAT(refusal, HasSubstr(word));
}

INSTANTIATE_TEST_SUITE_P(Cases, ModelValidityTest, ::testing::ValuesIn(ValidityCases()),
                         [](const auto& info) { return info.param.name; });

TEST(ModelValidityTest, EveryFamilyHasARefusalAndAValidNeighbour) {
  std::map<std::string, std::pair<int, int>> families;  // refused, accepted
  for (const ValidityCase& c : ValidityCases()) (c.refusal.empty() ? families[c.family].second : families[c.family].first)++;
  for (const auto& [family, counts] : families) {
    if (family == "operator set version") continue;  // the valid neighbour is every other case
    EXPECT_GT(counts.first, 0) << family;
    EXPECT_GT(counts.second, 0) << family;
  }
}

// The refusal is an InvalidNodeError located at the node, also inside a nested graph.
TEST(ModelValidityTest, NamesNodesOfNestedGraphsByTheirPath) {
  onnx_shapes::RegisterShapeFunctions();
  const ModelProto model = ParseText(R"ONNX(
    <ir_version: 8, opset_import: ["" : 18]>
    g (bool c, float[3,4] x, float[2] i) => (float[2,4] y) {
      y = If(c) <then_branch = t () => (float[2,4] r) { r = Gather(x, i) },
                 else_branch = e () => (float[2,4] s) { s = Slice(x, i, i) }>
    })ONNX");
  core::shapes::ShapesContext context;
  try {
    core::shapes::InferGraph(model, model.graph(), context);
    FAIL() << "accepted";
  } catch (const core::shapes::InvalidNodeError& error) {
    EXPECT_TRUE(error.IsLocated());
    EXPECT_EQ(std::string(error.what()),
              "node #0 (If)/then_branch/#0 (Gather): input 1 'indices' of Gather-13 has type Tind: tensor(int32), "
              "tensor(int64); found tensor(float)");
    EXPECT_EQ(error.Found(), "tensor(float)");
  }
}

// Local functions are inferred per call: a call whose attributes break a rule in the body
// is refused, naming the call and the body node.
TEST(ModelValidityTest, NamesNodesOfFunctionBodiesByTheCall) {
  onnx_shapes::RegisterShapeFunctions();
  const ModelProto model = ParseText(R"ONNX(
    <ir_version: 8, opset_import: ["" : 18, "local" : 1]>
    g (float[2,3] x) => (float[3,2] y) { y = local.T <p = [0, 0]> (x) }
    <domain: "local", opset_import: ["" : 18]>
    T <p> (a) => (b) { b = Transpose <perm: ints = @p> (a) })ONNX");
  core::shapes::ShapesContext context;
  try {
    core::shapes::InferGraph(model, model.graph(), context);
    FAIL() << "accepted";
  } catch (const core::shapes::InvalidNodeError& error) {
    EXPECT_THAT(error.what(), HasSubstr("node #0 (T)/#0 (Transpose): Transpose-13 perm is a permutation"));
  }
}

// Every command that reads a model for computation refuses an invalid one with exit 2,
// naming the node and the rule, and writes nothing.
class CommandRefusalTest : public ::testing::Test {
 protected:
  void SetUp() override {
    // Refused at load (graph check) and when shapes are inferred (type constraints).
    WriteFile(dir_ / "load.onnx", core::ir::SerializeDeterministic(ParseText(R"ONNX(
      <ir_version: 8, opset_import: ["" : 18]>
      g (bool c, float[3] x) => (float[3] y) {
        y = If(c) <then_branch = t () => (float[3] r) { r = Relu(x) }>
      })ONNX")));
    WriteFile(dir_ / "types.onnx", core::ir::SerializeDeterministic(ParseText(R"ONNX(
      <ir_version: 8, opset_import: ["" : 18]>
      g (float[3,4] x, float[2] i) => (float[2,4] y) { y = Gather(x, i) })ONNX")));
    WriteFile(dir_ / "valid.onnx", core::ir::SerializeDeterministic(ParseText(R"ONNX(
      <ir_version: 8, opset_import: ["" : 18]>
      g (float[3,4] x) => (float[3,4] y) { y = Relu(x) })ONNX")));
    // A rewrite file without records nor fingerprint.
    core::builder::SaveRewrites({}, (dir_ / "empty.rewrites").string());
  }

  void ExpectRefused(const std::vector<std::string>& args, const std::string& words) {
    std::vector<std::string> argv = {OnnxoptExe().string()};
    argv.insert(argv.end(), args.begin(), args.end());
    const CommandResult result = RunCommand(argv);
    EXPECT_EQ(result.exit_code, 2) << result.output;
    EXPECT_THAT(result.output, HasSubstr(words)) << args[0];
    EXPECT_FALSE(std::filesystem::exists(dir_ / "out.onnx")) << args[0] << " left an output";
  }

  std::string Path(std::string_view name) const { return (dir_ / name).string(); }

  TempDir dir_;
};

TEST_F(CommandRefusalTest, RefusedAtLoadByEveryCommand) {
  const std::string words = "node #0 (If) in graph 'g': attribute 'else_branch' of If-16 is required";
  ExpectRefused({"optimize", Path("load.onnx"), "-o", Path("out.onnx")}, words);
  ExpectRefused({"info", Path("load.onnx")}, words);
  ExpectRefused({"run", Path("load.onnx"), "--random-inputs", "--output-dir", Path("out")}, words);
  ExpectRefused({"verify", Path("load.onnx"), Path("valid.onnx")}, words);
}

TEST_F(CommandRefusalTest, RefusedWhenShapesAreInferred) {
  const std::string words = "node #0 (Gather): input 1 'indices' of Gather-13 has type Tind";
  ExpectRefused({"optimize", Path("types.onnx"), "-o", Path("out.onnx")}, words);
  ExpectRefused({"optimize", Path("types.onnx"), "-o", Path("out.onnx"), "--no-fold"}, words);
  ExpectRefused({"info", "--shapes", Path("types.onnx")}, words);
  ExpectRefused({"replay", Path("types.onnx"), Path("empty.rewrites"), "-o", Path("out.onnx")}, words);
}

}  // namespace
}  // namespace onnxopt::testing
