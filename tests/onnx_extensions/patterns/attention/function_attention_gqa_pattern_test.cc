#include "onnx_extensions/patterns/attention/function_attention_gqa_pattern.h"

#include <gtest/gtest.h>

#include <initializer_list>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "onnx_core/builder/graph_builder.h"
#include "onnx_core/optimizer/graph_graph.h"
#include "onnx_extensions/kernels/register_kernels.h"
#include "onnx_extensions/patterns/attention/function_attention_matchers.h"
#include "onnx_extensions/shapes/register_shape_functions.h"
#include "tests/onnx_extensions/patterns/attention/local_function_test_util.h"
#include "tests/onnx_extensions/patterns/pattern_test_util.h"
#include "tests/support/test_support.h"

namespace onnxopt::onnx_patterns {
namespace {

using testing::Cat;
using testing::ExpectNoMatch;
using testing::ExpectRewrite;


ModelProto Optimized(ModelProto model) {
  return testing::OptimizeWithPatterns({std::make_shared<FunctionAttentionGQAPattern>()}, std::move(model));
}

// `text` with the exact body FunctionAttentionPattern writes at opset 18 for its call
// LocalAttention[SW]_to1 (the text of LocalAttention is another body: see there).
ModelProto Own(const std::string& text, bool switched = false) {
  return testing::WithFunction(text,
                               attention::LocalAttentionFunction({.switched = switched, .elem_type = TensorProto::FLOAT}, 18));
}

const FunctionProto* FindFunction(const ModelProto& model, std::string_view name) {
  for (const FunctionProto& function : model.functions())
    if (function.domain() == "intermediate" && function.name() == name) return &function;
  return nullptr;
}

std::vector<std::string> Names(const google::protobuf::RepeatedPtrField<std::string>& names) {
  return {names.begin(), names.end()};
}

std::vector<std::string> BodyOpTypes(const FunctionProto& function) {
  std::vector<std::string> ops;
  for (const NodeProto& node : function.node()) ops.push_back(node.op_type());
  return ops;
}

// The function of FunctionAttentionPattern as text (`name`, at opset 18; `switched`: the
// mask names the masked-out positions), its -inf written Log(0): the ONNX text parser of
// onnx 1.12 reads no infinity. Another body than onnxopt's, hence rejected (last check);
// the rewrites use the exact body (Own).
std::string LocalAttention(std::string_view name, bool switched = false) {
  return Cat({R"ONNX(
    <domain: "intermediate", opset_import: ["" : 18]>
    )ONNX", name, " (query, keys, values, ", switched ? "not_mask" : "mask", R"ONNX(, scale_sqrt) => (Y)
    {
      sk = Mul(keys, scale_sqrt)
      sq = Mul(query, scale_sqrt)
      kt = Transpose<perm = [0, 1, 3, 2]>(sk)
      qk = MatMul(sq, kt)
      zero_ = Constant<value = float[1] {0.0}>()
      minf = Log(zero_)
      mqk = )ONNX", switched ? "Where(not_mask, minf, qk)" : "Where(mask, qk, minf)", R"ONNX(
      sm = Softmax<axis = -1>(mqk)
      nan = IsNaN(sm)
      zero = Constant<value = float[1] {0.0}>()
      filt = Where(nan, zero, sm)
      Y = MatMul(filt, values)
    })ONNX"});
}

constexpr std::string_view kSignature = R"ONNX(
    gqa_local (float[1,4,3,8] Q, float[1,2,5,8] K, float[1,2,5,8] V, bool[1,1,3,5] mask) => (float[1,4,3,8] Y))ONNX";

// The example of attention.md with the keys expansion and the call replaceable.
std::string GqaLocal(std::string_view keys = "ku = Unsqueeze(K, two)\n      ke = Expand(ku, e)\n      kr = Reshape(ke, r)",
                     std::string_view call = "Y = intermediate.LocalAttention_to1(Q, kr, vr, mask, s)",
                     std::string_view signature = kSignature) {
  return Cat({R"ONNX(
    <ir_version: 8, opset_import: ["" : 18, "intermediate" : 1]>)ONNX", signature, R"ONNX(
    <int64[1] one = {1}, int64[1] two = {2}, int64[5] e = {1, 1, 2, 1, 1}, int64[5] e2 = {2, 1, 2, 1, 1},
     int64[4] r = {0, 4, -1, 8}, float[1] s = {0.5946035575}>
    {
      )ONNX", keys, R"ONNX(
      vu = Unsqueeze(V, two)
      ve = Expand(vu, e)
      vr = Reshape(ve, r)
      )ONNX", call, R"ONNX(
    })ONNX", LocalAttention("LocalAttention_to1")});
}

TEST(FunctionAttentionGQAPattern, MovesTheHeadExpansionIntoTheFunction) {
  ExpectRewrite<FunctionAttentionGQAPattern>(Own(GqaLocal()), Cat({R"ONNX(
    <ir_version: 8, opset_import: ["" : 18, "intermediate" : 1]>)ONNX", kSignature, R"ONNX(
    <int64[5] e = {1, 1, 2, 1, 1}, int64[4] r = {0, 4, -1, 8}, float[1] s = {0.5946035575}>
    {
      Y = intermediate.LocalAttentionGQA_to1(Q, K, V, mask, s, e, r)
    })ONNX"}));
}

TEST(FunctionAttentionGQAPattern, AddsTheGqaFunction) {
  const ModelProto model = Optimized(Own(GqaLocal()));
  const FunctionProto* function = FindFunction(model, "LocalAttentionGQA_to1");
  ASSERT_NE(function, nullptr);
  EXPECT_EQ(Names(function->input()), (std::vector<std::string>{"query", "keys", "values", "mask", "scale_sqrt",
                                                                "expand_shape", "gqa_shape"}));
  EXPECT_EQ(Names(function->output()), (std::vector<std::string>{"Y"}));
  EXPECT_EQ(function->attribute_size(), 0);
  EXPECT_EQ(BodyOpTypes(*function),
            (std::vector<std::string>{"Mul", "Constant", "Unsqueeze", "Unsqueeze", "Expand", "Expand", "Reshape",
                                      "Reshape", "Mul", "Transpose", "MatMul", "Constant", "Where", "Softmax", "IsNaN",
                                      "Constant", "Where", "MatMul"}));
  ASSERT_EQ(function->opset_import_size(), 1);
  EXPECT_EQ(function->opset_import(0).domain(), "");
  EXPECT_EQ(function->opset_import(0).version(), 18);
}

// SW and sQ in the order AttentionGQAFromFunctionPattern reads (upstream writes GQAsQSW).
TEST(FunctionAttentionGQAPattern, NamesASwitchedSqueezeVariantGqaSWsQ) {
  constexpr std::string_view signature = R"ONNX(
    gqa_local (float[1,2,3,8] Q, float[1,2,5,8] K, float[1,2,5,8] V, bool[1,1,3,5] mask) => (float[1,2,3,8] Y))ONNX";
  const std::string before = Cat({R"ONNX(
    <ir_version: 8, opset_import: ["" : 18, "intermediate" : 1]>)ONNX", signature, R"ONNX(
    <int64[1] two = {2}, int64[5] e = {1, 1, 1, 1, 1}, float[1] s = {0.5946035575}>
    {
      ku = Unsqueeze(K, two)
      ke = Expand(ku, e)
      kr = Squeeze(ke, two)
      vu = Unsqueeze(V, two)
      ve = Expand(vu, e)
      vr = Squeeze(ve, two)
      Y = intermediate.LocalAttentionSW_to1(Q, kr, vr, mask, s)
    })ONNX", LocalAttention("LocalAttentionSW_to1", true)});
  ExpectRewrite<FunctionAttentionGQAPattern>(Own(before, true), Cat({R"ONNX(
    <ir_version: 8, opset_import: ["" : 18, "intermediate" : 1]>)ONNX", signature, R"ONNX(
    <int64[1] two = {2}, int64[5] e = {1, 1, 1, 1, 1}, float[1] s = {0.5946035575}>
    {
      Y = intermediate.LocalAttentionGQASWsQ_to1(Q, K, V, mask, s, e, two)
    })ONNX"}));
  const ModelProto model = Optimized(Own(before, true));
  const FunctionProto* function = FindFunction(model, "LocalAttentionGQASWsQ_to1");
  ASSERT_NE(function, nullptr);
  EXPECT_EQ(function->input(3), "not_mask");
  EXPECT_EQ(function->node(6).op_type(), "Squeeze");
}

// Two calls: the second reuses the GQA function (other keys and values: the cleanup would
// merge equal expansions).
TEST(FunctionAttentionGQAPattern, ReusesTheFunctionForASecondCall) {
  constexpr std::string_view signature = R"ONNX(
    gqa_local (float[1,4,3,8] Q, float[1,2,5,8] K, float[1,2,5,8] V, float[1,2,5,8] K2, float[1,2,5,8] V2,
               bool[1,1,3,5] mask) => (float[1,4,3,8] Y2))ONNX";
  const std::string before = GqaLocal(
      "ku = Unsqueeze(K, two)\n      ke = Expand(ku, e)\n      kr = Reshape(ke, r)",
      "Y = intermediate.LocalAttention_to1(Q, kr, vr, mask, s)\n"
      "      ku2 = Unsqueeze(K2, two)\n      ke2 = Expand(ku2, e)\n      kr2 = Reshape(ke2, r)\n"
      "      vu2 = Unsqueeze(V2, two)\n      ve2 = Expand(vu2, e)\n      vr2 = Reshape(ve2, r)\n"
      "      Y2 = intermediate.LocalAttention_to1(Y, kr2, vr2, mask, s)",
      signature);
  ExpectRewrite<FunctionAttentionGQAPattern>(Own(before), Cat({R"ONNX(
    <ir_version: 8, opset_import: ["" : 18, "intermediate" : 1]>)ONNX", signature, R"ONNX(
    <int64[5] e = {1, 1, 2, 1, 1}, int64[4] r = {0, 4, -1, 8}, float[1] s = {0.5946035575}>
    {
      Y = intermediate.LocalAttentionGQA_to1(Q, K, V, mask, s, e, r)
      Y2 = intermediate.LocalAttentionGQA_to1(Y, K2, V2, mask, s, e, r)
    })ONNX"}));
  const ModelProto model = Optimized(Own(before));
  int gqa = 0;
  for (const FunctionProto& function : model.functions()) gqa += function.name() == "LocalAttentionGQA_to1";
  EXPECT_EQ(gqa, 1);
}

TEST(FunctionAttentionGQAPattern, RejectsPlainKeys) {
  constexpr std::string_view signature = R"ONNX(
    gqa_local (float[1,4,3,8] Q, float[1,4,5,8] K, float[1,2,5,8] V, bool[1,1,3,5] mask) => (float[1,4,3,8] Y))ONNX";
  ExpectNoMatch<FunctionAttentionGQAPattern>(
      GqaLocal("", "Y = intermediate.LocalAttention_to1(Q, K, vr, mask, s)", signature), "Y",
      "the keys or values are not produced by a Reshape or a Squeeze with two inputs");
}

TEST(FunctionAttentionGQAPattern, RejectsUnsqueezeAxes1) {
  ExpectNoMatch<FunctionAttentionGQAPattern>(
      GqaLocal("ku = Unsqueeze(K, one)\n      ke = Expand(ku, e)\n      kr = Reshape(ke, r)"), "Y",
      "the Unsqueeze axes are not the constant [2]");
}

TEST(FunctionAttentionGQAPattern, RejectsAnExpandOverTheBatch) {
  ExpectNoMatch<FunctionAttentionGQAPattern>(
      GqaLocal("ku = Unsqueeze(K, two)\n      ke = Expand(ku, e2)\n      kr = Reshape(ke, r)"), "Y",
      "the Expand shape is not a constant [1, 1, n, 1, 1]");
}

TEST(FunctionAttentionGQAPattern, RejectsExpandedKeysUsedElsewhere) {
  constexpr std::string_view signature = R"ONNX(
    gqa_local (float[1,4,3,8] Q, float[1,2,5,8] K, float[1,2,5,8] V, bool[1,1,3,5] mask)
       => (float[1,4,3,8] Y, float[1,4,5,8] kr))ONNX";
  ExpectNoMatch<FunctionAttentionGQAPattern>(
      GqaLocal("ku = Unsqueeze(K, two)\n      ke = Expand(ku, e)\n      kr = Reshape(ke, r)",
               "Y = intermediate.LocalAttention_to1(Q, kr, vr, mask, s)", signature),
      "Y", "a node of the head expansion has another use");
}

TEST(FunctionAttentionGQAPattern, RejectsOpset17) {
  std::string model = GqaLocal();
  for (std::size_t at = model.find("\"\" : 18"); at != std::string::npos; at = model.find("\"\" : 18"))
    model.replace(at, 7, "\"\" : 17");
  ExpectNoMatch<FunctionAttentionGQAPattern>(model, "Y", "the main opset is below 18");
}

// The called function is not the body onnxopt writes (its -inf is Log(0) here; any other
// body could be there under the name).
TEST(FunctionAttentionGQAPattern, RejectsACallOfAnotherBodyOfTheSameName) {
  ExpectNoMatch<FunctionAttentionGQAPattern>(GqaLocal(), "Y",
                                             "the called local function is not the body onnxopt writes under this name");
}

// The model already defines another LocalAttentionGQA_to1 (here a copy of the plain body):
// the new call would run it, and GetOrAddFunction cannot add a second body under the name.
TEST(FunctionAttentionGQAPattern, RejectsAnotherGqaFunctionOfTheSameName) {
  FunctionProto other = attention::LocalAttentionFunction({.elem_type = TensorProto::FLOAT}, 18);
  other.set_name("LocalAttentionGQA_to1");
  ModelProto model = Own(GqaLocal());
  *model.add_functions() = other;
  onnx_shapes::RegisterShapeFunctions();
  onnx_kernels::RegisterKernels();
  core::builder::GraphBuilder builder(model);
  builder.InferShapes();
  core::builder::OptimizerOptions options;
  options.registered = core::builder::PatternSelection::None();
  core::builder::GraphGraph graph(builder, {}, options);
  const FunctionAttentionGQAPattern pattern;
  const core::builder::MatchResult match = pattern.Match(graph, *graph.NodeBefore("Y"));
  EXPECT_FALSE(match);
  EXPECT_EQ(match.no_match.reason, "the model already defines a local function of this name with another body");
}

}  // namespace
}  // namespace onnxopt::onnx_patterns
