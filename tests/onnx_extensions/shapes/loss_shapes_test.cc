// Tests of loss_shapes.cc.

#include <gtest/gtest.h>

#include "tests/onnx_extensions/shapes/shape_test_util.h"

namespace onnxopt::testing {
namespace {

TEST(LossShapes, NoneKeepsTheTargetShapeOtherReductionsGiveScalars) {
  auto s = InferText(R"ONNX(
    <ir_version: 8, opset_import: ["" : 13]>
    g (float[N,C,H,W] x, int64[N,H,W] t) => (float[] none, float[] mean, float[] sce, float[] log_prob) {
      none = NegativeLogLikelihoodLoss <reduction = "none"> (x, t)
      mean = NegativeLogLikelihoodLoss (x, t)
      sce, log_prob = SoftmaxCrossEntropyLoss <reduction = "sum"> (x, t)
    })ONNX");
  EXPECT_EQ(s.Get("none"), "float[N,H,W]");
  EXPECT_EQ(s.Get("mean"), "float[]");
  EXPECT_EQ(s.Get("sce"), "float[]");
  EXPECT_EQ(s.Get("log_prob"), "float[N,C,H,W]");
}

}  // namespace
}  // namespace onnxopt::testing
