// Tests of vision_shapes.cc: MaxRoiPool, DeformConv, ImageDecoder, com.microsoft
// FusedGemm.

#include <string>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "tests/onnx_extensions/shapes/shape_test_util.h"

namespace onnxopt::testing {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;

std::string Model(int opset, const std::string& signature, const std::string& body) {
  return "<ir_version: 10, opset_import: [\"\" : " + std::to_string(opset) + ", \"com.microsoft\" : 1]>\n" + signature +
         " {\n" + body + "\n}";
}

TEST(MaxRoiPoolShape, RoisChannelsAndPooledShape) {
  auto s = InferText(Model(22, "g (float[N,C,H,W] x, float[R,5] rois) => (float[] y)",
                           "y = MaxRoiPool <pooled_shape = [7, 5]> (x, rois)"));
  EXPECT_EQ(s.Get("y"), "float[R,C,7,5]");
}

TEST(MaxRoiPoolShape, ReportsAMissingPooledShape) {
  auto s = InferText(Model(22, "g (float[N,C,H,W] x, float[R,5] rois) => (float[] y)", "y = MaxRoiPool (x, rois)"));
  EXPECT_THAT(s.Diagnostics(), ElementsAre(HasSubstr("pooled_shape must have two values")));
}

TEST(DeformConvShape, LikeConv) {
  auto s = InferText(Model(19, "g (float[N,4,H,W] x, float[8,2,3,3] w, float[] offset) => (float[] y)",
                           "y = DeformConv <group = 2, pads = [1, 1, 1, 1], strides = [2, 2]> (x, w, offset)"));
  EXPECT_TRUE(s.SameDims("y", {"N", "8", "(H-1)//2+1", "(W-1)//2+1"}));
}

TEST(ImageDecoderShape, UnknownSizesKnownChannels) {
  auto s = InferText(Model(20, "g (uint8[B] bytes) => (uint8[] rgb, uint8[] gray)",
                           "rgb = ImageDecoder (bytes)\n"
                           "gray = ImageDecoder <pixel_format = \"Grayscale\"> (bytes)"));
  const auto& rgb = s.Tensor("rgb");
  ASSERT_TRUE(rgb.shape.HasRank());
  ASSERT_EQ(rgb.shape.Rank(), 3u);
  EXPECT_EQ(rgb.elem_type, TensorProto::UINT8);
  EXPECT_EQ(rgb.shape[2].Constant(), 3);
  EXPECT_FALSE(rgb.shape[0].Constant().has_value());
  EXPECT_EQ(s.Tensor("gray").shape[2].Constant(), 1);
}

TEST(FusedGemmShape, LikeGemm) {
  auto s = InferText(Model(13, "g (float[K,M] a, float[N,K] b, float[N] c) => (float[] y)",
                           "y = com.microsoft.FusedGemm <activation = \"Relu\", transA = 1, transB = 1> (a, b, c)"));
  EXPECT_EQ(s.Get("y"), "float[M,N]");
}

}  // namespace
}  // namespace onnxopt::testing
