// The scenarios of transpose-optimizer.md section 8 (T01..T53), each named after the
// scenario. Positive tests check the exact graph after, convergence and equal outputs;
// negative tests check the graph is unchanged and the stop reason.
#include <gtest/gtest.h>

#include <string>

#include "onnx_extensions/transpose/transpose_optimizer.h"
#include "tests/onnx_extensions/patterns/pattern_test_util.h"
#include "tests/onnx_extensions/transpose/transpose_test_util.h"
#include "tests/support/test_support.h"

namespace onnxopt::testing {
namespace {

using onnx_transpose::CostModel;
using onnx_transpose::HookDecision;
using onnx_transpose::TransposeOptimizerOptions;

// T01 and the graphs derived from it (section 8).
std::string SliceShared(const std::string& last_perm, const std::string& y1_type, const std::string& extra_output = "",
                        const std::string& extra_nodes = "") {
  return R"(<ir_version: 8, opset_import: ["" : 13]>
g (float[1,8,8,16] x) => ()" + y1_type + R"( y1, float[1,16,8,8] y2)" + extra_output + R"()
<int64[1] starts = {0}, int64[1] ends = {4}, int64[1] axes = {1}>
{
  a = Transpose <perm = [0, 3, 1, 2]> (x)
  s = Slice (a, starts, ends, axes)
  )" + extra_nodes + R"(
  y1 = Transpose <perm = )" + last_perm + R"(> (s)
  y2 = Relu (a)
})";
}

TEST(TransposeOptimizer, T01_TestSliceSharedTransposeCancel) {
  ExpectTransposeRewrite(SliceShared("[0, 2, 3, 1]", "float[1,8,8,4]"), R"(<ir_version: 8, opset_import: ["" : 13]>
g (float[1,8,8,16] x) => (float[1,8,8,4] y1, float[1,16,8,8] y2)
<int64[1] starts = {0}, int64[1] ends = {4}, int64[1] axes3 = {3}>
{
  a = Transpose <perm = [0, 3, 1, 2]> (x)
  y1 = Slice (x, starts, ends, axes3)
  y2 = Relu (a)
})");
}

TEST(TransposeOptimizer, T02_TestSliceSharedTransposeNoCancel) {
  ExpectTransposeUnchanged(SliceShared("[0, 1, 3, 2]", "float[1,4,8,8]"),
                           "a shared Transpose would only merge downstream");
}

TEST(TransposeOptimizer, T02_DefaultCostModelMerges) {
  TransposeOptimizerOptions options;
  options.cost_model = CostModel::kDefault;
  const TransposeRun run = RunTransposeOptimizer(ParseText(SliceShared("[0, 1, 3, 2]", "float[1,4,8,8]")), options);
  EXPECT_EQ(run.Counter("merged"), 1);
  EXPECT_EQ(CountTransposes(run.model), 2);
}

const char* kSliceUnshared = R"(<ir_version: 8, opset_import: ["" : 13]>
g (float[1,8,8,16] x) => (float[1,4,8,8] y1)
<int64[1] starts = {0}, int64[1] ends = {4}, int64[1] axes = {1}>
{
  a = Transpose <perm = [0, 3, 1, 2]> (x)
  s = Slice (a, starts, ends, axes)
  y1 = Transpose <perm = [0, 1, 3, 2]> (s)
})";

TEST(TransposeOptimizer, T03_TestSliceUnsharedTransposeNoCancel) {
  ExpectTransposeRewrite(kSliceUnshared, R"(<ir_version: 8, opset_import: ["" : 13]>
g (float[1,8,8,16] x) => (float[1,4,8,8] y1)
<int64[1] starts = {0}, int64[1] ends = {4}, int64[1] axes3 = {3}>
{
  s = Slice (x, starts, ends, axes3)
  y1 = Transpose <perm = [0, 3, 2, 1]> (s)
})");
}

TEST(TransposeOptimizer, T04_SliceUnsharedNoDownstreamTranspose) {
  ExpectTransposeUnchanged(R"(<ir_version: 8, opset_import: ["" : 13]>
g (float[1,8,8,16] x) => (float[1,4,8,8] y)
<int64[1] starts = {0}, int64[1] ends = {4}, int64[1] axes = {1}>
{
  a = Transpose <perm = [0, 3, 1, 2]> (x)
  y = Slice (a, starts, ends, axes)
})",
                           "the output Transpose would not be removed downstream");
}

std::string QdqSlice(const std::string& last_perm, const std::string& y1_type, bool shared) {
  return R"(<ir_version: 8, opset_import: ["" : 13]>
g (uint8[1,8,8,16] xq) => ()" + y1_type + R"( y1)" + (shared ? ", uint8[1,16,8,8] y2" : "") + R"()
<float sc = {0.05}, uint8 zp = {128}, int64[1] starts = {0}, int64[1] ends = {4}, int64[1] axes = {1}>
{
  xf = DequantizeLinear (xq, sc, zp)
  a = Transpose <perm = [0, 3, 1, 2]> (xf)
  aq = QuantizeLinear (a, sc, zp)
  af = DequantizeLinear (aq, sc, zp)
  s = Slice (af, starts, ends, axes)
  sq = QuantizeLinear (s, sc, zp)
  sf = DequantizeLinear (sq, sc, zp)
  t = Transpose <perm = )" + last_perm + R"(> (sf)
  y1 = QuantizeLinear (t, sc, zp)
  )" + (shared ? "y2 = QuantizeLinear (a, sc, zp)" : "") + R"(
})";
}

TEST(TransposeOptimizer, T05_TestQDQSharedTransposeSliceCancel) {
  ExpectTransposeRewrite(QdqSlice("[0, 2, 3, 1]", "uint8[1,8,8,4]", true), R"(<ir_version: 8, opset_import: ["" : 13]>
g (uint8[1,8,8,16] xq) => (uint8[1,8,8,4] y1, uint8[1,16,8,8] y2)
<float sc = {0.05}, uint8 zp = {128}, int64[1] starts = {0}, int64[1] ends = {4}, int64[1] axes3 = {3}>
{
  xf = DequantizeLinear (xq, sc, zp)
  a = Transpose <perm = [0, 3, 1, 2]> (xf)
  aq = QuantizeLinear (xf, sc, zp)
  af = DequantizeLinear (aq, sc, zp)
  s = Slice (af, starts, ends, axes3)
  y1 = QuantizeLinear (s, sc, zp)
  y2 = QuantizeLinear (a, sc, zp)
})");
}

TEST(TransposeOptimizer, T06_TestQDQSharedTransposeSliceNoCancel) {
  ExpectTransposeUnchanged(QdqSlice("[0, 1, 3, 2]", "uint8[1,4,8,8]", true), "");
}

TEST(TransposeOptimizer, T07_TestQDQTransposeNotPushedThroughOwnQ) {
  ExpectTransposeUnchanged(QdqSlice("[0, 1, 3, 2]", "uint8[1,4,8,8]", false),
                           "the Transpose is in a DQ-Transpose-Q unit and nothing cancels downstream");
}

TEST(TransposeOptimizer, T07b_QdqUnitPushedWhenItCancels) {
  ExpectTransposeRewrite(QdqSlice("[0, 2, 3, 1]", "uint8[1,8,8,4]", false), R"(<ir_version: 8, opset_import: ["" : 13]>
g (uint8[1,8,8,16] xq) => (uint8[1,8,8,4] y1)
<float sc = {0.05}, uint8 zp = {128}, int64[1] starts = {0}, int64[1] ends = {4}, int64[1] axes3 = {3}>
{
  xf = DequantizeLinear (xq, sc, zp)
  s = Slice (xf, starts, ends, axes3)
  y1 = QuantizeLinear (s, sc, zp)
})");
}

TEST(TransposeOptimizer, T08_QdqGuardSkippedWhenHookPushes) {
  TransposeOptimizerOptions options;
  options.cost_hook = [](const onnx_transpose::PushGraph&, onnx_transpose::NodeId, const onnx_transpose::Perm& perm) {
    return perm == onnx_transpose::Perm{0, 3, 1, 2} ? HookDecision::kPush : HookDecision::kFallThrough;
  };
  ExpectTransposeRewrite(QdqSlice("[0, 1, 3, 2]", "uint8[1,4,8,8]", false), R"(<ir_version: 8, opset_import: ["" : 13]>
g (uint8[1,8,8,16] xq) => (uint8[1,4,8,8] y1)
<float sc = {0.05}, uint8 zp = {128}, int64[1] starts = {0}, int64[1] ends = {4}, int64[1] axes3 = {3}>
{
  af = DequantizeLinear (xq, sc, zp)
  s = Slice (af, starts, ends, axes3)
  sq = QuantizeLinear (s, sc, zp)
  sf = DequantizeLinear (sq, sc, zp)
  t = Transpose <perm = [0, 3, 2, 1]> (sf)
  y1 = QuantizeLinear (t, sc, zp)
})",
                         options);
}

TEST(TransposeOptimizer, T09_IncompleteConsumersStrandTheCopy) {
  ExpectTransposeUnchanged(SliceShared("[0, 2, 3, 1]", "float[1,8,8,4]", ", float[1,4,8,8] s"),
                           "a pushed copy would be stranded on a branch");
}

TEST(TransposeOptimizer, T10_RankAdjustedPermThroughSqueeze) {
  ExpectTransposeRewrite(R"(<ir_version: 8, opset_import: ["" : 13]>
g (float[2,1,3,4] x) => (float[2,3,2] y, float[2,4,1,3] z)
<int64[1] starts = {0}, int64[1] ends = {2}, int64[1] axes = {1}, int64[1] sq = {2}>
{
  a = Transpose <perm = [0, 3, 1, 2]> (x)
  s = Slice (a, starts, ends, axes)
  q = Squeeze (s, sq)
  y = Transpose <perm = [0, 2, 1]> (q)
  z = Relu (a)
})",
                         R"(<ir_version: 8, opset_import: ["" : 13]>
g (float[2,1,3,4] x) => (float[2,3,2] y, float[2,4,1,3] z)
<int64[1] starts = {0}, int64[1] ends = {2}, int64[1] axes3 = {3}, int64[1] sq1 = {1}>
{
  a = Transpose <perm = [0, 3, 1, 2]> (x)
  s = Slice (x, starts, ends, axes3)
  y = Squeeze (s, sq1)
  z = Relu (a)
})");
}

std::string UnsqueezeAfterSlice(const std::string& last_perm, const std::string& y_type) {
  return R"(<ir_version: 8, opset_import: ["" : 13]>
g (float[2,3,4] x) => ()" + y_type + R"( y, float[4,2,3] z)
<int64[1] starts = {0}, int64[1] ends = {2}, int64[1] axes = {0}, int64[1] u0 = {0}>
{
  a = Transpose <perm = [2, 0, 1]> (x)
  s = Slice (a, starts, ends, axes)
  u = Unsqueeze (s, u0)
  y = Transpose <perm = )" + last_perm + R"(> (u)
  z = Relu (a)
})";
}

TEST(TransposeOptimizer, T11_RankAdjustedPermThroughUnsqueeze) {
  ExpectTransposeRewrite(UnsqueezeAfterSlice("[0, 2, 3, 1]", "float[1,2,3,2]"), R"(<ir_version: 8, opset_import: ["" : 13]>
g (float[2,3,4] x) => (float[1,2,3,2] y, float[4,2,3] z)
<int64[1] starts = {0}, int64[1] ends = {2}, int64[1] u0 = {0}, int64[1] axes2 = {2}>
{
  a = Transpose <perm = [2, 0, 1]> (x)
  s = Slice (x, starts, ends, axes2)
  y = Unsqueeze (s, u0)
  z = Relu (a)
})");
}

TEST(TransposeOptimizer, T11b_NaivelyPaddedPermIsAMerge) {
  ExpectTransposeUnchanged(UnsqueezeAfterSlice("[1, 2, 0, 3]", "float[2,2,1,3]"),
                           "a shared Transpose would only merge downstream");
}

}  // namespace
}  // namespace onnxopt::testing
