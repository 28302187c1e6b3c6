// Shape functions of signal_shapes.cc: DFT, STFT, the window functions, MelWeightMatrix.

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <string>

#include "tests/onnx_extensions/shapes/shape_test_util.h"

namespace onnxopt::testing {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;

std::string Model(int opset, const std::string& signature, const std::string& body) {
  return "<ir_version: 10, opset_import: [\"\" : " + std::to_string(opset) + "]>\n" + signature + " {\n" + body + "\n}";
}

TEST(DftShape, AxisLengthAndComplexDimension) {
  auto s = InferText(Model(17, "g (float[B,N,1] x, float[B,N,M,2] c) => (float[] y, float[] r, float[] p, float[] i)",
                           "y = DFT (x)\n"
                           "r = DFT <onesided = 1> (x)\n"
                           "n = Constant <value = int64 {16}> ()\n"
                           "p = DFT <axis = 2> (c, n)\n"
                           "i = DFT <onesided = 1, inverse = 1, axis = -3> (c)"));
  EXPECT_TRUE(s.SameDims("y", {"B", "N", "2"}));
  EXPECT_TRUE(s.SameDims("r", {"B", "N//2+1", "2"}));
  EXPECT_TRUE(s.SameDims("p", {"B", "N", "16", "2"}));
  EXPECT_TRUE(s.SameDims("i", {"B", "2*N-2", "M", "1"}));
}

TEST(DftShape, Opset20AxisInput) {
  auto s = InferText(Model(20, "g (float[B,N,1] x, int64 a) => (float[] y, float[] z)",
                           "y = DFT (x)\n"
                           "z = DFT (x, , a)"));
  EXPECT_TRUE(s.SameDims("y", {"B", "N", "2"}));
  EXPECT_TRUE(s.SameDims("z", {"?", "?", "2"}));  // the axis is not known
}

TEST(DftShape, ReportsInvalidAxis) {
  auto s = InferText(Model(17, "g (float[B,N,1] x) => (float[] y)", "y = DFT <axis = -1> (x)"));
  EXPECT_THAT(s.Diagnostics(), ElementsAre(HasSubstr("DFT axis -1 is invalid")));
}

TEST(StftShape, FramesAndBins) {
  auto s = InferText(Model(17, "g (float[B,L,1] x, float[W] w) => (float[] y, float[] z)",
                           "step = Constant <value = int64 {4}> ()\n"
                           "n = Constant <value = int64 {8}> ()\n"
                           "y = STFT (x, step, , n)\n"
                           "z = STFT <onesided = 0> (x, step, w)"));
  EXPECT_TRUE(s.SameDims("y", {"B", "(L-8)//4+1", "5", "2"}));
  EXPECT_TRUE(s.SameDims("z", {"B", "(L-W)//4+1", "W", "2"}));
}

TEST(WindowShape, SizeAndOutputDatatype) {
  auto s = InferText(Model(17, "g (int64 k) => (float[] a, double[] b, float[] c, float[] m)",
                           "n = Constant <value = int64 {10}> ()\n"
                           "a = HannWindow (n)\n"
                           "b = BlackmanWindow <output_datatype = 11> (n)\n"
                           "c = HammingWindow (k)\n"
                           "bins = Constant <value = int64 {8}> ()\n"
                           "rate = Constant <value = int64 {8000}> ()\n"
                           "lo = Constant <value = float {0}> ()\n"
                           "hi = Constant <value = float {4000}> ()\n"
                           "m = MelWeightMatrix (bins, n, rate, lo, hi)"));
  EXPECT_EQ(s.Get("a"), "float[10]");
  EXPECT_EQ(s.Get("b"), "double[10]");
  EXPECT_TRUE(s.SameDims("c", {"?"}));
  EXPECT_EQ(s.Get("m"), "float[6,8]");
}

}  // namespace
}  // namespace onnxopt::testing
