#include "onnx_extensions/patterns/layout/squeeze_unsqueeze_pattern.h"

#include <gtest/gtest.h>

#include "tests/onnx_extensions/patterns/pattern_test_util.h"

namespace onnxopt::onnx_patterns {
namespace {

using testing::ExpectNoMatch;
using testing::ExpectRewrite;

TEST(SqueezeUnsqueezePattern, SqueezesTheOtherAxesOfTheInput) {
  ExpectRewrite<SqueezeUnsqueezePattern>(R"ONNX(
    <ir_version: 8, opset_import: ["" : 18]>
    g (float[N,D,1] X) => (float[N,D] Y) <int64[1] a1 = {1}, int64[2] a2 = {1, 3}> {
      u = Unsqueeze(X, a1)
      Y = Squeeze(u, a2)
    })ONNX", R"ONNX(
    <ir_version: 8, opset_import: ["" : 18]>
    g (float[N,D,1] X) => (float[N,D] Y) <int64[1] e = {2}> {
      Y = Squeeze(X, e)
    })ONNX");
}

// X (1,4): Unsqueeze [-1] gives (1,4,1); Squeeze [-1, 0] gives (4,). Upstream compares raw
// values and emits Squeeze(X, [-1]), which fails on the 4.
TEST(SqueezeUnsqueezePattern, NormalizesNegativeAxesBeforeComparing) {
  ExpectRewrite<SqueezeUnsqueezePattern>(R"ONNX(
    <ir_version: 8, opset_import: ["" : 18]>
    g (float[1,4] X) => (float[4] Y) <int64[1] a1 = {-1}, int64[2] a2 = {-1, 0}> {
      u = Unsqueeze(X, a1)
      Y = Squeeze(u, a2)
    })ONNX", R"ONNX(
    <ir_version: 8, opset_import: ["" : 18]>
    g (float[1,4] X) => (float[4] Y) <int64[1] e = {0}> {
      Y = Squeeze(X, e)
    })ONNX");
}

TEST(SqueezeUnsqueezePattern, CancelsAnUnsqueezeAndASqueezeOfTheSameAxis) {
  ExpectRewrite<SqueezeUnsqueezePattern>(R"ONNX(
    <ir_version: 8, opset_import: ["" : 18]>
    g (float[2,3] X) => (float[2,3] Y) <int64[1] a1 = {1}, int64[1] a2 = {-2}> {
      u = Unsqueeze(X, a1)
      y = Squeeze(u, a2)
      Y = Relu(y)
    })ONNX", R"ONNX(
    <ir_version: 8, opset_import: ["" : 18]>
    g (float[2,3] X) => (float[2,3] Y) {
      Y = Relu(X)
    })ONNX");
}

TEST(SqueezeUnsqueezePattern, CancelsASqueezeAndAnUnsqueezeOfTheSameAxes) {
  ExpectRewrite<SqueezeUnsqueezePattern>(R"ONNX(
    <ir_version: 8, opset_import: ["" : 18]>
    g (float[2,1,1,3] X) => (float[2,1,1,3] Y) <int64[2] a = {1, 2}> {
      s = Squeeze(X, a)
      y = Unsqueeze(s, a)
      Y = Relu(y)
    })ONNX", R"ONNX(
    <ir_version: 8, opset_import: ["" : 18]>
    g (float[2,1,1,3] X) => (float[2,1,1,3] Y) {
      Y = Relu(X)
    })ONNX");
}

// Without axes the Squeeze removes the static 1s of X, here [1, 2].
TEST(SqueezeUnsqueezePattern, ReadsASqueezeWithoutAxesFromAStaticShape) {
  ExpectRewrite<SqueezeUnsqueezePattern>(R"ONNX(
    <ir_version: 8, opset_import: ["" : 18]>
    g (float[2,1,1,3] X) => (float[2,1,1,3] Y) <int64[2] a = {1, 2}> {
      s = Squeeze(X)
      y = Unsqueeze(s, a)
      Y = Relu(y)
    })ONNX", R"ONNX(
    <ir_version: 8, opset_import: ["" : 18]>
    g (float[2,1,1,3] X) => (float[2,1,1,3] Y) {
      Y = Relu(X)
    })ONNX");
}

TEST(SqueezeUnsqueezePattern, SqueezesEverythingWhenTheSqueezeHasNoAxes) {
  ExpectRewrite<SqueezeUnsqueezePattern>(R"ONNX(
    <ir_version: 8, opset_import: ["" : 18]>
    g (float[N,1] X) => (float[N] Y) <int64[1] a1 = {0}> {
      u = Unsqueeze(X, a1)
      Y = Squeeze(u)
    })ONNX", R"ONNX(
    <ir_version: 8, opset_import: ["" : 18]>
    g (float[N,1] X) => (float[N] Y) {
      Y = Squeeze(X)
    })ONNX");
}

TEST(SqueezeUnsqueezePattern, KeepsASharedFirstNode) {
  ExpectRewrite<SqueezeUnsqueezePattern>(R"ONNX(
    <ir_version: 8, opset_import: ["" : 18]>
    g (float[2,3] X) => (float[2,3] Y, float[1,2,3] W) <int64[1] a = {0}> {
      u = Unsqueeze(X, a)
      W = Relu(u)
      y = Squeeze(u, a)
      Y = Neg(y)
    })ONNX", R"ONNX(
    <ir_version: 8, opset_import: ["" : 18]>
    g (float[2,3] X) => (float[2,3] Y, float[1,2,3] W) <int64[1] a = {0}> {
      u = Unsqueeze(X, a)
      W = Relu(u)
      Y = Neg(X)
    })ONNX");
}

TEST(SqueezeUnsqueezePattern, RejectsASqueezeThenAnUnsqueezeOfAnotherAxis) {
  ExpectNoMatch<SqueezeUnsqueezePattern>(R"ONNX(
    <ir_version: 8, opset_import: ["" : 18]>
    g (float[2,1,3] X) => (float[2,3,1] Y) <int64[1] a1 = {1}, int64[1] a2 = {2}> {
      s = Squeeze(X, a1)
      Y = Unsqueeze(s, a2)
    })ONNX", "Y", "the Unsqueeze does not restore the axes of the Squeeze");
}

TEST(SqueezeUnsqueezePattern, RejectsASubsetInTheWrongDirection) {
  ExpectNoMatch<SqueezeUnsqueezePattern>(R"ONNX(
    <ir_version: 8, opset_import: ["" : 18]>
    g (float[2,3] X) => (float[2,1,3] Y) <int64[2] a1 = {0, 2}, int64[1] a2 = {0}> {
      u = Unsqueeze(X, a1)
      Y = Squeeze(u, a2)
    })ONNX", "Y", "the axes of the Unsqueeze are not a strict subset of those of the Squeeze");
}

TEST(SqueezeUnsqueezePattern, RejectsTwoUnsqueezes) {
  ExpectNoMatch<SqueezeUnsqueezePattern>(R"ONNX(
    <ir_version: 8, opset_import: ["" : 18]>
    g (float[2,3] X) => (float[1,1,2,3] Y) <int64[1] a = {0}> {
      u = Unsqueeze(X, a)
      Y = Unsqueeze(u, a)
    })ONNX", "Y", "the input is not produced by a Squeeze");
}

// Upstream's restriction on equal lists of several axes.
TEST(SqueezeUnsqueezePattern, RejectsEqualAxesThatAreNotConsecutive) {
  ExpectNoMatch<SqueezeUnsqueezePattern>(R"ONNX(
    <ir_version: 8, opset_import: ["" : 18]>
    g (float[2,3] X) => (float[2,3] Y) <int64[2] a = {0, 2}> {
      u = Unsqueeze(X, a)
      Y = Squeeze(u, a)
    })ONNX", "Y", "the equal axes are not consecutive increasing");
}

// N may be 1 at run time, and then Squeeze() removes it too.
TEST(SqueezeUnsqueezePattern, RejectsASqueezeWithoutAxesOfASymbolicShape) {
  ExpectNoMatch<SqueezeUnsqueezePattern>(R"ONNX(
    <ir_version: 8, opset_import: ["" : 18]>
    g (float[N,1] X) => (float[N,1] Y) <int64[1] a = {1}> {
      s = Squeeze(X)
      Y = Unsqueeze(s, a)
    })ONNX", "Y", "a Squeeze has no axes input and the shape of its input is not static");
}

TEST(SqueezeUnsqueezePattern, RejectsTheAttributeForm) {
  ExpectNoMatch<SqueezeUnsqueezePattern>(R"ONNX(
    <ir_version: 8, opset_import: ["" : 11]>
    g (float[2,1,3] X) => (float[2,3] Y) {
      u = Unsqueeze<axes=[1]>(X)
      Y = Squeeze<axes=[1, 2]>(u)
    })ONNX", "Y", "the axes are an attribute before opset 13");
}

TEST(SqueezeUnsqueezePattern, RejectsANegativeAxisWithoutTheRank) {
  ExpectNoMatch<SqueezeUnsqueezePattern>(R"ONNX(
    <ir_version: 8, opset_import: ["" : 18]>
    g (float[] X) => (float[?] Y) <int64[1] a1 = {0}, int64[1] a2 = {-1}> {
      u = Unsqueeze(X, a1)
      Y = Squeeze(u, a2)
    })ONNX", "Y", "an axis is negative and the rank is unknown");
}

TEST(SqueezeUnsqueezePattern, RejectsEmptySqueezeAxes) {
  ExpectNoMatch<SqueezeUnsqueezePattern>(R"ONNX(
    <ir_version: 8, opset_import: ["" : 18]>
    g (float[2,3] X) => (float[?,?,?] Y) <int64[1] a1 = {0}, int64[0] a2 = {}> {
      u = Unsqueeze(X, a1)
      Y = Squeeze(u, a2)
    })ONNX", "Y", "the axes of a Squeeze are empty");
}

}  // namespace
}  // namespace onnxopt::onnx_patterns
