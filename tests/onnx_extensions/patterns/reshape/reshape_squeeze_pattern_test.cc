#include "onnx_extensions/patterns/reshape/reshape_squeeze_pattern.h"

#include <gtest/gtest.h>

#include "tests/onnx_extensions/patterns/pattern_test_util.h"

namespace onnxopt::onnx_patterns {
namespace {

using testing::ExpectNoMatch;
using testing::ExpectRewrite;

TEST(ReshapeSqueezePattern, DropsTheSqueezedEntries) {
  ExpectRewrite<ReshapeSqueezePattern>(R"ONNX(
    <ir_version: 8, opset_import: ["" : 18]>
    g (float[N,24] X) => (float[N,4,6] Y) <int64[4] s = {0, 1, 4, 6}, int64[1] ax = {1}> {
      t = Reshape(X, s)
      Y = Squeeze(t, ax)
    })ONNX", R"ONNX(
    <ir_version: 8, opset_import: ["" : 18]>
    g (float[N,24] X) => (float[N,4,6] Y) <int64[3] s2 = {0, 4, 6}> {
      Y = Reshape(X, s2)
    })ONNX");
}

TEST(ReshapeSqueezePattern, DropsSeveralEntriesWithNegativeAxes) {
  ExpectRewrite<ReshapeSqueezePattern>(R"ONNX(
    <ir_version: 8, opset_import: ["" : 18]>
    g (float[N,24] X) => (float[N,24] Y) <int64[4] s = {0, 1, -1, 1}, int64[2] ax = {-1, 1}> {
      t = Reshape(X, s)
      Y = Squeeze(t, ax)
    })ONNX", R"ONNX(
    <ir_version: 8, opset_import: ["" : 18]>
    g (float[N,24] X) => (float[N,24] Y) <int64[2] s2 = {0, -1}> {
      Y = Reshape(X, s2)
    })ONNX");
}

TEST(ReshapeSqueezePattern, RejectsAZeroAfterTheSqueezedAxis) {
  ExpectNoMatch<ReshapeSqueezePattern>(R"ONNX(
    <ir_version: 8, opset_import: ["" : 18]>
    g (float[N,1,4,6] X) => (float[N,4,6] Y) <int64[4] s = {0, 1, 0, 6}, int64[1] ax = {1}> {
      t = Reshape(X, s)
      Y = Squeeze(t, ax)
    })ONNX", "Y", "a 0 of the shape follows a squeezed axis");
}

TEST(ReshapeSqueezePattern, RejectsASqueezedEntryOtherThanOne) {
  ExpectNoMatch<ReshapeSqueezePattern>(R"ONNX(
    <ir_version: 8, opset_import: ["" : 18]>
    g (float[N,1,6] X) => (float[N,6] Y) <int64[3] s = {0, 0, 6}, int64[1] ax = {1}> {
      t = Reshape(X, s)
      Y = Squeeze(t, ax)
    })ONNX", "Y", "a squeezed entry of the shape is not 1");
}

TEST(ReshapeSqueezePattern, RejectsASqueezeWithoutAxes) {
  ExpectNoMatch<ReshapeSqueezePattern>(R"ONNX(
    <ir_version: 8, opset_import: ["" : 18]>
    g (float[N,24] X) => (float[?,?] Y) <int64[4] s = {0, 1, 4, 6}> {
      t = Reshape(X, s)
      Y = Squeeze(t)
    })ONNX", "Y", "the node is not a default-domain Squeeze with an axes input");
}

TEST(ReshapeSqueezePattern, RejectsASharedReshape) {
  ExpectNoMatch<ReshapeSqueezePattern>(R"ONNX(
    <ir_version: 8, opset_import: ["" : 18]>
    g (float[N,24] X) => (float[N,4,6] Y, float[N,1,4,6] t) <int64[4] s = {0, 1, 4, 6}, int64[1] ax = {1}> {
      t = Reshape(X, s)
      Y = Squeeze(t, ax)
    })ONNX", "Y", "the output of the Reshape has other readers");
}

TEST(ReshapeSqueezePattern, RejectsAComputedShape) {
  ExpectNoMatch<ReshapeSqueezePattern>(R"ONNX(
    <ir_version: 8, opset_import: ["" : 18]>
    g (float[N,24] X, int64[4] s) => (float[?,?,?] Y) <int64[1] ax = {1}> {
      t = Reshape(X, s)
      Y = Squeeze(t, ax)
    })ONNX", "Y", "the shape of the Reshape is not constant");
}

TEST(ReshapeSqueezePattern, RejectsComputedAxes) {
  ExpectNoMatch<ReshapeSqueezePattern>(R"ONNX(
    <ir_version: 8, opset_import: ["" : 18]>
    g (float[N,24] X, int64[1] ax) => (float[?,?,?] Y) <int64[4] s = {0, 1, 4, 6}> {
      t = Reshape(X, s)
      Y = Squeeze(t, ax)
    })ONNX", "Y", "the axes of the Squeeze are not constant");
}

}  // namespace
}  // namespace onnxopt::onnx_patterns
