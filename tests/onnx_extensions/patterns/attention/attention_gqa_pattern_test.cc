#include "onnx_extensions/patterns/attention/attention_gqa_pattern.h"

#include <gtest/gtest.h>

#include <string>
#include <string_view>

#include "tests/onnx_extensions/patterns/attention/local_function_test_util.h"
#include "tests/onnx_extensions/patterns/pattern_test_util.h"

namespace onnxopt::onnx_patterns {
namespace {

using testing::Cat;
using testing::ExpectNoMatch;
using testing::ExpectRewrite;

// The scale is applied once instead of on Q and K (attention.md: about 1e-5 in float32).
constexpr double kTolerance = 1e-5;

// Multi-query attention: one key-value head serves the four query heads. With several
// key-value heads, runtimes disagree on the broadcast (RejectsSeveralRepeatedKeyValueHeads).
constexpr std::string_view kFormAGraph = R"ONNX(
    attn_gqa (float[1,4,3,8] query, float[1,1,3,8] key, float[1,1,3,8] value, bool[1,1,3,5] mask,
              float[1,1,2,8] past_key, float[1,1,2,8] past_value)
       => (float[1,4,3,8] Y, float[1,1,5,8] present_key, float[1,1,5,8] present_value))ONNX";
constexpr std::string_view kFormAConstants = R"ONNX(
    <int64[1] two = {2}, int64[5] e = {1, 1, 4, 1, 1}, int64[4] r = {0, 4, -1, 8}>)ONNX";

// Two key-value heads for the four query heads, each repeated twice.
constexpr std::string_view kTwoHeadsGraph = R"ONNX(
    g (float[1,4,3,8] query, float[1,2,3,8] key, float[1,2,3,8] value, bool[1,1,3,5] mask,
       float[1,2,2,8] past_key, float[1,2,2,8] past_value)
       => (float[1,4,3,8] Y, float[1,2,5,8] present_key, float[1,2,5,8] present_value))ONNX";
constexpr std::string_view kTwoHeadsConstants = R"ONNX(
    <int64[1] two = {2}, int64[5] e = {1, 1, 2, 1, 1}, int64[4] r = {0, 4, -1, 8}>)ONNX";

// Form A with the caches, the head expansion and one attribute line replaced.
std::string FormA(std::string_view opset, std::string_view attention, std::string_view expand_shape = "e",
                  std::string_view key_cache = "present_key = Concat<axis = 2>(past_key, key)",
                  std::string_view graph = kFormAGraph, std::string_view constants = kFormAConstants) {
  return Cat({R"ONNX(
    <ir_version: 10, opset_import: ["" : )ONNX", opset, "]>", graph, constants, R"ONNX(
    {
      )ONNX", key_cache, R"ONNX(
      present_value = Concat<axis = 2>(past_value, value)
      ku = Unsqueeze(present_key, two)
      ke = Expand(ku, )ONNX", expand_shape, R"ONNX()
      kr = Reshape(ke, r)
      vu = Unsqueeze(present_value, two)
      ve = Expand(vu, e)
      vr = Reshape(ve, r)
      )ONNX", attention, R"ONNX(
    })ONNX"});
}

TEST(AttentionGQAPattern, MovesTheCacheAndTheHeadRepetitionIntoAttention) {
  ExpectRewrite<AttentionGQAPattern>(FormA("23", "Y = Attention<scale = 0.125>(query, kr, vr, mask)"), Cat({R"ONNX(
    <ir_version: 10, opset_import: ["" : 23]>)ONNX", kFormAGraph, R"ONNX(
    {
      Y, present_key, present_value = Attention<scale = 0.125, is_causal = 0>(query, key, value, mask, past_key, past_value)
    })ONNX"}), kTolerance);
}

// Without a mask (upstream crashes) and with symbolic sequence lengths; Attention's
// default scale depends only on the head size, which does not change.
TEST(AttentionGQAPattern, PassesAnEmptyMaskWithSymbolicLengths) {
  constexpr std::string_view signature = R"ONNX(
    <ir_version: 10, opset_import: ["" : 23]>
    g (float[1,4,S,8] query, float[1,1,S,8] key, float[1,1,S,8] value, float[1,1,P,8] past_key, float[1,1,P,8] past_value)
       => (float[1,4,S,8] Y, float[1,1,T,8] present_key, float[1,1,T,8] present_value))ONNX";
  ExpectRewrite<AttentionGQAPattern>(Cat({signature, R"ONNX(
    <int64[1] two = {2}, int64[5] e = {1, 1, 4, 1, 1}, int64[4] r = {1, 4, -1, 8}>
    {
      present_key = Concat<axis = -2>(past_key, key)
      present_value = Concat<axis = -2>(past_value, value)
      ku = Unsqueeze(present_key, two)
      ke = Expand(ku, e)
      kr = Reshape(ke, r)
      vu = Unsqueeze(present_value, two)
      ve = Expand(vu, e)
      vr = Reshape(ve, r)
      Y = Attention(query, kr, vr)
    })ONNX"}), Cat({signature, R"ONNX(
    {
      Y, present_key, present_value = Attention<is_causal = 0>(query, key, value, , past_key, past_value)
    })ONNX"}), kTolerance);
}

// A mask of two batches grows the function's result to batch 2; Attention's cannot grow.
TEST(AttentionGQAPattern, RejectsAMaskThatBroadcastsTheQuery) {
  constexpr std::string_view graph = R"ONNX(
    attn_gqa (float[1,4,3,8] query, float[1,1,3,8] key, float[1,1,3,8] value, bool[2,1,3,5] mask,
              float[1,1,2,8] past_key, float[1,1,2,8] past_value)
       => (float[2,4,3,8] Y, float[1,1,5,8] present_key, float[1,1,5,8] present_value))ONNX";
  ExpectNoMatch<AttentionGQAPattern>(
      FormA("23", "Y = Attention<scale = 0.125>(query, kr, vr, mask)", "e",
            "present_key = Concat<axis = 2>(past_key, key)", graph),
      "Y", "the mask is not [Sq, T], [1, Sq, T] or [1 or B, 1, Sq, T] for the query [B, H, Sq, D]");
}

// MatMul broadcasts the keys' batch 1 over the query's 2; Attention takes one batch.
TEST(AttentionGQAPattern, RejectsAQueryOfAnotherBatch) {
  constexpr std::string_view graph = R"ONNX(
    attn_gqa (float[2,4,3,8] query, float[1,1,3,8] key, float[1,1,3,8] value, bool[1,1,3,5] mask,
              float[1,1,2,8] past_key, float[1,1,2,8] past_value)
       => (float[2,4,3,8] Y, float[1,1,5,8] present_key, float[1,1,5,8] present_value))ONNX";
  ExpectNoMatch<AttentionGQAPattern>(
      FormA("23", "Y = Attention<scale = 0.125>(query, kr, vr, mask)", "e",
            "present_key = Concat<axis = 2>(past_key, key)", graph),
      "Y", "the query and the keys or values differ in batch");
}

// 2 past keys + 3 new ones, 3 past values + 2 new ones: both caches hold 5, but Attention
// takes one past length and one new length.
TEST(AttentionGQAPattern, RejectsCachesSplitAtDifferentLengths) {
  constexpr std::string_view graph = R"ONNX(
    attn_gqa (float[1,4,3,8] query, float[1,1,3,8] key, float[1,1,2,8] value, bool[1,1,3,5] mask,
              float[1,1,2,8] past_key, float[1,1,3,8] past_value)
       => (float[1,4,3,8] Y, float[1,1,5,8] present_key, float[1,1,5,8] present_value))ONNX";
  ExpectNoMatch<AttentionGQAPattern>(
      FormA("23", "Y = Attention<scale = 0.125>(query, kr, vr, mask)", "e",
            "present_key = Concat<axis = 2>(past_key, key)", graph),
      "Y", "the past or new keys and values are not known to agree in batch, heads and length");
}

TEST(AttentionGQAPattern, RejectsAnAttentionWithThreeOutputs) {
  ExpectNoMatch<AttentionGQAPattern>(
      FormA("23", "Y, k2, v2 = Attention<scale = 0.125>(query, kr, vr, mask)"), "Y",
      "the node has more than one output");
}

TEST(AttentionGQAPattern, RejectsKeysWithoutCache) {
  ExpectNoMatch<AttentionGQAPattern>(
      FormA("23", "Y = Attention<scale = 0.125>(query, kr, vr, mask)", "e", "present_key = Identity(key)"), "Y",
      "the keys or values are not produced by a Concat with two inputs");
}

// Upstream does not check the Concat axis.
TEST(AttentionGQAPattern, RejectsACacheConcatOnAnotherAxis) {
  ExpectNoMatch<AttentionGQAPattern>(
      FormA("23", "Y = Attention<scale = 0.125>(query, kr, vr, mask)", "e",
            "present_key = Concat<axis = 3>(past_key, key)"),
      "Y", "the cache Concat is not on the sequence axis 2");
}

TEST(AttentionGQAPattern, RejectsAnExpandOverTheBatch) {
  ExpectNoMatch<AttentionGQAPattern>(
      Cat({R"ONNX(
    <ir_version: 10, opset_import: ["" : 23]>)ONNX", kFormAGraph, kFormAConstants, R"ONNX(
    {
      present_key = Concat<axis = 2>(past_key, key)
      present_value = Concat<axis = 2>(past_value, value)
      e2 = Constant<value = int64[5] {2, 1, 4, 1, 1}>()
      ku = Unsqueeze(present_key, two)
      ke = Expand(ku, e2)
      kr = Reshape(ke, r)
      vu = Unsqueeze(present_value, two)
      ve = Expand(vu, e2)
      vr = Reshape(ve, r)
      Y = Attention<scale = 0.125>(query, kr, vr, mask)
    })ONNX"}),
      "Y", "the Expand shape is not a constant [1, 1, n, 1, 1]");
}

// is_causal would count the past keys in the new node (bottom-right alignment).
TEST(AttentionGQAPattern, RejectsACausalAttention) {
  ExpectNoMatch<AttentionGQAPattern>(FormA("23", "Y = Attention<is_causal = 1>(query, kr, vr, mask)"), "Y",
                                     "the Attention is causal");
}

TEST(AttentionGQAPattern, RejectsAnAttentionWithSoftcap) {
  ExpectNoMatch<AttentionGQAPattern>(FormA("23", "Y = Attention<softcap = 2.0>(query, kr, vr, mask)"), "Y",
                                     "the Attention sets an attribute other than scale and is_causal");
}

// Reshaping [1, 2, 2, 5, 8] to [1, 4, 8, 5] mixes positions and channels: not a repetition.
TEST(AttentionGQAPattern, RejectsAReshapeThatDoesNotMergeTheHeads) {
  constexpr std::string_view graph = R"ONNX(
    <ir_version: 10, opset_import: ["" : 23]>
    g (float[1,4,3,5] query, float[1,2,3,8] key, float[1,2,3,8] value, float[1,2,2,8] past_key, float[1,2,2,8] past_value)
       => (float[1,4,3,8] Y, float[1,2,5,8] present_key, float[1,2,5,8] present_value)
    <int64[1] two = {2}, int64[5] e = {1, 1, 2, 1, 1}, int64[4] r = {0, 4, 8, -1}>
    {
      present_key = Concat<axis = 2>(past_key, key)
      present_value = Concat<axis = 2>(past_value, value)
      ku = Unsqueeze(present_key, two)
      ke = Expand(ku, e)
      kr = Reshape(ke, r)
      vu = Unsqueeze(present_value, two)
      ve = Expand(vu, e)
      vr = Reshape(ve, r)
      Y = Attention(query, kr, vr)
    })ONNX";
  ExpectNoMatch<AttentionGQAPattern>(graph, "Y", "the reshape does not merge the key-value heads with their repetitions");
}

// Two key-value heads for four query heads: the expansion serves query heads 0, 1 from head 0
// (the ONNX reference's Attention does the same), onnxruntime 1.23's Attention serves query
// heads 0, 2 from it. Fused, the model would compute another result in onnxruntime.
TEST(AttentionGQAPattern, RejectsSeveralRepeatedKeyValueHeads) {
  ExpectNoMatch<AttentionGQAPattern>(
      FormA("23", "Y = Attention<scale = 0.125>(query, kr, vr, mask)", "e",
            "present_key = Concat<axis = 2>(past_key, key)", kTwoHeadsGraph, kTwoHeadsConstants),
      "Y", "several key-value heads are repeated: runtimes broadcast them to the query heads differently");
}

}  // namespace
}  // namespace onnxopt::onnx_patterns
