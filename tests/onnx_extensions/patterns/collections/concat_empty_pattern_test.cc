#include "onnx_extensions/patterns/collections/concat_empty_pattern.h"

#include <gtest/gtest.h>

#include "tests/onnx_extensions/patterns/pattern_test_util.h"
#include "tests/support/test_support.h"

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

// An omitted input (which the ONNX text cannot write): rewritten, it became an Identity of ""
// that the driver refused (found by fuzz/mutate_pattern_graphs.py).
TEST(ConcatEmptyPattern, RejectsAnOmittedInput) {
  for (int omitted : {0, 1}) {
    ModelProto model = testing::ParseText(R"ONNX(
      <ir_version: 8, opset_import: ["" : 18]>
      g (float[0,3] A, float[0,3] B) => (float[0,3] Y) {
        c = Concat<axis=0>(A, B)
        Y = Neg(c)
      })ONNX");
    model.mutable_graph()->mutable_node(0)->set_input(omitted, "");
    ExpectNoMatch<ConcatEmptyPattern>(model, "c", "an input of the Concat is omitted (an empty name)");
  }
}

}  // namespace
}  // namespace onnxopt::onnx_patterns
