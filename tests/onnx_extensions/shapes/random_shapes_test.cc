// Tests of random_shapes.cc.

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "tests/onnx_extensions/shapes/shape_test_util.h"

namespace onnxopt::testing {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;

TEST(RandomShapes, FromTheShapeAttributeOrTheInput) {
  auto s = InferText(R"ONNX(
    <ir_version: 8, opset_import: ["" : 17]>
    g (float16[B,3] x, float[B,5] p) => (float[] n, double[] u, float16[] nl, float[] ul, bool[] b, float[] bp,
                                          int32[] m, int64[] m64) {
      n = RandomNormal <shape = [2, 3]> ()
      u = RandomUniform <shape = [4], dtype = 11> ()
      nl = RandomNormalLike (x)
      ul = RandomUniformLike <dtype = 1> (x)
      b = Bernoulli <dtype = 9> (p)
      bp = Bernoulli (p)
      m = Multinomial <sample_size = 7> (p)
      m64 = Multinomial <dtype = 7> (p)
    })ONNX");
  EXPECT_EQ(s.Get("n"), "float[2,3]");
  EXPECT_EQ(s.Get("u"), "double[4]");
  EXPECT_EQ(s.Get("nl"), "float16[B,3]");
  EXPECT_EQ(s.Get("ul"), "float[B,3]");
  EXPECT_EQ(s.Get("b"), "bool[B,5]");
  EXPECT_EQ(s.Get("bp"), "float[B,5]");
  EXPECT_EQ(s.Get("m"), "int32[B,7]");
  EXPECT_EQ(s.Get("m64"), "int64[B,1]");
}

TEST(RandomShapes, ReportNegativeDimsAndSampleSizes) {
  auto s = InferText(R"ONNX(
    <ir_version: 8, opset_import: ["" : 17]>
    g (float[2,5] p) => (float[] n, int32[] m) {
      n = RandomNormal <shape = [2, -3]> ()
      m = Multinomial <sample_size = 0> (p)
    })ONNX");
  EXPECT_THAT(s.Diagnostics(), ElementsAre(HasSubstr("attribute shape has a negative dimension -3"),
                                           HasSubstr("sample_size must be positive, found 0")));
}

}  // namespace
}  // namespace onnxopt::testing
