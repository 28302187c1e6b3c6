#include "onnx_extensions/patterns/matmul/switch_reshape_activation_pattern.h"

#include <gtest/gtest.h>

#include "tests/onnx_extensions/patterns/pattern_test_util.h"

namespace onnxopt::onnx_patterns {
namespace {

using testing::ExpectNoMatch;
using testing::ExpectRewrite;

TEST(SwitchReshapeActivationPattern, MovesReluBeforeATranspose) {
  ExpectRewrite<SwitchReshapeActivationPattern>(R"ONNX(
    <ir_version: 8, opset_import: ["" : 18]>
    switch_act (float[3,2,6,5] X, float[3,2,5,6] Y) => (float[3,6,2,6] Z)
    {
      mm = MatMul(X, Y)
      t = Transpose<perm = [0, 2, 1, 3]>(mm)
      Z = Relu(t)
    })ONNX", R"ONNX(
    <ir_version: 8, opset_import: ["" : 18]>
    switch_act (float[3,2,6,5] X, float[3,2,5,6] Y) => (float[3,6,2,6] Z)
    {
      mm = MatMul(X, Y)
      r = Relu(mm)
      Z = Transpose<perm = [0, 2, 1, 3]>(r)
    })ONNX");
}

TEST(SwitchReshapeActivationPattern, MovesAnActivationWithAttributesBeforeAReshapeOfAGemm) {
  ExpectRewrite<SwitchReshapeActivationPattern>(R"ONNX(
    <ir_version: 8, opset_import: ["" : 18]>
    g (float[4,3] X, float[3,6] W) => (float[2,2,6] Z)
    <int64[3] s = {2, 2, 6}>
    {
      mm = Gemm(X, W)
      r = Reshape(mm, s)
      Z = LeakyRelu<alpha = 0.2>(r)
    })ONNX", R"ONNX(
    <ir_version: 8, opset_import: ["" : 18]>
    g (float[4,3] X, float[3,6] W) => (float[2,2,6] Z)
    <int64[3] s = {2, 2, 6}>
    {
      mm = Gemm(X, W)
      a = LeakyRelu<alpha = 0.2>(mm)
      Z = Reshape(a, s)
    })ONNX");
}

// The Transpose keeps the last axis in place.
TEST(SwitchReshapeActivationPattern, MovesASoftmaxWhoseAxisStays) {
  ExpectRewrite<SwitchReshapeActivationPattern>(R"ONNX(
    <ir_version: 8, opset_import: ["" : 18]>
    g (float[3,2,6,5] X, float[3,2,5,6] Y) => (float[3,6,2,6] Z)
    {
      mm = MatMul(X, Y)
      t = Transpose<perm = [0, 2, 1, 3]>(mm)
      Z = Softmax<axis = -1>(t)
    })ONNX", R"ONNX(
    <ir_version: 8, opset_import: ["" : 18]>
    g (float[3,2,6,5] X, float[3,2,5,6] Y) => (float[3,6,2,6] Z)
    {
      mm = MatMul(X, Y)
      r = Softmax<axis = -1>(mm)
      Z = Transpose<perm = [0, 2, 1, 3]>(r)
    })ONNX");
}

// axis 2 of the [2,2,6] Reshape output is axis 1 of the [4,6] product.
TEST(SwitchReshapeActivationPattern, RenumbersThePositiveSoftmaxAxisAcrossAReshape) {
  ExpectRewrite<SwitchReshapeActivationPattern>(R"ONNX(
    <ir_version: 8, opset_import: ["" : 18]>
    g (float[4,3] X, float[3,6] W) => (float[2,2,6] Z)
    <int64[3] s = {2, 2, 6}>
    {
      mm = MatMul(X, W)
      r = Reshape(mm, s)
      Z = Softmax<axis = 2>(r)
    })ONNX", R"ONNX(
    <ir_version: 8, opset_import: ["" : 18]>
    g (float[4,3] X, float[3,6] W) => (float[2,2,6] Z)
    <int64[3] s = {2, 2, 6}>
    {
      mm = MatMul(X, W)
      a = Softmax<axis = 1>(mm)
      Z = Reshape(a, s)
    })ONNX");
}

TEST(SwitchReshapeActivationPattern, MovesAPReluWithAScalarSlope) {
  ExpectRewrite<SwitchReshapeActivationPattern>(R"ONNX(
    <ir_version: 8, opset_import: ["" : 18]>
    g (float[3,2,6,5] X, float[3,2,5,6] Y, float[1] slope) => (float[3,6,2,6] Z)
    {
      mm = MatMul(X, Y)
      t = Transpose<perm = [0, 2, 1, 3]>(mm)
      Z = PRelu(t, slope)
    })ONNX", R"ONNX(
    <ir_version: 8, opset_import: ["" : 18]>
    g (float[3,2,6,5] X, float[3,2,5,6] Y, float[1] slope) => (float[3,6,2,6] Z)
    {
      mm = MatMul(X, Y)
      r = PRelu(mm, slope)
      Z = Transpose<perm = [0, 2, 1, 3]>(r)
    })ONNX");
}

TEST(SwitchReshapeActivationPattern, RejectsATransposeWithAnotherReader) {
  ExpectNoMatch<SwitchReshapeActivationPattern>(R"ONNX(
    <ir_version: 8, opset_import: ["" : 18]>
    g (float[3,2,6,5] X, float[3,2,5,6] Y) => (float[3,6,2,6] Z, float[3,6,2,6] W) {
      mm = MatMul(X, Y)
      t = Transpose<perm = [0, 2, 1, 3]>(mm)
      Z = Relu(t)
      W = Neg(t)
    })ONNX", "Z", "the Reshape or Transpose output has other readers");
}

TEST(SwitchReshapeActivationPattern, RejectsATransposeThatIsAGraphOutput) {
  ExpectNoMatch<SwitchReshapeActivationPattern>(R"ONNX(
    <ir_version: 8, opset_import: ["" : 18]>
    g (float[3,2,6,5] X, float[3,2,5,6] Y) => (float[3,6,2,6] Z, float[3,6,2,6] t) {
      mm = MatMul(X, Y)
      t = Transpose<perm = [0, 2, 1, 3]>(mm)
      Z = Relu(t)
    })ONNX", "Z", "the Reshape or Transpose output has other readers");
}

TEST(SwitchReshapeActivationPattern, RejectsAProductWithAnotherReader) {
  ExpectNoMatch<SwitchReshapeActivationPattern>(R"ONNX(
    <ir_version: 8, opset_import: ["" : 18]>
    g (float[3,2,6,5] X, float[3,2,5,6] Y) => (float[3,6,2,6] Z, float[3,2,6,6] mm) {
      mm = MatMul(X, Y)
      t = Transpose<perm = [0, 2, 1, 3]>(mm)
      Z = Relu(t)
    })ONNX", "Z", "the output of the product has other readers");
}

TEST(SwitchReshapeActivationPattern, RejectsATransposeOfAnAdd) {
  ExpectNoMatch<SwitchReshapeActivationPattern>(R"ONNX(
    <ir_version: 8, opset_import: ["" : 18]>
    g (float[3,2,6,6] X, float[3,2,6,6] Y) => (float[3,6,2,6] Z) {
      s = Add(X, Y)
      t = Transpose<perm = [0, 2, 1, 3]>(s)
      Z = Relu(t)
    })ONNX", "Z", "the Reshape or Transpose does not read the output of a MatMul or a Gemm");
}

TEST(SwitchReshapeActivationPattern, RejectsSigmoid) {
  ExpectNoMatch<SwitchReshapeActivationPattern>(R"ONNX(
    <ir_version: 8, opset_import: ["" : 18]>
    g (float[3,2,6,5] X, float[3,2,5,6] Y) => (float[3,6,2,6] Z) {
      mm = MatMul(X, Y)
      t = Transpose<perm = [0, 2, 1, 3]>(mm)
      Z = Sigmoid(t)
    })ONNX", "Z", "the node is not one of the default-domain activations");
}

TEST(SwitchReshapeActivationPattern, RejectsASoftmaxWhoseAxisMoves) {
  ExpectNoMatch<SwitchReshapeActivationPattern>(R"ONNX(
    <ir_version: 8, opset_import: ["" : 18]>
    g (float[3,2,6,5] X, float[3,2,5,6] Y) => (float[3,2,6,6] Z) {
      mm = MatMul(X, Y)
      t = Transpose<perm = [0, 1, 3, 2]>(mm)
      Z = Softmax(t)
    })ONNX", "Z", "the Transpose moves the Softmax axis");
}

TEST(SwitchReshapeActivationPattern, RejectsASoftmaxOverMergedAxes) {
  ExpectNoMatch<SwitchReshapeActivationPattern>(R"ONNX(
    <ir_version: 8, opset_import: ["" : 18]>
    g (float[2,3,5] X, float[5,4] W) => (float[2,12] Z)
    <int64[2] s = {2, 12}>
    {
      mm = MatMul(X, W)
      r = Reshape(mm, s)
      Z = Softmax(r)
    })ONNX", "Z", "the Reshape changes the Softmax axis or an axis after it");
}

TEST(SwitchReshapeActivationPattern, RejectsASoftmaxBeforeOpset13) {
  ExpectNoMatch<SwitchReshapeActivationPattern>(R"ONNX(
    <ir_version: 7, opset_import: ["" : 11]>
    g (float[3,2,6,5] X, float[3,2,5,6] Y) => (float[3,6,2,6] Z) {
      mm = MatMul(X, Y)
      t = Transpose<perm = [0, 2, 1, 3]>(mm)
      Z = Softmax<axis = 3>(t)
    })ONNX", "Z", "Softmax normalizes the flattened trailing axes before opset 13");
}

TEST(SwitchReshapeActivationPattern, RejectsAPReluWithAVectorSlope) {
  ExpectNoMatch<SwitchReshapeActivationPattern>(R"ONNX(
    <ir_version: 8, opset_import: ["" : 18]>
    g (float[3,2,6,5] X, float[3,2,5,6] Y, float[6] slope) => (float[3,6,2,6] Z) {
      mm = MatMul(X, Y)
      t = Transpose<perm = [0, 2, 1, 3]>(mm)
      Z = PRelu(t, slope)
    })ONNX", "Z", "the PRelu slope is not known to have a single element");
}

}  // namespace
}  // namespace onnxopt::onnx_patterns
