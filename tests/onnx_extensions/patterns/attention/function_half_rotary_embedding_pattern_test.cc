#include "onnx_extensions/patterns/attention/function_half_rotary_embedding_pattern.h"

#include <gtest/gtest.h>

#include <memory>
#include <string>

#include "onnx_extensions/patterns/attention/local_function_builder.h"
#include "onnx_extensions/patterns/attention/rotary_embedding_pattern.h"
#include "tests/onnx_extensions/patterns/attention/local_function_test_util.h"
#include "tests/onnx_extensions/patterns/pattern_test_util.h"

namespace onnxopt::onnx_patterns {
namespace {

using testing::ExpectAddedFunction;
using testing::ExpectNoMatch;
using testing::ExpectRewrite;

constexpr std::string_view kFunction = R"ONNX(
    <domain: "intermediate", opset_import: ["" : 18]>
    HalfRotaryEmbedding (X, cos_cache, sin_cache) => (Y)
    {
      left, right = Split<axis = -1, num_outputs = 2>(X)
      right_neg = Neg(right)
      conc = Concat<axis = -1>(right_neg, left)
      xc = Mul(X, cos_cache)
      rs = Mul(conc, sin_cache)
      Y = Add(xc, rs)
    })ONNX";

constexpr std::string_view kExample = R"ONNX(
    <ir_version: 8, opset_import: ["" : 18]>
    half_rot (float[2,2,3,8] X, float[1,1,3,8] cos, float[1,1,3,8] sin) => (float[2,2,3,8] Y)
    {
      x1, x2 = Split<axis = -1, num_outputs = 2>(X)
      nx2 = Neg(x2)
      rot = Concat<axis = -1>(nx2, x1)
      a = Mul(rot, sin)
      b = Mul(X, cos)
      Y = Add(a, b)
    })ONNX";

TEST(FunctionHalfRotaryEmbeddingPattern, FoldsTheRotationIntoALocalFunction) {
  ExpectRewrite<FunctionHalfRotaryEmbeddingPattern>(kExample, std::string(R"ONNX(
    <ir_version: 8, opset_import: ["" : 18, "intermediate" : 1]>
    half_rot (float[2,2,3,8] X, float[1,1,3,8] cos, float[1,1,3,8] sin) => (float[2,2,3,8] Y)
    {
      Y = intermediate.HalfRotaryEmbedding(X, cos, sin)
    })ONNX") + std::string(kFunction));
}

TEST(FunctionHalfRotaryEmbeddingPattern, AddsTheFunctionOfTheSpecification) {
  ExpectAddedFunction(std::make_shared<FunctionHalfRotaryEmbeddingPattern>(), kExample,
                      std::string(R"ONNX(<ir_version: 8, opset_import: ["" : 18]> g (float x) => (float x) {})ONNX") +
                          std::string(kFunction),
                      1);
}

// Split sizes as a constant input, operands of the Mul and Add nodes swapped, axes 3.
TEST(FunctionHalfRotaryEmbeddingPattern, FoldsSplitSizesAndSwappedOperands) {
  ExpectRewrite<FunctionHalfRotaryEmbeddingPattern>(R"ONNX(
    <ir_version: 8, opset_import: ["" : 18]>
    g (float[2,2,3,8] X, float[1,1,3,8] cos, float[1,1,3,8] sin) => (float[2,2,3,8] Y)
    <int64[2] sizes = {4, 4}>
    {
      x1, x2 = Split<axis = 3>(X, sizes)
      nx2 = Neg(x2)
      rot = Concat<axis = 3>(nx2, x1)
      a = Mul(sin, rot)
      b = Mul(cos, X)
      Y = Add(b, a)
    })ONNX", std::string(R"ONNX(
    <ir_version: 8, opset_import: ["" : 18, "intermediate" : 1]>
    g (float[2,2,3,8] X, float[1,1,3,8] cos, float[1,1,3,8] sin) => (float[2,2,3,8] Y)
    {
      Y = intermediate.HalfRotaryEmbedding(X, cos, sin)
    })ONNX") + std::string(kFunction));
}

// The query and the key rotations: two calls of one function.
constexpr std::string_view kTwoRotations = R"ONNX(
    <ir_version: 8, opset_import: ["" : 18]>
    g (float[2,2,3,8] Q, float[2,1,3,8] K, float[1,1,3,8] cos, float[1,1,3,8] sin) => (float[2,2,3,8] YQ, float[2,1,3,8] YK)
    {
      q1, q2 = Split<axis = -1, num_outputs = 2>(Q)
      nq2 = Neg(q2)
      qrot = Concat<axis = -1>(nq2, q1)
      qa = Mul(qrot, sin)
      qb = Mul(Q, cos)
      YQ = Add(qa, qb)
      k1, k2 = Split<axis = -1, num_outputs = 2>(K)
      nk2 = Neg(k2)
      krot = Concat<axis = -1>(nk2, k1)
      ka = Mul(krot, sin)
      kb = Mul(K, cos)
      YK = Add(ka, kb)
    })ONNX";

TEST(FunctionHalfRotaryEmbeddingPattern, TwoRotationsCallOneFunction) {
  ExpectRewrite<FunctionHalfRotaryEmbeddingPattern>(kTwoRotations, std::string(R"ONNX(
    <ir_version: 8, opset_import: ["" : 18, "intermediate" : 1]>
    g (float[2,2,3,8] Q, float[2,1,3,8] K, float[1,1,3,8] cos, float[1,1,3,8] sin) => (float[2,2,3,8] YQ, float[2,1,3,8] YK)
    {
      YQ = intermediate.HalfRotaryEmbedding(Q, cos, sin)
      YK = intermediate.HalfRotaryEmbedding(K, cos, sin)
    })ONNX") + std::string(kFunction));
  ExpectAddedFunction(std::make_shared<FunctionHalfRotaryEmbeddingPattern>(), kTwoRotations,
                      std::string(R"ONNX(<ir_version: 8, opset_import: ["" : 18]> g (float x) => (float x) {})ONNX") +
                          std::string(kFunction),
                      2);
}

// Stages 1 and 2 together at opset 23: the rotation becomes RotaryEmbedding, and the
// function, no longer called, is removed.
TEST(FunctionHalfRotaryEmbeddingPattern, FeedsRotaryEmbeddingPatternAtOpset23) {
  const ModelProto optimized = testing::OptimizeWithPatterns(
      {std::make_shared<FunctionHalfRotaryEmbeddingPattern>(), std::make_shared<RotaryEmbeddingPattern>()}, R"ONNX(
    <ir_version: 10, opset_import: ["" : 23]>
    g (float[2,2,3,8] X, float[1,1,3,4] c, float[1,1,3,4] s) => (float[2,2,3,8] Y)
    {
      cos = Concat<axis = -1>(c, c)
      sin = Concat<axis = -1>(s, s)
      x1, x2 = Split<axis = -1, num_outputs = 2>(X)
      nx2 = Neg(x2)
      rot = Concat<axis = -1>(nx2, x1)
      a = Mul(rot, sin)
      b = Mul(X, cos)
      Y = Add(a, b)
    })ONNX");
  ASSERT_GT(optimized.graph().node_size(), 0);
  EXPECT_EQ(optimized.graph().node(optimized.graph().node_size() - 1).op_type(), "RotaryEmbedding");
  EXPECT_EQ(optimized.functions_size(), 0);
}

// The example with `body` in place of its six nodes and X of shape `x_shape`.
std::string Rotation(std::string_view body, std::string_view x_shape = "2,2,3,8", std::string_view opset = "18") {
  return R"ONNX(
    <ir_version: 8, opset_import: ["" : )ONNX" + std::string(opset) + R"ONNX(]>
    g (float[)ONNX" + std::string(x_shape) + R"ONNX(] X, float[1,1,3,8] cos, float[1,1,3,8] sin) => (float Y, float Z)
    <int64[2] sizes = {3, 5}>
    {)ONNX" + std::string(body) + "}";
}

TEST(FunctionHalfRotaryEmbeddingPattern, RejectsRank3) {
  ExpectNoMatch<FunctionHalfRotaryEmbeddingPattern>(Rotation(R"ONNX(
      x1, x2 = Split<axis = -1, num_outputs = 2>(X)
      nx2 = Neg(x2)
      rot = Concat<axis = -1>(nx2, x1)
      a = Mul(rot, sin)
      b = Mul(X, cos)
      Y = Add(a, b)
      Z = Identity(Y)
  )ONNX", "2,3,8"), "x1", "the rank of X is not known to be 4");
}

TEST(FunctionHalfRotaryEmbeddingPattern, RejectsUnequalSplitSizes) {
  ExpectNoMatch<FunctionHalfRotaryEmbeddingPattern>(Rotation(R"ONNX(
      x1, x2 = Split<axis = -1>(X, sizes)
      nx2 = Neg(x2)
      rot = Concat<axis = -1>(nx2, x1)
      a = Mul(rot, sin)
      b = Mul(X, cos)
      Y = Add(a, b)
      Z = Identity(Y)
  )ONNX"), "x1", "the split sizes are not two equal values");
}

TEST(FunctionHalfRotaryEmbeddingPattern, RejectsAThirdConsumerOfX) {
  ExpectNoMatch<FunctionHalfRotaryEmbeddingPattern>(Rotation(R"ONNX(
      x1, x2 = Split<axis = -1, num_outputs = 2>(X)
      nx2 = Neg(x2)
      rot = Concat<axis = -1>(nx2, x1)
      a = Mul(rot, sin)
      b = Mul(X, cos)
      Y = Add(a, b)
      Z = Neg(X)
  )ONNX"), "x1", "X does not have exactly two consumers");
}

TEST(FunctionHalfRotaryEmbeddingPattern, RejectsProductsFeedingTwoAdds) {
  ExpectNoMatch<FunctionHalfRotaryEmbeddingPattern>(Rotation(R"ONNX(
      x1, x2 = Split<axis = -1, num_outputs = 2>(X)
      nx2 = Neg(x2)
      rot = Concat<axis = -1>(nx2, x1)
      a = Mul(rot, sin)
      b = Mul(X, cos)
      Y = Add(a, cos)
      Z = Add(b, sin)
  )ONNX"), "x1", "the two products do not feed the same Add");
}

// Upstream accepts Concat(x1, nx2) (the other direction), which the body does not compute.
TEST(FunctionHalfRotaryEmbeddingPattern, RejectsTheOtherRotationDirection) {
  ExpectNoMatch<FunctionHalfRotaryEmbeddingPattern>(Rotation(R"ONNX(
      x1, x2 = Split<axis = -1, num_outputs = 2>(X)
      nx2 = Neg(x2)
      rot = Concat<axis = -1>(x1, nx2)
      a = Mul(rot, sin)
      b = Mul(X, cos)
      Y = Add(a, b)
      Z = Identity(Y)
  )ONNX"), "x1", "the Concat does not take the negated second half then the first half");
}

TEST(FunctionHalfRotaryEmbeddingPattern, RejectsAnotherUseOfTheFirstHalf) {
  ExpectNoMatch<FunctionHalfRotaryEmbeddingPattern>(Rotation(R"ONNX(
      x1, x2 = Split<axis = -1, num_outputs = 2>(X)
      nx2 = Neg(x2)
      rot = Concat<axis = -1>(nx2, x1)
      a = Mul(rot, sin)
      b = Mul(X, cos)
      Y = Add(a, b)
      Z = Concat<axis = -1>(x1, x1)
  )ONNX"), "x1", "the first half has another use");
}

TEST(FunctionHalfRotaryEmbeddingPattern, RejectsOpset17) {
  ExpectNoMatch<FunctionHalfRotaryEmbeddingPattern>(Rotation(R"ONNX(
      x1, x2 = Split<axis = -1>(X, sizes)
      nx2 = Neg(x2)
      rot = Concat<axis = -1>(nx2, x1)
      a = Mul(rot, sin)
      b = Mul(X, cos)
      Y = Add(a, b)
      Z = Identity(Y)
  )ONNX", "2,2,3,8", "17"), "x1", "the main opset is below 18 (the function body uses Split with num_outputs)");
}

TEST(FunctionHalfRotaryEmbeddingPattern, RejectsTheSameCosAndSin) {
  ExpectNoMatch<FunctionHalfRotaryEmbeddingPattern>(Rotation(R"ONNX(
      x1, x2 = Split<axis = -1, num_outputs = 2>(X)
      nx2 = Neg(x2)
      rot = Concat<axis = -1>(nx2, x1)
      a = Mul(rot, cos)
      b = Mul(X, cos)
      Y = Add(a, b)
      Z = Identity(Y)
  )ONNX"), "x1", "cos and sin are the same tensor");
}

// The model already holds the exact body (an earlier run wrote it): the call reuses it.
TEST(FunctionHalfRotaryEmbeddingPattern, ReusesTheSameFunctionOfTheModel) {
  testing::ExpectRewrite<FunctionHalfRotaryEmbeddingPattern>(
      testing::WithFunction(kExample, attention::HalfRotaryEmbeddingFunction(18)), R"ONNX(
    <ir_version: 8, opset_import: ["" : 18, "intermediate" : 1]>
    half_rot (float[2,2,3,8] X, float[1,1,3,8] cos, float[1,1,3,8] sin) => (float[2,2,3,8] Y)
    {
      Y = intermediate.HalfRotaryEmbedding(X, cos, sin)
    })ONNX");
}

// The model defines and calls its own intermediate.HalfRotaryEmbedding (rotating the other
// way): the new call would run it, and GetOrAddFunction cannot add a second body under the
// name (an internal error before). Uncalled, the cleanup would remove it first.
TEST(FunctionHalfRotaryEmbeddingPattern, RejectsAnotherFunctionOfTheSameName) {
  ExpectNoMatch<FunctionHalfRotaryEmbeddingPattern>(R"ONNX(
    <ir_version: 8, opset_import: ["" : 18, "intermediate" : 1]>
    g (float[2,2,3,8] X, float[2,2,3,8] X2, float[1,1,3,8] cos, float[1,1,3,8] sin) => (float[2,2,3,8] Y, float[2,2,3,8] Y2)
    {
      x1, x2 = Split<axis = -1, num_outputs = 2>(X)
      nx2 = Neg(x2)
      rot = Concat<axis = -1>(nx2, x1)
      a = Mul(rot, sin)
      b = Mul(X, cos)
      Y = Add(a, b)
      Y2 = intermediate.HalfRotaryEmbedding(X2, cos, sin)
    }
    <domain: "intermediate", opset_import: ["" : 18]>
    HalfRotaryEmbedding (X, cos_cache, sin_cache) => (Y)
    {
      left, right = Split<axis = -1, num_outputs = 2>(X)
      left_neg = Neg(left)
      conc = Concat<axis = -1>(right, left_neg)
      xc = Mul(X, cos_cache)
      rs = Mul(conc, sin_cache)
      Y = Add(xc, rs)
    })ONNX", "x1", "the model already defines a local function of this name with another body");
}

}  // namespace
}  // namespace onnxopt::onnx_patterns
