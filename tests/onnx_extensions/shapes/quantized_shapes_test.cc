// Tests of quantized_shapes.cc (com.microsoft quantized products), with symbolic inputs.

#include <string>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "tests/onnx_extensions/shapes/shape_test_util.h"

namespace onnxopt::testing {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;

std::string MsModel(const std::string& signature, const std::string& body) {
  return "<ir_version: 8, opset_import: [\"\" : 17, \"com.microsoft\" : 1]>\ng " + signature + " {\n" + body + "\n}";
}

TEST(MatMulNBitsShape, ReplacesKByN) {
  auto s = InferText(MsModel("(float16[B,S,64] a, uint8[32,2,16] b, float16[32,2] sc) => (float16[] y)",
                             "y = com.microsoft.MatMulNBits <K = 64, N = 32, bits = 4, block_size = 32> (a, b, sc)"));
  EXPECT_EQ(s.Get("y"), "float16[B,S,32]");
}

TEST(QuantizedMatMulShapes, FollowMatMulWithTheirOutputTypes) {
  auto s = InferText(MsModel("(uint8[B,M,K] a, int8[K,N] b, float16 as, float16[N] bs, float[B,M,K] f) => "
                             "(float16[] y, float[] z)",
                             "y = com.microsoft.MatMulIntegerToFloat (a, b, as, bs)\n"
                             "z = com.microsoft.DynamicQuantizeMatMul (f, b, bs)"));
  EXPECT_EQ(s.Get("y"), "float16[B,M,N]");
  EXPECT_EQ(s.Get("z"), "float[B,M,N]");
}

TEST(QuantizedMatMulShapes, ReportInnerDimMismatch) {
  auto s = InferText(MsModel("(uint8[2,3] a, int8[4,5] b, float as, float bs) => (float[] y)",
                             "y = com.microsoft.MatMulIntegerToFloat (a, b, as, bs)"));
  EXPECT_THAT(s.Diagnostics(), ElementsAre(HasSubstr("inner dimensions")));
}

}  // namespace
}  // namespace onnxopt::testing
