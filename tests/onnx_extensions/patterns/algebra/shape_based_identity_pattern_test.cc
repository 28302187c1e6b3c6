#include "onnx_extensions/patterns/algebra/shape_based_identity_pattern.h"

#include <gtest/gtest.h>

#include "tests/onnx_extensions/patterns/pattern_test_util.h"

namespace onnxopt::onnx_patterns {
namespace {

using testing::ExpectNoMatch;
using testing::ExpectRewrite;

TEST(ShapeBasedIdentityPattern, RemovesASliceOfAWholeAxis) {
  ExpectRewrite<ShapeBasedIdentityPattern>(R"ONNX(
    <ir_version: 8, opset_import: ["" : 18]>
    g (float[N,8] X) => (float[N,8] Y) <int64[1] st = {0}, int64[1] en = {8}, int64[1] ax = {1}> {
      Y = Slice(X, st, en, ax)
    })ONNX", R"ONNX(
    <ir_version: 8, opset_import: ["" : 18]>
    g (float[N,8] X) => (float[N,8] Y) {
      Y = Identity(X)
    })ONNX");
}

// The end is the symbolic dim M itself, computed from the shape; unit steps are given.
TEST(ShapeBasedIdentityPattern, RemovesASliceToASymbolicEnd) {
  ExpectRewrite<ShapeBasedIdentityPattern>(R"ONNX(
    <ir_version: 8, opset_import: ["" : 18]>
    g (float[N,M] X) => (float[N,M] Y) <int64[1] st = {0}, int64[1] ax = {1}, int64[1] one = {1}> {
      en = Shape<start=1, end=2>(X)
      s = Slice(X, st, en, ax, one)
      Y = Relu(s)
    })ONNX", R"ONNX(
    <ir_version: 8, opset_import: ["" : 18]>
    g (float[N,M] X) => (float[N,M] Y) {
      Y = Relu(X)
    })ONNX");
}

// A step of -1 keeps the shape and reverses the elements.
TEST(ShapeBasedIdentityPattern, RejectsReversingStep) {
  ExpectNoMatch<ShapeBasedIdentityPattern>(R"ONNX(
    <ir_version: 8, opset_import: ["" : 18]>
    g (float[N,8] X) => (float[N,8] Y) <int64[1] st = {-1}, int64[1] en = {-9}, int64[1] ax = {1}, int64[1] back = {-1}> {
      Y = Slice(X, st, en, ax, back)
    })ONNX", "Y", "the steps are not the constant 1");
}

// Only unit steps are accepted, whatever the shapes (as upstream).
TEST(ShapeBasedIdentityPattern, RejectsStepOfTwo) {
  ExpectNoMatch<ShapeBasedIdentityPattern>(R"ONNX(
    <ir_version: 8, opset_import: ["" : 18]>
    g (float[N,1] X) => (float[N,1] Y) <int64[1] st = {0}, int64[1] en = {8}, int64[1] ax = {1}, int64[1] two = {2}> {
      Y = Slice(X, st, en, ax, two)
    })ONNX", "Y", "the steps are not the constant 1");
}

TEST(ShapeBasedIdentityPattern, RejectsVariableSteps) {
  ExpectNoMatch<ShapeBasedIdentityPattern>(R"ONNX(
    <ir_version: 8, opset_import: ["" : 18]>
    g (float[N,1] X, int64[1] steps) => (float[N,?] Y) <int64[1] st = {0}, int64[1] en = {8}, int64[1] ax = {1}> {
      Y = Slice(X, st, en, ax, steps)
    })ONNX", "Y", "the steps are not the constant 1");
}

TEST(ShapeBasedIdentityPattern, RejectsASmallerOutput) {
  ExpectNoMatch<ShapeBasedIdentityPattern>(R"ONNX(
    <ir_version: 8, opset_import: ["" : 18]>
    g (float[N,8] X) => (float[N,4] Y) <int64[1] st = {0}, int64[1] en = {4}, int64[1] ax = {1}> {
      Y = Slice(X, st, en, ax)
    })ONNX", "Y", "the Slice changes the shape");
}

TEST(ShapeBasedIdentityPattern, RejectsUnknownOutputShape) {
  ExpectNoMatch<ShapeBasedIdentityPattern>(R"ONNX(
    <ir_version: 8, opset_import: ["" : 18]>
    g (float[N,8] X, int64[1] en) => (float[N,?] Y) <int64[1] st = {0}, int64[1] ax = {1}> {
      Y = Slice(X, st, en, ax)
    })ONNX", "Y", "the shape of the input or of the output is not known");
}

}  // namespace
}  // namespace onnxopt::onnx_patterns
