#include "onnx_extensions/patterns/normalization/softmax_cross_entropy_loss_cast_pattern.h"

#include <gtest/gtest.h>

#include <string>

#include "tests/onnx_extensions/patterns/pattern_test_util.h"

namespace onnxopt::onnx_patterns {
namespace {

using testing::ExpectNoMatch;
using testing::ExpectRewrite;

// The loss is a float16 value of magnitude ~2: a few float16 units.
constexpr double kTolerance = 1e-2;

// The exported loss; `ignored` is the ignore index, `sum_attr` the ReduceSum attributes,
// `lsm_attr` the LogSoftmax attributes. The ONNX text parser of onnx 1.12 reads no float16
// initializer: zerof is a float 0 cast to float16. Random labels are in [0, 4]: five classes.
std::string Loss(const std::string& ignored = "-100", const std::string& sum_attr = "<keepdims = 0>",
                 const std::string& lsm_attr = "<axis = 1>") {
  return R"ONNX(
    <ir_version: 8, opset_import: ["" : 18]>
    sce_cast (float16[N,5] X, int64[N] I) => (float16 Y)
    <int64[1] b = {)ONNX" + ignored + R"ONNX(}, int64[1] one = {1}, float[1] zero32 = {0.0}, int64[1] zeroi = {0}> {
      zerof = Cast<to = 10>(zero32)
      eq = Equal(I, b)
      neq = Not(eq)
      ind = Where(neq, I, zeroi)
      ui = Unsqueeze(ind, one)
      lsm = LogSoftmax)ONNX" + lsm_attr + R"ONNX((X)
      g = GatherElements<axis = 1>(lsm, ui)
      sg = Squeeze(g, one)
      ng = Neg(sg)
      w = Where(neq, ng, zerof)
      wf = Cast<to = 1>(w)
      nf = Cast<to = 1>(neq)
      num = ReduceSum)ONNX" + sum_attr + R"ONNX((wf)
      den = ReduceSum)ONNX" + sum_attr + R"ONNX((nf)
      num16 = Cast<to = 10>(num)
      den16 = Cast<to = 10>(den)
      Y = Div(num16, den16)
    })ONNX";
}

TEST(SoftmaxCrossEntropyLossCastPattern, FusesTheExportedMeanLoss) {
  ExpectRewrite<SoftmaxCrossEntropyLossCastPattern>(Loss(), R"ONNX(
    <ir_version: 8, opset_import: ["" : 18]>
    sce_cast (float16[N,5] X, int64[N] I) => (float16 Y) {
      Y = SoftmaxCrossEntropyLoss<ignore_index = -100, reduction = "mean">(X, I)
    })ONNX", kTolerance);
}

TEST(SoftmaxCrossEntropyLossCastPattern, RejectsAnotherIgnoreIndex) {
  ExpectNoMatch<SoftmaxCrossEntropyLossCastPattern>(Loss("0"), "Y",
                                                    "the labels are not compared with a constant scalar -100");
}

TEST(SoftmaxCrossEntropyLossCastPattern, RejectsSumsWithoutKeepdims) {
  ExpectNoMatch<SoftmaxCrossEntropyLossCastPattern>(
      Loss("-100", ""), "Y",
      "a Cast to float16 does not read a ReduceSum over every axis with an explicit keepdims=0");
}

TEST(SoftmaxCrossEntropyLossCastPattern, RejectsALogSoftmaxWithoutAxis) {
  ExpectNoMatch<SoftmaxCrossEntropyLossCastPattern>(
      Loss("-100", "<keepdims = 0>", ""), "Y", "the GatherElements does not read a LogSoftmax with an explicit axis=1");
}

// Upstream does not check zerof, which is summed once for every ignored sample.
TEST(SoftmaxCrossEntropyLossCastPattern, RejectsANonZeroFillForIgnoredSamples) {
  std::string model = Loss();
  model.replace(model.find("zero32 = {0.0}"), 14, "zero32 = {1.0}");
  ExpectNoMatch<SoftmaxCrossEntropyLossCastPattern>(
      model, "Y", "the losses of ignored samples are not replaced by a constant scalar 0");
}

// SoftmaxCrossEntropyLoss returns X's type: float32 scores would change the output type.
TEST(SoftmaxCrossEntropyLossCastPattern, RejectsFloat32Scores) {
  std::string model = Loss();
  model.replace(model.find("float16[N,5] X"), 14, "float[N,5] X");
  model.replace(model.find("zerof = Cast<to = 10>"), 21, "zerof = Cast<to = 1>");
  ExpectNoMatch<SoftmaxCrossEntropyLossCastPattern>(model, "Y", "the scores are not float16");
}

TEST(SoftmaxCrossEntropyLossCastPattern, RejectsAMaskWithAFourthReader) {
  std::string model = Loss();
  model.replace(model.find("(float16 Y)"), 11, "(float16 Y, bool Z)");
  model.replace(model.find("      Y = Div"), 0, "      Z = Not(neq)\n");
  ExpectNoMatch<SoftmaxCrossEntropyLossCastPattern>(model, "Y", "the mask is not read by exactly three nodes");
}

}  // namespace
}  // namespace onnxopt::onnx_patterns
