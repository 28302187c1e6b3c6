#include "onnx_extensions/patterns/algebra/swap_unary_pattern.h"

#include <gtest/gtest.h>

#include "tests/onnx_extensions/patterns/pattern_test_util.h"

namespace onnxopt::onnx_patterns {
namespace {

using testing::ExpectNoMatch;
using testing::ApplicationsUntilConvergence;
using testing::ExpectRewrite;

TEST(SwapUnaryPattern, AppliesReluBeforeTheTranspose) {
  ExpectRewrite<SwapUnaryPattern>(R"ONNX(
    <ir_version: 8, opset_import: ["" : 18]>
    g (float[A,B,C,D] X) => (float[A,C,B,D] Y) {
      t = Transpose<perm=[0,2,1,3]>(X)
      Y = Relu(t)
    })ONNX", R"ONNX(
    <ir_version: 8, opset_import: ["" : 18]>
    g (float[A,B,C,D] X) => (float[A,C,B,D] Y) {
      r = Relu(X)
      Y = Transpose<perm=[0,2,1,3]>(r)
    })ONNX");
}

// The Reshape moves below the whole chain in one rewrite (the Cast narrows).
TEST(SwapUnaryPattern, MovesAReshapeBelowAChain) {
  ExpectRewrite<SwapUnaryPattern>(R"ONNX(
    <ir_version: 8, opset_import: ["" : 18]>
    g (float[N,12] X) => (float16[N,3,4] Y) <int64[3] s = {0, 3, 4}> {
      t = Reshape(X, s)
      c = Cast<to=10>(t)
      Y = Neg(c)
    })ONNX", R"ONNX(
    <ir_version: 8, opset_import: ["" : 18]>
    g (float[N,12] X) => (float16[N,3,4] Y) <int64[3] s = {0, 3, 4}> {
      c = Cast<to=10>(X)
      n = Neg(c)
      Y = Reshape(n, s)
    })ONNX");
}

// The (1,) operand may be computed after the Transpose.
TEST(SwapUnaryPattern, MovesAProductByAUnitTensor) {
  ExpectRewrite<SwapUnaryPattern>(R"ONNX(
    <ir_version: 8, opset_import: ["" : 18]>
    g (int32[2,3] X, int32[1] W) => (int32[3,2] Y) {
      t = Transpose<perm=[1,0]>(X)
      c = Neg(W)
      Y = Mul(t, c)
    })ONNX", R"ONNX(
    <ir_version: 8, opset_import: ["" : 18]>
    g (int32[2,3] X, int32[1] W) => (int32[3,2] Y) {
      c = Neg(W)
      m = Mul(X, c)
      Y = Transpose<perm=[1,0]>(m)
    })ONNX");
}

// float16 -> float: the Transpose would move twice the bytes.
TEST(SwapUnaryPattern, RejectsWideningCast) {
  ExpectNoMatch<SwapUnaryPattern>(R"ONNX(
    <ir_version: 8, opset_import: ["" : 18]>
    g (float16[2,3] X) => (float[3,2] Y) {
      t = Transpose<perm=[1,0]>(X)
      Y = Cast<to=1>(t)
    })ONNX", "t", "the Cast may widen the elements");
}

TEST(SwapUnaryPattern, RejectsWideningCastLike) {
  ExpectNoMatch<SwapUnaryPattern>(R"ONNX(
    <ir_version: 8, opset_import: ["" : 18]>
    g (int32[2,3] X, double[1] like) => (double[3,2] Y) {
      t = Transpose<perm=[1,0]>(X)
      Y = CastLike(t, like)
    })ONNX", "t", "the Cast may widen the elements");
}

TEST(SwapUnaryPattern, MovesAClipWithScalarBounds) {
  ExpectRewrite<SwapUnaryPattern>(R"ONNX(
    <ir_version: 8, opset_import: ["" : 18]>
    g (float[2,3,4] X) => (float[4,3,2] Y) <float lo = {-0.5}, float hi = {0.5}> {
      t = Transpose(X)
      Y = Clip(t, lo, hi)
    })ONNX", R"ONNX(
    <ir_version: 8, opset_import: ["" : 18]>
    g (float[2,3,4] X) => (float[4,3,2] Y) <float lo = {-0.5}, float hi = {0.5}> {
      c = Clip(X, lo, hi)
      Y = Transpose(c)
    })ONNX");
}

TEST(SwapUnaryPattern, MovesAPReluWithOneSlope) {
  ExpectRewrite<SwapUnaryPattern>(R"ONNX(
    <ir_version: 8, opset_import: ["" : 18]>
    g (float[N,6] X) => (float[N,2,3] Y) <int64[3] s = {0, 2, 3}, float[1] slope = {0.25}> {
      t = Reshape(X, s)
      Y = PRelu(t, slope)
    })ONNX", R"ONNX(
    <ir_version: 8, opset_import: ["" : 18]>
    g (float[N,6] X) => (float[N,2,3] Y) <int64[3] s = {0, 2, 3}, float[1] slope = {0.25}> {
      p = PRelu(X, slope)
      Y = Reshape(p, s)
    })ONNX");
}

TEST(SwapUnaryPattern, RejectsSharedTranspose) {
  ExpectNoMatch<SwapUnaryPattern>(R"ONNX(
    <ir_version: 8, opset_import: ["" : 18]>
    g (float[2,3] X) => (float[3,2] Y, float[3,2] W) {
      t = Transpose<perm=[1,0]>(X)
      Y = Relu(t)
      W = Exp(t)
    })ONNX", "t", "the output has other readers");
}

TEST(SwapUnaryPattern, RejectsTransposeThatIsAGraphOutput) {
  ExpectNoMatch<SwapUnaryPattern>(R"ONNX(
    <ir_version: 8, opset_import: ["" : 18]>
    g (float[2,3] X) => (float[3,2] Y, float[3,2] t) {
      t = Transpose<perm=[1,0]>(X)
      Y = Relu(t)
    })ONNX", "t", "the output has other readers");
}

TEST(SwapUnaryPattern, RejectsAddOfAVector) {
  ExpectNoMatch<SwapUnaryPattern>(R"ONNX(
    <ir_version: 8, opset_import: ["" : 18]>
    g (float[4,4] X, float[4] c) => (float[4,4] Y) {
      t = Transpose<perm=[1,0]>(X)
      Y = Add(t, c)
    })ONNX", "t", "the second input of the reader does not have the shape (1,)");
}

TEST(SwapUnaryPattern, RejectsAddOfAScalar) {
  ExpectNoMatch<SwapUnaryPattern>(R"ONNX(
    <ir_version: 8, opset_import: ["" : 18]>
    g (float[4,4] X, float c) => (float[4,4] Y) {
      t = Transpose<perm=[1,0]>(X)
      Y = Add(t, c)
    })ONNX", "t", "the second input of the reader does not have the shape (1,)");
}

TEST(SwapUnaryPattern, RejectsTheTransposeAsSecondOperand) {
  ExpectNoMatch<SwapUnaryPattern>(R"ONNX(
    <ir_version: 8, opset_import: ["" : 18]>
    g (float[4,4] X, float[1] c) => (float[4,4] Y) {
      t = Transpose<perm=[1,0]>(X)
      Y = Sub(c, t)
    })ONNX", "t", "the reader does not read the output as its first input, for one output");
}

TEST(SwapUnaryPattern, RejectsScalarInput) {
  ExpectNoMatch<SwapUnaryPattern>(R"ONNX(
    <ir_version: 8, opset_import: ["" : 18]>
    g (float X) => (float[1] Y) <int64[1] s = {1}> {
      t = Reshape(X, s)
      Y = Relu(t)
    })ONNX", "t", "the input is a scalar");
}

// Upstream moves it: the softmax would run along another axis.
TEST(SwapUnaryPattern, RejectsSoftmax) {
  ExpectNoMatch<SwapUnaryPattern>(R"ONNX(
    <ir_version: 8, opset_import: ["" : 18]>
    g (float[2,3] X) => (float[3,2] Y) {
      t = Transpose<perm=[1,0]>(X)
      Y = Softmax<axis=-1>(t)
    })ONNX", "t", "the reader is not an element-wise operator");
}

TEST(SwapUnaryPattern, RejectsPReluWithAVectorSlope) {
  ExpectNoMatch<SwapUnaryPattern>(R"ONNX(
    <ir_version: 8, opset_import: ["" : 18]>
    g (float[2,3] X) => (float[3,2] Y) <float[2] slope = {0.1, 0.2}> {
      t = Transpose<perm=[1,0]>(X)
      Y = PRelu(t, slope)
    })ONNX", "t", "an extra input of the reader is not a scalar");
}

// Mul(Reshape(X, []), c) has shape (1,): Reshape(Mul(X, c), []) would be a scalar.
TEST(SwapUnaryPattern, RejectsUnitOperandAfterAReshapeToAScalar) {
  ExpectNoMatch<SwapUnaryPattern>(R"ONNX(
    <ir_version: 8, opset_import: ["" : 18]>
    g (float[1] X, float[1] c) => (float[1] Y) <int64[0] s = {}> {
      t = Reshape(X, s)
      Y = Mul(t, c)
    })ONNX", "t", "the Reshape may give a scalar, which a (1,) operand of the reader enlarges");
}

// Reshapes alternating with element-wise nodes: swapping one pair per match, every Reshape
// moved below its reader at once and met the next reader, so that the chain only rotated
// (n iterations of n swaps). Reshapes to constant shapes without a 0 merge, one into
// another per match: t1 and t2 merge while t3 moves below the Sigmoid, then the two left.
constexpr std::string_view kAlternatingReshapes = R"ONNX(
  <ir_version: 8, opset_import: ["" : 18]>
  g (float[2,6] X) => (float[3,4] Y) <int64[1] flat = {-1}, int64[2] wide = {4, 3}, int64[2] tall = {3, -1}> {
    t1 = Reshape(X, flat)
    r = Relu(t1)
    t2 = Reshape(r, wide)
    n = Neg(t2)
    t3 = Reshape(n, tall)
    Y = Sigmoid(t3)
  })ONNX";

TEST(SwapUnaryPattern, MergesTheReshapesOfAnAlternatingChain) {
  ExpectRewrite<SwapUnaryPattern>(kAlternatingReshapes, R"ONNX(
    <ir_version: 8, opset_import: ["" : 18]>
    g (float[2,6] X) => (float[3,4] Y) <int64[2] tall = {3, -1}> {
      r = Relu(X)
      n = Neg(r)
      s = Sigmoid(n)
      Y = Reshape(s, tall)
    })ONNX");
  EXPECT_EQ(ApplicationsUntilConvergence(std::make_shared<SwapUnaryPattern>(), kAlternatingReshapes), 3u);
}

// Transposes compose (output axis i of the second is axis first[second[i]] of X).
TEST(SwapUnaryPattern, ComposesTheTransposesOfAChain) {
  ExpectRewrite<SwapUnaryPattern>(R"ONNX(
    <ir_version: 8, opset_import: ["" : 18]>
    g (float[2,3,4] X) => (float[3,4,2] Y) {
      t1 = Transpose<perm=[1,0,2]>(X)
      r = Relu(t1)
      t2 = Transpose<perm=[0,2,1]>(r)
      Y = Exp(t2)
    })ONNX", R"ONNX(
    <ir_version: 8, opset_import: ["" : 18]>
    g (float[2,3,4] X) => (float[3,4,2] Y) {
      r = Relu(X)
      e = Exp(r)
      Y = Transpose<perm=[1,2,0]>(e)
    })ONNX");
}

// Transposes that undo each other leave the element-wise nodes alone.
TEST(SwapUnaryPattern, DropsTransposesThatCancel) {
  ExpectRewrite<SwapUnaryPattern>(R"ONNX(
    <ir_version: 8, opset_import: ["" : 18]>
    g (float[2,3] X) => (float[2,3] Y) {
      t1 = Transpose<perm=[1,0]>(X)
      r = Relu(t1)
      t2 = Transpose<perm=[1,0]>(r)
      Y = Neg(t2)
    })ONNX", R"ONNX(
    <ir_version: 8, opset_import: ["" : 18]>
    g (float[2,3] X) => (float[2,3] Y) {
      r = Relu(X)
      Y = Neg(r)
    })ONNX");
}

// A 0 in the second shape copies a dimension of the first Reshape's output: the chain stops
// there; both Reshapes end below the element-wise nodes, not merged.
TEST(SwapUnaryPattern, DoesNotMergeAReshapeCopyingADimension) {
  ExpectRewrite<SwapUnaryPattern>(R"ONNX(
    <ir_version: 8, opset_import: ["" : 18]>
    g (float[2,6] X) => (float[3,4] Y) <int64[2] wide = {3, 4}, int64[2] same = {0, -1}> {
      t1 = Reshape(X, wide)
      r = Relu(t1)
      t2 = Reshape(r, same)
      Y = Neg(t2)
    })ONNX", R"ONNX(
    <ir_version: 8, opset_import: ["" : 18]>
    g (float[2,6] X) => (float[3,4] Y) <int64[2] wide = {3, 4}, int64[2] same = {0, -1}> {
      r = Relu(X)
      n = Neg(r)
      t1 = Reshape(n, wide)
      Y = Reshape(t1, same)
    })ONNX");
}
// Add-6 broadcasts only with broadcast=1: Add(T, c) of two (1,) operands needs none, Add(X, c)
// with X of shape (1, 1) would be invalid (an internal error, exit 3, before).
TEST(SwapUnaryPattern, RejectsOpsetsBeforeMultidirectionalBroadcasting) {
  ExpectNoMatch<SwapUnaryPattern>(R"ONNX(
    <ir_version: 3, opset_import: ["" : 6]>
    g (float[1,1] X) => (float[1] Y) <float[1] c = {2.0}, int64[1] s = {1}> {
      T = Reshape(X, s)
      Y = Add(T, c)
    })ONNX", "T", "the opset is older than 7");
}

}  // namespace
}  // namespace onnxopt::onnx_patterns
