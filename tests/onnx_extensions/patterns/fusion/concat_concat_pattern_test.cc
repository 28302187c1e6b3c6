#include "onnx_extensions/patterns/fusion/concat_concat_pattern.h"

#include <gtest/gtest.h>

#include "tests/onnx_extensions/patterns/pattern_test_util.h"

namespace onnxopt::onnx_patterns {
namespace {

using testing::ExpectNoMatch;
using testing::ExpectRewrite;

// Axis 1 and axis -1 of a rank-2 output are the same axis.
TEST(ConcatConcatPattern, SplicesTheInnerInputs) {
  ExpectRewrite<ConcatConcatPattern>(R"ONNX(
    <ir_version: 8, opset_import: ["" : 18]>
    g (float[N,2] A, float[N,3] B, float[N,4] C) => (float[N,11] Y) {
      t = Concat<axis=-1>(B, C)
      Y = Concat<axis=1>(A, t, A)
    })ONNX", R"ONNX(
    <ir_version: 8, opset_import: ["" : 18]>
    g (float[N,2] A, float[N,3] B, float[N,4] C) => (float[N,11] Y) {
      Y = Concat<axis=1>(A, B, C, A)
    })ONNX");
}

// The merged Concat takes the place of the outer one: r is computed after t.
TEST(ConcatConcatPattern, WaitsForInputsComputedAfterTheInnerConcat) {
  ExpectRewrite<ConcatConcatPattern>(R"ONNX(
    <ir_version: 8, opset_import: ["" : 18]>
    g (float[N,2] A, float[N,3] B) => (float[N,7] Y) {
      t = Concat<axis=1>(A, B)
      r = Relu(A)
      Y = Concat<axis=1>(t, r)
    })ONNX", R"ONNX(
    <ir_version: 8, opset_import: ["" : 18]>
    g (float[N,2] A, float[N,3] B) => (float[N,7] Y) {
      r = Relu(A)
      Y = Concat<axis=1>(A, B, r)
    })ONNX");
}

TEST(ConcatConcatPattern, RejectsAnotherAxis) {
  ExpectNoMatch<ConcatConcatPattern>(R"ONNX(
    <ir_version: 8, opset_import: ["" : 18]>
    g (float[2,3] A, float[2,3] B) => (float[4,6] Y) {
      t = Concat<axis=0>(A, B)
      Y = Concat<axis=1>(t, t)
    })ONNX", "Y", "no input is a Concat on the same axis with no other use");
}

TEST(ConcatConcatPattern, RejectsSharedInnerConcat) {
  ExpectNoMatch<ConcatConcatPattern>(R"ONNX(
    <ir_version: 8, opset_import: ["" : 18]>
    g (float[N,2] A, float[N,3] B) => (float[N,7] Y, float[N,5] t) {
      t = Concat<axis=1>(A, B)
      Y = Concat<axis=1>(A, t)
    })ONNX", "Y", "no input is a Concat on the same axis with no other use");
}

}  // namespace
}  // namespace onnxopt::onnx_patterns
