#include "onnx_extensions/patterns/algebra/switch_order_binary_pattern.h"

#include <gtest/gtest.h>

#include "tests/onnx_extensions/patterns/pattern_test_util.h"

namespace onnxopt::onnx_patterns {
namespace {

using testing::ExpectNoMatch;
using testing::ExpectRewrite;

// Reassociated float sums and products: a few units in the last place.
constexpr double kTolerance = 1e-5;

TEST(SwitchOrderBinaryPattern, AddsTheSmallOperandsFirst) {
  ExpectRewrite<SwitchOrderBinaryPattern>(R"ONNX(
    <ir_version: 8, opset_import: ["" : 18]>
    g (float[2,3,4] X, float[1,1,4] Y, float[1,1,4] Z) => (float[2,3,4] F) {
      T = Add(X, Y)
      F = Add(T, Z)
    })ONNX", R"ONNX(
    <ir_version: 8, opset_import: ["" : 18]>
    g (float[2,3,4] X, float[1,1,4] Y, float[1,1,4] Z) => (float[2,3,4] F) {
      t = Add(Y, Z)
      F = Add(t, X)
    })ONNX", kTolerance);
}

// The inner node on the right; the ranks decide: W * s first.
TEST(SwitchOrderBinaryPattern, MultipliesAWeightByAScalarFirst) {
  ExpectRewrite<SwitchOrderBinaryPattern>(R"ONNX(
    <ir_version: 8, opset_import: ["" : 18]>
    g (float[N,4] X, float[4] W, float s) => (float[N,4] F) {
      T = Mul(X, W)
      F = Mul(s, T)
    })ONNX", R"ONNX(
    <ir_version: 8, opset_import: ["" : 18]>
    g (float[N,4] X, float[4] W, float s) => (float[N,4] F) {
      t = Mul(W, s)
      F = Mul(t, X)
    })ONNX", kTolerance);
}

// float16 with X = 0.001, W = s = 300: (X * W) * s = 90, (W * s) * X = inf * 0.001.
TEST(SwitchOrderBinaryPattern, RejectsFloat16Products) {
  ExpectNoMatch<SwitchOrderBinaryPattern>(R"ONNX(
    <ir_version: 8, opset_import: ["" : 18]>
    g (float16[N,4] X, float16[4] W, float16 s) => (float16[N,4] F) {
      T = Mul(X, W)
      F = Mul(s, T)
    })ONNX", "F", "a float16 product regrouped can overflow where the original grouping does not");
}

// Two constant scalars: their product, folded, is a normal float16 (1.7 * 0.33): regrouped.
TEST(SwitchOrderBinaryPattern, MultipliesFloat16ConstantScalarsFirst) {
  ExpectRewrite<SwitchOrderBinaryPattern>(R"ONNX(
    <ir_version: 8, opset_import: ["" : 18]>
    g (float16[N,4] X) => (float16[N,4] F) <float a32 = {1.7}, float b32 = {0.33}> {
      a = Cast<to=10>(a32)
      b = Cast<to=10>(b32)
      T = Mul(X, a)
      F = Mul(T, b)
    })ONNX", R"ONNX(
    <ir_version: 8, opset_import: ["" : 18]>
    g (float16[N,4] X) => (float16[N,4] F) <float a32 = {1.7}, float b32 = {0.33}> {
      a = Cast<to=10>(a32)
      b = Cast<to=10>(b32)
      t = Mul(a, b)
      F = Mul(t, X)
    })ONNX", 1e-2);
}

// float16 sums are regrouped: they overflow only near the type's limit, like float32 ones.
TEST(SwitchOrderBinaryPattern, AddsFloat16SmallOperandsFirst) {
  ExpectRewrite<SwitchOrderBinaryPattern>(R"ONNX(
    <ir_version: 8, opset_import: ["" : 18]>
    g (float16[N,4] X, float16[4] W, float16 s) => (float16[N,4] F) {
      T = Add(X, W)
      F = Add(s, T)
    })ONNX", R"ONNX(
    <ir_version: 8, opset_import: ["" : 18]>
    g (float16[N,4] X, float16[4] W, float16 s) => (float16[N,4] F) {
      t = Add(W, s)
      F = Add(t, X)
    })ONNX", 1e-2);
}

// Equal ranks: the first axis where the dims differ decides, a symbolic one is skipped.
TEST(SwitchOrderBinaryPattern, ComparesIntegerDimsOnEqualRanks) {
  ExpectRewrite<SwitchOrderBinaryPattern>(R"ONNX(
    <ir_version: 8, opset_import: ["" : 18]>
    g (float[N,1,8] X, float[N,6,1] Y, float[N,1,1] Z) => (float[N,6,8] F) {
      T = Add(X, Y)
      F = Add(T, Z)
    })ONNX", R"ONNX(
    <ir_version: 8, opset_import: ["" : 18]>
    g (float[N,1,8] X, float[N,6,1] Y, float[N,1,1] Z) => (float[N,6,8] F) {
      t = Add(X, Z)
      F = Add(t, Y)
    })ONNX", kTolerance);
}

// Upstream only ever evaluates the right inner node, which gives no better grouping here;
// the left one gives (Y + (U + V)) + X.
TEST(SwitchOrderBinaryPattern, TriesTheLeftInnerNodeFirst) {
  ExpectRewrite<SwitchOrderBinaryPattern>(R"ONNX(
    <ir_version: 8, opset_import: ["" : 18]>
    g (float[2,3,4] X, float[4] Y, float[4] U, float[4] V) => (float[2,3,4] F) {
      P = Add(X, Y)
      Q = Add(U, V)
      F = Add(P, Q)
    })ONNX", R"ONNX(
    <ir_version: 8, opset_import: ["" : 18]>
    g (float[2,3,4] X, float[4] Y, float[4] U, float[4] V) => (float[2,3,4] F) {
      Q = Add(U, V)
      t = Add(Y, Q)
      F = Add(t, X)
    })ONNX", kTolerance);
}

// Wrapping integer sums are associative: the values are equal.
TEST(SwitchOrderBinaryPattern, ReassociatesIntegerSums) {
  ExpectRewrite<SwitchOrderBinaryPattern>(R"ONNX(
    <ir_version: 8, opset_import: ["" : 18]>
    g (int32[5,3] X, int32[3] Y, int32 Z) => (int32[5,3] F) {
      T = Add(X, Y)
      F = Add(T, Z)
    })ONNX", R"ONNX(
    <ir_version: 8, opset_import: ["" : 18]>
    g (int32[5,3] X, int32[3] Y, int32 Z) => (int32[5,3] F) {
      t = Add(Y, Z)
      F = Add(t, X)
    })ONNX");
}

TEST(SwitchOrderBinaryPattern, RejectsOperandsOfTheSameShape) {
  ExpectNoMatch<SwitchOrderBinaryPattern>(R"ONNX(
    <ir_version: 8, opset_import: ["" : 18]>
    g (float[2,3,4] X, float[2,3,4] Y, float[2,3,4] W) => (float[2,3,4] Z) {
      T = Add(X, Y)
      Z = Add(T, W)
    })ONNX", "Z", "no other grouping gives a smaller intermediate result");
}

// Only symbolic dims differ: N and M may be 1, no grouping is provably smaller.
TEST(SwitchOrderBinaryPattern, RejectsDifferencesInSymbolicDimsOnly) {
  ExpectNoMatch<SwitchOrderBinaryPattern>(R"ONNX(
    <ir_version: 8, opset_import: ["" : 18]>
    g (float[N,1,4] X, float[1,M,4] Y, float[1,1,4] W) => (float[N,M,4] Z) {
      T = Add(X, Y)
      Z = Add(T, W)
    })ONNX", "Z", "no other grouping gives a smaller intermediate result");
}

TEST(SwitchOrderBinaryPattern, RejectsInnerNodeOfAnotherOpType) {
  ExpectNoMatch<SwitchOrderBinaryPattern>(R"ONNX(
    <ir_version: 8, opset_import: ["" : 18]>
    g (float[2,3,4] X, float[4] Y, float[4] W) => (float[2,3,4] Z) {
      T = Mul(X, Y)
      Z = Add(T, W)
    })ONNX", "Z", "no input is produced by a node of the same op type");
}

TEST(SwitchOrderBinaryPattern, RejectsSharedInnerNode) {
  ExpectNoMatch<SwitchOrderBinaryPattern>(R"ONNX(
    <ir_version: 8, opset_import: ["" : 18]>
    g (float[2,3,4] X, float[4] Y, float[4] W) => (float[2,3,4] Z, float[2,3,4] S) {
      T = Add(X, Y)
      Z = Add(T, W)
      S = Sigmoid(T)
    })ONNX", "Z", "the output of the inner node has other readers");
}

TEST(SwitchOrderBinaryPattern, RejectsUnknownInnerShape) {
  ExpectNoMatch<SwitchOrderBinaryPattern>(R"ONNX(
    <ir_version: 8, opset_import: ["" : 18]>
    g (float[2,3,4] X, float[?] Y, float[4] W) => (float[2,3,4] Z) {
      T = Add(X, Y)
      Z = Add(T, W)
    })ONNX", "Z", "the shape of an input of the inner node is not known");
}

TEST(SwitchOrderBinaryPattern, RejectsSumOfAValueWithItself) {
  ExpectNoMatch<SwitchOrderBinaryPattern>(R"ONNX(
    <ir_version: 8, opset_import: ["" : 18]>
    g (float[2,3,4] X, float[4] Y) => (float[2,3,4] Z) {
      T = Add(X, Y)
      Z = Add(T, T)
    })ONNX", "Z", "the node reads the same value twice");
}

// Add-6 broadcasts only its second input into its first: Add(Add(C, A), B) with the (3,)
// sum first would be invalid (an internal error, exit 3, before).
TEST(SwitchOrderBinaryPattern, RejectsOpsetsBeforeMultidirectionalBroadcasting) {
  ExpectNoMatch<SwitchOrderBinaryPattern>(R"ONNX(
    <ir_version: 3, opset_import: ["" : 6]>
    g (float[2,3] B, float[3] C, float[3] A) => (float[2,3] Z) {
      T = Add <broadcast = 1> (B, C)
      Z = Add <broadcast = 1> (T, A)
    })ONNX", "Z", "the opset is older than 7");
}

}  // namespace
}  // namespace onnxopt::onnx_patterns
