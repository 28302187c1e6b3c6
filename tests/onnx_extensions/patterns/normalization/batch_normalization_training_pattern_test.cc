#include "onnx_extensions/patterns/normalization/batch_normalization_training_pattern.h"

#include <gtest/gtest.h>

#include "tests/onnx_extensions/patterns/pattern_test_util.h"

namespace onnxopt::onnx_patterns {
namespace {

using testing::ExpectNoMatch;
using testing::ExpectRewrite;

// Sums in another order than the fused kernel: float32 rounding, relative to values ~100.
constexpr double kTolerance = 1e-5;

// The per-channel Reshapes of the constant scale and bias are folded into initializers.
TEST(BatchNormalizationTrainingPattern, ExpandsWithTheBatchStatistics) {
  ExpectRewrite<BatchNormalizationTrainingPattern>(R"ONNX(
    <ir_version: 8, opset_import: ["" : 18]>
    bn_train (float[2,3,4,5] X) => (float[2,3,4,5] Y)
    <float[3] s = {1.0, 2.0, 3.0}, float[3] b = {100.0, 101.0, 102.0},
     float[3] m = {20.0, 21.0, 22.0}, float[3] v = {2.0, 3.0, 4.0}> {
      Y = BatchNormalization<epsilon = 0.5, momentum = 1.0, training_mode = 1>(X, s, b, m, v)
    })ONNX", R"ONNX(
    <ir_version: 8, opset_import: ["" : 18]>
    bn_train (float[2,3,4,5] X) => (float[2,3,4,5] Y)
    <int64[3] axes = {0, 2, 3}, float[1] eps = {0.5},
     float[1,3,1,1] s2 = {1.0, 2.0, 3.0}, float[1,3,1,1] b2 = {100.0, 101.0, 102.0}> {
      mean = ReduceMean<keepdims = 1>(X, axes)
      xc = Sub(X, mean)
      sq = Mul(xc, xc)
      var = ReduceMean<keepdims = 1>(sq, axes)
      ve = Add(var, eps)
      sd = Sqrt(ve)
      n = Div(xc, sd)
      ns = Mul(n, s2)
      Y = Add(ns, b2)
    })ONNX", kTolerance);
}

// A scale computed at run time is reshaped by a node that stays; rank 2 input, no spatial axes.
TEST(BatchNormalizationTrainingPattern, ReshapesAScaleGivenAsInput) {
  ExpectRewrite<BatchNormalizationTrainingPattern>(R"ONNX(
    <ir_version: 8, opset_import: ["" : 18]>
    g (float[N,3] X, float[3] s) => (float[N,3] Y)
    <float[3] b = {1.0, 0.0, -1.0}, float[3] m = {0.0, 0.0, 0.0}, float[3] v = {1.0, 1.0, 1.0}> {
      Y = BatchNormalization<training_mode = 1>(X, s, b, m, v)
    })ONNX", R"ONNX(
    <ir_version: 8, opset_import: ["" : 18]>
    g (float[N,3] X, float[3] s) => (float[N,3] Y)
    <int64[1] axes = {0}, float[1] eps = {0.00001}, int64[2] sh = {1, -1}, float[1,3] b2 = {1.0, 0.0, -1.0}> {
      mean = ReduceMean<keepdims = 1>(X, axes)
      xc = Sub(X, mean)
      sq = Mul(xc, xc)
      var = ReduceMean<keepdims = 1>(sq, axes)
      ve = Add(var, eps)
      sd = Sqrt(ve)
      s2 = Reshape(s, sh)
      n = Div(xc, sd)
      ns = Mul(n, s2)
      Y = Add(ns, b2)
    })ONNX", kTolerance);
}

// Upstream fires on training_mode=0 with momentum=1, where the stored statistics normalise.
TEST(BatchNormalizationTrainingPattern, RejectsInferenceMode) {
  ExpectNoMatch<BatchNormalizationTrainingPattern>(R"ONNX(
    <ir_version: 8, opset_import: ["" : 18]>
    g (float[2,3,4] X) => (float[2,3,4] Y)
    <float[3] s = {1.0, 2.0, 3.0}, float[3] b = {0.0, 0.0, 0.0}, float[3] m = {1.0, 1.0, 1.0},
     float[3] v = {2.0, 2.0, 2.0}> {
      Y = BatchNormalization(X, s, b, m, v)
    })ONNX", "Y", "the BatchNormalization is not in training mode");
  ExpectNoMatch<BatchNormalizationTrainingPattern>(R"ONNX(
    <ir_version: 8, opset_import: ["" : 18]>
    g (float[2,3,4] X) => (float[2,3,4] Y)
    <float[3] s = {1.0, 2.0, 3.0}, float[3] b = {0.0, 0.0, 0.0}, float[3] m = {1.0, 1.0, 1.0},
     float[3] v = {2.0, 2.0, 2.0}> {
      Y = BatchNormalization<momentum = 1.0, training_mode = 0>(X, s, b, m, v)
    })ONNX", "Y", "the BatchNormalization is not in training mode");
}

TEST(BatchNormalizationTrainingPattern, RejectsAConsumedRunningMean) {
  ExpectNoMatch<BatchNormalizationTrainingPattern>(R"ONNX(
    <ir_version: 8, opset_import: ["" : 18]>
    g (float[2,3,4] X) => (float[2,3,4] Y, float[3] Z)
    <float[3] s = {1.0, 2.0, 3.0}, float[3] b = {0.0, 0.0, 0.0}, float[3] m = {1.0, 1.0, 1.0},
     float[3] v = {2.0, 2.0, 2.0}> {
      Y, rm = BatchNormalization<training_mode = 1>(X, s, b, m, v)
      Z = Neg(rm)
    })ONNX", "Y", "the running mean output is used");
}

TEST(BatchNormalizationTrainingPattern, RejectsARunningVarianceThatIsAGraphOutput) {
  ExpectNoMatch<BatchNormalizationTrainingPattern>(R"ONNX(
    <ir_version: 8, opset_import: ["" : 18]>
    g (float[2,3,4] X) => (float[2,3,4] Y, float[3] rv)
    <float[3] s = {1.0, 2.0, 3.0}, float[3] b = {0.0, 0.0, 0.0}, float[3] m = {1.0, 1.0, 1.0},
     float[3] v = {2.0, 2.0, 2.0}> {
      Y, rm, rv = BatchNormalization<training_mode = 1>(X, s, b, m, v)
    })ONNX", "Y", "the running variance output is used");
}

TEST(BatchNormalizationTrainingPattern, RejectsOpset17) {
  ExpectNoMatch<BatchNormalizationTrainingPattern>(R"ONNX(
    <ir_version: 8, opset_import: ["" : 17]>
    g (float[2,3,4] X) => (float[2,3,4] Y)
    <float[3] s = {1.0, 2.0, 3.0}, float[3] b = {0.0, 0.0, 0.0}, float[3] m = {1.0, 1.0, 1.0},
     float[3] v = {2.0, 2.0, 2.0}> {
      Y = BatchNormalization<training_mode = 1>(X, s, b, m, v)
    })ONNX", "Y", "the main opset is below 18 (ReduceMean takes its axes as an input from 18)");
}

TEST(BatchNormalizationTrainingPattern, RejectsAnUnknownRank) {
  ExpectNoMatch<BatchNormalizationTrainingPattern>(R"ONNX(
    <ir_version: 8, opset_import: ["" : 18]>
    g (float X) => (float Y)
    <float[3] s = {1.0, 2.0, 3.0}, float[3] b = {0.0, 0.0, 0.0}, float[3] m = {1.0, 1.0, 1.0},
     float[3] v = {2.0, 2.0, 2.0}> {
      Y = BatchNormalization<training_mode = 1>(X, s, b, m, v)
    })ONNX", "Y", "the rank of X is unknown or below 2");
}

}  // namespace
}  // namespace onnxopt::onnx_patterns
