// Tests of the shape functions of nn_shapes.cc: every operator with symbolic inputs,
// the opset-dependent signatures, unknowns that must stay unknown and diagnostics.

#include <string>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "tests/onnx_extensions/shapes/shape_test_util.h"

namespace onnxopt::testing {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;
using ::testing::IsEmpty;
using ::testing::SizeIs;

std::string Model(int opset, const std::string& signature, const std::string& body) {
  return "<ir_version: 8, opset_import: [\"\" : " + std::to_string(opset) + "]>\n" + signature + " {\n" + body + "\n}";
}

// ---------------------------------------------------------------------------------------
// Conv family

TEST(ConvShape, ComputesSymbolicSpatialDims) {
  auto s = InferText(Model(13, "g (float[N,3,H,W] x, float[16,3,3,3] w) => (float[] y)",
                           "y = Conv <strides = [2, 2], pads = [1, 1, 1, 1]> (x, w)"));
  EXPECT_TRUE(s.SameDims("y", {"N", "16", "(H-1)//2+1", "(W-1)//2+1"}));
  EXPECT_THAT(s.Diagnostics(), IsEmpty());
}

// CausalConvWithState (opset 27): the output as the input, present_state [B, C, k - 1].
TEST(ConvShape, CausalConvWithStateCarriesKMinusOnePositions) {
  auto s = InferText(Model(27, "g (float[N,4,L] x, float[4,1,3] w) => (float[] y, float[] state)",
                           "y, state = CausalConvWithState (x, w)"));
  EXPECT_EQ(s.Get("y"), "float[N,4,L]");
  EXPECT_EQ(s.Get("state"), "float[N,4,2]");
}

// LinearAttention (opset 27): output [B, T, Hq * dv], present_state [B, Hkv, dk, dv].
TEST(ConvShape, LinearAttentionStateIsPerKeyValueHead) {
  auto s = InferText(Model(27, "g (float[B,T,64] q, float[B,T,32] k, float[B,T,48] v) => (float[] y, float[] state)",
                           "y, state = LinearAttention <q_num_heads = 4, kv_num_heads = 2, update_rule = \"linear\"> "
                           "(q, k, v)"));
  EXPECT_EQ(s.Get("y"), "float[B,T,96]");
  EXPECT_EQ(s.Get("state"), "float[B,2,16,24]");
}

TEST(ConvShape, HandlesGroupsDilationsAndStaticDims) {
  auto s = InferText(Model(11, "g (float[1,8,10,12] x, float[8,2,3,3] w) => (float[] y)",
                           "y = Conv <group = 4, dilations = [2, 2]> (x, w)"));
  EXPECT_EQ(s.Get("y"), "float[1,8,6,8]");
}

TEST(ConvShape, SamePaddingGivesCeilOfInputOverStride) {
  auto s = InferText(Model(1, "g (float[N,3,H,9] x, float[4,3,5,5] w) => (float[] y)",
                           "y = Conv <auto_pad = \"SAME_UPPER\", strides = [2, 2], dilations = [2, 2]> (x, w)"));
  EXPECT_TRUE(s.SameDims("y", {"N", "4", "(H+1)//2", "5"}));
}

TEST(ConvShape, ValidPaddingIgnoresPads) {
  auto s = InferText(Model(22, "g (float[N,3,L] x, float[4,3,3] w) => (float[] y)",
                           "y = Conv <auto_pad = \"VALID\", pads = [5, 5]> (x, w)"));
  EXPECT_TRUE(s.SameDims("y", {"N", "4", "L-2"}));
}

TEST(ConvShape, KeepsSpatialDimsUnknownWithUnknownKernel) {
  auto s = InferText(Model(13, "g (float[N,3,H,W] x, float[16,3,?,?] w) => (float[] y)", "y = Conv (x, w)"));
  EXPECT_EQ(s.Get("y"), "float[N,16,?,?]");
}

TEST(ConvShape, UsesSymbolicKernelDims) {
  auto s = InferText(Model(13, "g (float[N,3,H] x, float[16,3,K] w) => (float[] y)", "y = Conv (x, w)"));
  EXPECT_TRUE(s.SameDims("y", {"N", "16", "H-K+1"}));
}

TEST(ConvShape, ReportsChannelMismatch) {
  auto s = InferText(Model(13, "g (float[N,4,H,W] x, float[16,3,3,3] w) => (float[] y)", "y = Conv (x, w)"));
  EXPECT_THAT(s.Diagnostics(), ElementsAre(HasSubstr("channels")));
  EXPECT_EQ(s.Shape("y"), "?");
}

TEST(ConvShape, ReportsKernelLargerThanInput) {
  auto s = InferText(Model(13, "g (float[1,3,2,2] x, float[16,3,3,3] w) => (float[] y)", "y = Conv (x, w)"));
  EXPECT_THAT(s.Diagnostics(), SizeIs(2));
  EXPECT_EQ(s.Get("y"), "float[1,16,?,?]");
}

TEST(ConvIntegerShape, GivesInt32) {
  auto s = InferText(Model(10, "g (uint8[N,3,H,W] x, uint8[8,3,1,1] w) => (int32[] y)", "y = ConvInteger (x, w)"));
  EXPECT_EQ(s.Get("y"), "int32[N,8,H,W]");
}

TEST(QLinearConvShape, TakesTheTypeOfTheOutputZeroPoint) {
  auto s = InferText(Model(10,
                           "g (uint8[N,3,H,W] x, float xs, uint8 xz, int8[8,3,3,3] w, float ws, int8 wz, float ys, "
                           "int8 yz) => (int8[] y)",
                           "y = QLinearConv <pads = [1, 1, 1, 1]> (x, xs, xz, w, ws, wz, ys, yz)"));
  EXPECT_EQ(s.Get("y"), "int8[N,8,H,W]");
}

TEST(ConvTransposeShape, ComputesSymbolicOutput) {
  auto s = InferText(Model(13, "g (float[N,8,H,W] x, float[8,4,3,3] w) => (float[] y)",
                           "y = ConvTranspose <strides = [2, 2], pads = [1, 1, 1, 1], output_padding = [1, 1], "
                           "group = 2> (x, w)"));
  EXPECT_TRUE(s.SameDims("y", {"N", "8", "2*H", "2*W"}));
}

TEST(ConvTransposeShape, UsesOutputShapeAndSamePadding) {
  auto s = InferText(Model(11, "g (float[N,8,H,W] x, float[8,4,2,2] w) => (float[] y, float[] z)",
                           "y = ConvTranspose <strides = [2, 2], output_shape = [20, 30]> (x, w)\n"
                           "z = ConvTranspose <strides = [2, 2], auto_pad = \"SAME_UPPER\"> (x, w)"));
  EXPECT_EQ(s.Get("y"), "float[N,4,20,30]");
  EXPECT_TRUE(s.SameDims("z", {"N", "4", "2*H", "2*W"}));
}

TEST(ConvTransposeShape, KeepsSamePaddingUnknownWhenPaddingWouldBeNegative) {
  // kernel 1 < stride 3: onnxruntime clamps the padding and gives 3*(H-1)+1, not 3*H.
  auto s = InferText(Model(11, "g (float[N,8,H] x, float[8,4,1] w) => (float[] y)",
                           "y = ConvTranspose <strides = [3], auto_pad = \"SAME_UPPER\"> (x, w)"));
  EXPECT_EQ(s.Get("y"), "float[N,4,?]");
}

// ---------------------------------------------------------------------------------------
// Pooling

TEST(PoolShape, MaxPoolWithIndicesAndCeilMode) {
  auto s = InferText(Model(12, "g (float[1,3,7,7] x) => (float[] y, int64[] i)",
                           "y, i = MaxPool <kernel_shape = [2, 2], strides = [2, 2], ceil_mode = 1> (x)"));
  EXPECT_EQ(s.Get("y"), "float[1,3,4,4]");
  EXPECT_EQ(s.Get("i"), "int64[1,3,4,4]");
}

TEST(PoolShape, CeilModeWithSymbolicInput) {
  auto s = InferText(Model(12, "g (float[N,C,H,W] x) => (float[] y, float[] z)",
                           "y = MaxPool <kernel_shape = [3, 3], strides = [2, 2], ceil_mode = 1> (x)\n"
                           "z = MaxPool <kernel_shape = [1, 1], strides = [2, 2], ceil_mode = 1, pads = [0, 0, 1, 1]> "
                           "(x)"));
  EXPECT_TRUE(s.SameDims("y", {"N", "C", "(H-2)//2+1", "(W-2)//2+1"}));
  // A last window may start in the right padding: the specification drops it.
  EXPECT_EQ(s.Get("z"), "float[N,C,?,?]");
}

TEST(PoolShape, CeilModeLastWindowInPaddingIsUnknown) {
  // in=5, kernel 1, stride 2, pads 0/1: ceil gives 4 windows, the last starting in the padding.
  auto s = InferText(Model(12, "g (float[1,1,5] x) => (float[] y)",
                           "y = MaxPool <kernel_shape = [1], strides = [2], ceil_mode = 1, pads = [0, 1]> (x)"));
  EXPECT_EQ(s.Get("y"), "float[1,1,?]");
}

TEST(PoolShape, SumsOfHugeAttributesGiveUnknownDims) {
  // pads and strides of INT64_MAX: their sums overflowed int64 (found by graph_fuzzer).
  constexpr const char* kMax = "9223372036854775807";
  auto s = InferText(Model(
      12, "g (float[1,1,5] x, int64[1,1,5] i, float[1,4,1] w) => (float[] y, float[] z, float[] t, float[] u)",
      std::string("y = MaxPool <kernel_shape = [1], pads = [") + kMax + ", " + kMax + "]> (x)\n" +
          "z = MaxPool <kernel_shape = [1], strides = [" + kMax + "], ceil_mode = 1, pads = [" + kMax + ", 1]> (x)\n" +
          "t = ConvTranspose <pads = [" + kMax + ", " + kMax + "]> (x, w)\n" +
          "u = MaxUnpool <kernel_shape = [1], pads = [" + kMax + ", " + kMax + "]> (x, i)"));
  EXPECT_EQ(s.Get("y"), "float[1,1,?]");
  EXPECT_EQ(s.Get("z"), "float[1,1,?]");
  EXPECT_EQ(s.Get("t"), "float[1,4,?]");
  EXPECT_EQ(s.Get("u"), "float[1,1,?]");
}

TEST(PoolShape, AveragePoolSameUpper) {
  auto s = InferText(Model(11, "g (float[N,C,H,W] x) => (float[] y)",
                           "y = AveragePool <kernel_shape = [3, 3], strides = [2, 2], auto_pad = \"SAME_UPPER\"> (x)"));
  EXPECT_TRUE(s.SameDims("y", {"N", "C", "(H+1)//2", "(W+1)//2"}));
}

TEST(PoolShape, SamePaddingWithDilationIsUnknown) {
  auto s = InferText(Model(19, "g (float[N,C,H] x) => (float[] y)",
                           "y = AveragePool <kernel_shape = [3], dilations = [2], auto_pad = \"SAME_UPPER\"> (x)"));
  EXPECT_EQ(s.Get("y"), "float[N,C,?]");
}

TEST(PoolShape, LpPoolAndDilatedMaxPool) {
  auto s = InferText(Model(18, "g (float[N,C,H] x) => (float[] y, float[] z)",
                           "y = LpPool <kernel_shape = [2], strides = [2]> (x)\n"
                           "z = MaxPool <kernel_shape = [3], dilations = [2], pads = [2, 2]> (x)"));
  EXPECT_TRUE(s.SameDims("y", {"N", "C", "(H-2)//2+1"}));
  EXPECT_TRUE(s.SameDims("z", {"N", "C", "H"}));
}

// A missing kernel_shape is refused when the model is loaded (a required attribute):
// inference alone leaves the output unknown.
TEST(PoolShape, LeavesTheOutputUnknownWithoutKernelShape) {
  auto s = InferText(Model(12, "g (float[N,C,H] x) => (float[] y)", "y = MaxPool (x)"));
  EXPECT_EQ(s.Get("y"), "?");
}

TEST(PoolShape, RefusesWindowAttributesOutOfRange) {
  auto pool = [](const std::string& attributes) {
    return InferenceRefusal(Model(12, "g (float[N,C,H,W] x) => (float[] y)", "y = MaxPool <" + attributes + "> (x)"));
  };
  EXPECT_EQ(pool("kernel_shape = [2, 2]"), "");
  EXPECT_EQ(pool("kernel_shape = [2, 0]"),
            "node #0 (MaxPool): MaxPool-12 kernel_shape >= 1; found kernel_shape [2,0]");
  EXPECT_EQ(pool("kernel_shape = [2, 2], strides = [1, 0]"),
            "node #0 (MaxPool): MaxPool-12 strides >= 1; found strides [1,0]");
  EXPECT_EQ(pool("kernel_shape = [2, 2], pads = [0, 0, -1, 0]"),
            "node #0 (MaxPool): MaxPool-12 pads >= 0; found pads [0,0,-1,0]");
  EXPECT_EQ(pool("kernel_shape = [2, 2], dilations = [1]"),
            "node #0 (MaxPool): MaxPool-12 has 2 dilations values (one per spatial axis); found 1");
  EXPECT_EQ(pool("kernel_shape = [2, 2], auto_pad = \"same\""),
            "node #0 (MaxPool): MaxPool-12 auto_pad is one of NOTSET, SAME_UPPER, SAME_LOWER, VALID; found 'same'");
}

TEST(GlobalPoolShape, KeepsBatchAndChannels) {
  auto s = InferText(Model(13, "g (float[N,C,H,W] x, float[N,C,D,H,W] v) => (float[] y, float[] z, float[] l)",
                           "y = GlobalAveragePool (x)\nz = GlobalMaxPool (v)\nl = GlobalLpPool (x)"));
  EXPECT_EQ(s.Get("y"), "float[N,C,1,1]");
  EXPECT_EQ(s.Get("z"), "float[N,C,1,1,1]");
  EXPECT_EQ(s.Get("l"), "float[N,C,1,1]");
}

TEST(MaxUnpoolShape, InvertsThePooling) {
  auto s = InferText(Model(11, "g (float[N,C,H,W] x, int64[N,C,H,W] i) => (float[] y)",
                           "y = MaxUnpool <kernel_shape = [2, 2], strides = [2, 2]> (x, i)"));
  EXPECT_TRUE(s.SameDims("y", {"N", "C", "2*H", "2*W"}));
}

// ---------------------------------------------------------------------------------------
// Resize, Upsample

TEST(ResizeShape, IntegerScalesOnSymbolicDims) {
  auto s = InferText(Model(13, "g (float[N,3,H,W] x) => (float[] y, float[] z)",
                           "scales = Constant <value = float[4] {1.0, 1.0, 2.0, 2.0}> ()\n"
                           "half = Constant <value = float[4] {1.0, 1.0, 0.5, 0.5}> ()\n"
                           "y = Resize <mode = \"nearest\"> (x, , scales)\n"
                           "z = Resize (x, , half)"));
  EXPECT_TRUE(s.SameDims("y", {"N", "3", "2*H", "2*W"}));
  EXPECT_TRUE(s.SameDims("z", {"N", "3", "H//2", "W//2"}));
}

TEST(ResizeShape, FractionalScaleOnSymbolicDimIsUnknown) {
  auto s = InferText(Model(13, "g (float[N,3,H,5] x) => (float[] y)",
                           "scales = Constant <value = float[4] {1.0, 1.0, 1.5, 1.5}> ()\n"
                           "y = Resize (x, , scales)"));
  EXPECT_EQ(s.Get("y"), "float[N,3,?,7]");
}

TEST(ResizeShape, DynamicScalesGiveUnknownDims) {
  auto s = InferText(Model(13, "g (float[N,3,H,W] x, float[4] scales) => (float[] y)", "y = Resize (x, , scales)"));
  EXPECT_EQ(s.Get("y"), "float[?,?,?,?]");
}

TEST(ResizeShape, SizesInput) {
  auto s = InferText(Model(11, "g (float[N,3,H,W] x, float[0] roi, float[0] scales) => (float[] y)",
                           "sizes = Constant <value = int64[4] {1, 3, 32, 48}> ()\n"
                           "y = Resize (x, roi, scales, sizes)"));
  EXPECT_EQ(s.Get("y"), "float[1,3,32,48]");
}

// The kernel reads an empty sizes as not given: its output dims are unknown here (found by
// fuzz/graph_fuzzer.cc: the shape function read sizes past their end).
TEST(ResizeShape, EmptySizesGiveUnknownDims) {
  auto s = InferText(Model(13, "g (float[N,3,H,W] x) => (float[] y)",
                           "sizes = Constant <value = int64[0] {}> ()\n"
                           "y = Resize (x, , , sizes)"));
  EXPECT_EQ(s.Get("y"), "float[?,?,?,?]");
}

TEST(ResizeShape, Opset10ScalesAreTheSecondInput) {
  auto s = InferText(Model(10, "g (float[N,3,H,W] x) => (float[] y)",
                           "scales = Constant <value = float[4] {1.0, 1.0, 3.0, 2.0}> ()\n"
                           "y = Resize (x, scales)"));
  EXPECT_TRUE(s.SameDims("y", {"N", "3", "3*H", "2*W"}));
}

TEST(ResizeShape, Opset18AxesAndAspectRatio) {
  auto s = InferText(Model(18, "g (float[N,3,H,W] x, float[1,3,20,40] v) => (float[] y, float[] z)",
                           "scales = Constant <value = float[2] {2.0, 4.0}> ()\n"
                           "sizes = Constant <value = int64[2] {10, 10}> ()\n"
                           "y = Resize <axes = [2, 3]> (x, , scales)\n"
                           "z = Resize <axes = [-2, -1], keep_aspect_ratio_policy = \"not_larger\"> (v, , , sizes)"));
  EXPECT_TRUE(s.SameDims("y", {"N", "3", "2*H", "4*W"}));
  EXPECT_EQ(s.Get("z"), "float[1,3,5,10]");
}

TEST(ResizeShape, RefusesScalesOfTheWrongLength) {
  EXPECT_EQ(InferenceRefusal(Model(13, "g (float[N,3,H,W] x) => (float[] y)",
                                   "scales = Constant <value = float[3] {1.0, 2.0, 2.0}> ()\n"
                                   "y = Resize (x, , scales)")),
            "node #1 (Resize): Resize-13 has 4 scales values (one per input axis); found 3");
}

TEST(ResizeShape, RefusesScalesAndSizesTogether) {
  const std::string both = "scales = Constant <value = float[4] {1.0, 1.0, 2.0, 2.0}> ()\n"
                           "sizes = Constant <value = int64[4] {1, 3, 8, 8}> ()\ny = Resize (x, , scales, sizes)";
  EXPECT_EQ(InferenceRefusal(Model(13, "g (float[1,3,4,4] x) => (float[] y)", both)),
            "node #2 (Resize): Resize-13 takes scales or sizes, not both; found scales of shape [4] and sizes");
  // Exporters of opsets 11 and 12 pass an empty scales beside sizes.
  EXPECT_EQ(InferenceRefusal(Model(11, "g (float[1,3,4,4] x) => (float[] y)",
                                   "roi = Constant <value = float[0] {}> ()\nscales = Constant <value = float[0] {}> ()\n"
                                   "sizes = Constant <value = int64[4] {1, 3, 8, 8}> ()\n"
                                   "y = Resize (x, roi, scales, sizes)")),
            "");
  EXPECT_EQ(InferenceRefusal(Model(13, "g (float[1,3,4,4] x) => (float[] y)",
                                   "sizes = Constant <value = int64[4] {1, 3, 8, 8}> ()\n"
                                   "y = Resize <mode = \"bilinear\"> (x, , , sizes)")),
            "node #1 (Resize): Resize-13 mode is one of nearest, linear, cubic; found 'bilinear'");
}

TEST(UpsampleShape, ScalesAttributeAndInput) {
  auto s = InferText(Model(7, "g (float[N,C,H,W] x) => (float[] y)",
                           "y = Upsample <scales = [1.0, 1.0, 2.0, 2.0]> (x)"));
  EXPECT_TRUE(s.SameDims("y", {"N", "C", "2*H", "2*W"}));
  auto t = InferText(Model(9, "g (float[N,C,H,W] x) => (float[] y)",
                           "scales = Constant <value = float[4] {1.0, 1.0, 2.0, 3.0}> ()\n"
                           "y = Upsample (x, scales)"));
  EXPECT_TRUE(t.SameDims("y", {"N", "C", "2*H", "3*W"}));
}

// Scales whose values inference does not know (computed, or a constant longer than it
// keeps) are still one per input axis.
TEST(UpsampleShape, ScalesOfUnknownValuesGiveTheRank) {
  auto s = InferText(Model(9, "g (float[] x, float[4] scales) => (float[] y)", "y = Upsample (x, scales)"));
  EXPECT_TRUE(s.SameDims("y", {"?", "?", "?", "?"}));
  EXPECT_EQ(InferenceRefusal(Model(9, "g (float[N,C,H,W] x, float[3] scales) => (float[] y)", "y = Upsample (x, scales)")),
            "node #0 (Upsample): Upsample-9 has 4 scales values (one per input axis); found 3");
}

// ---------------------------------------------------------------------------------------
// Normalizations, Softmax family

TEST(BatchNormalizationShape, InferenceAndTrainingOutputs) {
  auto s = InferText(Model(15,
                           "g (float[N,C,H,W] x, float[C] scale, float[C] b, float[C] mean, float[C] var) => "
                           "(float[] y, float[] rm, float[] rv)",
                           "y, rm, rv = BatchNormalization <training_mode = 1> (x, scale, b, mean, var)"));
  EXPECT_EQ(s.Get("y"), "float[N,C,H,W]");
  EXPECT_EQ(s.Get("rm"), "float[C]");
  EXPECT_EQ(s.Get("rv"), "float[C]");
}

TEST(BatchNormalizationShape, Opset9SavedStatistics) {
  auto s = InferText(Model(9,
                           "g (float[N,C,L] x, float[C] scale, float[C] b, float[C] mean, float[C] var) => "
                           "(float[] y, float[] m, float[] v, float[] sm, float[] sv)",
                           "y, m, v, sm, sv = BatchNormalization (x, scale, b, mean, var)"));
  EXPECT_EQ(s.Get("y"), "float[N,C,L]");
  EXPECT_EQ(s.Get("sm"), "float[C]");
  EXPECT_EQ(s.Get("sv"), "float[C]");
}

// Versions 6 and 7 too: the statistics outputs are like the mean and var inputs, per
// feature (C x L) with spatial=0.
TEST(BatchNormalizationShape, SavedStatisticsBeforeOpset9) {
  for (int opset : {6, 7}) {
    auto s = InferText(Model(opset,
                             "g (float[N,C,L] x, float[C] scale, float[C] b, float[C] mean, float[C] var) => "
                             "(float[] y, float[] m, float[] v, float[] sm, float[] sv)",
                             "y, m, v, sm, sv = BatchNormalization (x, scale, b, mean, var)"));
    EXPECT_EQ(s.Get("sm"), "float[C]") << opset;
    EXPECT_EQ(s.Get("sv"), "float[C]") << opset;
  }
  auto s = InferText(Model(7,
                           "g (float[N,C,L] x, float[C,L] scale, float[C,L] b, float[C,L] mean, float[C,L] var) => "
                           "(float[] y, float[] m, float[] v, float[] sm, float[] sv)",
                           "y, m, v, sm, sv = BatchNormalization <spatial = 0> (x, scale, b, mean, var)"));
  EXPECT_EQ(s.Get("m"), "float[C,L]");
  EXPECT_EQ(s.Get("sm"), "float[C,L]");
  EXPECT_EQ(s.Get("sv"), "float[C,L]");
}

TEST(LayerNormalizationShape, StatisticsKeepLeadingDims) {
  auto s = InferText(Model(17, "g (float16[B,S,D] x, float16[D] g, float16[D] b) => (float16[] y, float[] m, float[] r)",
                           "y, m, r = LayerNormalization <axis = -1> (x, g, b)"));
  EXPECT_EQ(s.Get("y"), "float16[B,S,D]");
  EXPECT_EQ(s.Get("m"), "float[B,S,1]");
  EXPECT_EQ(s.Get("r"), "float[B,S,1]");
  auto t = InferText(Model(17, "g (float[B,S,D] x, float[S,D] g) => (float[] y, bfloat16[] m)",
                           "y, m = LayerNormalization <axis = 1, stash_type = 16> (x, g)"));
  EXPECT_EQ(t.Get("m"), "bfloat16[B,1,1]");
  // The statistics' type U is float or bfloat16: stash_type gives it.
  EXPECT_EQ(InferenceRefusal(Model(17, "g (float[B,S,D] x, float[S,D] g) => (float[] y, double[] m)",
                                   "y, m = LayerNormalization <axis = 1, stash_type = 11> (x, g)")),
            "node #0 (LayerNormalization): output 1 'Mean' of LayerNormalization-17 has type U: tensor(float), "
            "tensor(bfloat16); found tensor(double)");
}

TEST(LayerNormalizationShape, RefusesAxisOutOfRange) {
  EXPECT_EQ(InferenceRefusal(Model(17, "g (float[B,S,D] x, float[D] g) => (float[] y)",
                                   "y = LayerNormalization <axis = 3> (x, g)")),
            "node #0 (LayerNormalization): LayerNormalization-17 axis is in [-r, r-1] for r = 3; found axis 3");
  EXPECT_EQ(InferenceRefusal(Model(13, "g (float[B,S,D] x) => (float[] y)", "y = Softmax <axis = -4> (x)")),
            "node #0 (Softmax): Softmax-13 axis is in [-r, r-1] for r = 3; found axis -4");
}

TEST(NormalizationShape, SameShapeOperators) {
  auto s = InferText(Model(23,
                           "g (float[N,C,H,W] x, float[C] sc, float[C] b, float[W] w) => (float[] a, float[] c, "
                           "float[] d, float[] e, float[] f, float[] h, float[] i, float[] j, float[] k)",
                           "a = InstanceNormalization (x, sc, b)\n"
                           "c = GroupNormalization <num_groups = 2> (x, sc, b)\n"
                           "d = RMSNormalization (x, w)\n"
                           "e = LpNormalization (x)\n"
                           "f = MeanVarianceNormalization (x)\n"
                           "h = LRN <size = 3> (x)\n"
                           "i = Softmax (x)\n"
                           "j = LogSoftmax <axis = 1> (x)\n"
                           "k = Hardmax (x)"));
  for (const char* name : {"a", "c", "d", "e", "f", "h", "i", "j", "k"}) EXPECT_EQ(s.Get(name), "float[N,C,H,W]") << name;
}

// ---------------------------------------------------------------------------------------
// Gemm, MatMul, Einsum

TEST(GemmShape, TransposedOperands) {
  auto s = InferText(Model(13, "g (float[K,M] a, float[N,K] b, float[N] c) => (float[] y)",
                           "y = Gemm <transA = 1, transB = 1> (a, b, c)"));
  EXPECT_EQ(s.Get("y"), "float[M,N]");
}

TEST(GemmShape, RefusesAnOperandThatIsNot2D) {
  EXPECT_EQ(InferenceRefusal(Model(13, "g (float[4] a, float[4] b) => (float[] y)", "y = Gemm (a, b)")),
            "node #0 (Gemm): Gemm-13 takes 2-D A and B; found rank 1");
}

TEST(GemmShape, ReportsInnerDimMismatch) {
  auto s = InferText(Model(13, "g (float[M,4] a, float[5,N] b) => (float[] y)", "y = Gemm (a, b)"));
  EXPECT_THAT(s.Diagnostics(), ElementsAre(HasSubstr("inner dimensions")));
}

TEST(MatMulShape, BroadcastsBatchDims) {
  auto s = InferText(Model(13, "g (float[B,1,S,K] a, float[H,K,N] b) => (float[] y)", "y = MatMul (a, b)"));
  EXPECT_EQ(s.Get("y"), "float[B,H,S,N]");
}

TEST(MatMulShape, PromotesVectors) {
  auto s = InferText(Model(13, "g (float[K] v, float[B,K,N] m, float[B,S,K] x) => (float[] a, float[] b, float[] c)",
                           "a = MatMul (v, m)\nb = MatMul (x, v)\nc = MatMul (v, v)"));
  EXPECT_EQ(s.Get("a"), "float[B,N]");
  EXPECT_EQ(s.Get("b"), "float[B,S]");
  EXPECT_EQ(s.Get("c"), "float[]");
}

TEST(MatMulShape, ReportsInnerDimMismatch) {
  auto s = InferText(Model(13, "g (float[B,S,4] a, float[5,N] b) => (float[] y)", "y = MatMul (a, b)"));
  EXPECT_THAT(s.Diagnostics(), ElementsAre(HasSubstr("MatMul inner dimensions differ")));
  EXPECT_EQ(s.Get("y"), "float?");
}

TEST(MatMulShape, UnknownRankStaysUnknown) {
  auto s = InferText(Model(13, "g (float a, float[K,N] b) => (float[] y)", "y = MatMul (a, b)"));
  EXPECT_THAT(s.Diagnostics(), SizeIs(1));  // a scalar operand
  auto t = InferText(Model(13, "g (float[] a, float[K,N] b) => (float[] y)", "y = MatMul (a, b)"));
  EXPECT_EQ(t.Shape("y"), "?");
}

TEST(MatMulIntegerShape, QuantizedVariants) {
  auto s = InferText(Model(21,
                           "g (uint8[B,S,K] a, uint8[K,N] b, float sa, uint8 za, float sb, uint8 zb, float sy, int8 zy)"
                           " => (int32[] y, int8[] q)",
                           "y = MatMulInteger (a, b)\nq = QLinearMatMul (a, sa, za, b, sb, zb, sy, zy)"));
  EXPECT_EQ(s.Get("y"), "int32[B,S,N]");
  EXPECT_EQ(s.Get("q"), "int8[B,S,N]");
}

TEST(EinsumShape, ExplicitImplicitAndEllipsis) {
  auto s = InferText(Model(12,
                           "g (float[B,I,J] a, float[B,J,K] b, float[I,J] m, float[J,K] n, float[X,1,I,J] p, "
                           "float[Y,J,K] q) => (float[] y, float[] z, float[] e, float[] t)",
                           "y = Einsum <equation = \"bij,bjk->bik\"> (a, b)\n"
                           "z = Einsum <equation = \"ij,jk\"> (m, n)\n"
                           "e = Einsum <equation = \"...ij, ...jk -> ...ik\"> (p, q)\n"
                           "t = Einsum <equation = \"ij->ji\"> (m)"));
  EXPECT_EQ(s.Get("y"), "float[B,I,K]");
  EXPECT_EQ(s.Get("z"), "float[I,K]");
  EXPECT_EQ(s.Get("e"), "float[X,Y,I,K]");
  EXPECT_EQ(s.Get("t"), "float[J,I]");
}

TEST(EinsumShape, LabelWithDifferentDimsIsUnknownOrReported) {
  auto s = InferText(Model(12, "g (float[I,J] a, float[Q,K] b, float[I,3] c, float[4,K] d) => (float[] y, float[] z)",
                           "y = Einsum <equation = \"ij,jk->ik\"> (a, b)\n"
                           "z = Einsum <equation = \"ij,jk->ik\"> (c, d)"));
  EXPECT_EQ(s.Get("y"), "float[I,K]");
  EXPECT_THAT(s.Diagnostics(), ElementsAre(HasSubstr("label 'j'")));
}

// ---------------------------------------------------------------------------------------
// Recurrent networks

TEST(RecurrentShape, BidirectionalLstm) {
  auto s = InferText(Model(7, "g (float[S,B,I] x, float[2,128,I] w, float[2,128,32] r) => (float[] y, float[] h, float[] c)",
                           "y, h, c = LSTM <hidden_size = 32, direction = \"bidirectional\"> (x, w, r)"));
  EXPECT_EQ(s.Get("y"), "float[S,2,B,32]");
  EXPECT_EQ(s.Get("h"), "float[2,B,32]");
  EXPECT_EQ(s.Get("c"), "float[2,B,32]");
}

TEST(RecurrentShape, BatchFirstLayoutSinceOpset14) {
  auto s = InferText(Model(14, "g (float[B,S,I] x, float[1,48,I] w, float[1,48,16] r) => (float[] y, float[] h)",
                           "y, h = GRU <hidden_size = 16, layout = 1> (x, w, r)"));
  EXPECT_EQ(s.Get("y"), "float[B,S,1,16]");
  EXPECT_EQ(s.Get("h"), "float[B,1,16]");
}

TEST(RecurrentShape, HiddenSizeFromRecurrenceWeights) {
  auto s = InferText(Model(13, "g (float[S,B,I] x, float[1,H,I] w, float[1,H,H] r) => (float[] y)",
                           "y = RNN (x, w, r)"));
  EXPECT_EQ(s.Get("y"), "float[S,1,B,H]");
}

// ---------------------------------------------------------------------------------------
// Quantization

TEST(QuantizeLinearShape, OutputTypeByVersion) {
  auto s = InferText(Model(21, "g (float[N,C] x, float sc, int8 zp) => (int8[] a, uint8[] b, int16[] c)",
                           "a = QuantizeLinear (x, sc, zp)\nb = QuantizeLinear (x, sc)\n"
                           "c = QuantizeLinear <output_dtype = 5> (x, sc)"));
  EXPECT_EQ(s.Get("a"), "int8[N,C]");
  EXPECT_EQ(s.Get("b"), "uint8[N,C]");
  EXPECT_EQ(s.Get("c"), "int16[N,C]");
}

TEST(DequantizeLinearShape, OutputTypeByVersion) {
  auto s = InferText(Model(13, "g (int8[N,C] x, float sc) => (float[] y)", "y = DequantizeLinear (x, sc)"));
  EXPECT_EQ(s.Get("y"), "float[N,C]");
  auto t = InferText(Model(19, "g (int8[N,C] x, float16 sc) => (float16[] y)", "y = DequantizeLinear (x, sc)"));
  EXPECT_EQ(t.Get("y"), "float16[N,C]");
  auto u = InferText(Model(23, "g (int8[N,C] x, float sc) => (bfloat16[] y)",
                           "y = DequantizeLinear <output_dtype = 16> (x, sc)"));
  EXPECT_EQ(u.Get("y"), "bfloat16[N,C]");
}

TEST(DynamicQuantizeLinearShape, ScalarScaleAndZeroPoint) {
  auto s = InferText(Model(11, "g (float[N,K] x) => (uint8[] y, float[] s, uint8[] z)", "y, s, z = DynamicQuantizeLinear (x)"));
  EXPECT_EQ(s.Get("y"), "uint8[N,K]");
  EXPECT_EQ(s.Get("s"), "float[]");
  EXPECT_EQ(s.Get("z"), "uint8[]");
}

// ---------------------------------------------------------------------------------------
// Attention, RotaryEmbedding (opset 23)

TEST(AttentionShape, FourDimensionalWithPastState) {
  auto s = InferText(Model(23,
                           "g (float[B,8,S,64] q, float[B,2,L,64] k, float[B,2,L,32] v, float[B,2,P,64] pk, "
                           "float[B,2,P,32] pv) => (float[] y, float[] ok, float[] ov, float[] qk)",
                           "y, ok, ov, qk = Attention (q, k, v, , pk, pv)"));
  EXPECT_EQ(s.Get("y"), "float[B,8,S,32]");
  EXPECT_TRUE(s.SameDims("ok", {"B", "2", "P+L", "64"}));
  EXPECT_TRUE(s.SameDims("ov", {"B", "2", "P+L", "32"}));
  EXPECT_TRUE(s.SameDims("qk", {"B", "8", "S", "P+L"}));
}

TEST(AttentionShape, ThreeDimensionalUsesHeadCounts) {
  auto s = InferText(Model(23, "g (float[B,S,512] q, float[B,L,128] k, float[B,L,128] v) => (float[] y, float[] ok)",
                           "y, ok = Attention <q_num_heads = 8, kv_num_heads = 2> (q, k, v)"));
  EXPECT_EQ(s.Get("y"), "float[B,S,512]");
  EXPECT_EQ(s.Get("ok"), "float[B,2,L,64]");
}

TEST(AttentionShape, ThreeDimensionalWithoutHeadCountsIsUnknown) {
  auto s = InferText(Model(23, "g (float[B,S,512] q, float[B,L,128] k, float[B,L,128] v) => (float[] y)",
                           "y = Attention (q, k, v)"));
  EXPECT_EQ(s.Get("y"), "float[B,S,?]");
}

TEST(RotaryEmbeddingShape, SameAsInput) {
  auto s = InferText(Model(23, "g (float[B,S,H,D] x, float[M,16] c, float[M,16] n, int64[B,S] p) => (float[] y)",
                           "y = RotaryEmbedding (x, c, n, p)"));
  EXPECT_EQ(s.Get("y"), "float[B,S,H,D]");
}

// ---------------------------------------------------------------------------------------
// Sampling, detection, image operators

TEST(GridSampleShape, TakesSpatialDimsFromTheGrid) {
  auto s = InferText(Model(20, "g (float[N,C,D,H,W] x, float[N,P,Q,R,3] grid) => (float[] y)", "y = GridSample (x, grid)"));
  EXPECT_EQ(s.Get("y"), "float[N,C,P,Q,R]");
}

TEST(RoiAlignShape, OutputSizeFromAttributes) {
  auto s = InferText(Model(16, "g (float[N,C,H,W] x, float[R,4] rois, int64[R] idx) => (float[] y)",
                           "y = RoiAlign <output_height = 7, output_width = 5> (x, rois, idx)"));
  EXPECT_EQ(s.Get("y"), "float[R,C,7,5]");
}

TEST(NonMaxSuppressionShape, CountIsAFreshSymbol) {
  auto s = InferText(Model(11, "g (float[B,K,4] boxes, float[B,C,K] scores) => (int64[] y)",
                           "y = NonMaxSuppression (boxes, scores)"));
  const auto& y = s.Tensor("y");
  ASSERT_TRUE(y.shape.HasRank());
  ASSERT_EQ(y.shape.Rank(), 2u);
  EXPECT_FALSE(y.shape[0].IsConstant());
  EXPECT_TRUE(y.shape[0].IsKnown());
  EXPECT_EQ(y.shape[1], core::shapes::SymDim(3));
}

TEST(AffineGridShape, SizeValues) {
  auto s = InferText(Model(20, "g (float[N,2,3] theta, float[N,3,4] theta3) => (float[] y, float[] z)",
                           "size = Constant <value = int64[4] {2, 3, 8, 9}> ()\n"
                           "size3 = Constant <value = int64[5] {2, 3, 4, 8, 9}> ()\n"
                           "y = AffineGrid (theta, size)\nz = AffineGrid (theta3, size3)"));
  EXPECT_EQ(s.Get("y"), "float[2,8,9,2]");
  EXPECT_EQ(s.Get("z"), "float[2,4,8,9,3]");
}

TEST(AffineGridShape, DynamicSizeKeepsRankAndBatch) {
  auto s = InferText(Model(20, "g (float[N,2,3] theta, int64[4] size) => (float[] y)", "y = AffineGrid (theta, size)"));
  EXPECT_EQ(s.Get("y"), "float[N,?,?,2]");
}

TEST(CenterCropPadShape, AxesSubset) {
  auto s = InferText(Model(18, "g (float[N,H,W,3] x) => (float[] y)",
                           "shape = Constant <value = int64[2] {10, 12}> ()\n"
                           "y = CenterCropPad <axes = [1, 2]> (x, shape)"));
  EXPECT_EQ(s.Get("y"), "float[N,10,12,3]");
}

TEST(Col2ImShape, ImageAndBlockShapes) {
  auto s = InferText(Model(18, "g (float[N,18,L] x) => (float[] y)",
                           "image = Constant <value = int64[2] {5, 5}> ()\n"
                           "block = Constant <value = int64[2] {3, 3}> ()\n"
                           "y = Col2Im (x, image, block)"));
  EXPECT_EQ(s.Get("y"), "float[N,2,5,5]");
}

}  // namespace
}  // namespace onnxopt::testing
