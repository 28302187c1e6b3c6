// Tests of training_shapes.cc (ai.onnx.preview.training optimizers).

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "tests/onnx_extensions/shapes/shape_test_util.h"

namespace onnxopt::testing {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;

TEST(TrainingShapes, OutputGroupsFollowTheOptimizedTensors) {
  auto s = InferText(R"ONNX(
    <ir_version: 8, opset_import: ["" : 17, "ai.onnx.preview.training" : 1]>
    g (float r, int64 t, float[A] x1, double[B,C] x2, float[A] g1, double[B,C] g2, float[A] v1, double[B,C] v2,
       float[A] h1, double[B,C] h2) => (float[] a, double[] b, float[] c, double[] d, float[] e, double[] f) {
      a, b, c, d, e, f = ai.onnx.preview.training.Adam (r, t, x1, x2, g1, g2, v1, v2, h1, h2)
    })ONNX");
  for (const char* name : {"a", "c", "e"}) EXPECT_EQ(s.Get(name), "float[A]") << name;
  for (const char* name : {"b", "d", "f"}) EXPECT_EQ(s.Get(name), "double[B,C]") << name;
}

TEST(TrainingShapes, ReportIncompleteGroups) {
  auto s = InferText(R"ONNX(
    <ir_version: 8, opset_import: ["" : 17, "ai.onnx.preview.training" : 1]>
    g (float r, int64 t, float[A] x, float[A] g) => (float[] y) {
      y = ai.onnx.preview.training.Adagrad (r, t, x, g)
    })ONNX");
  EXPECT_THAT(s.Diagnostics(), ElementsAre(HasSubstr("the inputs must be 3 groups of n tensors, found 2 tensors")));
}

}  // namespace
}  // namespace onnxopt::testing
