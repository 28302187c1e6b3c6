#include "onnx_extensions/patterns/collections/concat_empty_pattern.h"

#include <gtest/gtest.h>

#include "tests/onnx_extensions/patterns/pattern_test_util.h"

namespace onnxopt::onnx_patterns {
namespace {

using testing::ExpectNoMatch;
using testing::ExpectRewrite;

TEST(ConcatEmptyPattern, DropsEmptyInput) {
  ExpectRewrite<ConcatEmptyPattern>(R"ONNX(
    <ir_version: 8, opset_import: ["" : 18]>
    g (int64[2] A, int64[3] B) => (int64[5] Y) <int64[0] E = {}> {
      Y = Concat<axis=0>(A, E, B)
    })ONNX", R"ONNX(
    <ir_version: 8, opset_import: ["" : 18]>
    g (int64[2] A, int64[3] B) => (int64[5] Y) {
      Y = Concat<axis=0>(A, B)
    })ONNX");
}

TEST(ConcatEmptyPattern, NormalizesNegativeAxisAndLeavesIdentity) {
  ExpectRewrite<ConcatEmptyPattern>(R"ONNX(
    <ir_version: 8, opset_import: ["" : 18]>
    g (float[N,4] A, float[N,0] E) => (float[N,4] Y) {
      c = Concat<axis=-1>(E, A)
      Y = Neg(c)
    })ONNX", R"ONNX(
    <ir_version: 8, opset_import: ["" : 18]>
    g (float[N,4] A, float[N,0] E) => (float[N,4] Y) {
      Y = Neg(A)
    })ONNX");
}

TEST(ConcatEmptyPattern, KeepsOneInputWhenAllAreEmpty) {
  ExpectRewrite<ConcatEmptyPattern>(R"ONNX(
    <ir_version: 8, opset_import: ["" : 18]>
    g (float[0,3] A, float[0,3] B) => (float[0,3] Y) {
      c = Concat<axis=0>(A, B)
      Y = Neg(c)
    })ONNX", R"ONNX(
    <ir_version: 8, opset_import: ["" : 18]>
    g (float[0,3] A, float[0,3] B) => (float[0,3] Y) {
      Y = Neg(A)
    })ONNX");
}

TEST(ConcatEmptyPattern, RejectsSymbolicLength) {
  ExpectNoMatch<ConcatEmptyPattern>(R"ONNX(
    <ir_version: 8, opset_import: ["" : 18]>
    g (float[N,4] A, float[N,M] E) => (float[N,?] Y) {
      Y = Concat<axis=1>(A, E)
    })ONNX", "Y", "no input has a static zero length along the axis");
}

TEST(ConcatEmptyPattern, RejectsNonEmptyInputs) {
  ExpectNoMatch<ConcatEmptyPattern>(R"ONNX(
    <ir_version: 8, opset_import: ["" : 18]>
    g (int64[2] A, int64[3] B) => (int64[5] Y) {
      Y = Concat<axis=0>(A, B)
    })ONNX", "Y", "no input has a static zero length along the axis");
}

}  // namespace
}  // namespace onnxopt::onnx_patterns
