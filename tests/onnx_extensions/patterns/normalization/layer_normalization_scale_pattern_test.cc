#include "onnx_extensions/patterns/normalization/layer_normalization_scale_pattern.h"

#include <gtest/gtest.h>

#include "tests/onnx_extensions/patterns/pattern_test_util.h"
#include "tests/support/test_support.h"

namespace onnxopt::onnx_patterns {
namespace {

using testing::ExpectNoMatch;
using testing::ExpectRewrite;

// (n*g)*s becomes n*(g*s): one or two float32 units on values of magnitude ~1.
constexpr double kTolerance = 1e-5;

// g*s is constant: the driver folds it into an initializer.
TEST(LayerNormalizationScalePattern, FoldsMulAndAddIntoScaleAndBias) {
  ExpectRewrite<LayerNormalizationScalePattern>(R"ONNX(
    <ir_version: 8, opset_import: ["" : 18]>
    ln_scale (float[2,3] X) => (float[2,3] Y)
    <float[3] g = {-0.1, -0.01, -0.05}, float[3] s = {2.0, 3.0, 4.0}, float[3] c = {0.5, 0.25, 1.0}> {
      n = LayerNormalization<axis = -1>(X, g)
      m = Mul(n, s)
      Y = Add(m, c)
    })ONNX", R"ONNX(
    <ir_version: 8, opset_import: ["" : 18]>
    ln_scale (float[2,3] X) => (float[2,3] Y)
    <float[3] c = {0.5, 0.25, 1.0}, float[3] g2 = {-0.2, -0.03, -0.2}> {
      Y = LayerNormalization<axis = -1>(X, g2, c)
    })ONNX", kTolerance);
}

// With a bias: b*s + c. Values given as inputs stay nodes; the Mul reads s first.
constexpr const char* kScaleAndShift = R"ONNX(
    <ir_version: 8, opset_import: ["" : 18]>
    g (float[2,3] X, float[3] g, float[3] b, float[3] s, float[3] c) => (float[2,3] Y) {
      n = LayerNormalization<axis = -1, epsilon = 0.001>(X, g, b)
      m = Mul(s, n)
      Y = Add(c, m)
    })ONNX";

TEST(LayerNormalizationScalePattern, ScalesTheBiasBeforeAddingTheShift) {
  ExpectRewrite<LayerNormalizationScalePattern>(kScaleAndShift, R"ONNX(
    <ir_version: 8, opset_import: ["" : 18]>
    g (float[2,3] X, float[3] g, float[3] b, float[3] s, float[3] c) => (float[2,3] Y) {
      g2 = Mul(g, s)
      t = Mul(s, b)
      b2 = Add(t, c)
      Y = LayerNormalization<axis = -1, epsilon = 0.001>(X, g2, b2)
    })ONNX", kTolerance);
}

// The first model at opset 16: a default-domain LayerNormalization there is an operator no
// schema describes, whose scale may be of a type Mul does not take (found by
// mutate_pattern_graphs.py: a bfloat16 scale at opset 9 gave a Mul the driver refused).
TEST(LayerNormalizationScalePattern, RejectsAnOpsetWithoutLayerNormalization) {
  ModelProto model = testing::ParseText(kScaleAndShift);
  model.mutable_opset_import(0)->set_version(16);
  ExpectNoMatch<LayerNormalizationScalePattern>(model, "n", "the main opset is below 17 (LayerNormalization)");
}

// Upstream keeps b when only the Mul is folded: (n*g + b)*s is n*(g*s) + b*s. A scale of
// ones is replaced by s itself. The Mul's output is a graph output: no Add is folded.
TEST(LayerNormalizationScalePattern, ScalesTheBiasWithoutAnAdd) {
  ExpectRewrite<LayerNormalizationScalePattern>(R"ONNX(
    <ir_version: 8, opset_import: ["" : 18]>
    g (float[2,3] X, float[3] b, float[3] s) => (float[2,3] m) <float[3] g = {1.0, 1.0, 1.0}> {
      n = LayerNormalization(X, g, b)
      m = Mul(n, s)
    })ONNX", R"ONNX(
    <ir_version: 8, opset_import: ["" : 18]>
    g (float[2,3] X, float[3] b, float[3] s) => (float[2,3] m) {
      t = Mul(s, b)
      m = LayerNormalization(X, s, t)
    })ONNX", kTolerance);
}

// Upstream skips the shape check when the Mul's output has no reader.
TEST(LayerNormalizationScalePattern, RejectsAFullSizeFactor) {
  ExpectNoMatch<LayerNormalizationScalePattern>(R"ONNX(
    <ir_version: 8, opset_import: ["" : 18]>
    g (float[2,3] X, float[2,3] s) => (float[2,3] Y) <float[3] g = {1.0, 2.0, 3.0}> {
      n = LayerNormalization(X, g)
      m = Mul(n, s)
      Y = Neg(m)
    })ONNX", "n", "the other input of the Mul does not have the known shape of the scale");
  ExpectNoMatch<LayerNormalizationScalePattern>(R"ONNX(
    <ir_version: 8, opset_import: ["" : 18]>
    g (float[2,3] X, float[2,3] s) => (float[2,3] m) <float[3] g = {1.0, 2.0, 3.0}> {
      n = LayerNormalization(X, g)
      m = Mul(n, s)
    })ONNX", "n", "the other input of the Mul does not have the known shape of the scale");
}

TEST(LayerNormalizationScalePattern, RejectsAFullSizeShift) {
  ExpectNoMatch<LayerNormalizationScalePattern>(R"ONNX(
    <ir_version: 8, opset_import: ["" : 18]>
    g (float[2,3] X, float[2,3] c) => (float[2,3] Y) <float[3] g = {1.0, 2.0, 3.0}, float[3] s = {1.0, 2.0, 3.0}> {
      n = LayerNormalization(X, g)
      m = Mul(n, s)
      Y = Add(m, c)
    })ONNX", "n", "the other input of the Add does not have the known shape of the scale");
}

TEST(LayerNormalizationScalePattern, RejectsADeclaredMean) {
  ExpectNoMatch<LayerNormalizationScalePattern>(R"ONNX(
    <ir_version: 8, opset_import: ["" : 18]>
    g (float[2,3] X) => (float[2,3] Y) <float[3] g = {1.0, 2.0, 3.0}, float[3] s = {1.0, 2.0, 3.0}> {
      n, mean = LayerNormalization(X, g)
      Y = Mul(n, s)
    })ONNX", "n", "the LayerNormalization declares its Mean or InvStdDev output");
}

TEST(LayerNormalizationScalePattern, RejectsANormalizationWithAnotherReader) {
  ExpectNoMatch<LayerNormalizationScalePattern>(R"ONNX(
    <ir_version: 8, opset_import: ["" : 18]>
    g (float[2,3] X) => (float[2,3] Y, float[2,3] Z) <float[3] g = {1.0, 2.0, 3.0}, float[3] s = {1.0, 2.0, 3.0}> {
      n = LayerNormalization(X, g)
      Y = Mul(n, s)
      Z = Neg(n)
    })ONNX", "n", "the output is not read by a single Mul");
}

TEST(LayerNormalizationScalePattern, RejectsFloat16WhereTheProductOfTheScalesCanOverflow) {
  // G = S = 256 in an element: G*S is inf in float16 where (n*G)*S was not (0*inf: NaN).
  ExpectNoMatch<LayerNormalizationScalePattern>(R"ONNX(
    <ir_version: 8, opset_import: ["" : 18]>
    g (float16[N,3] X, float16[3] G, float16[3] S) => (float16[N,3] Y) {
      n = LayerNormalization<axis = -1>(X, G)
      Y = Mul(n, S)
    })ONNX", "n", "the element type is float16, where the product of the two scales can overflow");
}

}  // namespace
}  // namespace onnxopt::onnx_patterns
