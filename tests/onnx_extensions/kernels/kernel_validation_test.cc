// Kernels validate what they read (issue 13, class 1): every class of check has a test
// here -- input/output counts, element types, attribute values, scalar and empty
// inputs, finiteness and magnitudes, overflow-free index arithmetic -- and each refusal
// is a ModelError naming the node (by its first output: the text syntax has no node
// names) and what is wrong. The differential test (tests/differential) covers the
// operators one by one against onnxruntime; these run without it, also under ASan+UBSan.

#include <cmath>
#include <cstdint>
#include <initializer_list>
#include <limits>
#include <string>
#include <string_view>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "onnx_core/common/error.h"
#include "tests/onnx_extensions/kernels/kernel_test_util.h"

namespace onnxopt::testing {
namespace {

using I64 = std::vector<std::int64_t>;
constexpr std::int64_t kInt64Min = std::numeric_limits<std::int64_t>::min();
constexpr std::int64_t kInt64Max = std::numeric_limits<std::int64_t>::max();

// Runs the model and expects a ModelError naming `node` ("node 'y' (Split)") and holding
// every one of `parts`.
void ExpectRefused(std::string_view text, const Inputs& inputs, const std::string& node,
                   std::initializer_list<std::string_view> parts) {
  try {
    RunText(text, inputs);
    ADD_FAILURE() << "the model was accepted; expected an error naming " << node;
  } catch (const ModelError& error) {
    const std::string message = error.what();
    EXPECT_THAT(message, ::testing::HasSubstr(node));
    for (std::string_view part : parts) EXPECT_THAT(message, ::testing::HasSubstr(std::string(part)));
  }
}

Tensor Floats(std::vector<std::int64_t> shape, std::vector<float> values) {
  return MakeTensor<float>(std::move(shape), std::move(values));
}
Tensor Ints(std::vector<std::int64_t> values) {
  const auto n = static_cast<std::int64_t>(values.size());
  return MakeTensor<std::int64_t>({n}, std::move(values));
}

// --- Counts -------------------------------------------------------------------------------

TEST(KernelValidation, InputAndOutputCountsAreChecked) {
  ExpectRefused(R"ONNX(
    <ir_version: 8, opset_import: ["" : 14]>
    g (float[2] x) => (float[2] y) { y = Relu (x, x) })ONNX",
                {{"x", Floats({2}, {1, 2})}}, "node 'y' (Relu)", {"expected 1 input, found 2"});
  ExpectRefused(R"ONNX(
    <ir_version: 8, opset_import: ["" : 14]>
    g (float[2] x) => (float[2] y) { y = Add (x) })ONNX",
                {{"x", Floats({2}, {1, 2})}}, "node 'y' (Add)", {"expected 2 inputs, found 1"});
  // Before: the evaluator found fewer results than outputs, an internal error.
  ExpectRefused(R"ONNX(
    <ir_version: 8, opset_import: ["" : 14]>
    g (float[2] x) => (float[2] y) { y, z = Relu (x) })ONNX",
                {{"x", Floats({2}, {1, 2})}}, "node 'y' (Relu)", {"expected 1 output, found 2"});
}

// --- Element types -------------------------------------------------------------------------

TEST(KernelValidation, UnsupportedElementTypesAreNamed) {
  ExpectRefused(R"ONNX(
    <ir_version: 8, opset_import: ["" : 14]>
    g (int32[2] x) => (int32[2] y) { y = Sqrt (x) })ONNX",
                {{"x", MakeTensor<std::int32_t>({2}, {1, 4})}}, "node 'y' (Sqrt)", {"INT32"});
  ExpectRefused(R"ONNX(
    <ir_version: 8, opset_import: ["" : 14]>
    g (int32[1] a, int32[1] b) => (int32[1] y) { y = BitShift <direction = "LEFT"> (a, b) })ONNX",
                {{"a", MakeTensor<std::int32_t>({1}, {1})}, {"b", MakeTensor<std::int32_t>({1}, {1})}},
                "node 'y' (BitShift)", {"INT32", "unsigned"});
  ExpectRefused(R"ONNX(
    <ir_version: 8, opset_import: ["" : 13]>
    g (float[3] x, float[1] i) => (float[1] y) { y = Gather (x, i) })ONNX",
                {{"x", Floats({3}, {1, 2, 3})}, {"i", Floats({1}, {0})}}, "node 'y' (Gather)", {"FLOAT", "INT64"});
  ExpectRefused(R"ONNX(
    <ir_version: 8, opset_import: ["" : 14]>
    g (float[4] x, float[1] s) => (float[4] y) { y = Reshape (x, s) })ONNX",
                {{"x", Floats({4}, {1, 2, 3, 4})}, {"s", Floats({1}, {4})}}, "node 'y' (Reshape)", {"input 1", "FLOAT"});
  ExpectRefused(R"ONNX(
    <ir_version: 8, opset_import: ["" : 11]>
    g (float[2] x, int64[2] c) => (float[1] y) { y = Compress <axis = 0> (x, c) })ONNX",
                {{"x", Floats({2}, {1, 2})}, {"c", Ints({1, 0})}}, "node 'y' (Compress)", {"BOOL", "INT64"});
  ExpectRefused(R"ONNX(
    <ir_version: 8, opset_import: ["" : 13]>
    g (float[2] x, double min) => (float[2] y) { y = Clip (x, min) })ONNX",
                {{"x", Floats({2}, {1, 2})}, {"min", MakeScalar<double>(0)}}, "node 'y' (Clip)", {"DOUBLE", "FLOAT"});
  ExpectRefused(R"ONNX(
    <ir_version: 8, opset_import: ["" : 13]>
    g (float[2,2] a, float[2,2] b) => (int32[2,2] y) { y = MatMulInteger (a, b) })ONNX",
                {{"a", Floats({2, 2}, {1, 2, 3, 4})}, {"b", Floats({2, 2}, {1, 2, 3, 4})}}, "node 'y' (MatMulInteger)",
                {"INT8 or UINT8", "FLOAT"});
}

TEST(KernelValidation, RangeInputsShareOneTypeAndAreScalars) {
  // Before: reading the limit as the start's type was an internal error.
  ExpectRefused(R"ONNX(
    <ir_version: 8, opset_import: ["" : 11]>
    g (int64 s, float l, int64 d) => (int64[5] y) { y = Range (s, l, d) })ONNX",
                {{"s", MakeScalar<std::int64_t>(0)}, {"l", MakeScalar<float>(5)}, {"d", MakeScalar<std::int64_t>(1)}},
                "node 'y' (Range)", {"FLOAT", "INT64"});
  // Before: reading the first element of an empty start crashed (SIGSEGV).
  ExpectRefused(R"ONNX(
    <ir_version: 8, opset_import: ["" : 11]>
    g (float[0] s, float l, float d) => (float[5] y) { y = Range (s, l, d) })ONNX",
                {{"s", Floats({0}, {})}, {"l", MakeScalar<float>(5)}, {"d", MakeScalar<float>(1)}}, "node 'y' (Range)",
                {"scalar", "float[0]"});
}

// --- Attribute values -----------------------------------------------------------------------

TEST(KernelValidation, SplitCountsAreChecked) {
  // Before: num_outputs = 0 divided by zero (SIGFPE).
  ExpectRefused(R"ONNX(
    <ir_version: 8, opset_import: ["" : 18]>
    g (float[4] x) => (float[2] y, float[2] z) { y, z = Split <axis = 0, num_outputs = 0> (x) })ONNX",
                {{"x", Floats({4}, {1, 2, 3, 4})}}, "node 'y' (Split)", {"num_outputs", "is 0", "2 outputs"});
  ExpectRefused(R"ONNX(
    <ir_version: 8, opset_import: ["" : 18]>
    g (float[5] x, int64[2] s) => (float[2] y, float[3] z, float w) { y, z, w = Split (x, s) })ONNX",
                {{"x", Floats({5}, {1, 2, 3, 4, 5})}, {"s", Ints({2, 3})}}, "node 'y' (Split)", {"2 sizes for 3 outputs"});
  ExpectRefused(R"ONNX(
    <ir_version: 8, opset_import: ["" : 18]>
    g (float[5] x, int64[2] s) => (float[2] y, float[3] z) { y, z = Split (x, s) })ONNX",
                {{"x", Floats({5}, {1, 2, 3, 4, 5})}, {"s", Ints({6, -1})}}, "node 'y' (Split)", {"split", "-1"});
}

TEST(KernelValidation, AttributeRangesAreChecked) {
  const Inputs x234{{"x", Floats({2, 3, 4}, std::vector<float>(24, 1.0f))}};
  ExpectRefused(R"ONNX(
    <ir_version: 8, opset_import: ["" : 13]>
    g (float[2,3,4] x) => (float[4,3,2] y) { y = Transpose <perm = [2, 2, 0]> (x) })ONNX",
                x234, "node 'y' (Transpose)", {"perm", "not a permutation"});
  ExpectRefused(R"ONNX(
    <ir_version: 8, opset_import: ["" : 13]>
    g (float[2,3,4] x) => (float[4,3,2] y) { y = Transpose <perm = [-1, 1, 0]> (x) })ONNX",
                x234, "node 'y' (Transpose)", {"perm", "out of range"});
  ExpectRefused(R"ONNX(
    <ir_version: 8, opset_import: ["" : 13]>
    g (float[2,3,4] x) => (float y) { y = Softmax <axis = 3> (x) })ONNX",
                x234, "node 'y' (Softmax)", {"axis 3", "rank 3"});
  ExpectRefused(R"ONNX(
    <ir_version: 8, opset_import: ["" : 20]>
    g (float[2,3,4] x) => (float y) { y = Gelu <approximate = "fast"> (x) })ONNX",
                x234, "node 'y' (Gelu)", {"approximate", "fast"});
  ExpectRefused(R"ONNX(
    <ir_version: 8, opset_import: ["" : 13]>
    g (float[2,3,4] x) => (float y) { y = Mod (x, x) })ONNX",
                x234, "node 'y' (Mod)", {"fmod", "FLOAT"});
  ExpectRefused(R"ONNX(
    <ir_version: 8, opset_import: ["" : 13]>
    g (float[1,3,2,2] x) => (float y) { y = DepthToSpace <blocksize = 0> (x) })ONNX",
                {{"x", Floats({1, 3, 2, 2}, std::vector<float>(12, 1.0f))}}, "node 'y' (DepthToSpace)", {"blocksize"});
  ExpectRefused(R"ONNX(
    <ir_version: 8, opset_import: ["" : 18]>
    g (float[4] x, int64[1,1] i, float[1] u) => (float[4] y) { y = ScatterND <reduction = "sum"> (x, i, u) })ONNX",
                {{"x", Floats({4}, {1, 2, 3, 4})}, {"i", MakeTensor<std::int64_t>({1, 1}, {0})}, {"u", Floats({1}, {5})}},
                "node 'y' (ScatterND)", {"reduction", "sum"});
  ExpectRefused(R"ONNX(
    <ir_version: 8, opset_import: ["" : 12]>
    g (float[2,2] x) => (float[2] y) { y = Einsum <equation = "ij->ii"> (x) })ONNX",
                {{"x", Floats({2, 2}, {1, 2, 3, 4})}}, "node 'y' (Einsum)", {"label twice"});
}

TEST(KernelValidation, WindowAttributesAreChecked) {
  const Inputs image{{"x", Floats({1, 1, 4, 4}, std::vector<float>(16, 1.0f))}};
  Inputs image_and_weights = image;
  image_and_weights.emplace_back("w", Floats({1, 1, 2, 2}, {1, 1, 1, 1}));
  ExpectRefused(R"ONNX(
    <ir_version: 8, opset_import: ["" : 11]>
    g (float[1,1,4,4] x, float[1,1,2,2] w) => (float y) { y = Conv <dilations = [0, 1]> (x, w) })ONNX",
                image_and_weights, "node 'y' (Conv)", {"dilations", "expected >= 1"});
  ExpectRefused(R"ONNX(
    <ir_version: 8, opset_import: ["" : 11]>
    g (float[1,1,4,4] x, float[1,1,2,2] w) => (float y) { y = Conv <pads = [-1, 0, 0, 0]> (x, w) })ONNX",
                image_and_weights, "node 'y' (Conv)", {"pads", "expected >= 0"});
  ExpectRefused(R"ONNX(
    <ir_version: 8, opset_import: ["" : 11]>
    g (float[1,1,4,4] x, float[1,1,2,2] w) => (float y) { y = ConvTranspose <output_padding = [2, 0], strides = [2, 2]> (x, w) })ONNX",
                image_and_weights, "node 'y' (ConvTranspose)", {"output_padding", "less than the stride"});
  ExpectRefused(R"ONNX(
    <ir_version: 8, opset_import: ["" : 12]>
    g (float[1,1,4,4] x) => (float y) { y = MaxPool <kernel_shape = [0, 2]> (x) })ONNX",
                image, "node 'y' (MaxPool)", {"kernel", "expected >= 1"});
  ExpectRefused(R"ONNX(
    <ir_version: 8, opset_import: ["" : 19]>
    g (float[1,1,4,4] x) => (float y) { y = AveragePool <kernel_shape = [2, 2], pads = [2, 0, 0, 0]> (x) })ONNX",
                image, "node 'y' (AveragePool)", {"pads", "smaller than the kernel"});
}

// --- Scalar and empty inputs -------------------------------------------------------------------

TEST(KernelValidation, ScalarInputsMustHoldOneValue) {
  // Before: an empty k was an internal error.
  ExpectRefused(R"ONNX(
    <ir_version: 8, opset_import: ["" : 11]>
    g (float[4] x, int64[0] k) => (float y, int64 i) { y, i = TopK (x, k) })ONNX",
                {{"x", Floats({4}, {1, 2, 3, 4})}, {"k", Ints({})}}, "node 'y' (TopK)", {"input 1", "scalar"});
  ExpectRefused(R"ONNX(
    <ir_version: 8, opset_import: ["" : 14]>
    g (float[2,3] x, int64[2] a) => (float[2,3] y) { y = CumSum (x, a) })ONNX",
                {{"x", Floats({2, 3}, {1, 2, 3, 4, 5, 6})}, {"a", Ints({0, 1})}}, "node 'y' (CumSum)", {"scalar"});
  ExpectRefused(R"ONNX(
    <ir_version: 8, opset_import: ["" : 16]>
    g (int64 c) => (float[3] y) {
      y = If (c) <then_branch = t () => (float[1] a) { a = Constant <value = float[1] {1}> () },
                  else_branch = e () => (float[1] b) { b = Constant <value = float[1] {2}> () }>
    })ONNX",
                {{"c", MakeScalar<std::int64_t>(1)}}, "node 'y' (If)", {"BOOL", "INT64"});
}

// --- Finiteness and magnitude ---------------------------------------------------------------------

TEST(KernelValidation, ResizeScalesMustBeFinitePositiveAndSmallEnough) {
  // Before: every one of these was an internal error (the size cast from a NaN, an
  // infinity or a huge double).
  for (float scale : {-2.0f, 0.0f, std::numeric_limits<float>::quiet_NaN(), std::numeric_limits<float>::infinity(), 1e30f}) {
    SCOPED_TRACE(scale);
    ExpectRefused(R"ONNX(
      <ir_version: 8, opset_import: ["" : 19]>
      g (float[1,1,2,2] x, float[4] s) => (float y) { y = Resize (x, , s) })ONNX",
                  {{"x", Floats({1, 1, 2, 2}, {1, 2, 3, 4})}, {"s", Floats({4}, {1, 1, scale, 1})}}, "node 'y' (Resize)",
                  {"scale"});
  }
}

TEST(KernelValidation, CountsComputedFromValuesAreBounded) {
  for (float limit : {std::numeric_limits<float>::quiet_NaN(), std::numeric_limits<float>::infinity()}) {
    ExpectRefused(R"ONNX(
      <ir_version: 8, opset_import: ["" : 11]>
      g (float s, float l, float d) => (float[5] y) { y = Range (s, l, d) })ONNX",
                  {{"s", MakeScalar<float>(0)}, {"l", MakeScalar<float>(limit)}, {"d", MakeScalar<float>(1)}},
                  "node 'y' (Range)", {"finite element count"});
  }
  ExpectRefused(R"ONNX(
    <ir_version: 8, opset_import: ["" : 11]>
    g (int64 s, int64 l, int64 d) => (int64[5] y) { y = Range (s, l, d) })ONNX",
                {{"s", MakeScalar<std::int64_t>(0)}, {"l", MakeScalar<std::int64_t>(kInt64Max)},
                 {"d", MakeScalar<std::int64_t>(1)}},
                "node 'y' (Range)", {"more than"});
  ExpectRefused(R"ONNX(
    <ir_version: 8, opset_import: ["" : 20]>
    g (int64[2] s) => (float[2] y) { y = ConstantOfShape (s) })ONNX",
                {{"s", Ints({1 << 30, 1 << 30})}}, "node 'y' (ConstantOfShape)", {"more than"});
  ExpectRefused(R"ONNX(
    <ir_version: 8, opset_import: ["" : 13]>
    g (float[2] x, int64[1] r) => (float y) { y = Tile (x, r) })ONNX",
                {{"x", Floats({2}, {1, 2})}, {"r", Ints({kInt64Max})}}, "node 'y' (Tile)", {"does not fit"});
  ExpectRefused(R"ONNX(
    <ir_version: 8, opset_import: ["" : 11]>
    g (int64[1] i, int64 d, float[2] v) => (float y) { y = OneHot (i, d, v) })ONNX",
                {{"i", Ints({0})}, {"d", MakeScalar<std::int64_t>(0)}, {"v", Floats({2}, {0, 1})}}, "node 'y' (OneHot)",
                {"depth"});
}

// --- Corner semantics (the spec, where the kernels were wrong or crashed) --------------------------

TEST(KernelValidation, SliceWithExtremeSteps) {
  const Tensor x = Floats({10}, {0, 1, 2, 3, 4, 5, 6, 7, 8, 9});
  const char* text = R"ONNX(
    <ir_version: 8, opset_import: ["" : 13]>
    g (float[10] x, int64[1] s, int64[1] e, int64[1] a, int64[1] t) => (float y) { y = Slice (x, s, e, a, t) })ONNX";
  auto slice = [&](std::int64_t start, std::int64_t end, std::int64_t step) {
    return RunOne(text, {{"x", x}, {"s", Ints({start})}, {"e", Ints({end})}, {"a", Ints({0})}, {"t", Ints({step})}});
  };
  EXPECT_TENSOR(slice(9, kInt64Min, kInt64Min), Floats({1}, {9}));
  EXPECT_TENSOR(slice(0, kInt64Max, kInt64Max), Floats({1}, {0}));
  EXPECT_TENSOR(slice(3, 10, kInt64Max), Floats({1}, {3}));
  EXPECT_TENSOR(slice(kInt64Max, kInt64Min, -4), Floats({3}, {9, 5, 1}));
  EXPECT_TENSOR(slice(kInt64Min, kInt64Max, 4), Floats({3}, {0, 4, 8}));
}

TEST(KernelValidation, RangeCountsWithoutOverflow) {
  auto out = RunOne(R"ONNX(
    <ir_version: 8, opset_import: ["" : 11]>
    g (int64 s, int64 l, int64 d) => (int64[3] y) { y = Range (s, l, d) })ONNX",
                    {{"s", MakeScalar<std::int64_t>(kInt64Min)}, {"l", MakeScalar<std::int64_t>(kInt64Max)},
                     {"d", MakeScalar<std::int64_t>(kInt64Max)}});
  EXPECT_TENSOR(out, MakeTensor<std::int64_t>({3}, {kInt64Min, -1, kInt64Max - 1}));
}

TEST(KernelValidation, ClipWithMinAboveMaxGivesMax) {
  auto y = RunOne(R"ONNX(
    <ir_version: 8, opset_import: ["" : 13]>
    g (float[4] x, float lo, float hi) => (float[4] y) { y = Clip (x, lo, hi) })ONNX",
                  {{"x", Floats({4}, {-2, 0.5f, 3, std::nanf("")})}, {"lo", MakeScalar<float>(1)}, {"hi", MakeScalar<float>(0)}});
  EXPECT_TENSOR(y, Floats({4}, {0, 0, 0, std::nanf("")}));
}

TEST(KernelValidation, NormalizationParametersWithLeadingOnes) {
  // Before: a bias of higher rank than the normalized shape corrupted the heap.
  auto y = RunOne(R"ONNX(
    <ir_version: 8, opset_import: ["" : 17]>
    g (float[2,2] x, float[2] s, float[1,2] b) => (float[2,2] y) { y = LayerNormalization (x, s, b) })ONNX",
                  {{"x", Floats({2, 2}, {0, 2, 1, 1})}, {"s", Floats({2}, {1, 1})}, {"b", Floats({1, 2}, {10, 20})}});
  EXPECT_TENSOR_NEAR(y, Floats({2, 2}, {9, 21, 10, 20}), 1e-3);
  ExpectRefused(R"ONNX(
    <ir_version: 8, opset_import: ["" : 17]>
    g (float[2,2] x, float[3] s) => (float[2,2] y) { y = LayerNormalization (x, s) })ONNX",
                {{"x", Floats({2, 2}, {0, 2, 1, 1})}, {"s", Floats({3}, {1, 1, 1})}}, "node 'y' (LayerNormalization)",
                {"[3]", "[2]", "broadcast"});
}

TEST(KernelValidation, PadCropsBeforePadding) {
  // Negative pads remove first; wrap then reads the kept columns only.
  auto y = RunOne(R"ONNX(
    <ir_version: 8, opset_import: ["" : 19]>
    g (float[2,3] x, int64[4] p) => (float[2,3] y) { y = Pad <mode = "wrap"> (x, p) })ONNX",
                  {{"x", Floats({2, 3}, {0, 1, 2, 3, 4, 5})}, {"p", Ints({0, 1, 0, -1})}});
  EXPECT_TENSOR(y, Floats({2, 3}, {1, 0, 1, 4, 3, 4}));
}

TEST(KernelValidation, RepeatedReductionAxesCountOnce) {
  auto y = RunOne(R"ONNX(
    <ir_version: 8, opset_import: ["" : 18]>
    g (float[2,2] x, int64[2] a) => (float[2,1] y) { y = ReduceSum (x, a) })ONNX",
                  {{"x", Floats({2, 2}, {1, 2, 3, 4})}, {"a", Ints({1, -1})}});
  EXPECT_TENSOR(y, Floats({2, 1}, {3, 7}));
}

TEST(KernelValidation, EmptyAxesWithNoopKeepTheElementwiseSteps) {
  auto y = RunOne(R"ONNX(
    <ir_version: 8, opset_import: ["" : 18]>
    g (float[3] x, int64[0] a) => (float[3] y) { y = ReduceSumSquare <noop_with_empty_axes = 1> (x, a) })ONNX",
                  {{"x", Floats({3}, {-1, 2, 3})}, {"a", Ints({})}});
  EXPECT_TENSOR(y, Floats({3}, {1, 4, 9}));
}

TEST(KernelValidation, CastToInt4RoundsToEvenAndWraps) {
  auto y = RunOne(R"ONNX(
    <ir_version: 10, opset_import: ["" : 21]>
    g (float[6] x) => (int8[6] y) { t = Cast <to = 22> (x)  y = Cast <to = 3> (t) })ONNX",
                  {{"x", Floats({6}, {-9, -1.5f, 2.5f, 3.5f, 7, 8})}});
  EXPECT_TENSOR(y, MakeTensor<std::int8_t>({6}, {7, -2, 2, 4, 7, -8}));
}

}  // namespace
}  // namespace onnxopt::testing
