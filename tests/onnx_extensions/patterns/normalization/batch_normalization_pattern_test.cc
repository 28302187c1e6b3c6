#include "onnx_extensions/patterns/normalization/batch_normalization_pattern.h"

#include <gtest/gtest.h>

#include "tests/onnx_extensions/patterns/pattern_test_util.h"

namespace onnxopt::onnx_patterns {
namespace {

using testing::ExpectNoMatch;
using testing::ExpectRewrite;

TEST(BatchNormalizationPattern, ReplacesTheIdentityNormalizationByIdentity) {
  ExpectRewrite<BatchNormalizationPattern>(R"ONNX(
    <ir_version: 8, opset_import: ["" : 18]>
    bn_id (float[8,4] X) => (float[8,4] Y)
    <float[4] s = {1.0, 1.0, 1.0, 1.0}, float[4] b = {0.0, 0.0, 0.0, 0.0},
     float[4] m = {0.0, 0.0, 0.0, 0.0}, float[4] v = {1.0, 1.0, 1.0, 1.0}> {
      Y = BatchNormalization<epsilon = 0.0>(X, s, b, m, v)
    })ONNX", R"ONNX(
    <ir_version: 8, opset_import: ["" : 18]>
    bn_id (float[8,4] X) => (float[8,4] Y) {
      Y = Identity(X)
    })ONNX");
}

// Declared but unused running statistics go away with the node.
TEST(BatchNormalizationPattern, DropsUnusedRunningStatistics) {
  ExpectRewrite<BatchNormalizationPattern>(R"ONNX(
    <ir_version: 8, opset_import: ["" : 18]>
    g (float[2,3,5] X) => (float[2,3,5] Y)
    <float[3] s = {1.0, 1.0, 1.0}, float[3] b = {0.0, 0.0, 0.0}, float[3] m = {0.0, 0.0, 0.0},
     float[3] v = {1.0, 1.0, 1.0}> {
      Y, rm, rv = BatchNormalization<epsilon = 0.0, momentum = 0.5>(X, s, b, m, v)
    })ONNX", R"ONNX(
    <ir_version: 8, opset_import: ["" : 18]>
    g (float[2,3,5] X) => (float[2,3,5] Y) {
      Y = Identity(X)
    })ONNX");
}

// Before opset 14 (no training_mode) a single output means inference mode.
TEST(BatchNormalizationPattern, ReplacesASingleOutputNormalizationBeforeOpset14) {
  ExpectRewrite<BatchNormalizationPattern>(R"ONNX(
    <ir_version: 8, opset_import: ["" : 9]>
    g (float[8,4] X) => (float[8,4] Y)
    <float[4] s = {1.0, 1.0, 1.0, 1.0}, float[4] b = {0.0, 0.0, 0.0, 0.0},
     float[4] m = {0.0, 0.0, 0.0, 0.0}, float[4] v = {1.0, 1.0, 1.0, 1.0}> {
      Y = BatchNormalization<epsilon = 0.0>(X, s, b, m, v)
    })ONNX", R"ONNX(
    <ir_version: 8, opset_import: ["" : 9]>
    g (float[8,4] X) => (float[8,4] Y) {
      Y = Identity(X)
    })ONNX");
}

constexpr const char* kWithDefaultEpsilon = R"ONNX(
  <ir_version: 8, opset_import: ["" : 18]>
  g (float[8,4] X) => (float[8,4] Y)
  <float[4] s = {1.0, 1.0, 1.0, 1.0}, float[4] b = {0.0, 0.0, 0.0, 0.0},
   float[4] m = {0.0, 0.0, 0.0, 0.0}, float[4] v = {1.0, 1.0, 1.0, 1.0}> {
    Y = BatchNormalization(X, s, b, m, v)
  })ONNX";

TEST(BatchNormalizationPattern, RejectsTheDefaultEpsilon) {
  ExpectNoMatch<BatchNormalizationPattern>(kWithDefaultEpsilon, "Y", "epsilon is not 0");
}

TEST(BatchNormalizationPattern, RejectsANonZeroMean) {
  ExpectNoMatch<BatchNormalizationPattern>(R"ONNX(
    <ir_version: 8, opset_import: ["" : 18]>
    g (float[8,4] X) => (float[8,4] Y)
    <float[4] s = {1.0, 1.0, 1.0, 1.0}, float[4] b = {0.0, 0.0, 0.0, 0.0},
     float[4] m = {0.0, 0.5, 0.0, 0.0}, float[4] v = {1.0, 1.0, 1.0, 1.0}> {
      Y = BatchNormalization<epsilon = 0.0>(X, s, b, m, v)
    })ONNX", "Y", "B or mean has an element other than 0");
}

TEST(BatchNormalizationPattern, RejectsAVarianceOtherThanOne) {
  ExpectNoMatch<BatchNormalizationPattern>(R"ONNX(
    <ir_version: 8, opset_import: ["" : 18]>
    g (float[8,4] X) => (float[8,4] Y)
    <float[4] s = {1.0, 1.0, 1.0, 1.0}, float[4] b = {0.0, 0.0, 0.0, 0.0},
     float[4] m = {0.0, 0.0, 0.0, 0.0}, float[4] v = {1.0, 1.0, 2.0, 1.0}> {
      Y = BatchNormalization<epsilon = 0.0>(X, s, b, m, v)
    })ONNX", "Y", "scale or var has an element other than 1");
}

TEST(BatchNormalizationPattern, RejectsAScaleThatIsAGraphInput) {
  ExpectNoMatch<BatchNormalizationPattern>(R"ONNX(
    <ir_version: 8, opset_import: ["" : 18]>
    g (float[8,4] X, float[4] s) => (float[8,4] Y)
    <float[4] b = {0.0, 0.0, 0.0, 0.0}, float[4] m = {0.0, 0.0, 0.0, 0.0}, float[4] v = {1.0, 1.0, 1.0, 1.0}> {
      Y = BatchNormalization<epsilon = 0.0>(X, s, b, m, v)
    })ONNX", "Y", "scale, B, mean or var is not a constant");
}

// Upstream accepts training_mode=1 with momentum 0; the batch statistics normalise then.
TEST(BatchNormalizationPattern, RejectsTrainingModeWhateverTheMomentum) {
  ExpectNoMatch<BatchNormalizationPattern>(R"ONNX(
    <ir_version: 8, opset_import: ["" : 18]>
    g (float[8,4] X) => (float[8,4] Y)
    <float[4] s = {1.0, 1.0, 1.0, 1.0}, float[4] b = {0.0, 0.0, 0.0, 0.0},
     float[4] m = {0.0, 0.0, 0.0, 0.0}, float[4] v = {1.0, 1.0, 1.0, 1.0}> {
      Y = BatchNormalization<epsilon = 0.0, momentum = 0.0, training_mode = 1>(X, s, b, m, v)
    })ONNX", "Y", "the BatchNormalization is in training mode");
}

// Before opset 14 the number of outputs gives the mode: with five outputs, unused, the
// batch statistics normalise (onnxruntime does), not mean and var.
TEST(BatchNormalizationPattern, RejectsSeveralOutputsBeforeOpset14) {
  ExpectNoMatch<BatchNormalizationPattern>(R"ONNX(
    <ir_version: 8, opset_import: ["" : 9]>
    g (float[8,4] X) => (float[8,4] Y)
    <float[4] s = {1.0, 1.0, 1.0, 1.0}, float[4] b = {0.0, 0.0, 0.0, 0.0},
     float[4] m = {0.0, 0.0, 0.0, 0.0}, float[4] v = {1.0, 1.0, 1.0, 1.0}> {
      Y, rm, rv, sm, sv = BatchNormalization<epsilon = 0.0>(X, s, b, m, v)
    })ONNX", "Y", "the BatchNormalization has more than one output before opset 14 (training mode)");
}

TEST(BatchNormalizationPattern, RejectsARunningMeanThatIsAGraphOutput) {
  ExpectNoMatch<BatchNormalizationPattern>(R"ONNX(
    <ir_version: 8, opset_import: ["" : 18]>
    g (float[8,4] X) => (float[8,4] Y, float[4] rm)
    <float[4] s = {1.0, 1.0, 1.0, 1.0}, float[4] b = {0.0, 0.0, 0.0, 0.0},
     float[4] m = {0.0, 0.0, 0.0, 0.0}, float[4] v = {1.0, 1.0, 1.0, 1.0}> {
      Y, rm = BatchNormalization<epsilon = 0.0>(X, s, b, m, v)
    })ONNX", "Y", "the running mean or variance output is used");
}

}  // namespace
}  // namespace onnxopt::onnx_patterns
