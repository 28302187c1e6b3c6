#include "onnx_extensions/patterns/canonicalization/clip_clip_pattern.h"

#include <gtest/gtest.h>

#include "tests/onnx_extensions/patterns/pattern_test_util.h"

namespace onnxopt::onnx_patterns {
namespace {

using testing::ExpectNoMatch;
using testing::ExpectRewrite;

TEST(ClipClipPattern, MergesMinimumThenMaximum) {
  ExpectRewrite<ClipClipPattern>(R"ONNX(
    <ir_version: 8, opset_import: ["" : 18]>
    g (float[N,C] X) => (float[N,C] Y) <float lo = {0.0}, float hi = {6.0}> {
      a = Clip(X, lo)
      Y = Clip(a, , hi)
    })ONNX", R"ONNX(
    <ir_version: 8, opset_import: ["" : 18]>
    g (float[N,C] X) => (float[N,C] Y) <float lo = {0.0}, float hi = {6.0}> {
      Y = Clip(X, lo, hi)
    })ONNX");
}

TEST(ClipClipPattern, MergesMaximumThenMinimumWhenOrdered) {
  ExpectRewrite<ClipClipPattern>(R"ONNX(
    <ir_version: 8, opset_import: ["" : 18]>
    g (float[N,C] X) => (float[N,C] Y) <float lo = {-0.5}, float hi = {0.5}> {
      a = Clip(X, , hi)
      Y = Clip(a, lo)
    })ONNX", R"ONNX(
    <ir_version: 8, opset_import: ["" : 18]>
    g (float[N,C] X) => (float[N,C] Y) <float lo = {-0.5}, float hi = {0.5}> {
      Y = Clip(X, lo, hi)
    })ONNX");
}

TEST(ClipClipPattern, RejectsMaximumThenLargerMinimum) {
  // The pair returns 1 everywhere; Clip(x, 1, 0) would return 0.
  ExpectNoMatch<ClipClipPattern>(R"ONNX(
    <ir_version: 8, opset_import: ["" : 18]>
    g (float[N,C] X) => (float[N,C] Y) <float lo = {1.0}, float hi = {0.0}> {
      a = Clip(X, , hi)
      Y = Clip(a, lo)
    })ONNX", "Y", "the minimum is not at most the maximum");
}

// 2^53 + 1 > 2^53, though both are 2^53 as doubles: the pair returns lo, the fused Clip hi.
TEST(ClipClipPattern, ComparesInt64BoundsAsIntegers) {
  ExpectNoMatch<ClipClipPattern>(R"ONNX(
    <ir_version: 8, opset_import: ["" : 18]>
    g (int64[N] X) => (int64[N] Y) <int64 lo = {9007199254740993}, int64 hi = {9007199254740992}> {
      a = Clip(X, , hi)
      Y = Clip(a, lo)
    })ONNX", "Y", "the minimum is not at most the maximum");
  ExpectRewrite<ClipClipPattern>(R"ONNX(
    <ir_version: 8, opset_import: ["" : 18]>
    g (int64[N] X) => (int64[N] Y) <int64 lo = {9007199254740992}, int64 hi = {9007199254740993}> {
      a = Clip(X, , hi)
      Y = Clip(a, lo)
    })ONNX", R"ONNX(
    <ir_version: 8, opset_import: ["" : 18]>
    g (int64[N] X) => (int64[N] Y) <int64 lo = {9007199254740992}, int64 hi = {9007199254740993}> {
      Y = Clip(X, lo, hi)
    })ONNX");
}

// 2^63 is negative as an int64: unsigned bounds are compared unsigned.
TEST(ClipClipPattern, ComparesUint64BoundsUnsigned) {
  ExpectRewrite<ClipClipPattern>(R"ONNX(
    <ir_version: 8, opset_import: ["" : 18]>
    g (uint64[N] X) => (uint64[N] Y) <uint64 lo = {1}, uint64 hi = {9223372036854775808}> {
      a = Clip(X, , hi)
      Y = Clip(a, lo)
    })ONNX", R"ONNX(
    <ir_version: 8, opset_import: ["" : 18]>
    g (uint64[N] X) => (uint64[N] Y) <uint64 lo = {1}, uint64 hi = {9223372036854775808}> {
      Y = Clip(X, lo, hi)
    })ONNX");
}

TEST(ClipClipPattern, RejectsMaximumThenDynamicMinimum) {
  ExpectNoMatch<ClipClipPattern>(R"ONNX(
    <ir_version: 8, opset_import: ["" : 18]>
    g (float[N,C] X, float lo) => (float[N,C] Y) <float hi = {0.0}> {
      a = Clip(X, , hi)
      Y = Clip(a, lo)
    })ONNX", "Y", "the first Clip sets the maximum and a bound is not a constant scalar");
}

TEST(ClipClipPattern, RejectsTwoMinimums) {
  ExpectNoMatch<ClipClipPattern>(R"ONNX(
    <ir_version: 8, opset_import: ["" : 18]>
    g (float[N,C] X) => (float[N,C] Y) <float a0 = {0.0}, float b0 = {1.0}> {
      a = Clip(X, a0)
      Y = Clip(a, b0)
    })ONNX", "Y", "both Clips set a minimum");
}

TEST(ClipClipPattern, RejectsNoMaximum) {
  ExpectNoMatch<ClipClipPattern>(R"ONNX(
    <ir_version: 8, opset_import: ["" : 18]>
    g (float[N,C] X) => (float[N,C] Y) <float lo = {0.0}> {
      a = Clip(X, lo)
      Y = Clip(a)
    })ONNX", "Y", "no Clip sets a maximum");
}

// The second Clip reads the first's output twice, as data and as its maximum: merged, the
// new Clip would read a value the batch removes (an internal error, found by mutating the
// graph of MergesMinimumThenMaximum). HasOneUse counts the two reads as two uses.
TEST(ClipClipPattern, RejectsABoundThatIsTheFirstClipsOutput) {
  ExpectNoMatch<ClipClipPattern>(R"ONNX(
    <ir_version: 8, opset_import: ["" : 18]>
    g (float[N,C] X) => (float[N,C] Y) <float lo = {0.0}> {
      a = Clip(X, lo)
      Y = Clip(a, , a)
    })ONNX", "Y", "the first Clip's output has another reader");
}

TEST(ClipClipPattern, RejectsIntermediateGraphOutput) {
  ExpectNoMatch<ClipClipPattern>(R"ONNX(
    <ir_version: 8, opset_import: ["" : 18]>
    g (float[N,C] X) => (float[N,C] Y, float[N,C] a) <float lo = {0.0}, float hi = {6.0}> {
      a = Clip(X, lo)
      Y = Clip(a, , hi)
    })ONNX", "Y", "the first Clip's output has another reader");
}

TEST(ClipClipPattern, RejectsAttributeBoundsBeforeOpset11) {
  ExpectNoMatch<ClipClipPattern>(R"ONNX(
    <ir_version: 8, opset_import: ["" : 10]>
    g (float[N,C] X) => (float[N,C] Y) {
      a = Clip<min=0.0>(X)
      Y = Clip<max=6.0>(a)
    })ONNX", "Y", "the Clip bounds are attributes before opset 11");
}

}  // namespace
}  // namespace onnxopt::onnx_patterns
