#include "onnx_extensions/patterns/attention/rotary_embedding_pattern.h"

#include <gtest/gtest.h>

#include <string>

#include "onnx_extensions/patterns/attention/local_function_builder.h"
#include "tests/onnx_extensions/patterns/attention/local_function_test_util.h"
#include "tests/onnx_extensions/patterns/pattern_test_util.h"

namespace onnxopt::onnx_patterns {
namespace {

using testing::ExpectNoMatch;
using testing::ExpectRewrite;

// The local function FunctionHalfRotaryEmbeddingPattern creates, at `opset`, as text: the
// parser writes it with other bytes (empty domains set), so the pattern rejects calls of it
// with its last check; the rewrites use the exact body (Own). The expected graphs compare the
// main graph only: the function, no longer called, stays in the model until the cleanup of
// unused functions removes it.
std::string HalfRotaryFunction(int opset) {
  return R"ONNX(
    <domain: "intermediate", opset_import: ["" : )ONNX" +
         std::to_string(opset) + R"ONNX(]>
    HalfRotaryEmbedding (X, cos_cache, sin_cache) => (Y)
    {
      left, right = Split<axis = -1, num_outputs = 2>(X)
      right_neg = Neg(right)
      conc = Concat<axis = -1>(right_neg, left)
      xc = Mul(X, cos_cache)
      rs = Mul(conc, sin_cache)
      Y = Add(xc, rs)
    })ONNX";
}

// `text` with the exact body FunctionHalfRotaryEmbeddingPattern writes at opset 23.
ModelProto Own(const std::string& text) {
  return testing::WithFunction(text, attention::HalfRotaryEmbeddingFunction(23));
}

// With a static batch, the driver folds the new Shape -> Concat into the constant [B, 1, 1].
// RotaryEmbedding may fuse the products (attention.md: about 1e-6 relative in float32).
constexpr double kTolerance = 1e-5;

TEST(RotaryEmbeddingPattern, ReplacesAFullRotation) {
  ExpectRewrite<RotaryEmbeddingPattern>(Own(R"ONNX(
    <ir_version: 10, opset_import: ["" : 23, "intermediate" : 1]>
    rope_full (float[2,2,3,8] X, float[1,1,3,4] c, float[1,1,3,4] s) => (float[2,2,3,8] Y)
    {
      cc = Concat<axis = -1>(c, c)
      ss = Concat<axis = -1>(s, s)
      Y = intermediate.HalfRotaryEmbedding(X, cc, ss)
    })ONNX" + HalfRotaryFunction(23)), R"ONNX(
    <ir_version: 10, opset_import: ["" : 23]>
    rope_full (float[2,2,3,8] X, float[1,1,3,4] c, float[1,1,3,4] s) => (float[2,2,3,8] Y)
    <int64[1] one = {1}, int64[3] shp = {2, 1, 1}>
    {
      cq = Squeeze(c, one)
      sq = Squeeze(s, one)
      ce = Expand(cq, shp)
      se = Expand(sq, shp)
      Y = RotaryEmbedding<num_heads = 2>(X, ce, se)
    })ONNX", kTolerance);
}

TEST(RotaryEmbeddingPattern, ReplacesAPartialRotationOfTheFirstChannels) {
  ExpectRewrite<RotaryEmbeddingPattern>(Own(R"ONNX(
    <ir_version: 10, opset_import: ["" : 23, "intermediate" : 1]>
    rope_partial (float[2,2,3,10] X, float[1,1,3,2] c, float[1,1,3,2] s) => (float[2,2,3,10] Y)
    <int64[2] sizes = {4, 6}>
    {
      cc = Concat<axis = -1>(c, c)
      ss = Concat<axis = -1>(s, s)
      xr, xp = Split<axis = -1>(X, sizes)
      yr = intermediate.HalfRotaryEmbedding(xr, cc, ss)
      Y = Concat<axis = -1>(yr, xp)
    })ONNX" + HalfRotaryFunction(23)), R"ONNX(
    <ir_version: 10, opset_import: ["" : 23]>
    rope_partial (float[2,2,3,10] X, float[1,1,3,2] c, float[1,1,3,2] s) => (float[2,2,3,10] Y)
    <int64[1] one = {1}, int64[3] shp = {2, 1, 1}>
    {
      cq = Squeeze(c, one)
      sq = Squeeze(s, one)
      ce = Expand(cq, shp)
      se = Expand(sq, shp)
      Y = RotaryEmbedding<num_heads = 2, rotary_embedding_dim = 4>(X, ce, se)
    })ONNX", kTolerance);
}

// Symbolic batch and sequence; the caches are still read elsewhere, so their Concats stay.
TEST(RotaryEmbeddingPattern, ReplacesARotationWithSymbolicDimsAndSharedCaches) {
  ExpectRewrite<RotaryEmbeddingPattern>(Own(R"ONNX(
    <ir_version: 10, opset_import: ["" : 23, "intermediate" : 1]>
    g (float[batch,4,seq,8] X, float[1,1,seq,4] c, float[1,1,seq,4] s) => (float[batch,4,seq,8] Y, float[1,1,seq,8] cc)
    {
      cc = Concat<axis = -1>(c, c)
      ss = Concat<axis = -1>(s, s)
      Y = intermediate.HalfRotaryEmbedding(X, cc, ss)
    })ONNX" + HalfRotaryFunction(23)), R"ONNX(
    <ir_version: 10, opset_import: ["" : 23]>
    g (float[batch,4,seq,8] X, float[1,1,seq,4] c, float[1,1,seq,4] s) => (float[batch,4,seq,8] Y, float[1,1,seq,8] cc)
    <int64[2] ones2 = {1, 1}, int64[1] one = {1}>
    {
      cc = Concat<axis = -1>(c, c)
      b = Shape<start = 0, end = 1>(X)
      shp = Concat<axis = 0>(b, ones2)
      cq = Squeeze(c, one)
      sq = Squeeze(s, one)
      ce = Expand(cq, shp)
      se = Expand(sq, shp)
      Y = RotaryEmbedding<num_heads = 4>(X, ce, se)
    })ONNX", kTolerance);
}

std::string FullRotation(std::string_view opset, std::string_view cos_concat, std::string_view cos_shape = "1,1,3,4",
                         std::string_view x_shape = "2,2,3,8") {
  return R"ONNX(
    <ir_version: 10, opset_import: ["" : )ONNX" + std::string(opset) + R"ONNX(, "intermediate" : 1]>
    g (float[)ONNX" + std::string(x_shape) + "] X, float[" + std::string(cos_shape) + "] c, float[" +
         std::string(cos_shape) + "] c2, float[" + std::string(cos_shape) + R"ONNX(] s) => (float[2,2,3,8] Y)
    {
      cc = )ONNX" + std::string(cos_concat) + R"ONNX(
      ss = Concat<axis = -1>(s, s)
      Y = intermediate.HalfRotaryEmbedding(X, cc, ss)
    })ONNX" + HalfRotaryFunction(std::stoi(std::string(opset)));
}

TEST(RotaryEmbeddingPattern, RejectsOpset22) {
  ExpectNoMatch<RotaryEmbeddingPattern>(FullRotation("22", "Concat<axis = -1>(c, c)"), "Y",
                                        "the main opset is below 23");
}

TEST(RotaryEmbeddingPattern, RejectsACacheConcatOnAxis3) {
  ExpectNoMatch<RotaryEmbeddingPattern>(FullRotation("23", "Concat<axis = 3>(c, c)"), "Y",
                                        "a cache Concat is not on axis -1");
}

TEST(RotaryEmbeddingPattern, RejectsACacheOfTwoDifferentHalves) {
  ExpectNoMatch<RotaryEmbeddingPattern>(FullRotation("23", "Concat<axis = -1>(c, c2)"), "Y",
                                        "a cache Concat does not repeat one tensor twice");
}

TEST(RotaryEmbeddingPattern, RejectsACachePerHead) {
  ExpectNoMatch<RotaryEmbeddingPattern>(
      R"ONNX(
    <ir_version: 10, opset_import: ["" : 23, "intermediate" : 1]>
    g (float[2,4,3,8] X, float[1,4,3,4] c, float[1,4,3,4] s) => (float[2,4,3,8] Y)
    {
      cc = Concat<axis = -1>(c, c)
      ss = Concat<axis = -1>(s, s)
      Y = intermediate.HalfRotaryEmbedding(X, cc, ss)
    })ONNX" + HalfRotaryFunction(23),
      "Y", "the caches are not of rank 4 with dimension 1 equal to 1");
}

TEST(RotaryEmbeddingPattern, RejectsASymbolicNumberOfHeads) {
  ExpectNoMatch<RotaryEmbeddingPattern>(FullRotation("23", "Concat<axis = -1>(c, c)", "1,1,3,4", "2,H,3,8"), "Y",
                                        "the number of heads is not a known integer");
}

// RotaryEmbedding-23 has no double version.
TEST(RotaryEmbeddingPattern, RejectsDouble) {
  ExpectNoMatch<RotaryEmbeddingPattern>(R"ONNX(
    <ir_version: 10, opset_import: ["" : 23, "intermediate" : 1]>
    g (double[2,2,3,8] X, double[1,1,3,4] c, double[1,1,3,4] s) => (double[2,2,3,8] Y)
    {
      cc = Concat<axis = -1>(c, c)
      ss = Concat<axis = -1>(s, s)
      Y = intermediate.HalfRotaryEmbedding(X, cc, ss)
    })ONNX" + HalfRotaryFunction(23), "Y", "X is not float, float16 or bfloat16 (the types of RotaryEmbedding)");
}

// RotaryEmbedding takes one cache row per position: a cache broadcast over the sequence
// would be refused by the operator.
TEST(RotaryEmbeddingPattern, RejectsACacheBroadcastOverTheSequence) {
  ExpectNoMatch<RotaryEmbeddingPattern>(FullRotation("23", "Concat<axis = -1>(c, c)", "1,1,1,4"), "Y",
                                        "the caches do not have one row per position of X");
}

// Upstream does not check the inputs of the final Concat.
TEST(RotaryEmbeddingPattern, RejectsAPartialRotationConcatenatedInTheOtherOrder) {
  ExpectNoMatch<RotaryEmbeddingPattern>(R"ONNX(
    <ir_version: 10, opset_import: ["" : 23, "intermediate" : 1]>
    g (float[2,2,3,10] X, float[1,1,3,2] c, float[1,1,3,2] s) => (float[2,2,3,10] Y)
    <int64[2] sizes = {4, 6}>
    {
      cc = Concat<axis = -1>(c, c)
      ss = Concat<axis = -1>(s, s)
      xr, xp = Split<axis = -1>(X, sizes)
      yr = intermediate.HalfRotaryEmbedding(xr, cc, ss)
      Y = Concat<axis = -1>(xp, yr)
    })ONNX" + HalfRotaryFunction(23), "yr",
                                        "the final Concat does not take the rotated part then the rest of the Split");
}

// Upstream does not check the Split axis.
TEST(RotaryEmbeddingPattern, RejectsAPartialRotationSplitOnAnotherAxis) {
  ExpectNoMatch<RotaryEmbeddingPattern>(R"ONNX(
    <ir_version: 10, opset_import: ["" : 23, "intermediate" : 1]>
    g (float[2,2,6,8] X, float[1,1,3,4] c, float[1,1,3,4] s) => (float[2,2,6,8] Y)
    <int64[2] sizes = {3, 3}>
    {
      cc = Concat<axis = -1>(c, c)
      ss = Concat<axis = -1>(s, s)
      xr, xp = Split<axis = 2>(X, sizes)
      yr = intermediate.HalfRotaryEmbedding(xr, cc, ss)
      Y = Concat<axis = 2>(yr, xp)
    })ONNX" + HalfRotaryFunction(23), "yr", "the Split is not on the last axis");
}

// The main graph of the full rotation at opset 23, without the function.
std::string FullRotationCall() {
  const std::string model = FullRotation("23", "Concat<axis = -1>(c, c)");
  return model.substr(0, model.find("<domain"));
}

// A model may define its own intermediate.HalfRotaryEmbedding: this one rotates the other
// way (Concat(right, -left)), which RotaryEmbedding does not compute.
TEST(RotaryEmbeddingPattern, RejectsACallOfAnotherBodyOfTheSameName) {
  ExpectNoMatch<RotaryEmbeddingPattern>(FullRotationCall() + R"ONNX(
    <domain: "intermediate", opset_import: ["" : 23]>
    HalfRotaryEmbedding (X, cos_cache, sin_cache) => (Y)
    {
      left, right = Split<axis = -1, num_outputs = 2>(X)
      left_neg = Neg(left)
      conc = Concat<axis = -1>(right, left_neg)
      xc = Mul(X, cos_cache)
      rs = Mul(conc, sin_cache)
      Y = Add(xc, rs)
    })ONNX", "Y", "the called local function is not the body onnxopt writes under this name");
}

TEST(RotaryEmbeddingPattern, RejectsACallOfAMissingFunction) {
  ExpectNoMatch<RotaryEmbeddingPattern>(FullRotationCall(), "Y", "the model does not define the called local function");
}

}  // namespace
}  // namespace onnxopt::onnx_patterns
