#include "onnx_extensions/patterns/attention/function_attention_pattern.h"
#include "onnx_extensions/patterns/attention/attention_gqa_from_function_pattern.h"

#include <gtest/gtest.h>

#include <cmath>
#include <initializer_list>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "onnx_core/builder/graph_builder.h"
#include "onnx_core/optimizer/graph_graph.h"
#include "onnx_extensions/kernels/register_kernels.h"
#include "onnx_extensions/shapes/register_shape_functions.h"
#include "tests/onnx_extensions/patterns/attention/local_function_test_util.h"
#include "tests/onnx_extensions/patterns/pattern_test_util.h"
#include "tests/support/test_support.h"

namespace onnxopt::onnx_patterns {
namespace {

using testing::Cat;
using testing::ExpectNoMatch;
using testing::ExpectRewrite;


ModelProto Optimized(std::string_view text) {
  return testing::OptimizeWithPattern(std::make_shared<FunctionAttentionPattern>(), text);
}

std::vector<std::string> Names(const google::protobuf::RepeatedPtrField<std::string>& names) {
  return {names.begin(), names.end()};
}

std::vector<std::string> BodyOpTypes(const FunctionProto& function) {
  std::vector<std::string> ops;
  for (const NodeProto& node : function.node()) ops.push_back(node.op_type());
  return ops;
}

// The ONNX text parser of onnx 1.12 reads no infinity: -inf is written Log(0).
constexpr std::string_view kSignature = R"ONNX(
    attn4d (float[2,2,4,8] Q, float[2,2,4,8] K, float[2,2,4,8] V, bool[1,2,4,4] mask) => (float[2,2,4,8] Y))ONNX";

// The 4-D attention of attention.md with the masking, the Softmax, the keys Transpose, the
// keys scale and the opset replaceable.
std::string Attention4d(std::string_view masking = "bias = Where(mask, zero, minf)\n      qkb = Add(qk, bias)",
                        std::string_view softmax = "sm = Softmax<axis = -1>(qkb)",
                        std::string_view transpose = "kt = Transpose<perm = [0, 1, 3, 2]>(ks)",
                        std::string_view key_scale = "s", std::string_view opset = "18") {
  return Cat({R"ONNX(
    <ir_version: 8, opset_import: ["" : )ONNX", opset, "]>", kSignature, R"ONNX(
    <float[1] s = {0.5946035575}, float[1] s2 = {0.25}, float[1] zero = {0.0}>
    {
      minf = Log(zero)
      qs = Mul(Q, s)
      ks = Mul(K, )ONNX", key_scale, R"ONNX()
      )ONNX", transpose, R"ONNX(
      qk = MatMul(qs, kt)
      )ONNX", masking, R"ONNX(
      )ONNX", softmax, R"ONNX(
      nan = IsNaN(sm)
      p = Where(nan, zero, sm)
      Y = MatMul(p, V)
    })ONNX"});
}

std::string Call(std::string_view call) {
  return Cat({R"ONNX(
    <ir_version: 8, opset_import: ["" : 18, "intermediate" : 1]>)ONNX", kSignature, R"ONNX(
    <float[1] s = {0.5946035575}>
    {
      Y = )ONNX", call, R"ONNX(
    })ONNX"});
}

TEST(FunctionAttentionPattern, FoldsTheAddMaskFormIntoAFunctionCall) {
  ExpectRewrite<FunctionAttentionPattern>(Attention4d(), Call("intermediate.LocalAttention_to1(Q, K, V, mask, s)"));
}

TEST(FunctionAttentionPattern, AddsTheLocalAttentionFunction) {
  const ModelProto model = Optimized(Attention4d());
  ASSERT_EQ(model.functions_size(), 1);
  const FunctionProto& function = model.functions(0);
  EXPECT_EQ(function.domain(), "intermediate");
  EXPECT_EQ(function.name(), "LocalAttention_to1");
  EXPECT_EQ(Names(function.input()), (std::vector<std::string>{"query", "keys", "values", "mask", "scale_sqrt"}));
  EXPECT_EQ(Names(function.output()), (std::vector<std::string>{"Y"}));
  EXPECT_EQ(function.attribute_size(), 0);
  EXPECT_EQ(BodyOpTypes(function),
            (std::vector<std::string>{"Mul", "Mul", "Transpose", "MatMul", "Constant", "Where", "Softmax", "IsNaN",
                                      "Constant", "Where", "MatMul"}));
  const TensorProto& minf = function.node(4).attribute(0).t();
  ASSERT_EQ(minf.float_data_size(), 1);
  EXPECT_TRUE(std::isinf(minf.float_data(0)) && minf.float_data(0) < 0);
  EXPECT_EQ(Names(function.node(5).input()), (std::vector<std::string>{"mask", "qk", "minf"}));
  ASSERT_EQ(function.opset_import_size(), 1);
  EXPECT_EQ(function.opset_import(0).domain(), "");
  EXPECT_EQ(function.opset_import(0).version(), 18);
  bool imported = false;
  for (const OperatorSetIdProto& import : model.opset_import())
    if (import.domain() == "intermediate") imported = import.version() == 1;
  EXPECT_TRUE(imported);
}

TEST(FunctionAttentionPattern, FoldsTheKeepForm) {
  ExpectRewrite<FunctionAttentionPattern>(Attention4d("qkb = Where(mask, qk, minf)"),
                                          Call("intermediate.LocalAttention_to1(Q, K, V, mask, s)"));
}

TEST(FunctionAttentionPattern, FoldsTheSwitchedForm) {
  const std::string before = Attention4d("qkb = Where(mask, minf, qk)");
  ExpectRewrite<FunctionAttentionPattern>(before, Call("intermediate.LocalAttentionSW_to1(Q, K, V, mask, s)"));
  const ModelProto model = Optimized(before);
  ASSERT_EQ(model.functions_size(), 1);
  EXPECT_EQ(model.functions(0).name(), "LocalAttentionSW_to1");
  EXPECT_EQ(model.functions(0).input(3), "not_mask");
  EXPECT_EQ(Names(model.functions(0).node(5).input()), (std::vector<std::string>{"not_mask", "minf", "qk"}));
}

// Equal scale constants under two names are one scale.
TEST(FunctionAttentionPattern, AcceptsAnEqualKeysScaleConstant) {
  const std::string before = Cat({R"ONNX(
    <ir_version: 8, opset_import: ["" : 18]>)ONNX", kSignature, R"ONNX(
    <float[1] s = {0.5946035575}, float s_k = {0.5946035575}, float[1] zero = {0.0}>
    {
      minf = Log(zero)
      qs = Mul(Q, s)
      ks = Mul(K, s_k)
      kt = Transpose<perm = [0, 1, 3, 2]>(ks)
      qk = MatMul(qs, kt)
      qkb = Where(mask, qk, minf)
      sm = Softmax<axis = -1>(qkb)
      nan = IsNaN(sm)
      p = Where(nan, zero, sm)
      Y = MatMul(p, V)
    })ONNX"});
  ExpectRewrite<FunctionAttentionPattern>(before, Call("intermediate.LocalAttention_to1(Q, K, V, mask, s)"));
}

// Two layers share the mask Where and the function (the second reads other keys: the
// cleanup would merge equal ones).
TEST(FunctionAttentionPattern, ReusesTheFunctionAndTheMaskForASecondLayer) {
  constexpr std::string_view signature = R"ONNX(
    two_layers (float[2,2,4,8] Q, float[2,2,4,8] K, float[2,2,4,8] V, bool[1,2,4,4] mask) => (float[2,2,4,8] Y2))ONNX";
  const std::string before = Cat({R"ONNX(
    <ir_version: 8, opset_import: ["" : 18]>)ONNX", signature, R"ONNX(
    <float[1] s = {0.5946035575}, float[1] zero = {0.0}>
    {
      minf = Log(zero)
      bias = Where(mask, zero, minf)
      qs = Mul(Q, s)
      ks = Mul(K, s)
      kt = Transpose<perm = [0, 1, 3, 2]>(ks)
      qk = MatMul(qs, kt)
      qkb = Add(qk, bias)
      sm = Softmax<axis = -1>(qkb)
      nan = IsNaN(sm)
      p = Where(nan, zero, sm)
      Y = MatMul(p, V)
      qs2 = Mul(Y, s)
      ks2 = Mul(V, s)
      kt2 = Transpose<perm = [0, 1, 3, 2]>(ks2)
      qk2 = MatMul(qs2, kt2)
      qkb2 = Add(qk2, bias)
      sm2 = Softmax<axis = -1>(qkb2)
      nan2 = IsNaN(sm2)
      p2 = Where(nan2, zero, sm2)
      Y2 = MatMul(p2, V)
    })ONNX"});
  ExpectRewrite<FunctionAttentionPattern>(before, Cat({R"ONNX(
    <ir_version: 8, opset_import: ["" : 18, "intermediate" : 1]>)ONNX", signature, R"ONNX(
    <float[1] s = {0.5946035575}>
    {
      Y = intermediate.LocalAttention_to1(Q, K, V, mask, s)
      Y2 = intermediate.LocalAttention_to1(Y, V, V, mask, s)
    })ONNX"}));
  EXPECT_EQ(Optimized(before).functions_size(), 1);
}

TEST(FunctionAttentionPattern, FoldsAFusedMatMul) {
  const std::string before = Cat({R"ONNX(
    <ir_version: 8, opset_import: ["" : 18, "com.microsoft" : 1]>)ONNX", kSignature, R"ONNX(
    <float[1] s = {0.5946035575}, float[1] zero = {0.0}>
    {
      minf = Log(zero)
      qs = Mul(Q, s)
      ks = Mul(K, s)
      qk = com.microsoft.FusedMatMul<transA = 0, transB = 1>(qs, ks)
      qkb = Where(mask, qk, minf)
      sm = Softmax<axis = -1>(qkb)
      nan = IsNaN(sm)
      p = Where(nan, zero, sm)
      Y = MatMul(p, V)
    })ONNX"});
  ExpectRewrite<FunctionAttentionPattern>(before, Cat({R"ONNX(
    <ir_version: 8, opset_import: ["" : 18, "com.microsoft" : 1, "intermediate" : 1]>)ONNX", kSignature, R"ONNX(
    <float[1] s = {0.5946035575}>
    {
      Y = intermediate.LocalAttentionNoT_to1(Q, K, V, mask, s)
    })ONNX"}));
}

TEST(FunctionAttentionPattern, SplitsTheHeadsOf3dInputsBeforeTheCall) {
  constexpr std::string_view signature = R"ONNX(
    attn3d (float[2,4,16] Q, float[2,4,16] K, float[2,2,4,8] V, bool[1,2,4,4] mask) => (float[2,2,4,8] Y))ONNX";
  ExpectRewrite<FunctionAttentionPattern>(Cat({R"ONNX(
    <ir_version: 8, opset_import: ["" : 18]>)ONNX", signature, R"ONNX(
    <float[1] s = {0.5946035575}, float[1] zero = {0.0}, int64[4] shp = {2, 4, 2, 8}, int64[4] shp_k = {2, 4, 2, 8}>
    {
      minf = Log(zero)
      qs = Mul(Q, s)
      qr = Reshape(qs, shp)
      qt = Transpose<perm = [0, 2, 1, 3]>(qr)
      ks = Mul(K, s)
      kr = Reshape(ks, shp_k)
      kt = Transpose<perm = [0, 2, 3, 1]>(kr)
      qk = MatMul(qt, kt)
      qkb = Where(mask, qk, minf)
      sm = Softmax<axis = -1>(qkb)
      nan = IsNaN(sm)
      p = Where(nan, zero, sm)
      Y = MatMul(p, V)
    })ONNX"}), Cat({R"ONNX(
    <ir_version: 8, opset_import: ["" : 18, "intermediate" : 1]>)ONNX", signature, R"ONNX(
    <float[1] s = {0.5946035575}, int64[4] shp = {2, 4, 2, 8}>
    {
      q1 = Reshape(Q, shp)
      q2 = Transpose<perm = [0, 2, 1, 3]>(q1)
      k1 = Reshape(K, shp)
      k2 = Transpose<perm = [0, 2, 1, 3]>(k1)
      Y = intermediate.LocalAttention_to1(q2, k2, V, mask, s)
    })ONNX"}));
}

TEST(FunctionAttentionPattern, MovesAGqaExpansionIntoTheFunction) {
  constexpr std::string_view signature = R"ONNX(
    attn_gqa (float[1,4,3,8] Q, float[1,2,5,8] K, float[1,2,5,8] V, bool[1,1,3,5] mask) => (float[1,4,3,8] Y))ONNX";
  const std::string before = Cat({R"ONNX(
    <ir_version: 8, opset_import: ["" : 18]>)ONNX", signature, R"ONNX(
    <float[1] s = {0.5946035575}, float[1] zero = {0.0}, int64[1] two = {2}, int64[5] e = {1, 1, 2, 1, 1},
     int64[4] r = {0, 4, -1, 8}>
    {
      minf = Log(zero)
      qs = Mul(Q, s)
      ku = Unsqueeze(K, two)
      ks = Mul(ku, s)
      ke = Expand(ks, e)
      kr = Reshape(ke, r)
      kt = Transpose<perm = [0, 1, 3, 2]>(kr)
      qk = MatMul(qs, kt)
      qkb = Where(mask, minf, qk)
      sm = Softmax<axis = -1>(qkb)
      nan = IsNaN(sm)
      p = Where(nan, zero, sm)
      vu = Unsqueeze(V, two)
      ve = Expand(vu, e)
      vr = Reshape(ve, r)
      Y = MatMul(p, vr)
    })ONNX"});
  ExpectRewrite<FunctionAttentionPattern>(before, Cat({R"ONNX(
    <ir_version: 8, opset_import: ["" : 18, "intermediate" : 1]>)ONNX", signature, R"ONNX(
    <float[1] s = {0.5946035575}, int64[5] e = {1, 1, 2, 1, 1}, int64[4] r = {0, 4, -1, 8}>
    {
      Y = intermediate.LocalAttentionGQASW_to1(Q, K, V, mask, s, e, r)
    })ONNX"}));
  const ModelProto model = Optimized(before);
  ASSERT_EQ(model.functions_size(), 1);
  EXPECT_EQ(Names(model.functions(0).input()), (std::vector<std::string>{"query", "keys", "values", "not_mask",
                                                                         "scale_sqrt", "expand_shape", "gqa_shape"}));
  EXPECT_EQ(BodyOpTypes(model.functions(0)),
            (std::vector<std::string>{"Mul", "Constant", "Unsqueeze", "Unsqueeze", "Expand", "Expand", "Reshape",
                                      "Reshape", "Mul", "Transpose", "MatMul", "Constant", "Where", "Softmax", "IsNaN",
                                      "Constant", "Where", "MatMul"}));
}

TEST(FunctionAttentionPattern, RejectsASoftmaxOnAxis1) {
  ExpectNoMatch<FunctionAttentionPattern>(Attention4d("qkb = Where(mask, qk, minf)", "sm = Softmax<axis = 1>(qkb)"),
                                          "sm", "the Softmax axis is not -1");
}

TEST(FunctionAttentionPattern, RejectsAnIdentityKeysTranspose) {
  ExpectNoMatch<FunctionAttentionPattern>(
      Attention4d("qkb = Where(mask, qk, minf)", "sm = Softmax<axis = -1>(qkb)",
                  "kt = Transpose<perm = [0, 1, 2, 3]>(ks)"),
      "sm", "the keys Transpose does not swap the last two axes of the heads");
}

TEST(FunctionAttentionPattern, RejectsDifferentQueryAndKeysScales) {
  ExpectNoMatch<FunctionAttentionPattern>(
      Attention4d("qkb = Where(mask, qk, minf)", "sm = Softmax<axis = -1>(qkb)",
                  "kt = Transpose<perm = [0, 1, 3, 2]>(ks)", "s2"),
      "sm", "the query and keys scales differ");
}

TEST(FunctionAttentionPattern, RejectsASoftmaxWithoutNanGuard) {
  ExpectNoMatch<FunctionAttentionPattern>(Cat({R"ONNX(
    <ir_version: 8, opset_import: ["" : 18]>)ONNX", kSignature, R"ONNX(
    <float[1] s = {0.5946035575}, float[1] zero = {0.0}>
    {
      minf = Log(zero)
      qs = Mul(Q, s)
      ks = Mul(K, s)
      kt = Transpose<perm = [0, 1, 3, 2]>(ks)
      qk = MatMul(qs, kt)
      qkb = Where(mask, qk, minf)
      sm = Softmax<axis = -1>(qkb)
      Y = MatMul(sm, V)
    })ONNX"}),
                                          "sm", "the Softmax output is not read by exactly two nodes");
}

TEST(FunctionAttentionPattern, RejectsOpset17) {
  ExpectNoMatch<FunctionAttentionPattern>(
      Attention4d("qkb = Where(mask, qk, minf)", "sm = Softmax<axis = -1>(qkb)",
                  "kt = Transpose<perm = [0, 1, 3, 2]>(ks)", "s", "17"),
      "sm", "the main opset is below 18");
}

// Upstream accepts the lowest finite value, but the function masks with -inf: fully
// masked rows would give 0 instead of the mean of V.
TEST(FunctionAttentionPattern, RejectsAFiniteMinusInfinity) {
  ExpectNoMatch<FunctionAttentionPattern>(
      Attention4d("lowest = Constant<value = float[1] {-3.4028235e38}>()\n      qkb = Where(mask, qk, lowest)"), "sm",
      "no value of the mask Where is the constant -inf");
}

// Upstream does not check the sign of the infinity of the add form.
TEST(FunctionAttentionPattern, RejectsAPlusInfinityBias) {
  ExpectNoMatch<FunctionAttentionPattern>(
      Attention4d("pinf = Neg(minf)\n      bias = Where(mask, zero, pinf)\n      qkb = Add(qk, bias)"), "sm",
      "the mask Where does not select -inf for masked positions");
}

// Stage 1 then stage 2: the GQA call this pattern creates over a KV cache is the one
// AttentionGQAFromFunctionPattern turns into Attention at opset 23 (names and input order
// agree). One key-value head: several repeated ones stay in the function.
TEST(FunctionAttentionPattern, CreatesTheGqaCallThatAttentionGQAFromFunctionPatternReads) {
  onnx_shapes::RegisterShapeFunctions();
  onnx_kernels::RegisterKernels();
  core::builder::GraphBuilder builder(testing::ParseText(R"ONNX(
    <ir_version: 10, opset_import: ["" : 23]>
    g (float[1,4,3,8] Q, float[1,1,3,8] K, float[1,1,3,8] V, bool[1,1,3,5] mask, float[1,1,2,8] pk,
       float[1,1,2,8] pv) => (float[1,4,3,8] Y, float[1,1,5,8] present_key, float[1,1,5,8] present_value)
    <float[1] s = {0.5946035575}, float[1] zero = {0.0}, int64[1] two = {2}, int64[5] e = {1, 1, 4, 1, 1},
     int64[4] r = {0, 4, -1, 8}>
    {
      present_key = Concat<axis = 2>(pk, K)
      present_value = Concat<axis = 2>(pv, V)
      minf = Log(zero)
      qs = Mul(Q, s)
      ku = Unsqueeze(present_key, two)
      ks = Mul(ku, s)
      ke = Expand(ks, e)
      kr = Reshape(ke, r)
      kt = Transpose<perm = [0, 1, 3, 2]>(kr)
      qk = MatMul(qs, kt)
      qkb = Where(mask, qk, minf)
      sm = Softmax<axis = -1>(qkb)
      nan = IsNaN(sm)
      p = Where(nan, zero, sm)
      vu = Unsqueeze(present_value, two)
      ve = Expand(vu, e)
      vr = Reshape(ve, r)
      Y = MatMul(p, vr)
    })ONNX"));
  core::builder::OptimizerOptions options;
  options.registered = core::builder::PatternSelection::None();
  GraphGraph graph(builder,
                   {std::make_shared<FunctionAttentionPattern>(), std::make_shared<AttentionGQAFromFunctionPattern>()}, options);
  graph.Optimize();
  const ModelProto model = std::move(builder).TakeModel();
  ASSERT_EQ(model.graph().node_size(), 1);
  EXPECT_EQ(model.graph().node(0).op_type(), "Attention");
  EXPECT_EQ(Names(model.graph().node(0).input()),
            (std::vector<std::string>{"Q", "K", "V", "mask", "pk", "pv"}));
  EXPECT_EQ(model.functions_size(), 0);
}

}  // namespace
}  // namespace onnxopt::onnx_patterns
