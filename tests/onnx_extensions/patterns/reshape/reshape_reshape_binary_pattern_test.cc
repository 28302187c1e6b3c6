#include "onnx_extensions/patterns/reshape/reshape_reshape_binary_pattern.h"

#include <gtest/gtest.h>

#include "tests/onnx_extensions/patterns/pattern_test_util.h"

namespace onnxopt::onnx_patterns {
namespace {

using testing::ExpectNoMatch;
using testing::ExpectRewrite;

TEST(ReshapeReshapeBinaryPattern, ReshapesAfterTheOperator) {
  ExpectRewrite<ReshapeReshapeBinaryPattern>(R"ONNX(
    <ir_version: 8, opset_import: ["" : 18]>
    g (float[N,4] X, float[N,4] Y) => (float[M,2] Z) <int64[2] s = {-1, 2}> {
      a = Reshape(X, s)
      b = Reshape(Y, s)
      Z = Add(a, b)
    })ONNX", R"ONNX(
    <ir_version: 8, opset_import: ["" : 18]>
    g (float[N,4] X, float[N,4] Y) => (float[M,2] Z) <int64[2] s = {-1, 2}> {
      t = Add(X, Y)
      Z = Reshape(t, s)
    })ONNX");
}

// Two shape tensors of equal values: the left one is kept. Mod keeps fmod.
TEST(ReshapeReshapeBinaryPattern, AcceptsEqualShapeConstantsAndKeepsAttributes) {
  ExpectRewrite<ReshapeReshapeBinaryPattern>(R"ONNX(
    <ir_version: 8, opset_import: ["" : 18]>
    g (float[2,6] X, float[2,6] Y) => (float[3,4] Z) <int64[2] s = {3, 4}, int64[2] s_copy = {3, 4}> {
      a = Reshape(X, s)
      b = Reshape(Y, s_copy)
      Z = Mod<fmod=1>(a, b)
    })ONNX", R"ONNX(
    <ir_version: 8, opset_import: ["" : 18]>
    g (float[2,6] X, float[2,6] Y) => (float[3,4] Z) <int64[2] s = {3, 4}> {
      t = Mod<fmod=1>(X, Y)
      Z = Reshape(t, s)
    })ONNX");
}

TEST(ReshapeReshapeBinaryPattern, RejectsDifferentShapes) {
  ExpectNoMatch<ReshapeReshapeBinaryPattern>(R"ONNX(
    <ir_version: 8, opset_import: ["" : 18]>
    g (float[8,8] X, float[8,8] Y) => (float[8,8] Z) <int64[2] s = {-1, 8}, int64[2] s2 = {8, -1}> {
      a = Reshape(X, s)
      b = Reshape(Y, s2)
      Z = Add(a, b)
    })ONNX", "Z", "the two Reshapes have different shapes");
}

TEST(ReshapeReshapeBinaryPattern, RejectsDifferentShapesBeforeTheReshapes) {
  ExpectNoMatch<ReshapeReshapeBinaryPattern>(R"ONNX(
    <ir_version: 8, opset_import: ["" : 18]>
    g (float[N,4] X, float[1,4] Y) => (float[?,2] Z) <int64[2] s = {-1, 2}> {
      a = Reshape(X, s)
      b = Reshape(Y, s)
      Z = Add(a, b)
    })ONNX", "Z", "the inputs of the Reshapes do not have the same shape");
}

TEST(ReshapeReshapeBinaryPattern, RejectsAReshapeThatIsAGraphOutput) {
  ExpectNoMatch<ReshapeReshapeBinaryPattern>(R"ONNX(
    <ir_version: 8, opset_import: ["" : 18]>
    g (float[N,4] X, float[N,4] Y) => (float[M,8] Z, float[M,8] a) <int64[2] s = {-1, 8}> {
      a = Reshape(X, s)
      b = Reshape(Y, s)
      Z = Add(a, b)
    })ONNX", "Z", "an input has other readers than the binary operator");
}

TEST(ReshapeReshapeBinaryPattern, RejectsAnInputWithoutReshape) {
  ExpectNoMatch<ReshapeReshapeBinaryPattern>(R"ONNX(
    <ir_version: 8, opset_import: ["" : 18]>
    g (float[N,4] X, float[M,8] B) => (float[M,8] Z) <int64[2] s = {-1, 8}> {
      a = Reshape(X, s)
      Z = Add(a, B)
    })ONNX", "Z", "an input is not produced by a plain Reshape (default domain, allowzero=0)");
}

TEST(ReshapeReshapeBinaryPattern, RejectsAnotherProducer) {
  ExpectNoMatch<ReshapeReshapeBinaryPattern>(R"ONNX(
    <ir_version: 8, opset_import: ["" : 18]>
    g (float[N,4] X, float[M,8] Y) => (float[M,8] Z) <int64[2] s = {-1, 8}> {
      a = Reshape(X, s)
      b = Neg(Y)
      Z = Add(a, b)
    })ONNX", "Z", "an input is not produced by a plain Reshape (default domain, allowzero=0)");
}

TEST(ReshapeReshapeBinaryPattern, RejectsComputedShapes) {
  ExpectNoMatch<ReshapeReshapeBinaryPattern>(R"ONNX(
    <ir_version: 8, opset_import: ["" : 18]>
    g (float[N,4] X, float[N,4] Y, int64[2] s) => (float[?,?] Z) {
      a = Reshape(X, s)
      b = Reshape(Y, s)
      Z = Add(a, b)
    })ONNX", "Z", "the shape of a Reshape is not constant");
}

TEST(ReshapeReshapeBinaryPattern, RejectsThreeInputs) {
  ExpectNoMatch<ReshapeReshapeBinaryPattern>(R"ONNX(
    <ir_version: 8, opset_import: ["" : 18]>
    g (float[N,4] X, float[N,4] Y, float[N,4] W) => (float[M,8] Z) <int64[2] s = {-1, 8}> {
      a = Reshape(X, s)
      b = Reshape(Y, s)
      c = Reshape(W, s)
      Z = Max(a, b, c)
    })ONNX", "Z", "the node is not a default-domain element-wise binary operator with two inputs");
}

// Add-6's axis -2 is axis 0 of the two-dim inputs, axis 1 of the three-dim ones the rewrite
// would add (an invalid node, exit 3, before).
TEST(ReshapeReshapeBinaryPattern, RejectsOpsetsBeforeMultidirectionalBroadcasting) {
  ExpectNoMatch<ReshapeReshapeBinaryPattern>(R"ONNX(
    <ir_version: 3, opset_import: ["" : 6]>
    g (float[2,3,2] x, float[2,3,2] y) => (float[2,6] z) <int64[2] s = {2, 6}> {
      a = Reshape(x, s)
      b = Reshape(y, s)
      z = Add <broadcast = 1, axis = -2> (a, b)
    })ONNX", "z", "the opset is older than 7");
}

}  // namespace
}  // namespace onnxopt::onnx_patterns
