#include "onnx_extensions/patterns/normalization/layer_normalization_pattern.h"

#include <gtest/gtest.h>

#include "tests/onnx_extensions/patterns/pattern_test_util.h"

namespace onnxopt::onnx_patterns {
namespace {

using testing::ExpectNoMatch;
using testing::ExpectRewrite;

// The fused kernel sums in its own order: float32 rounding on values of magnitude ~1.
constexpr double kTolerance = 1e-5;

TEST(LayerNormalizationPattern, FusesTheTextbookNormalization) {
  ExpectRewrite<LayerNormalizationPattern>(R"ONNX(
    <ir_version: 8, opset_import: ["" : 18]>
    ln_decomposed (float[2,3,8] X) => (float[2,3,8] Y)
    <int64[1] axes = {-1}, float[1] two = {2.0}, float[1] eps = {0.00001}> {
      mean = ReduceMean<keepdims = 1>(X, axes)
      xc = Sub(X, mean)
      sq = Pow(xc, two)
      var = ReduceMean<keepdims = 1>(sq, axes)
      ve = Add(var, eps)
      sd = Sqrt(ve)
      Y = Div(xc, sd)
    })ONNX", R"ONNX(
    <ir_version: 8, opset_import: ["" : 18]>
    ln_decomposed (float[2,3,8] X) => (float[2,3,8] Y)
    <float[8] ones = {1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0},
     float[8] zeros = {0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0}> {
      Y = LayerNormalization<axis = -1, epsilon = 0.00001, stash_type = 1>(X, ones, zeros)
    })ONNX", kTolerance);
}

// Trailing axes [1, 2] of a rank-3 input (keepdims absent: default 1): axis 1, and the
// scale and bias cover the two normalized dimensions. No Add: epsilon 0.
TEST(LayerNormalizationPattern, FusesTrailingAxesWithoutEpsilon) {
  ExpectRewrite<LayerNormalizationPattern>(R"ONNX(
    <ir_version: 8, opset_import: ["" : 18]>
    g (float[N,2,3] X) => (float[N,2,3] Y) <int64[2] axes = {1, 2}, float two = {2.0}> {
      mean = ReduceMean(X, axes)
      xc = Sub(X, mean)
      sq = Pow(xc, two)
      var = ReduceMean(sq, axes)
      sd = Sqrt(var)
      Y = Div(xc, sd)
    })ONNX", R"ONNX(
    <ir_version: 8, opset_import: ["" : 18]>
    g (float[N,2,3] X) => (float[N,2,3] Y)
    <float[2,3] ones = {1.0, 1.0, 1.0, 1.0, 1.0, 1.0}, float[2,3] zeros = {0.0, 0.0, 0.0, 0.0, 0.0, 0.0}> {
      Y = LayerNormalization<axis = 1, epsilon = 0.0, stash_type = 1>(X, ones, zeros)
    })ONNX", kTolerance);
}

// A symbolic last dimension: scale and bias take the shape of X at run time (the cleanup
// merges the two identical Shape nodes). double: stash_type 11, and the double epsilon
// rounded to the float attribute.
TEST(LayerNormalizationPattern, BuildsScaleAndBiasFromASymbolicShape) {
  ExpectRewrite<LayerNormalizationPattern>(R"ONNX(
    <ir_version: 8, opset_import: ["" : 18]>
    g (double[2,D] X) => (double[2,D] Y) <int64[1] axes = {-1}, double[1] two = {2.0}, double[1] eps = {0.001}> {
      mean = ReduceMean<keepdims = 1>(X, axes)
      xc = Sub(X, mean)
      sq = Pow(xc, two)
      var = ReduceMean<keepdims = 1>(sq, axes)
      ve = Add(var, eps)
      sd = Sqrt(ve)
      Y = Div(xc, sd)
    })ONNX", R"ONNX(
    <ir_version: 8, opset_import: ["" : 18]>
    g (double[2,D] X) => (double[2,D] Y) {
      s1 = Shape<start = -1>(X)
      ones = ConstantOfShape<value = double[1] {1.0}>(s1)
      zeros = ConstantOfShape<value = double[1] {0.0}>(s1)
      Y = LayerNormalization<axis = -1, epsilon = 0.001, stash_type = 11>(X, ones, zeros)
    })ONNX", kTolerance);
}

constexpr const char* kDifferentAxes = R"ONNX(
  <ir_version: 8, opset_import: ["" : 18]>
  g (float[2,3,8] X) => (float[2,3,8] Y)
  <int64[1] axes = {-1}, int64[1] axes2 = {-2}, float[1] two = {2.0}, float[1] eps = {0.00001}> {
    mean = ReduceMean<keepdims = 1>(X, axes)
    xc = Sub(X, mean)
    sq = Pow(xc, two)
    var = ReduceMean<keepdims = 1>(sq, axes2)
    ve = Add(var, eps)
    sd = Sqrt(ve)
    Y = Div(xc, sd)
  })ONNX";

TEST(LayerNormalizationPattern, RejectsDifferentAxes) {
  ExpectNoMatch<LayerNormalizationPattern>(kDifferentAxes, "var",
                                           "the axes are neither a constant [-1] nor the trailing axes in increasing order");
  ExpectNoMatch<LayerNormalizationPattern>(R"ONNX(
    <ir_version: 8, opset_import: ["" : 18]>
    g (float[2,3,8] X) => (float[2,3,8] Y)
    <int64[1] axes = {-1}, int64[1] axes2 = {2}, float[1] two = {2.0}, float[1] eps = {0.00001}> {
      mean = ReduceMean<keepdims = 1>(X, axes2)
      xc = Sub(X, mean)
      sq = Pow(xc, two)
      var = ReduceMean<keepdims = 1>(sq, axes)
      ve = Add(var, eps)
      sd = Sqrt(ve)
      Y = Div(xc, sd)
    })ONNX", "var", "the two ReduceMean nodes reduce different axes");
}

TEST(LayerNormalizationPattern, RejectsASquareWrittenAsMul) {
  ExpectNoMatch<LayerNormalizationPattern>(R"ONNX(
    <ir_version: 8, opset_import: ["" : 18]>
    g (float[2,8] X) => (float[2,8] Y) <int64[1] axes = {-1}, float[1] eps = {0.00001}> {
      mean = ReduceMean<keepdims = 1>(X, axes)
      xc = Sub(X, mean)
      sq = Mul(xc, xc)
      var = ReduceMean<keepdims = 1>(sq, axes)
      ve = Add(var, eps)
      sd = Sqrt(ve)
      Y = Div(xc, sd)
    })ONNX", "var", "the input is not produced by a Pow");
}

TEST(LayerNormalizationPattern, RejectsOpset13) {
  ExpectNoMatch<LayerNormalizationPattern>(R"ONNX(
    <ir_version: 8, opset_import: ["" : 13]>
    g (float[2,8] X) => (float[2,8] Y) <float[1] two = {2.0}, float[1] eps = {0.00001}> {
      mean = ReduceMean<axes = [-1]>(X)
      xc = Sub(X, mean)
      sq = Pow(xc, two)
      var = ReduceMean<axes = [-1]>(sq)
      ve = Add(var, eps)
      sd = Sqrt(ve)
      Y = Div(xc, sd)
    })ONNX", "var", "the ReduceMean does not take its axes as an input (opset 18)");
}

TEST(LayerNormalizationPattern, RejectsACentredInputWithAThirdReader) {
  ExpectNoMatch<LayerNormalizationPattern>(R"ONNX(
    <ir_version: 8, opset_import: ["" : 18]>
    g (float[2,8] X) => (float[2,8] Y, float[2,8] Z) <int64[1] axes = {-1}, float[1] two = {2.0}, float[1] eps = {0.00001}> {
      mean = ReduceMean<keepdims = 1>(X, axes)
      xc = Sub(X, mean)
      sq = Pow(xc, two)
      var = ReduceMean<keepdims = 1>(sq, axes)
      ve = Add(var, eps)
      sd = Sqrt(ve)
      Y = Div(xc, sd)
      Z = Neg(xc)
    })ONNX", "var", "the output of the Sub is not read by exactly the Pow and the Div");
}

TEST(LayerNormalizationPattern, RejectsAnEpsilonAddedFirst) {
  ExpectNoMatch<LayerNormalizationPattern>(R"ONNX(
    <ir_version: 8, opset_import: ["" : 18]>
    g (float[2,8] X) => (float[2,8] Y) <int64[1] axes = {-1}, float[1] two = {2.0}, float[1] eps = {0.00001}> {
      mean = ReduceMean<keepdims = 1>(X, axes)
      xc = Sub(X, mean)
      sq = Pow(xc, two)
      var = ReduceMean<keepdims = 1>(sq, axes)
      ve = Add(eps, var)
      sd = Sqrt(ve)
      Y = Div(xc, sd)
    })ONNX", "var", "the Add does not add a constant broadcast scalar as its second input");
}

TEST(LayerNormalizationPattern, RejectsAnIntermediateGraphOutput) {
  ExpectNoMatch<LayerNormalizationPattern>(R"ONNX(
    <ir_version: 8, opset_import: ["" : 18]>
    g (float[2,8] X) => (float[2,8] Y, float[2,1] var) <int64[1] axes = {-1}, float[1] two = {2.0}, float[1] eps = {0.00001}> {
      mean = ReduceMean<keepdims = 1>(X, axes)
      xc = Sub(X, mean)
      sq = Pow(xc, two)
      var = ReduceMean<keepdims = 1>(sq, axes)
      ve = Add(var, eps)
      sd = Sqrt(ve)
      Y = Div(xc, sd)
    })ONNX", "var", "the variance has other readers");
}

// Add broadcasts the (1,1,1) epsilon to rank 3: the chain's output has another shape.
TEST(LayerNormalizationPattern, RejectsAnEpsilonOfHigherRank) {
  ExpectNoMatch<LayerNormalizationPattern>(R"ONNX(
    <ir_version: 8, opset_import: ["" : 18]>
    g (float[2,8] X) => (float[1,2,8] Y) <int64[1] axes = {-1}, float[1] two = {2.0}, float[1,1,1] eps = {0.00001}> {
      mean = ReduceMean<keepdims = 1>(X, axes)
      xc = Sub(X, mean)
      sq = Pow(xc, two)
      var = ReduceMean<keepdims = 1>(sq, axes)
      ve = Add(var, eps)
      sd = Sqrt(ve)
      Y = Div(xc, sd)
    })ONNX", "var", "epsilon has a higher rank than the input");
}

TEST(LayerNormalizationPattern, RejectsAnotherExponent) {
  ExpectNoMatch<LayerNormalizationPattern>(R"ONNX(
    <ir_version: 8, opset_import: ["" : 18]>
    g (float[2,8] X) => (float[2,8] Y) <int64[1] axes = {-1}, float[1] three = {3.0}> {
      mean = ReduceMean<keepdims = 1>(X, axes)
      xc = Sub(X, mean)
      sq = Pow(xc, three)
      var = ReduceMean<keepdims = 1>(sq, axes)
      sd = Sqrt(var)
      Y = Div(xc, sd)
    })ONNX", "var", "the exponent of the Pow is not a constant broadcast scalar 2");
}

// The epsilon attribute is a float: float(1e-50) is 0, and a row of +-1e-30 would
// normalize to +-1.414 instead of +-1e-5.
TEST(LayerNormalizationPattern, RejectsADoubleEpsilonBelowTheFloatRange) {
  ExpectNoMatch<LayerNormalizationPattern>(R"ONNX(
    <ir_version: 8, opset_import: ["" : 18]>
    g (double[2,4] X) => (double[2,4] Y) <int64[1] axes = {-1}, double two = {2.0}, double eps = {1e-50}> {
      mean = ReduceMean<keepdims = 1>(X, axes)
      xc = Sub(X, mean)
      sq = Pow(xc, two)
      var = ReduceMean<keepdims = 1>(sq, axes)
      ve = Add(var, eps)
      sd = Sqrt(ve)
      Y = Div(xc, sd)
    })ONNX", "var", "epsilon is outside the normal range of a float (the float epsilon attribute would lose it)");
}

// On float16 the fused operator computes its statistics in float32: another precision.
TEST(LayerNormalizationPattern, RejectsFloat16) {
  ExpectNoMatch<LayerNormalizationPattern>(R"ONNX(
    <ir_version: 8, opset_import: ["" : 18]>
    g (float16[2,8] X) => (float16[2,8] Y) <int64[1] axes = {-1}, float[1] two32 = {2.0}> {
      two = Cast<to = 10>(two32)
      mean = ReduceMean<keepdims = 1>(X, axes)
      xc = Sub(X, mean)
      sq = Pow(xc, two)
      var = ReduceMean<keepdims = 1>(sq, axes)
      sd = Sqrt(var)
      Y = Div(xc, sd)
    })ONNX", "var", "the input is not float or double (the fused operator would change the precision)");
}

TEST(LayerNormalizationPattern, RejectsANormalizedSizeOfOne) {
  // The chain gives zeros; onnxruntime refuses LayerNormalization over one element.
  ExpectNoMatch<LayerNormalizationPattern>(R"ONNX(
    <ir_version: 8, opset_import: ["" : 18]>
    g (float[2,1] X) => (float[2,1] Y) <int64[1] axes = {-1}, float two = {2.0}, float eps = {0.00001}> {
      mean = ReduceMean(X, axes)
      xc = Sub(X, mean)
      sq = Pow(xc, two)
      var = ReduceMean(sq, axes)
      ve = Add(var, eps)
      sd = Sqrt(ve)
      Y = Div(xc, sd)
    })ONNX", "var", "the normalized dims hold fewer than two elements (onnxruntime refuses the fused operator)");
}

}  // namespace
}  // namespace onnxopt::onnx_patterns
