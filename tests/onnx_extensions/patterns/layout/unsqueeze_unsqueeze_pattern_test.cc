#include "onnx_extensions/patterns/layout/unsqueeze_unsqueeze_pattern.h"

#include <gtest/gtest.h>

#include "tests/onnx_extensions/patterns/pattern_test_util.h"

namespace onnxopt::onnx_patterns {
namespace {

using testing::ExpectNoMatch;
using testing::ExpectRewrite;

TEST(UnsqueezeUnsqueezePattern, MergesTheAxes) {
  ExpectRewrite<UnsqueezeUnsqueezePattern>(R"ONNX(
    <ir_version: 8, opset_import: ["" : 18]>
    g (float[A,B] X) => (float[1,A,B,1] Y) <int64[1] a1 = {0}, int64[1] a2 = {3}> {
      u = Unsqueeze(X, a1)
      Y = Unsqueeze(u, a2)
    })ONNX", R"ONNX(
    <ir_version: 8, opset_import: ["" : 18]>
    g (float[A,B] X) => (float[1,A,B,1] Y) <int64[2] a = {0, 3}> {
      Y = Unsqueeze(X, a)
    })ONNX");
}

// [-1] then [-1] on (2,3) gives (2,3,1,1); upstream computes [-1, 0], i.e. (1,2,3,1).
TEST(UnsqueezeUnsqueezePattern, NormalizesNegativeAxes) {
  ExpectRewrite<UnsqueezeUnsqueezePattern>(R"ONNX(
    <ir_version: 8, opset_import: ["" : 18]>
    g (float[2,3] X) => (float[2,3,1,1] Y) <int64[1] a1 = {-1}, int64[1] a2 = {-1}> {
      u = Unsqueeze(X, a1)
      Y = Unsqueeze(u, a2)
    })ONNX", R"ONNX(
    <ir_version: 8, opset_import: ["" : 18]>
    g (float[2,3] X) => (float[2,3,1,1] Y) <int64[2] a = {2, 3}> {
      Y = Unsqueeze(X, a)
    })ONNX");
}

// [0] then [-1] on (2,3) gives (1,2,3,1); upstream computes [-1, 1].
TEST(UnsqueezeUnsqueezePattern, NormalizesTheSecondAxesAgainstTheFinalRank) {
  ExpectRewrite<UnsqueezeUnsqueezePattern>(R"ONNX(
    <ir_version: 8, opset_import: ["" : 18]>
    g (float[2,3] X) => (float[1,2,3,1] Y) <int64[1] a1 = {0}, int64[1] a2 = {-1}> {
      u = Unsqueeze(X, a1)
      Y = Unsqueeze(u, a2)
    })ONNX", R"ONNX(
    <ir_version: 8, opset_import: ["" : 18]>
    g (float[2,3] X) => (float[1,2,3,1] Y) <int64[2] a = {0, 3}> {
      Y = Unsqueeze(X, a)
    })ONNX");
}

// [3, 1] on (2,3) gives U = (2,1,3,1) (upstream asserts on unsorted axes); then [0]
// gives (1,2,1,3,1).
TEST(UnsqueezeUnsqueezePattern, AcceptsUnsortedAxes) {
  ExpectRewrite<UnsqueezeUnsqueezePattern>(R"ONNX(
    <ir_version: 8, opset_import: ["" : 18]>
    g (float[2,3] X) => (float[1,2,1,3,1] Y) <int64[2] a1 = {3, 1}, int64[1] a2 = {0}> {
      u = Unsqueeze(X, a1)
      Y = Unsqueeze(u, a2)
    })ONNX", R"ONNX(
    <ir_version: 8, opset_import: ["" : 18]>
    g (float[2,3] X) => (float[1,2,1,3,1] Y) <int64[3] a = {0, 2, 4}> {
      Y = Unsqueeze(X, a)
    })ONNX");
}

TEST(UnsqueezeUnsqueezePattern, KeepsASharedFirstUnsqueeze) {
  ExpectRewrite<UnsqueezeUnsqueezePattern>(R"ONNX(
    <ir_version: 8, opset_import: ["" : 18]>
    g (float[2,3] X) => (float[2,1,1,3] Y, float[2,1,3] W) <int64[1] a1 = {1}, int64[1] a2 = {1}> {
      u = Unsqueeze(X, a1)
      Y = Unsqueeze(u, a2)
      W = Relu(u)
    })ONNX", R"ONNX(
    <ir_version: 8, opset_import: ["" : 18]>
    g (float[2,3] X) => (float[2,1,1,3] Y, float[2,1,3] W) <int64[1] a1 = {1}, int64[2] a = {1, 2}> {
      u = Unsqueeze(X, a1)
      Y = Unsqueeze(X, a)
      W = Relu(u)
    })ONNX");
}

// Without the rank of X, single non-negative axes still compose.
TEST(UnsqueezeUnsqueezePattern, ComposesSingleAxesWithoutTheRank) {
  ExpectRewrite<UnsqueezeUnsqueezePattern>(R"ONNX(
    <ir_version: 8, opset_import: ["" : 18]>
    g (float[] X) => (float[] Y) <int64[1] a1 = {0}, int64[1] a2 = {1}> {
      u = Unsqueeze(X, a1)
      Y = Unsqueeze(u, a2)
    })ONNX", R"ONNX(
    <ir_version: 8, opset_import: ["" : 18]>
    g (float[] X) => (float[] Y) <int64[2] a = {0, 1}> {
      Y = Unsqueeze(X, a)
    })ONNX");
}

TEST(UnsqueezeUnsqueezePattern, RejectsComputedAxes) {
  ExpectNoMatch<UnsqueezeUnsqueezePattern>(R"ONNX(
    <ir_version: 8, opset_import: ["" : 18]>
    g (float[2,3] X, int64[1] a2) => (float[?,?,?,?] Y) <int64[1] a1 = {0}> {
      u = Unsqueeze(X, a1)
      Y = Unsqueeze(u, a2)
    })ONNX", "u", "the axes of the second Unsqueeze are not a constant 1-D tensor");
}

TEST(UnsqueezeUnsqueezePattern, RejectsASqueezeReader) {
  ExpectNoMatch<UnsqueezeUnsqueezePattern>(R"ONNX(
    <ir_version: 8, opset_import: ["" : 18]>
    g (float[2,3] X) => (float[2,3] Y) <int64[1] a1 = {0}> {
      u = Unsqueeze(X, a1)
      Y = Squeeze(u, a1)
    })ONNX", "u", "no Unsqueeze reads the output");
}

TEST(UnsqueezeUnsqueezePattern, RejectsSeveralAxesWithoutTheRank) {
  ExpectNoMatch<UnsqueezeUnsqueezePattern>(R"ONNX(
    <ir_version: 8, opset_import: ["" : 18]>
    g (float[] X) => (float[?] Y) <int64[2] a1 = {0, 2}, int64[1] a2 = {0}> {
      u = Unsqueeze(X, a1)
      Y = Unsqueeze(u, a2)
    })ONNX", "u", "the rank of the input is unknown and an Unsqueeze has several axes");
}

TEST(UnsqueezeUnsqueezePattern, RejectsANegativeAxisWithoutTheRank) {
  ExpectNoMatch<UnsqueezeUnsqueezePattern>(R"ONNX(
    <ir_version: 8, opset_import: ["" : 18]>
    g (float[] X) => (float[?] Y) <int64[1] a1 = {-1}, int64[1] a2 = {0}> {
      u = Unsqueeze(X, a1)
      Y = Unsqueeze(u, a2)
    })ONNX", "u", "the rank of the input is unknown and an axis is negative");
}

TEST(UnsqueezeUnsqueezePattern, RejectsTheAttributeForm) {
  ExpectNoMatch<UnsqueezeUnsqueezePattern>(R"ONNX(
    <ir_version: 8, opset_import: ["" : 11]>
    g (float[2,3] X) => (float[1,1,2,3] Y) {
      u = Unsqueeze<axes=[0]>(X)
      Y = Unsqueeze<axes=[0]>(u)
    })ONNX", "u", "the node is not a default-domain Unsqueeze with an axes input");
}

}  // namespace
}  // namespace onnxopt::onnx_patterns
