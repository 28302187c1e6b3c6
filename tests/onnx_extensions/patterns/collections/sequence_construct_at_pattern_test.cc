#include "onnx_extensions/patterns/collections/sequence_construct_at_pattern.h"

#include <gtest/gtest.h>

#include "tests/onnx_extensions/patterns/pattern_test_util.h"

namespace onnxopt::onnx_patterns {
namespace {

using testing::ExpectNoMatch;
using testing::ExpectRewrite;

TEST(SequenceConstructAtPattern, ReadsTheElementsDirectly) {
  ExpectRewrite<SequenceConstructAtPattern>(R"ONNX(
    <ir_version: 8, opset_import: ["" : 18]>
    g (float[N,4] A, float[M,4] B) => (float[N,4] Y, float[M,4] Z) <int64 i0 = {0}, int64 i1 = {1}> {
      seq = SequenceConstruct(A, B)
      Z = SequenceAt(seq, i1)
      Y = SequenceAt(seq, i0)
    })ONNX", R"ONNX(
    <ir_version: 8, opset_import: ["" : 18]>
    g (float[N,4] A, float[M,4] B) => (float[N,4] Y, float[M,4] Z) {
      Z = Identity(B)
      Y = Identity(A)
    })ONNX");
}

TEST(SequenceConstructAtPattern, RejectsAnElementNotRead) {
  ExpectNoMatch<SequenceConstructAtPattern>(R"ONNX(
    <ir_version: 8, opset_import: ["" : 18]>
    g (float[2] A, float[2] B, float[2] C) => (float[2] Y, float[2] Z) <int64 i0 = {0}, int64 i1 = {1}> {
      seq = SequenceConstruct(A, B, C)
      Y = SequenceAt(seq, i0)
      Z = SequenceAt(seq, i1)
    })ONNX", "seq", "the sequence does not have one SequenceAt per element");
}

TEST(SequenceConstructAtPattern, RejectsVariablePosition) {
  ExpectNoMatch<SequenceConstructAtPattern>(R"ONNX(
    <ir_version: 8, opset_import: ["" : 18]>
    g (float[2] A, float[2] B, int64 p) => (float[2] Y, float[2] Z) <int64 i0 = {0}> {
      seq = SequenceConstruct(A, B)
      Y = SequenceAt(seq, i0)
      Z = SequenceAt(seq, p)
    })ONNX", "seq", "a position is not a constant scalar");
}

TEST(SequenceConstructAtPattern, RejectsSequenceLength) {
  ExpectNoMatch<SequenceConstructAtPattern>(R"ONNX(
    <ir_version: 8, opset_import: ["" : 18]>
    g (float[2] A, float[2] B) => (float[2] Y, int64 L) <int64 i0 = {0}> {
      seq = SequenceConstruct(A, B)
      Y = SequenceAt(seq, i0)
      L = SequenceLength(seq)
    })ONNX", "seq", "a reader of the sequence is not a SequenceAt");
}

TEST(SequenceConstructAtPattern, RejectsNegativePosition) {
  ExpectNoMatch<SequenceConstructAtPattern>(R"ONNX(
    <ir_version: 8, opset_import: ["" : 18]>
    g (float[2] A, float[2] B) => (float[2] Y, float[2] Z) <int64 i0 = {0}, int64 m1 = {-1}> {
      seq = SequenceConstruct(A, B)
      Y = SequenceAt(seq, i0)
      Z = SequenceAt(seq, m1)
    })ONNX", "seq", "the positions are not 0, 1, ..., n-1");
}

}  // namespace
}  // namespace onnxopt::onnx_patterns
