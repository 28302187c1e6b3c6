#include "onnx_extensions/patterns/layout/swap_unsqueeze_transpose_pattern.h"

#include <gtest/gtest.h>

#include "tests/onnx_extensions/patterns/pattern_test_util.h"

namespace onnxopt::onnx_patterns {
namespace {

using testing::ExpectNoMatch;
using testing::ExpectRewrite;

TEST(SwapUnsqueezeTransposePattern, TransposesBeforeUnsqueezing) {
  ExpectRewrite<SwapUnsqueezeTransposePattern>(R"ONNX(
    <ir_version: 8, opset_import: ["" : 18]>
    g (float[A,B,C] X) => (float[C,1,A,B] Y) <int64[1] ax = {1}> {
      u = Unsqueeze(X, ax)
      Y = Transpose<perm=[3,1,0,2]>(u)
    })ONNX", R"ONNX(
    <ir_version: 8, opset_import: ["" : 18]>
    g (float[A,B,C] X) => (float[C,1,A,B] Y) <int64[1] ax2 = {1}> {
      t = Transpose<perm=[2,0,1]>(X)
      Y = Unsqueeze(t, ax2)
    })ONNX");
}

// U = (A,1,B), p = [1,2,0]: Y = (1,B,A). The 1 lands where p[i] is the inserted axis
// (i = 0); upstream takes p[1] = 2 and gives (B,A,1).
TEST(SwapUnsqueezeTransposePattern, PlacesTheOnesWithTheInversePermutation) {
  ExpectRewrite<SwapUnsqueezeTransposePattern>(R"ONNX(
    <ir_version: 8, opset_import: ["" : 18]>
    g (float[A,B] X) => (float[1,B,A] Y) <int64[1] ax = {1}> {
      u = Unsqueeze(X, ax)
      Y = Transpose<perm=[1,2,0]>(u)
    })ONNX", R"ONNX(
    <ir_version: 8, opset_import: ["" : 18]>
    g (float[A,B] X) => (float[1,B,A] Y) <int64[1] ax2 = {0}> {
      t = Transpose<perm=[1,0]>(X)
      Y = Unsqueeze(t, ax2)
    })ONNX");
}

// Axes [-1, 0] of U = (1,A,B,1) are [3, 0]; p = [3,2,0,1] gives Y = (1,B,1,A).
TEST(SwapUnsqueezeTransposePattern, NormalizesUnsortedNegativeAxes) {
  ExpectRewrite<SwapUnsqueezeTransposePattern>(R"ONNX(
    <ir_version: 8, opset_import: ["" : 18]>
    g (float[A,B] X) => (float[1,B,1,A] Y) <int64[2] ax = {-1, 0}> {
      u = Unsqueeze(X, ax)
      Y = Transpose<perm=[3,2,0,1]>(u)
    })ONNX", R"ONNX(
    <ir_version: 8, opset_import: ["" : 18]>
    g (float[A,B] X) => (float[1,B,1,A] Y) <int64[2] ax2 = {0, 2}> {
      t = Transpose<perm=[1,0]>(X)
      Y = Unsqueeze(t, ax2)
    })ONNX");
}

TEST(SwapUnsqueezeTransposePattern, RejectsComputedAxes) {
  ExpectNoMatch<SwapUnsqueezeTransposePattern>(R"ONNX(
    <ir_version: 8, opset_import: ["" : 18]>
    g (float[A,B] X, int64[1] ax) => (float[?,?,?] Y) {
      u = Unsqueeze(X, ax)
      Y = Transpose<perm=[1,2,0]>(u)
    })ONNX", "Y", "the axes of the Unsqueeze are not a constant 1-D tensor");
}

TEST(SwapUnsqueezeTransposePattern, RejectsASharedUnsqueeze) {
  ExpectNoMatch<SwapUnsqueezeTransposePattern>(R"ONNX(
    <ir_version: 8, opset_import: ["" : 18]>
    g (float[A,B] X) => (float[1,B,A] Y, float[A,1,B] u) <int64[1] ax = {1}> {
      u = Unsqueeze(X, ax)
      Y = Transpose<perm=[1,2,0]>(u)
    })ONNX", "Y", "the output of the Unsqueeze has other readers");
}

TEST(SwapUnsqueezeTransposePattern, RejectsAReshapeInput) {
  ExpectNoMatch<SwapUnsqueezeTransposePattern>(R"ONNX(
    <ir_version: 8, opset_import: ["" : 18]>
    g (float[2,3] X) => (float[1,3,2] Y) <int64[3] s = {2, 1, 3}> {
      r = Reshape(X, s)
      Y = Transpose<perm=[1,2,0]>(r)
    })ONNX", "Y", "the input is not produced by an Unsqueeze");
}

TEST(SwapUnsqueezeTransposePattern, RejectsAMissingPerm) {
  ExpectNoMatch<SwapUnsqueezeTransposePattern>(R"ONNX(
    <ir_version: 8, opset_import: ["" : 18]>
    g (float[A,B] X) => (float[B,1,A] Y) <int64[1] ax = {1}> {
      u = Unsqueeze(X, ax)
      Y = Transpose(u)
    })ONNX", "Y", "a Transpose has no perm attribute");
}

TEST(SwapUnsqueezeTransposePattern, RejectsTheAttributeForm) {
  ExpectNoMatch<SwapUnsqueezeTransposePattern>(R"ONNX(
    <ir_version: 8, opset_import: ["" : 11]>
    g (float[A,B] X) => (float[1,B,A] Y) {
      u = Unsqueeze<axes=[1]>(X)
      Y = Transpose<perm=[1,2,0]>(u)
    })ONNX", "Y", "the Unsqueeze has no axes input");
}

}  // namespace
}  // namespace onnxopt::onnx_patterns
