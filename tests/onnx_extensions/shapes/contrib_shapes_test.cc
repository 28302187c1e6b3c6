// Tests of the shape functions of contrib_shapes.cc (onnxruntime's com.microsoft
// operators), with symbolic inputs.

#include <string>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "tests/onnx_extensions/shapes/shape_test_util.h"

namespace onnxopt::testing {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;

std::string Model(const std::string& signature, const std::string& body) {
  return "<ir_version: 8, opset_import: [\"\" : 17, \"com.microsoft\" : 1]>\n" + signature + " {\n" + body + "\n}";
}

TEST(FusedMatMulShape, TransposesLastTwoDims) {
  auto s = InferText(Model("g (float[B,K,M] a, float[N,K] b) => (float[] y, float[] z)",
                           "y = com.microsoft.FusedMatMul <transA = 1, transB = 1, alpha = 0.5> (a, b)\n"
                           "z = com.microsoft.FusedMatMul <transBatchA = 1> (a, b)"));
  EXPECT_EQ(s.Get("y"), "float[B,M,N]");
  EXPECT_EQ(s.Get("z"), "float?");  // transBatch is not described
}

TEST(FusedMatMulShape, ReportsInnerDimMismatch) {
  auto s = InferText(Model("g (float[B,3,4] a, float[5,N] b) => (float[] y)",
                           "y = com.microsoft.FusedMatMul (a, b)"));
  EXPECT_THAT(s.Diagnostics(), ElementsAre(HasSubstr("inner dimensions")));
}

TEST(FusedConvShape, LikeConv) {
  auto s = InferText(Model("g (float[N,3,H,W] x, float[8,3,3,3] w, float[8] b) => (float[] y)",
                           "y = com.microsoft.FusedConv <activation = \"Relu\", pads = [1, 1, 1, 1], strides = [2, 2]> "
                           "(x, w, b)"));
  EXPECT_TRUE(s.SameDims("y", {"N", "8", "(H-1)//2+1", "(W-1)//2+1"}));
}

TEST(GeluShape, ElementwiseAndBias) {
  auto s = InferText(Model("g (float[B,S,D] x, float[D] bias, float[B,S,D] skip) => (float[] a, float[] b, float[] c, "
                           "float[] d, float[] e, float[] f)",
                           "a = com.microsoft.Gelu (x)\n"
                           "b = com.microsoft.QuickGelu <alpha = 1.702> (x)\n"
                           "c = com.microsoft.FastGelu (x)\n"
                           "d = com.microsoft.FastGelu (x, bias)\n"
                           "e = com.microsoft.BiasGelu (x, bias)\n"
                           "f = com.microsoft.BiasAdd (x, bias, skip)"));
  for (const char* name : {"a", "b", "c", "d", "e", "f"}) EXPECT_EQ(s.Get(name), "float[B,S,D]") << name;
}

TEST(GeluShape, BiasBroadcastsAgainstTheInput) {
  auto s = InferText(Model("g (float[S,D] x, float[B,1,D] bias) => (float[] y)", "y = com.microsoft.BiasGelu (x, bias)"));
  EXPECT_EQ(s.Get("y"), "float[B,S,D]");
}

TEST(SkipLayerNormalizationShape, OutputAndSumLikeInputStatisticsUnknown) {
  auto s = InferText(Model("g (float16[B,S,D] x, float16[B,S,D] skip, float16[D] g, float16[D] b) => (float16[] y, "
                           "float[] m, float[] r, float16[] sum)",
                           "y, m, r, sum = com.microsoft.SkipLayerNormalization <epsilon = 1e-5> (x, skip, g, b)"));
  EXPECT_EQ(s.Get("y"), "float16[B,S,D]");
  EXPECT_EQ(s.Get("sum"), "float16[B,S,D]");
  EXPECT_EQ(s.Get("m"), "?");
  EXPECT_EQ(s.Get("r"), "?");
}

TEST(SkipLayerNormalizationShape, SimplifiedVariants) {
  auto s = InferText(Model("g (float[B,S,D] x, float[B,S,D] skip, float[D] g) => (float[] y, float[] z, float[] t, "
                           "float[] sum)",
                           "y, , , sum = com.microsoft.SkipSimplifiedLayerNormalization (x, skip, g)\n"
                           "z = SimplifiedLayerNormalization <axis = -1> (x, g)\n"
                           "t = com.microsoft.SimplifiedLayerNormalization (x, g)"));
  EXPECT_EQ(s.Get("y"), "float[B,S,D]");
  EXPECT_EQ(s.Get("sum"), "float[B,S,D]");
  EXPECT_EQ(s.Get("z"), "float[B,S,D]");
  EXPECT_EQ(s.Get("t"), "float[B,S,D]");
}

TEST(RotaryEmbeddingContribShape, SameAsInput) {
  auto s = InferText(Model("g (float16[B,S,D] x, int64[B,S] p, float16[M,32] c, float16[M,32] n) => (float16[] y)",
                           "y = com.microsoft.RotaryEmbedding (x, p, c, n)"));
  EXPECT_EQ(s.Get("y"), "float16[B,S,D]");
}

TEST(MultiHeadAttentionShape, ThreeDimensionalWithPast) {
  auto s = InferText(Model("g (float[B,S,768] q, float[B,L,768] k, float[B,L,1536] v, float[B,12,P,64] pk, "
                           "float[B,12,P,128] pv) => (float[] y, float[] ok, float[] ov)",
                           "y, ok, ov = com.microsoft.MultiHeadAttention <num_heads = 12> (q, k, v, , , , pk, pv)"));
  EXPECT_EQ(s.Get("y"), "float[B,S,1536]");
  EXPECT_TRUE(s.SameDims("ok", {"B", "12", "P+L", "64"}));
  EXPECT_TRUE(s.SameDims("ov", {"B", "12", "P+L", "128"}));
}

TEST(MultiHeadAttentionShape, PackedQkv) {
  auto s = InferText(Model("g (float[B,S,12,3,64] qkv) => (float[] y)",
                           "y = com.microsoft.MultiHeadAttention <num_heads = 12> (qkv)"));
  EXPECT_EQ(s.Get("y"), "float[B,S,768]");
}

TEST(GroupQueryAttentionShape, SeparateAndPackedInputs) {
  auto s = InferText(Model("g (float16[B,S,2048] q, float16[B,S,512] k, float16[B,S,512] v, float16[B,8,P,64] pk, "
                           "float16[B,8,P,64] pv, int32[B] sl, int32 total, float16[B,S,3072] qkv) => "
                           "(float16[] y, float16[] ok, float16[] ov, float16[] z)",
                           "y, ok, ov = com.microsoft.GroupQueryAttention <num_heads = 32, kv_num_heads = 8> "
                           "(q, k, v, pk, pv, sl, total)\n"
                           "z = com.microsoft.GroupQueryAttention <num_heads = 32, kv_num_heads = 8> "
                           "(qkv, , , pk, pv, sl, total)"));
  EXPECT_EQ(s.Get("y"), "float16[B,S,2048]");
  EXPECT_EQ(s.Get("ok"), "float16[B,8,?,64]");  // the cache length depends on buffer sharing
  EXPECT_EQ(s.Get("ov"), "float16[B,8,?,64]");
  EXPECT_EQ(s.Get("z"), "float16[B,S,2048]");
}

TEST(AttentionContribShape, HiddenFromWeightsOrSizes) {
  auto s = InferText(Model("g (float[B,S,768] x, float[768,2304] w, float[2304] b, float[768,1280] w2, "
                           "float[2,B,12,P,64] past) => (float[] y, float[] present, float[] z)",
                           "y, present = com.microsoft.Attention <num_heads = 12> (x, w, b, , past)\n"
                           "z = com.microsoft.Attention <num_heads = 8, qkv_hidden_sizes = [384, 384, 512]> (x, w2)"));
  EXPECT_EQ(s.Get("y"), "float[B,S,768]");
  EXPECT_TRUE(s.SameDims("present", {"2", "B", "12", "P+S", "64"}));
  EXPECT_EQ(s.Get("z"), "float[B,S,512]");
}

}  // namespace
}  // namespace onnxopt::testing
