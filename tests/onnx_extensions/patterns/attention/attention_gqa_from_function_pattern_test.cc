#include "onnx_extensions/patterns/attention/attention_gqa_from_function_pattern.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <string>
#include <string_view>
#include <vector>

#include "onnx_core/optimizer/pattern_registry.h"
#include "onnx_extensions/patterns/attention/function_attention_matchers.h"
#include "onnx_extensions/patterns/dispatch_table.h"
#include "tests/onnx_extensions/patterns/attention/local_function_test_util.h"
#include "tests/onnx_extensions/patterns/pattern_test_util.h"

namespace onnxopt::onnx_patterns {
namespace {

using testing::Cat;
using testing::ExpectNoMatch;
using testing::ExpectRewrite;

// The scale is applied once instead of on Q and K (attention.md: about 1e-5 in float32).
constexpr double kTolerance = 1e-5;

// The GQA function of FunctionAttentionGQAPattern as text (its constant -inf written Log(0):
// the ONNX text parser of onnx 1.12 reads no infinity), hence another body than the one
// onnxopt writes: the rewrites use the exact body (OwnFormB) (`name`, at `opset`; `switched`: the mask
// names the masked-out positions). The expected graphs compare the main graph only: the
// function, no longer called, stays until the cleanup of unused functions removes it.
std::string GqaFunction(std::string_view name, int opset, bool switched = false) {
  const std::string version = std::to_string(opset);
  return Cat({R"ONNX(
    <domain: "intermediate", opset_import: ["" : )ONNX", version, "]>\n    ", name, " (query, keys, values, ",
              switched ? "not_mask" : "mask", R"ONNX(, scale_sqrt, expand_shape, gqa_shape) => (Y)
    {
      sk = Mul(keys, scale_sqrt)
      two = Constant<value = int64[1] {2}>()
      uk = Unsqueeze(sk, two)
      uv = Unsqueeze(values, two)
      ek = Expand(uk, expand_shape)
      ev = Expand(uv, expand_shape)
      rk = Reshape(ek, gqa_shape)
      rv = Reshape(ev, gqa_shape)
      sq = Mul(query, scale_sqrt)
      kt = Transpose<perm = [0, 1, 3, 2]>(rk)
      qk = MatMul(sq, kt)
      zero_ = Constant<value = float[1] {0.0}>()
      minf = Log(zero_)
      mqk = )ONNX", switched ? "Where(not_mask, minf, qk)" : "Where(mask, qk, minf)", R"ONNX(
      sm = Softmax<axis = -1>(mqk)
      nan = IsNaN(sm)
      zero = Constant<value = float[1] {0.0}>()
      filt = Where(nan, zero, sm)
      Y = MatMul(filt, rv)
    })ONNX"});
}

constexpr std::string_view kFormBGraph = R"ONNX(
    gqa_local (float[1,4,3,8] Q, float[1,1,3,8] K, float[1,1,3,8] V, bool[1,1,3,5] mask,
               float[1,1,2,8] pk, float[1,1,2,8] pv)
       => (float[1,4,3,8] Y, float[1,1,5,8] present_key, float[1,1,5,8] present_value))ONNX";

std::string FormB(int opset, std::string_view name, std::string_view call, bool switched = false,
                  std::string_view graph = kFormBGraph) {
  const std::string version = std::to_string(opset);
  const std::string function = GqaFunction(name, opset, switched);
  return Cat({R"ONNX(
    <ir_version: 10, opset_import: ["" : )ONNX", version, R"ONNX(, "intermediate" : 1]>)ONNX", graph, R"ONNX(
    <int64[5] e = {1, 1, 4, 1, 1}, int64[4] r = {0, 4, -1, 8}, float[1] s = {0.5}>
    {
      present_key = Concat<axis = 2>(pk, K)
      present_value = Concat<axis = 2>(pv, V)
      Y = )ONNX", call, R"ONNX(
    })ONNX", function});
}

// FormB with the exact body FunctionAttentionGQAPattern writes at opset 23.
ModelProto OwnFormB(std::string_view name, std::string_view call, bool switched = false) {
  return testing::WithFunction(
      FormB(23, name, call, switched),
      attention::LocalAttentionFunction({.switched = switched, .gqa = true, .elem_type = TensorProto::FLOAT}, 23));
}

TEST(AttentionGQAFromFunctionPattern, ReplacesALocalGqaFunctionCall) {
  ExpectRewrite<AttentionGQAFromFunctionPattern>(
      OwnFormB("LocalAttentionGQA_to1", "intermediate.LocalAttentionGQA_to1(Q, present_key, present_value, mask, s, e, r)"),
      Cat({R"ONNX(
    <ir_version: 10, opset_import: ["" : 23]>)ONNX", kFormBGraph, R"ONNX(
    {
      Y, present_key, present_value = Attention<scale = 0.25, is_causal = 0>(Q, K, V, mask, pk, pv)
    })ONNX"}), kTolerance);
}

TEST(AttentionGQAFromFunctionPattern, NegatesTheMaskOfASwitchedCall) {
  ExpectRewrite<AttentionGQAFromFunctionPattern>(
      OwnFormB("LocalAttentionGQASW_to1",
               "intermediate.LocalAttentionGQASW_to1(Q, present_key, present_value, mask, s, e, r)", true),
      Cat({R"ONNX(
    <ir_version: 10, opset_import: ["" : 23]>)ONNX", kFormBGraph, R"ONNX(
    {
      keep = Not(mask)
      Y, present_key, present_value = Attention<scale = 0.25, is_causal = 0>(Q, K, V, keep, pk, pv)
    })ONNX"}), kTolerance);
}

// The function of the model is not the body onnxopt writes (its -inf is Log(0) here; any
// other body could be there under the name).
TEST(AttentionGQAFromFunctionPattern, RejectsACallOfAnotherBodyOfTheSameName) {
  ExpectNoMatch<AttentionGQAFromFunctionPattern>(
      FormB(23, "LocalAttentionGQA_to1", "intermediate.LocalAttentionGQA_to1(Q, present_key, present_value, mask, s, e, r)"),
      "Y", "the called local function is not the body onnxopt writes under this name");
}

// The value cache concatenates the key cache: the new Attention would read present_key,
// which it defines (an internal error, found by mutating this test's graph).
TEST(AttentionGQAFromFunctionPattern, RejectsACacheThatReadsTheOtherCache) {
  constexpr std::string_view graph = R"ONNX(
    <ir_version: 10, opset_import: ["" : 23, "intermediate" : 1]>
    gqa_local (float[1,4,3,8] Q, float[1,1,3,8] K, bool[1,1,3,5] mask, float[1,1,2,8] pk, float[1,1,2,8] pv)
       => (float[1,4,3,8] Y, float[1,1,5,8] present_key, float[1,1,7,8] present_value)
    <int64[5] e = {1, 1, 4, 1, 1}, int64[4] r = {0, 4, -1, 8}, float[1] s = {0.5}>
    {
      present_key = Concat<axis = 2>(pk, K)
      present_value = Concat<axis = 2>(pv, present_key)
      Y = intermediate.LocalAttentionGQA_to1(Q, present_key, present_value, mask, s, e, r)
    })ONNX";
  ExpectNoMatch<AttentionGQAFromFunctionPattern>(Cat({graph, GqaFunction("LocalAttentionGQA_to1", 23)}), "Y",
                                     "an input of the attention is a cache it would define");
}

TEST(AttentionGQAFromFunctionPattern, RejectsOpset22) {
  ExpectNoMatch<AttentionGQAFromFunctionPattern>(
      FormB(22, "LocalAttentionGQA_to1", "intermediate.LocalAttentionGQA_to1(Q, present_key, present_value, mask, s, e, r)"),
      "Y", "the main opset is below 23");
}

TEST(AttentionGQAFromFunctionPattern, RejectsACallWithoutMask) {
  ExpectNoMatch<AttentionGQAFromFunctionPattern>(
      FormB(23, "LocalAttentionGQA_to1", "intermediate.LocalAttentionGQA_to1(Q, present_key, present_value, , s, e, r)"),
      "Y", "the call has no mask");
}

// Attention would read the short mask as padding where the function broadcasts it.
TEST(AttentionGQAFromFunctionPattern, RejectsAMaskBroadcastOverTheKeys) {
  constexpr std::string_view graph = R"ONNX(
    gqa_local (float[1,4,3,8] Q, float[1,1,3,8] K, float[1,1,3,8] V, bool[1,1,3,1] mask,
               float[1,1,2,8] pk, float[1,1,2,8] pv)
       => (float[1,4,3,8] Y, float[1,1,5,8] present_key, float[1,1,5,8] present_value))ONNX";
  ExpectNoMatch<AttentionGQAFromFunctionPattern>(
      FormB(23, "LocalAttentionGQA_to1", "intermediate.LocalAttentionGQA_to1(Q, present_key, present_value, mask, s, e, r)",
            false, graph),
      "Y", "the mask does not span every key");
}

// A padding mask of one row: the function's Where broadcasts it over the 3 queries,
// Attention wants them in the mask (onnxruntime: "inconsistent q_sequence_length").
TEST(AttentionGQAFromFunctionPattern, RejectsAMaskBroadcastOverTheQueries) {
  constexpr std::string_view graph = R"ONNX(
    gqa_local (float[1,4,3,8] Q, float[1,1,3,8] K, float[1,1,3,8] V, bool[1,5] mask,
               float[1,1,2,8] pk, float[1,1,2,8] pv)
       => (float[1,4,3,8] Y, float[1,1,5,8] present_key, float[1,1,5,8] present_value))ONNX";
  ExpectNoMatch<AttentionGQAFromFunctionPattern>(
      FormB(23, "LocalAttentionGQA_to1", "intermediate.LocalAttentionGQA_to1(Q, present_key, present_value, mask, s, e, r)",
            false, graph),
      "Y", "the mask is not [Sq, T], [1, Sq, T] or [1 or B, 1, Sq, T] for the query [B, H, Sq, D]");
}

// s = 0 scales Q and K to 0 (uniform attention); Attention refuses a scale of 0.
TEST(AttentionGQAFromFunctionPattern, RejectsAScaleWhoseSquareIsNotAPositiveFloat) {
  std::string model =
      FormB(23, "LocalAttentionGQA_to1", "intermediate.LocalAttentionGQA_to1(Q, present_key, present_value, mask, s, e, r)");
  const std::string scale = "float[1] s = {0.5}";
  model.replace(model.find(scale), scale.size(), "float[1] s = {0.0}");
  ExpectNoMatch<AttentionGQAFromFunctionPattern>(model, "Y", "the scale squared is not a normal float (Attention takes a scale above 0)");
}

// A fully masked row or a NaN score changes the result (the header): the default selection
// leaves the call to the function; naming the pattern selects it.
TEST(AttentionGQAFromFunctionPattern, IsLeftOutOfTheDefaultSelection) {
  RegisterPatterns();
  const std::vector<std::string> selected =
      core::builder::PatternSelection::Default().Resolve(core::builder::RegisteredPatterns());
  EXPECT_EQ(std::count(selected.begin(), selected.end(), AttentionGQAFromFunctionPattern::kName), 0);
  const std::vector<std::string> named =
      core::builder::PatternSelection::Parse("default,+AttentionGQAFromFunctionPattern")
          .Resolve(core::builder::RegisteredPatterns());
  EXPECT_EQ(std::count(named.begin(), named.end(), AttentionGQAFromFunctionPattern::kName), 1);
}

}  // namespace
}  // namespace onnxopt::onnx_patterns
