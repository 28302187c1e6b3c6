#include "onnx_extensions/patterns/collections/split_to_sequence_sequence_at_pattern.h"

#include <gtest/gtest.h>

#include "tests/onnx_extensions/patterns/pattern_test_util.h"

namespace onnxopt::onnx_patterns {
namespace {

using testing::ExpectNoMatch;
using testing::ExpectRewrite;

TEST(SplitToSequenceSequenceAtPattern, SplitsWithTheGivenSizes) {
  ExpectRewrite<SplitToSequenceSequenceAtPattern>(R"ONNX(
    <ir_version: 8, opset_import: ["" : 18]>
    g (float[N,6] X) => (float[N,2] Y1, float[N,4] Y2) <int64[2] sp = {2, 4}, int64 i0 = {0}, int64 i1 = {1}> {
      seq = SplitToSequence<axis=1>(X, sp)
      Y1 = SequenceAt(seq, i0)
      Y2 = SequenceAt(seq, i1)
    })ONNX", R"ONNX(
    <ir_version: 8, opset_import: ["" : 18]>
    g (float[N,6] X) => (float[N,2] Y1, float[N,4] Y2) <int64[2] sp = {2, 4}> {
      Y1, Y2 = Split<axis=1>(X, sp)
    })ONNX");
}

TEST(SplitToSequenceSequenceAtPattern, SplitsIntoOnesAndSqueezesWithoutKeepdims) {
  ExpectRewrite<SplitToSequenceSequenceAtPattern>(R"ONNX(
    <ir_version: 8, opset_import: ["" : 18]>
    g (float[N,2] X) => (float[N] Y1, float[N] Y2) <int64 i0 = {0}, int64[1] i1 = {1}> {
      seq = SplitToSequence<axis=-1, keepdims=0>(X)
      Y2 = SequenceAt(seq, i1)
      Y1 = SequenceAt(seq, i0)
    })ONNX", R"ONNX(
    <ir_version: 8, opset_import: ["" : 18]>
    g (float[N,2] X) => (float[N] Y1, float[N] Y2) <int64[1] ax = {-1}> {
      p1, p2 = Split<axis=-1, num_outputs=2>(X)
      Y1 = Squeeze(p1, ax)
      Y2 = Squeeze(p2, ax)
    })ONNX");
}

TEST(SplitToSequenceSequenceAtPattern, IgnoresKeepdimsWithSplitBeforeOpset18) {
  ExpectRewrite<SplitToSequenceSequenceAtPattern>(R"ONNX(
    <ir_version: 8, opset_import: ["" : 17]>
    g (float[6,N] X) => (float[1,N] Y1, float[5,N] Y2) <int64[2] sp = {1, 5}, int64 i0 = {0}, int64 i1 = {1}> {
      seq = SplitToSequence<keepdims=0>(X, sp)
      Y1 = SequenceAt(seq, i0)
      Y2 = SequenceAt(seq, i1)
    })ONNX", R"ONNX(
    <ir_version: 8, opset_import: ["" : 17]>
    g (float[6,N] X) => (float[1,N] Y1, float[5,N] Y2) <int64[2] sp = {1, 5}> {
      Y1, Y2 = Split<axis=0>(X, sp)
    })ONNX");
}

TEST(SplitToSequenceSequenceAtPattern, RejectsSequenceLength) {
  ExpectNoMatch<SplitToSequenceSequenceAtPattern>(R"ONNX(
    <ir_version: 8, opset_import: ["" : 18]>
    g (float[N,2] X) => (float[N,1] Y, int64 L) <int64 i0 = {0}> {
      seq = SplitToSequence<axis=1>(X)
      Y = SequenceAt(seq, i0)
      L = SequenceLength(seq)
    })ONNX", "seq", "a reader of the sequence is not a SequenceAt");
}

TEST(SplitToSequenceSequenceAtPattern, RejectsConcatFromSequence) {
  ExpectNoMatch<SplitToSequenceSequenceAtPattern>(R"ONNX(
    <ir_version: 8, opset_import: ["" : 18]>
    g (float[N,2] X) => (float[N,2] Y) {
      seq = SplitToSequence<axis=1>(X)
      Y = ConcatFromSequence<axis=1>(seq)
    })ONNX", "seq", "a reader of the sequence is not a SequenceAt");
}

TEST(SplitToSequenceSequenceAtPattern, RejectsPositionsWithAGap) {
  ExpectNoMatch<SplitToSequenceSequenceAtPattern>(R"ONNX(
    <ir_version: 8, opset_import: ["" : 18]>
    g (float[N,3] X) => (float[N,1] Y, float[N,1] Z) <int64 i0 = {0}, int64 i2 = {2}> {
      seq = SplitToSequence<axis=1>(X)
      Y = SequenceAt(seq, i0)
      Z = SequenceAt(seq, i2)
    })ONNX", "seq", "the positions are not 0, 1, ..., m-1");
}

TEST(SplitToSequenceSequenceAtPattern, RejectsVariablePosition) {
  ExpectNoMatch<SplitToSequenceSequenceAtPattern>(R"ONNX(
    <ir_version: 8, opset_import: ["" : 18]>
    g (float[N,2] X, int64 p) => (float[N,1] Y) {
      seq = SplitToSequence<axis=1>(X)
      Y = SequenceAt(seq, p)
    })ONNX", "seq", "a position is not a constant scalar");
}

TEST(SplitToSequenceSequenceAtPattern, RejectsSplitOfAnotherLength) {
  ExpectNoMatch<SplitToSequenceSequenceAtPattern>(R"ONNX(
    <ir_version: 8, opset_import: ["" : 18]>
    g (float[N,6] X) => (float[N,1] Y) <int64[3] sp = {1, 2, 3}, int64 i0 = {0}> {
      seq = SplitToSequence<axis=1>(X, sp)
      Y = SequenceAt(seq, i0)
    })ONNX", "seq", "the split input does not have one size per SequenceAt");
}

TEST(SplitToSequenceSequenceAtPattern, RejectsMoreChunksThanReaders) {
  ExpectNoMatch<SplitToSequenceSequenceAtPattern>(R"ONNX(
    <ir_version: 8, opset_import: ["" : 18]>
    g (float[N,3] X) => (float[N,1] Y, float[N,1] Z) <int64 i0 = {0}, int64 i1 = {1}> {
      seq = SplitToSequence<axis=1>(X)
      Y = SequenceAt(seq, i0)
      Z = SequenceAt(seq, i1)
    })ONNX", "seq", "the static size of the split axis is not the number of SequenceAt");
}

TEST(SplitToSequenceSequenceAtPattern, RejectsScalarSplit) {
  ExpectNoMatch<SplitToSequenceSequenceAtPattern>(R"ONNX(
    <ir_version: 8, opset_import: ["" : 18]>
    g (float[N,4] X) => (float[N,2] Y, float[N,2] Z) <int64 sp = {2}, int64 i0 = {0}, int64 i1 = {1}> {
      seq = SplitToSequence<axis=1>(X, sp)
      Y = SequenceAt(seq, i0)
      Z = SequenceAt(seq, i1)
    })ONNX", "seq", "the split input is not known to be 1-D");
}

// SplitToSequence takes int32 sizes; Split's split input is int64 only.
TEST(SplitToSequenceSequenceAtPattern, RejectsInt32Split) {
  ExpectNoMatch<SplitToSequenceSequenceAtPattern>(R"ONNX(
    <ir_version: 8, opset_import: ["" : 18]>
    g (float[N,6] X) => (float[N,2] Y, float[N,4] Z) <int32[2] sp = {2, 4}, int64 i0 = {0}, int64 i1 = {1}> {
      seq = SplitToSequence<axis=1>(X, sp)
      Y = SequenceAt(seq, i0)
      Z = SequenceAt(seq, i1)
    })ONNX", "seq", "the split input is not int64");
}

}  // namespace
}  // namespace onnxopt::onnx_patterns
