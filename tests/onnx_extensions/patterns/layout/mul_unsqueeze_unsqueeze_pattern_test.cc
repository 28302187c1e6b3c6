#include "onnx_extensions/patterns/layout/mul_unsqueeze_unsqueeze_pattern.h"

#include <gtest/gtest.h>

#include "tests/onnx_extensions/patterns/pattern_test_util.h"

namespace onnxopt::onnx_patterns {
namespace {

using testing::ExpectNoMatch;
using testing::ExpectRewrite;

TEST(MulUnsqueezeUnsqueezePattern, MultipliesBeforeUnsqueezing) {
  ExpectRewrite<MulUnsqueezeUnsqueezePattern>(R"ONNX(
    <ir_version: 8, opset_import: ["" : 18]>
    g (float[A,B] X, float[A,B] Y) => (float[A,B,1] Z) <int64[1] ax = {2}> {
      ux = Unsqueeze(X, ax)
      uy = Unsqueeze(Y, ax)
      Z = Mul(ux, uy)
    })ONNX", R"ONNX(
    <ir_version: 8, opset_import: ["" : 18]>
    g (float[A,B] X, float[A,B] Y) => (float[A,B,1] Z) <int64[1] ax = {2}> {
      t = Mul(X, Y)
      Z = Unsqueeze(t, ax)
    })ONNX");
}

// [-1] and [2] insert the same axis into rank-3 outputs; X and Y broadcast dim 0.
TEST(MulUnsqueezeUnsqueezePattern, ComparesNormalizedAxes) {
  ExpectRewrite<MulUnsqueezeUnsqueezePattern>(R"ONNX(
    <ir_version: 8, opset_import: ["" : 18]>
    g (float[2,3] X, float[1,3] Y) => (float[2,3,1] Z) <int64[1] ax = {-1}, int64[1] ay = {2}> {
      ux = Unsqueeze(X, ax)
      uy = Unsqueeze(Y, ay)
      Z = Mul(ux, uy)
    })ONNX", R"ONNX(
    <ir_version: 8, opset_import: ["" : 18]>
    g (float[2,3] X, float[1,3] Y) => (float[2,3,1] Z) <int64[1] ax = {-1}> {
      t = Mul(X, Y)
      Z = Unsqueeze(t, ax)
    })ONNX");
}

TEST(MulUnsqueezeUnsqueezePattern, RejectsDifferentAxes) {
  ExpectNoMatch<MulUnsqueezeUnsqueezePattern>(R"ONNX(
    <ir_version: 8, opset_import: ["" : 18]>
    g (float[2,3] X, float[2,3] Y) => (float[2,2,3,3] Z) <int64[1] a2 = {2}, int64[1] a1 = {1}> {
      ux = Unsqueeze(X, a2)
      uy = Unsqueeze(Y, a1)
      Z = Mul(ux, uy)
    })ONNX", "Z", "the two Unsqueezes insert different axes");
}

TEST(MulUnsqueezeUnsqueezePattern, RejectsAnUnsqueezeThatIsAGraphOutput) {
  ExpectNoMatch<MulUnsqueezeUnsqueezePattern>(R"ONNX(
    <ir_version: 8, opset_import: ["" : 18]>
    g (float[2,3] X, float[2,3] Y) => (float[2,3,1] Z, float[2,3,1] ux) <int64[1] ax = {2}> {
      ux = Unsqueeze(X, ax)
      uy = Unsqueeze(Y, ax)
      Z = Mul(ux, uy)
    })ONNX", "Z", "the output of an Unsqueeze has other readers");
}

TEST(MulUnsqueezeUnsqueezePattern, RejectsAReshapeInput) {
  ExpectNoMatch<MulUnsqueezeUnsqueezePattern>(R"ONNX(
    <ir_version: 8, opset_import: ["" : 18]>
    g (float[2,3] X, float[2,3] Y) => (float[2,3,1] Z) <int64[1] ax = {2}, int64[3] s = {2, 3, 1}> {
      ux = Unsqueeze(X, ax)
      uy = Reshape(Y, s)
      Z = Mul(ux, uy)
    })ONNX", "Z", "an input of the Mul is not produced by an Unsqueeze");
}

// (2,1,3) * (3,1) is (2,3,3); Unsqueeze(Mul(X, Y), [1]) would be (2,1,3) (upstream).
TEST(MulUnsqueezeUnsqueezePattern, RejectsInputsOfDifferentRanks) {
  ExpectNoMatch<MulUnsqueezeUnsqueezePattern>(R"ONNX(
    <ir_version: 8, opset_import: ["" : 18]>
    g (float[2,3] X, float[3] Y) => (float[2,3,3] Z) <int64[1] ax = {1}> {
      ux = Unsqueeze(X, ax)
      uy = Unsqueeze(Y, ax)
      Z = Mul(ux, uy)
    })ONNX", "Z", "the inputs of the Unsqueezes do not have the same known rank");
}

TEST(MulUnsqueezeUnsqueezePattern, RejectsComputedAxes) {
  ExpectNoMatch<MulUnsqueezeUnsqueezePattern>(R"ONNX(
    <ir_version: 8, opset_import: ["" : 18]>
    g (float[2,3] X, float[2,3] Y, int64[1] ax) => (float[?,?,?] Z) {
      ux = Unsqueeze(X, ax)
      uy = Unsqueeze(Y, ax)
      Z = Mul(ux, uy)
    })ONNX", "Z", "the axes of an Unsqueeze are not a constant 1-D tensor");
}

TEST(MulUnsqueezeUnsqueezePattern, RejectsTheSameUnsqueezeTwice) {
  ExpectNoMatch<MulUnsqueezeUnsqueezePattern>(R"ONNX(
    <ir_version: 8, opset_import: ["" : 18]>
    g (float[2,3] X) => (float[2,3,1] Z) <int64[1] ax = {2}> {
      ux = Unsqueeze(X, ax)
      Z = Mul(ux, ux)
    })ONNX", "Z", "the output of an Unsqueeze has other readers");
}

TEST(MulUnsqueezeUnsqueezePattern, RejectsOpset12) {
  ExpectNoMatch<MulUnsqueezeUnsqueezePattern>(R"ONNX(
    <ir_version: 8, opset_import: ["" : 12]>
    g (float[2,3] X, float[2,3] Y) => (float[2,3,1] Z) {
      ux = Unsqueeze<axes=[2]>(X)
      uy = Unsqueeze<axes=[2]>(Y)
      Z = Mul(ux, uy)
    })ONNX", "Z", "the opset is older than 13");
}

}  // namespace
}  // namespace onnxopt::onnx_patterns
