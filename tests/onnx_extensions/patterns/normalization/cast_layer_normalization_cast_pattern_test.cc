#include "onnx_extensions/patterns/normalization/cast_layer_normalization_cast_pattern.h"

#include <gtest/gtest.h>

#include "tests/onnx_extensions/patterns/pattern_test_util.h"

namespace onnxopt::onnx_patterns {
namespace {

using testing::ExpectNoMatch;
using testing::ExpectRewrite;

// Scale, bias and the affine step in float16: a few float16 units on normalized values.
constexpr double kTolerance = 1e-2;

// The ONNX text parser of onnx 1.12 reads no float16 initializer: scale and bias are inputs
// here, and their Casts stay nodes.
TEST(CastLayerNormalizationCastPattern, NormalizesTheFloat16InputDirectly) {
  ExpectRewrite<CastLayerNormalizationCastPattern>(R"ONNX(
    <ir_version: 8, opset_import: ["" : 18]>
    cast_ln_cast (float16[3,4] X, float[4] scale, float[4] bias) => (float16[3,4] Y) {
      xc = Cast<to = 1>(X)
      n = LayerNormalization<axis = -1, stash_type = 1>(xc, scale, bias)
      Y = Cast<to = 10>(n)
    })ONNX", R"ONNX(
    <ir_version: 8, opset_import: ["" : 18]>
    cast_ln_cast (float16[3,4] X, float[4] scale, float[4] bias) => (float16[3,4] Y) {
      sc = Cast<to = 10>(scale)
      bc = Cast<to = 10>(bias)
      Y = LayerNormalization<axis = -1, stash_type = 1>(X, sc, bc)
    })ONNX", kTolerance);
}

// float computed in double: the Casts of the constant scale and bias are folded into float
// initializers.
TEST(CastLayerNormalizationCastPattern, FoldsTheCastsOfConstantScaleAndBias) {
  ExpectRewrite<CastLayerNormalizationCastPattern>(R"ONNX(
    <ir_version: 8, opset_import: ["" : 18]>
    g (float[3,4] X) => (float[3,4] Y)
    <double[4] scale = {0.5, 0.6, 0.7, 0.8}, double[4] bias = {-0.5, -0.6, -0.7, -0.8}> {
      xc = Cast<to = 11>(X)
      n = LayerNormalization<axis = -1, stash_type = 11>(xc, scale, bias)
      Y = Cast<to = 1>(n)
    })ONNX", R"ONNX(
    <ir_version: 8, opset_import: ["" : 18]>
    g (float[3,4] X) => (float[3,4] Y)
    <float[4] sc = {0.5, 0.6, 0.7, 0.8}, float[4] bc = {-0.5, -0.6, -0.7, -0.8}> {
      Y = LayerNormalization<axis = -1, stash_type = 11>(X, sc, bc)
    })ONNX", 1e-5);
}

// Scale given as an input: its Cast stays a node. RMSNormalization, without stash_type.
TEST(CastLayerNormalizationCastPattern, CastsAScaleGivenAsInput) {
  ExpectRewrite<CastLayerNormalizationCastPattern>(R"ONNX(
    <ir_version: 10, opset_import: ["" : 23]>
    g (float16[N,4] X, float[4] scale) => (float16[N,4] Y) {
      xc = Cast<to = 1>(X)
      n = RMSNormalization(xc, scale)
      Y = Cast<to = 10>(n)
    })ONNX", R"ONNX(
    <ir_version: 10, opset_import: ["" : 23]>
    g (float16[N,4] X, float[4] scale) => (float16[N,4] Y) {
      sc = Cast<to = 10>(scale)
      Y = RMSNormalization(X, sc)
    })ONNX", kTolerance);
}

TEST(CastLayerNormalizationCastPattern, KeepsTheDomainOfASimplifiedLayerNormalization) {
  ExpectRewrite<CastLayerNormalizationCastPattern>(R"ONNX(
    <ir_version: 8, opset_import: ["" : 18, "com.microsoft" : 1]>
    g (float16[N,4] X, float[4] scale) => (float16[N,4] Y) {
      xc = Cast<to = 1>(X)
      n = com.microsoft.SimplifiedLayerNormalization<epsilon = 0.001>(xc, scale)
      Y = Cast<to = 10>(n)
    })ONNX", R"ONNX(
    <ir_version: 8, opset_import: ["" : 18, "com.microsoft" : 1]>
    g (float16[N,4] X, float[4] scale) => (float16[N,4] Y) {
      sc = Cast<to = 10>(scale)
      Y = com.microsoft.SimplifiedLayerNormalization<epsilon = 0.001>(X, sc)
    })ONNX", kTolerance);
}

// stash_type exists on GroupNormalization from opset 21; the bias is cast too.
TEST(CastLayerNormalizationCastPattern, FusesAGroupNormalization) {
  ExpectRewrite<CastLayerNormalizationCastPattern>(R"ONNX(
    <ir_version: 10, opset_import: ["" : 21]>
    g (float16[2,4,3] X, float[4] scale, float[4] bias) => (float16[2,4,3] Y) {
      xc = Cast<to = 1>(X)
      n = GroupNormalization<num_groups = 2, stash_type = 1>(xc, scale, bias)
      Y = Cast<to = 10>(n)
    })ONNX", R"ONNX(
    <ir_version: 10, opset_import: ["" : 21]>
    g (float16[2,4,3] X, float[4] scale, float[4] bias) => (float16[2,4,3] Y) {
      sc = Cast<to = 10>(scale)
      bc = Cast<to = 10>(bias)
      Y = GroupNormalization<num_groups = 2, stash_type = 1>(X, sc, bc)
    })ONNX", kTolerance);
}

TEST(CastLayerNormalizationCastPattern, RejectsAnotherOperator) {
  ExpectNoMatch<CastLayerNormalizationCastPattern>(R"ONNX(
    <ir_version: 8, opset_import: ["" : 18, "custom" : 1]>
    g (float16[3,4] X, float[4] scale) => (float16[3,4] Y) {
      xc = Cast<to = 1>(X)
      n = custom.LayerNormalization(xc, scale)
      Y = Cast<to = 10>(n)
    })ONNX", "n", "the node is not a default-domain normalization nor a SimplifiedLayerNormalization");
}

TEST(CastLayerNormalizationCastPattern, RejectsACastToAnotherTypeThanTheStashType) {
  ExpectNoMatch<CastLayerNormalizationCastPattern>(R"ONNX(
    <ir_version: 8, opset_import: ["" : 18]>
    g (float[3,4] X, float16[4] scale) => (float[3,4] Y) {
      xc = Cast<to = 10>(X)
      n = LayerNormalization<stash_type = 1>(xc, scale)
      Y = Cast<to = 1>(n)
    })ONNX", "n", "the first Cast does not convert to the stash type");
}

TEST(CastLayerNormalizationCastPattern, RejectsACastBackToAnotherType) {
  ExpectNoMatch<CastLayerNormalizationCastPattern>(R"ONNX(
    <ir_version: 8, opset_import: ["" : 18]>
    g (bfloat16[3,4] X) => (float[3,4] Y) <float[4] scale = {1.0, 1.0, 1.0, 1.0}> {
      xc = Cast<to = 1>(X)
      n = LayerNormalization(xc, scale)
      Y = Cast<to = 1>(n)
    })ONNX", "n", "the second Cast does not convert back to the type of the first Cast's input");
}

TEST(CastLayerNormalizationCastPattern, RejectsACastOutputWithAnotherReader) {
  ExpectNoMatch<CastLayerNormalizationCastPattern>(R"ONNX(
    <ir_version: 8, opset_import: ["" : 18]>
    g (float16[3,4] X) => (float16[3,4] Y, float[3,4] Z) <float[4] scale = {1.0, 1.0, 1.0, 1.0}> {
      xc = Cast<to = 1>(X)
      n = LayerNormalization(xc, scale)
      Y = Cast<to = 10>(n)
      Z = Neg(xc)
    })ONNX", "n", "the output of the first Cast has other readers");
}

// Upstream does not look at InvStdDev, which would change type.
TEST(CastLayerNormalizationCastPattern, RejectsAUsedSecondaryOutput) {
  ExpectNoMatch<CastLayerNormalizationCastPattern>(R"ONNX(
    <ir_version: 8, opset_import: ["" : 18]>
    g (float16[3,4] X) => (float16[3,4] Y, float[3,1] inv) <float[4] scale = {1.0, 1.0, 1.0, 1.0}> {
      xc = Cast<to = 1>(X)
      n, mean, inv = LayerNormalization(xc, scale)
      Y = Cast<to = 10>(n)
    })ONNX", "n", "an output beyond the first is used");
}

}  // namespace
}  // namespace onnxopt::onnx_patterns
