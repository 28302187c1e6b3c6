
#include <algorithm>
#include <cmath>
#include <exception>
#include <limits>
#include <string>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "onnx_core/common/error.h"
#include "onnx_core/eval/work_budget.h"
#include "onnx_core/ir/tensor_data.h"
#include "tests/onnx_extensions/kernels/kernel_test_util.h"

namespace onnxopt::testing {
namespace {

Tensor Out(const core::eval::ValueMap& out, const char* name) { return std::get<Tensor>(out.at(name)); }

Tensor Iota(std::vector<std::int64_t> shape) {
  std::int64_t n = 1;
  for (auto d : shape) n *= d;
  std::vector<float> v;
  for (std::int64_t i = 0; i < n; ++i) v.push_back(static_cast<float>(i));
  return MakeTensor<float>(std::move(shape), v);
}

using I64 = std::vector<std::int64_t>;

TEST(TensorKernels, ShapeWithStartEndAndSize) {
  auto out = RunText(R"ONNX(
    <ir_version: 8, opset_import: ["" : 15]>
    g (float[2,3,4] x) => (int64[3] s, int64[1] t, int64 n) {
      s = Shape (x)
      t = Shape <start = -2, end = -1> (x)
      n = Size (x)
    })ONNX",
                     {{"x", Iota({2, 3, 4})}});
  EXPECT_TENSOR(Out(out, "s"), MakeTensor<std::int64_t>({3}, {2, 3, 4}));
  EXPECT_TENSOR(Out(out, "t"), MakeTensor<std::int64_t>({1}, {3}));
  EXPECT_TENSOR(Out(out, "n"), MakeScalar<std::int64_t>(24));
}

TEST(TensorKernels, ReshapeCopiesZeroAndInfersMinusOne) {
  auto y = RunOne(R"ONNX(
    <ir_version: 8, opset_import: ["" : 14]>
    g (float[2,3,4] x, int64[2] s) => (float[2,12] y) { y = Reshape (x, s) })ONNX",
                  {{"x", Iota({2, 3, 4})}, {"s", MakeTensor<std::int64_t>({2}, {0, -1})}});
  EXPECT_EQ(y.shape(), (I64{2, 12}));
}

TEST(TensorKernels, SqueezeAndUnsqueezeAttributeAndInputForms) {
  auto a = RunOne(R"ONNX(
    <ir_version: 8, opset_import: ["" : 11]>
    g (float[1,3,1] x) => (float[3] y) { t = Squeeze <axes = [0, -1]> (x)  y = Identity (t) })ONNX",
                  {{"x", Iota({1, 3, 1})}});
  EXPECT_EQ(a.shape(), (I64{3}));
  auto b = RunOne(R"ONNX(
    <ir_version: 8, opset_import: ["" : 13]>
    g (float[3] x, int64[2] axes) => (float[1,3,1] y) { y = Unsqueeze (x, axes) })ONNX",
                  {{"x", Iota({3})}, {"axes", MakeTensor<std::int64_t>({2}, {0, -1})}});
  EXPECT_EQ(b.shape(), (I64{1, 3, 1}));
}

TEST(TensorKernels, TransposeAndFlatten) {
  auto out = RunText(R"ONNX(
    <ir_version: 8, opset_import: ["" : 13]>
    g (float[2,3] x) => (float[3,2] t, float[6,1] f) {
      t = Transpose <perm = [1, 0]> (x)
      f = Flatten <axis = -0> (x)
    })ONNX",
                     {{"x", Iota({2, 3})}});
  EXPECT_TENSOR(Out(out, "t"), MakeTensor<float>({3, 2}, {0, 3, 1, 4, 2, 5}));
  EXPECT_EQ(Out(out, "f").shape(), (I64{1, 6}));
}

TEST(TensorKernels, ExpandTileConcat) {
  auto out = RunText(R"ONNX(
    <ir_version: 8, opset_import: ["" : 13]>
    g (float[2,1] x, int64[2] s, int64[2] r) => (float[2,3] e, float[4,2] t, float[2,2] c) {
      e = Expand (x, s)
      t = Tile (x, r)
      c = Concat <axis = -1> (x, x)
    })ONNX",
                     {{"x", MakeTensor<float>({2, 1}, {1, 2})},
                      {"s", MakeTensor<std::int64_t>({2}, {1, 3})},
                      {"r", MakeTensor<std::int64_t>({2}, {2, 2})}});
  EXPECT_TENSOR(Out(out, "e"), MakeTensor<float>({2, 3}, {1, 1, 1, 2, 2, 2}));
  EXPECT_TENSOR(Out(out, "t"), MakeTensor<float>({4, 2}, {1, 1, 2, 2, 1, 1, 2, 2}));
  EXPECT_TENSOR(Out(out, "c"), MakeTensor<float>({2, 2}, {1, 1, 2, 2}));
}

TEST(TensorKernels, SplitFormsByVersion) {
  auto a = RunText(R"ONNX(
    <ir_version: 8, opset_import: ["" : 11]>
    g (float[5] x) => (float[2] p, float[3] q) { p, q = Split <split = [2, 3]> (x) })ONNX",
                   {{"x", Iota({5})}});
  EXPECT_TENSOR(Out(a, "q"), MakeTensor<float>({3}, {2, 3, 4}));
  auto b = RunText(R"ONNX(
    <ir_version: 8, opset_import: ["" : 18]>
    g (float[5] x) => (float[2] p, float[2] q, float[1] r) { p, q, r = Split <num_outputs = 3> (x) })ONNX",
                   {{"x", Iota({5})}});
  EXPECT_TENSOR(Out(b, "r"), MakeTensor<float>({1}, {4}));
}

TEST(TensorKernels, SliceNegativeStepsAndClamping) {
  auto y = RunOne(R"ONNX(
    <ir_version: 8, opset_import: ["" : 13]>
    g (float[2,4] x, int64[2] st, int64[2] en, int64[2] ax, int64[2] sp) => (float[1,2] y) {
      y = Slice (x, st, en, ax, sp)
    })ONNX",
                  {{"x", Iota({2, 4})},
                   {"st", MakeTensor<std::int64_t>({2}, {-1, 1000})},
                   {"en", MakeTensor<std::int64_t>({2}, {-1000, 0})},
                   {"ax", MakeTensor<std::int64_t>({2}, {0, 1})},
                   {"sp", MakeTensor<std::int64_t>({2}, {-2, -2})}});
  EXPECT_TENSOR(y, MakeTensor<float>({1, 2}, {7, 5}));
  auto a = RunOne(R"ONNX(
    <ir_version: 8, opset_import: ["" : 9]>
    g (float[2,4] x) => (float[1,2] y) { y = Slice <starts = [1, 1], ends = [2, 3]> (x) })ONNX",
                  {{"x", Iota({2, 4})}});
  EXPECT_TENSOR(a, MakeTensor<float>({1, 2}, {5, 6}));
}

TEST(TensorKernels, PadModes) {
  const char* text = R"ONNX(
    <ir_version: 8, opset_import: ["" : 19]>
    g (float[3] x, int64[2] p) => (float[6] c, float[6] r, float[6] e, float[6] w) {
      c = Pad (x, p)
      r = Pad <mode = "reflect"> (x, p)
      e = Pad <mode = "edge"> (x, p)
      w = Pad <mode = "wrap"> (x, p)
    })ONNX";
  auto out = RunText(text, {{"x", MakeTensor<float>({3}, {1, 2, 3})}, {"p", MakeTensor<std::int64_t>({2}, {2, 1})}});
  EXPECT_TENSOR(Out(out, "c"), MakeTensor<float>({6}, {0, 0, 1, 2, 3, 0}));
  EXPECT_TENSOR(Out(out, "r"), MakeTensor<float>({6}, {3, 2, 1, 2, 3, 2}));
  EXPECT_TENSOR(Out(out, "e"), MakeTensor<float>({6}, {1, 1, 1, 2, 3, 3}));
  EXPECT_TENSOR(Out(out, "w"), MakeTensor<float>({6}, {2, 3, 1, 2, 3, 1}));
  auto old = RunOne(R"ONNX(
    <ir_version: 8, opset_import: ["" : 2]>
    g (float[3] x) => (float[4] y) { y = Pad <pads = [1, 0], value = 5.0> (x) })ONNX",
                    {{"x", MakeTensor<float>({3}, {1, 2, 3})}});
  EXPECT_TENSOR(old, MakeTensor<float>({4}, {5, 1, 2, 3}));
}

TEST(TensorKernels, PadBeforeOpset11ConvertsTheFloatValueToFloat16) {
  // The value is a float attribute then; it was cast to float16's storage type: 1.5 gave
  // the bits 0x0001, and a value out of its range (found by graph_fuzzer with inf) was
  // undefined behaviour. As Cast converts it, -1e30 is -inf in float16.
  auto out = RunText(R"ONNX(
    <ir_version: 8, opset_import: ["" : 2]>
    g (float16[2] x) => (float16[3] y, float16[3] z) {
      y = Pad <pads = [1, 0], value = 1.5> (x)
      z = Pad <pads = [0, 1], value = -1e30> (x)
    })ONNX",
                     {{"x", MakeHalf({2}, {1, 2})}});
  EXPECT_TENSOR(Out(out, "y"), MakeHalf({3}, {1.5f, 1, 2}));
  EXPECT_TENSOR(Out(out, "z"), MakeHalf({3}, {1, 2, -std::numeric_limits<float>::infinity()}));
}

TEST(TensorKernels, GatherFamily) {
  auto out = RunText(R"ONNX(
    <ir_version: 8, opset_import: ["" : 13]>
    g (float[2,3] x, int64[2] i, int64[2,2] ie, int64[2,2] nd) => (float[2,2] g, float[2,2] ge, float[2] gn) {
      g = Gather <axis = 1> (x, i)
      ge = GatherElements <axis = 1> (x, ie)
      gn = GatherND (x, nd)
    })ONNX",
                     {{"x", Iota({2, 3})},
                      {"i", MakeTensor<std::int64_t>({2}, {-1, 0})},
                      {"ie", MakeTensor<std::int64_t>({2, 2}, {0, 0, 2, 1})},
                      {"nd", MakeTensor<std::int64_t>({2, 2}, {0, 1, 1, 2})}});
  EXPECT_TENSOR(Out(out, "g"), MakeTensor<float>({2, 2}, {2, 0, 5, 3}));
  EXPECT_TENSOR(Out(out, "ge"), MakeTensor<float>({2, 2}, {0, 0, 5, 4}));
  EXPECT_TENSOR(Out(out, "gn"), MakeTensor<float>({2}, {1, 5}));
}

TEST(TensorKernels, GatherIndexOutOfRangeIsModelError) {
  EXPECT_THROW(RunOne(R"ONNX(
    <ir_version: 8, opset_import: ["" : 13]>
    g (float[3] x, int64[1] i) => (float[1] y) { y = Gather (x, i) })ONNX",
                      {{"x", Iota({3})}, {"i", MakeTensor<std::int64_t>({1}, {3})}}),
               ModelError);
}

TEST(TensorKernels, ScatterWithReduction) {
  auto out = RunText(R"ONNX(
    <ir_version: 8, opset_import: ["" : 18]>
    g (float[4] x, int64[2,1] i, float[2] u, int64[2] ie) => (float[4] s, float[4] e) {
      s = ScatterND <reduction = "add"> (x, i, u)
      e = ScatterElements <reduction = "mul"> (x, ie, u)
    })ONNX",
                     {{"x", MakeTensor<float>({4}, {1, 2, 3, 4})},
                      {"i", MakeTensor<std::int64_t>({2, 1}, {1, 1})},
                      {"u", MakeTensor<float>({2}, {10, 20})},
                      {"ie", MakeTensor<std::int64_t>({2}, {0, -1})}});
  EXPECT_TENSOR(Out(out, "s"), MakeTensor<float>({4}, {1, 32, 3, 4}));
  EXPECT_TENSOR(Out(out, "e"), MakeTensor<float>({4}, {10, 2, 3, 80}));
}

// TensorScatter (opset 24). The cache is [batch, max_length, 2] = 0..15 unless said otherwise;
// update rows are 100, 101, ...
Tensor Hundreds(std::vector<std::int64_t> shape) {
  Tensor t = Iota(std::move(shape));
  for (std::int64_t i = 0; i < t.size(); ++i) t.MutableData<float>()[i] += 100;
  return t;
}

Tensor Positions(I64 values) { return MakeTensor<std::int64_t>({static_cast<std::int64_t>(values.size())}, values); }

TEST(TensorKernels, TensorScatterLinearWritesEachBatchRowAtItsIndex) {
  auto y = RunOne(GraphText(24, "(float[2,4,2] past, float[2,2,2] upd, int64[2] pos) => (float[2,4,2] y)",
                            "y = TensorScatter (past, upd, pos)"),
                  {{"past", Iota({2, 4, 2})}, {"upd", Hundreds({2, 2, 2})}, {"pos", Positions({2, 0})}});
  // Row 0 gets positions 2 and 3 (the last fit exactly), row 1 positions 0 and 1.
  EXPECT_TENSOR(y, MakeTensor<float>({2, 4, 2}, {0, 1, 2, 3, 100, 101, 102, 103, 104, 105, 106, 107, 12, 13, 14, 15}));
}

TEST(TensorKernels, TensorScatterCircularWrapsAround) {
  auto y = RunOne(GraphText(24, "(float[2,4,2] past, float[2,3,2] upd, int64[2] pos) => (float[2,4,2] y)",
                            "y = TensorScatter <mode = \"circular\"> (past, upd, pos)"),
                  {{"past", Iota({2, 4, 2})}, {"upd", Hundreds({2, 3, 2})}, {"pos", Positions({-1, 9})}});
  // Row 0 starts at -1 mod 4 = 3 (positions 3, 0, 1), row 1 at 9 mod 4 = 1 (positions 1, 2, 3).
  EXPECT_TENSOR(y, MakeTensor<float>({2, 4, 2},
                                     {102, 103, 104, 105, 4, 5, 100, 101, 8, 9, 106, 107, 108, 109, 110, 111}));
}

TEST(TensorKernels, TensorScatterTheBatchRowAloneChoosesTheIndex) {
  // [batch 2, heads 2, max_length 3, 1]: both heads of a batch row use that row's index.
  const std::string signature = "(float[2,2,3,1] past, float[2,2,1,1] upd, int64[2] pos) => (float[2,2,3,1] y)";
  const Inputs inputs{{"past", Iota({2, 2, 3, 1})}, {"upd", Hundreds({2, 2, 1, 1})}, {"pos", Positions({1, 2})}};
  EXPECT_TENSOR(RunOne(GraphText(24, signature, "y = TensorScatter <axis = 2> (past, upd, pos)"), inputs),
                MakeTensor<float>({2, 2, 3, 1}, {0, 100, 2, 3, 101, 5, 6, 7, 102, 9, 10, 103}));
  // Without write_indices (prefill) every row is written from position 0; axis -2 is the default.
  EXPECT_TENSOR(RunOne(GraphText(24, signature, "y = TensorScatter (past, upd)"), inputs),
                MakeTensor<float>({2, 2, 3, 1}, {100, 1, 2, 101, 4, 5, 102, 7, 8, 103, 10, 11}));
}

TEST(TensorKernels, TensorScatterMovesEveryStorageType) {
  auto out = RunText(GraphText(24,
                               "(string[1,3] s, string[1,2] su, bool[2,2] b, bool[2,1] bu, float16[2,3] h, "
                               "float16[2,1] hu, int64[2] pos) => (string[1,3] ys, bool[2,2] yb, float16[2,3] yh)",
                               R"(one = Constant <value = int64[1] {1}> ()
                                  ys = TensorScatter <axis = -1> (s, su, one)
                                  yb = TensorScatter <axis = -1> (b, bu, pos)
                                  yh = TensorScatter <axis = 1, mode = "circular"> (h, hu, pos))"),
                     {{"s", MakeTensor<std::string>({1, 3}, {"a", "b", "c"})},
                      {"su", MakeTensor<std::string>({1, 2}, {"x", "y"})},
                      {"b", MakeTensor<bool>({2, 2}, {false, false, false, false})},
                      {"bu", MakeTensor<bool>({2, 1}, {true, true})},
                      {"h", MakeHalf({2, 3}, {1, 2, 3, 4, 5, 6})},
                      {"hu", MakeHalf({2, 1}, {-1.5f, -2.5f})},
                      {"pos", Positions({1, 0})}});
  EXPECT_TENSOR(Out(out, "ys"), MakeTensor<std::string>({1, 3}, {"a", "x", "y"}));
  EXPECT_TENSOR(Out(out, "yb"), MakeTensor<bool>({2, 2}, {false, true, true, false}));
  EXPECT_TENSOR(Out(out, "yh"), MakeHalf({2, 3}, {1, -1.5f, 3, -2.5f, 5, 6}));
}

TEST(TensorKernels, TensorScatterRefusesWritesOutsideTheCache) {
  const std::string signature = "(float[2,4,2] past, float[2,2,2] upd, int64[2] pos) => (float[2,4,2] y)";
  const Inputs inputs{{"past", Iota({2, 4, 2})}, {"upd", Hundreds({2, 2, 2})}, {"pos", Positions({0, 3})}};
  EXPECT_EQ(ModelErrorOf(GraphText(24, signature, "y = TensorScatter (past, upd, pos)"), inputs),
            "node 'y' (TensorScatter): write index 3 of batch row 1 is out of range: 2 rows from it do not fit in a "
            "cache of length 4");
  Inputs negative = inputs;
  negative[2].second = Positions({-1, 0});
  EXPECT_EQ(ModelErrorOf(GraphText(24, signature, "y = TensorScatter (past, upd, pos)"), negative),
            "node 'y' (TensorScatter): write index -1 of batch row 0 is out of range: 2 rows from it do not fit in a "
            "cache of length 4");
  EXPECT_EQ(ModelErrorOf(GraphText(24, signature, "y = TensorScatter <axis = -3> (past, upd, pos)"), inputs),
            "node 'y' (TensorScatter): attribute 'axis' cannot name dim 0, the batch dim");
  EXPECT_EQ(ModelErrorOf(GraphText(24, signature, "y = TensorScatter <axis = -1> (past, upd, pos)"), inputs),
            "node 'y' (TensorScatter): input 1 ('upd') float[2,2,2] must have the shape of input 0 ('past') "
            "float[2,4,2] outside axis 2");
}

TEST(TensorKernels, TensorScatterRefusesMalformedInputs) {
  EXPECT_EQ(ModelErrorOf(GraphText(24, "(float[1,2,1] past, float[1,3,1] upd) => (float[1,2,1] y)",
                                   "y = TensorScatter <mode = \"circular\"> (past, upd)"),
                         {{"past", Iota({1, 2, 1})}, {"upd", Iota({1, 3, 1})}}),
            "node 'y' (TensorScatter): input 1 ('upd') float[1,3,1] is longer than input 0 ('past') float[1,2,1] "
            "along axis 1");
  EXPECT_EQ(ModelErrorOf(GraphText(24, "(float[1,2,1] past, float[1,1] upd) => (float[1,2,1] y)",
                                   "y = TensorScatter (past, upd)"),
                         {{"past", Iota({1, 2, 1})}, {"upd", Iota({1, 1})}}),
            "node 'y' (TensorScatter): input 1 ('upd') float[1,1] must have the rank of input 0 ('past') float[1,2,1]");
  EXPECT_EQ(ModelErrorOf(GraphText(24, "(float[2,2,1] past, float[2,1,1] upd, int64[1] pos) => (float[2,2,1] y)",
                                   "y = TensorScatter (past, upd, pos)"),
                         {{"past", Iota({2, 2, 1})}, {"upd", Iota({2, 1, 1})}, {"pos", Positions({0})}}),
            "node 'y' (TensorScatter): input 2 ('pos') int64[1] must have the shape [2] (one index per batch row)");
  EXPECT_EQ(ModelErrorOf(GraphText(24, "(float[2,2,1] past, float[2,1,1] upd, int32[2] pos) => (float[2,2,1] y)",
                                   "y = TensorScatter (past, upd, pos)"),
                         {{"past", Iota({2, 2, 1})}, {"upd", Iota({2, 1, 1})},
                          {"pos", MakeTensor<std::int32_t>({2}, {0, 0})}}),
            "node 'y' (TensorScatter): input 2 ('pos') must be INT64, found INT32");
}

TEST(TensorKernels, RangeConstantOfShapeTrilu) {
  auto out = RunText(R"ONNX(
    <ir_version: 8, opset_import: ["" : 14]>
    g (int32 a, int32 b, int32 d, int64[2] s) => (int32[3] r, int64[2,2] c, float[2,3] t) {
      r = Range (a, b, d)
      c = ConstantOfShape <value = int64[1] {7}> (s)
      s3 = Constant <value = int64[2] {2, 3}> ()
      z = ConstantOfShape <value = float[1] {1.0}> (s3)
      t = Trilu <upper = 0> (z)
    })ONNX",
                     {{"a", MakeScalar<std::int32_t>(10)},
                      {"b", MakeScalar<std::int32_t>(4)},
                      {"d", MakeScalar<std::int32_t>(-2)},
                      {"s", MakeTensor<std::int64_t>({2}, {2, 2})}});
  EXPECT_TENSOR(Out(out, "r"), MakeTensor<std::int32_t>({3}, {10, 8, 6}));
  EXPECT_TENSOR(Out(out, "c"), MakeTensor<std::int64_t>({2, 2}, {7, 7, 7, 7}));
  EXPECT_TENSOR(Out(out, "t"), MakeTensor<float>({2, 3}, {1, 0, 0, 1, 1, 0}));
}

// Integer running sums wrap around like Add (found by the graph fuzzer under UBSan: the
// sum overflowed int64; this test fails before the fix in the sanitized build only).
TEST(TensorKernels, CumSumOfIntegersWrapsAround) {
  constexpr std::int64_t kMin = std::numeric_limits<std::int64_t>::min();
  constexpr std::int64_t kMax = std::numeric_limits<std::int64_t>::max();
  auto out = RunText(R"ONNX(
    <ir_version: 8, opset_import: ["" : 14]>
    g (int64[3] x, int32 ax) => (int64[3] c, int64[3] e) {
      c = CumSum (x, ax)
      e = CumSum <exclusive = 1> (x, ax)
    })ONNX",
                     {{"x", MakeTensor<std::int64_t>({3}, {kMin, -3, 5})}, {"ax", MakeScalar<std::int32_t>(0)}});
  EXPECT_TENSOR(Out(out, "c"), MakeTensor<std::int64_t>({3}, {kMin, kMax - 2, kMin + 2}));
  EXPECT_TENSOR(Out(out, "e"), MakeTensor<std::int64_t>({3}, {0, kMin, kMax - 2}));
}

// CumProd (opset 26): the specification's examples, along the second axis of a matrix, and
// integer products wrapping around like Mul (2^62 * 4 is 0 in int64).
TEST(TensorKernels, CumProdInclusiveExclusiveAndReverse) {
  auto out = RunText(R"ONNX(
    <ir_version: 13, opset_import: ["" : 26]>
    g (float[2,3] x, int64[3] i, int32 ax) => (float[2,3] p, float[2,3] e, float[2,3] r, float[2,3] er, int64[3] w) {
      p = CumProd (x, ax)
      e = CumProd <exclusive = 1> (x, ax)
      r = CumProd <reverse = 1> (x, ax)
      er = CumProd <exclusive = 1, reverse = 1> (x, ax)
      zero = Constant <value = int32 {0}> ()
      w = CumProd (i, zero)
    })ONNX",
                     {{"x", MakeTensor<float>({2, 3}, {1, 2, 3, -1, 0.5f, 4})},
                      {"i", MakeTensor<std::int64_t>({3}, {std::int64_t{1} << 62, 4, 3})},
                      {"ax", MakeScalar<std::int32_t>(-1)}});
  EXPECT_TENSOR(Out(out, "p"), MakeTensor<float>({2, 3}, {1, 2, 6, -1, -0.5f, -2}));
  EXPECT_TENSOR(Out(out, "e"), MakeTensor<float>({2, 3}, {1, 1, 2, 1, -1, -0.5f}));
  EXPECT_TENSOR(Out(out, "r"), MakeTensor<float>({2, 3}, {6, 6, 3, -2, 2, 4}));
  EXPECT_TENSOR(Out(out, "er"), MakeTensor<float>({2, 3}, {6, 3, 1, 2, 4, 1}));
  EXPECT_TENSOR(Out(out, "w"), MakeTensor<std::int64_t>({3}, {std::int64_t{1} << 62, 0, 0}));
}

// Range of float16 and bfloat16 (opset 27), stash_type 1 by default: computed in float
// and rounded once (2049 rounds to 2048 in float16, ties to even); the other stash type,
// the inputs' own, is refused rather than computed otherwise.
TEST(TensorKernels, RangeOfHalfTypesComputesInFloat) {
  auto out = RunText(R"ONNX(
    <ir_version: 13, opset_import: ["" : 27]>
    g (float16 a, float16 b, float16 d, bfloat16 c, bfloat16 l, bfloat16 s) => (float16[10] h, bfloat16[4] f) {
      h = Range (a, b, d)
      f = Range <stash_type = 1> (c, l, s)
    })ONNX",
                     {{"a", MakeHalf({}, {2040})},
                      {"b", MakeHalf({}, {2050})},
                      {"d", MakeHalf({}, {1})},
                      {"c", MakeBFloat16({}, {1})},
                      {"l", MakeBFloat16({}, {2})},
                      {"s", MakeBFloat16({}, {0.25f})}});
  EXPECT_TENSOR(Out(out, "h"), MakeHalf({10}, {2040, 2041, 2042, 2043, 2044, 2045, 2046, 2047, 2048, 2048}));
  EXPECT_TENSOR(Out(out, "f"), MakeBFloat16({4}, {1, 1.25f, 1.5f, 1.75f}));
  EXPECT_THAT(ModelErrorOf(GraphText(27, "(float16 a, float16 b, float16 d) => (float16[2] y)",
                                     "y = Range <stash_type = 10> (a, b, d)"),
                           {{"a", MakeHalf({}, {0})}, {"b", MakeHalf({}, {2})}, {"d", MakeHalf({}, {1})}}),
              ::testing::HasSubstr("Range of FLOAT16 with stash_type 10: only stash_type 1 (float) is implemented"));
}

TEST(TensorKernels, CumSumOneHotNonZero) {
  auto out = RunText(R"ONNX(
    <ir_version: 8, opset_import: ["" : 14]>
    g (float[4] x, int32 ax, int64[2] i, int64 depth, float[2] v) => (float[4] c, float[2,3] o, int64[1,3] n) {
      c = CumSum <exclusive = 1, reverse = 1> (x, ax)
      o = OneHot (i, depth, v)
      n = NonZero (x)
    })ONNX",
                     {{"x", MakeTensor<float>({4}, {1, 0, 2, 3})},
                      {"ax", MakeScalar<std::int32_t>(0)},
                      {"i", MakeTensor<std::int64_t>({2}, {1, -1})},
                      {"depth", MakeScalar<std::int64_t>(3)},
                      {"v", MakeTensor<float>({2}, {0, 5})}});
  EXPECT_TENSOR(Out(out, "c"), MakeTensor<float>({4}, {5, 5, 3, 0}));
  EXPECT_TENSOR(Out(out, "o"), MakeTensor<float>({2, 3}, {0, 5, 0, 0, 0, 5}));
  EXPECT_TENSOR(Out(out, "n"), MakeTensor<std::int64_t>({1, 3}, {0, 2, 3}));
}

TEST(TensorKernels, TopKIsStableOnTiesAndArgMaxSelectsLast) {
  auto out = RunText(R"ONNX(
    <ir_version: 8, opset_import: ["" : 13]>
    g (float[5] x, int64[1] k) => (float[3] v, int64[3] i, int64 a, int64[1] b) {
      v, i = TopK (x, k)
      a = ArgMax <keepdims = 0, select_last_index = 1> (x)
      b = ArgMin (x)
    })ONNX",
                     {{"x", MakeTensor<float>({5}, {1, 3, 3, 0, 2})}, {"k", MakeTensor<std::int64_t>({1}, {3})}});
  EXPECT_TENSOR(Out(out, "v"), MakeTensor<float>({3}, {3, 3, 2}));
  EXPECT_TENSOR(Out(out, "i"), MakeTensor<std::int64_t>({3}, {1, 2, 4}));
  EXPECT_TENSOR(Out(out, "a"), MakeScalar<std::int64_t>(2));
  EXPECT_TENSOR(Out(out, "b"), MakeTensor<std::int64_t>({1}, {3}));
}

TEST(TensorKernels, ReductionsAxesAttributeVersusInput) {
  auto a = RunText(R"ONNX(
    <ir_version: 8, opset_import: ["" : 13]>
    g (float[2,3] x, int64[1] ax) => (float[2,1] s, float[3] m, float[1,1] l) {
      s = ReduceSum (x, ax)
      m = ReduceMax <axes = [0], keepdims = 0> (x)
      l = ReduceL2 (x)
    })ONNX",
                   {{"x", Iota({2, 3})}, {"ax", MakeTensor<std::int64_t>({1}, {-1})}});
  EXPECT_TENSOR(Out(a, "s"), MakeTensor<float>({2, 1}, {3, 12}));
  EXPECT_TENSOR(Out(a, "m"), MakeTensor<float>({3}, {3, 4, 5}));
  EXPECT_TENSOR(Out(a, "l"), MakeTensor<float>({1, 1}, {std::sqrt(55.0f)}));
  auto b = RunText(R"ONNX(
    <ir_version: 8, opset_import: ["" : 18]>
    g (float[2,3] x, int64[1] ax, int64[0] none) => (float[3] p, float[2,3] n) {
      p = ReduceMean <keepdims = 0> (x, ax)
      n = ReduceLogSumExp <noop_with_empty_axes = 1> (x, none)
    })ONNX",
                   {{"x", Iota({2, 3})}, {"ax", MakeTensor<std::int64_t>({1}, {0})}, {"none", MakeTensor<std::int64_t>({0}, {})}});
  EXPECT_TENSOR(Out(b, "p"), MakeTensor<float>({3}, {1.5f, 2.5f, 3.5f}));
  EXPECT_TENSOR(Out(b, "n"), Iota({2, 3}));
}

// log(sum(exp(x))) as m + log(sum(exp(x - m))), m the row's largest element: exp(1000)
// overflows double (the result was infinity where onnxruntime gives 1000.69), and
// log(exp(1)) is not 1 in double (an int64 row [1] gave 0, onnxruntime 1). Found by judging
// graph_fuzzer's models in onnxruntime.
TEST(TensorKernels, LogSumExpShiftsByTheLargestElement) {
  const float inf = std::numeric_limits<float>::infinity(), nan = std::numeric_limits<float>::quiet_NaN();
  const auto out = RunText(
      GraphText(18,
                "(float[2,3] x, float[4,2] special, int64[1] last, int64[1] first, int64[1,1] one, int64[3] zeros) "
                "=> (float[2] rows, float[3] columns, float[4] s, int64[1,1] i, int64 z)",
                "rows = ReduceLogSumExp <keepdims = 0> (x, last)\n"
                "columns = ReduceLogSumExp <keepdims = 0> (x, first)\n"
                "s = ReduceLogSumExp <keepdims = 0> (special, last)\n"
                "i = ReduceLogSumExp (one)\n"
                "z = ReduceLogSumExp <keepdims = 0> (zeros)"),
      {{"x", MakeTensor<float>({2, 3}, {1000, 1000, -1000, 1, 2, 3})},
       {"special", MakeTensor<float>({4, 2}, {inf, 1, -inf, -inf, nan, 1, inf, inf})},
       {"last", MakeTensor<std::int64_t>({1}, {-1})},
       {"first", MakeTensor<std::int64_t>({1}, {0})},
       {"one", MakeTensor<std::int64_t>({1, 1}, {1})},
       {"zeros", MakeTensor<std::int64_t>({3}, {0, 0, 0})}});
  const float* rows = Out(out, "rows").Data<float>();
  EXPECT_FLOAT_EQ(rows[0], static_cast<float>(1000 + std::log(2.0)));
  EXPECT_FLOAT_EQ(rows[1], static_cast<float>(std::log(std::exp(1.0) + std::exp(2.0) + std::exp(3.0))));
  // The rows of axis 0 are strided: {1000, 1}, {1000, 2}, {-1000, 3}.
  EXPECT_TENSOR(Out(out, "columns"), MakeTensor<float>({3}, {1000, 1000, 3}));
  // +inf with a finite element, -inf for -inf only, NaN for NaN, +inf for two of them.
  EXPECT_TENSOR(Out(out, "s"), MakeTensor<float>({4}, {inf, -inf, nan, inf}));
  EXPECT_TENSOR(Out(out, "i"), MakeTensor<std::int64_t>({1, 1}, {1}));
  EXPECT_TENSOR(Out(out, "z"), MakeScalar<std::int64_t>(1));  // log 3, truncated as Cast does
}

// A flag attribute other than 0 or 1 is refused: runtimes read it differently (onnxruntime
// ran keepdims 2 as 0 where the kernel took it for 1).
TEST(TensorKernels, ReductionFlagsAreZeroOrOne) {
  const Inputs in = {{"x", Iota({2, 3})}};
  for (const char* node : {"y = ReduceSum <keepdims = 2> (x)", "y = ReduceMax <noop_with_empty_axes = -1> (x)",
                           "y = ArgMax <select_last_index = 3> (x)", "y = ArgMin <keepdims = -1> (x)"}) {
    SCOPED_TRACE(node);
    EXPECT_THAT(ModelErrorOf(GraphText(18, "(float[2,3] x) => (float y)", node), in),
                ::testing::HasSubstr("must be 0 or 1"));
  }
}

// Integer reductions wrap around like the arithmetic operators; a float result out of
// the integer type's range (log 0 = -inf) saturates like Cast. Found by
// fuzz/graph_fuzzer.cc under UBSan (build-asan's kernel_tests fail without the fix).
TEST(TensorKernels, IntegerReductionsWrapAndSaturate) {
  constexpr std::int64_t kMin = std::numeric_limits<std::int64_t>::min();
  constexpr std::int64_t kMax = std::numeric_limits<std::int64_t>::max();
  auto out = RunText(R"ONNX(
    <ir_version: 8, opset_import: ["" : 18]>
    g (int64[2] x, int32[2] z) => (int64[1] s, int64[1] p, int64[1] q, int64[1] l, int32[1] g) {
      s = ReduceSum (x)
      p = ReduceProd (x)
      q = ReduceSumSquare (x)
      l = ReduceL1 (x)
      g = ReduceLogSum (z)
    })ONNX",
                     {{"x", MakeTensor<std::int64_t>({2}, {kMin, kMax})}, {"z", MakeTensor<std::int32_t>({2}, {0, 0})}});
  EXPECT_TENSOR(Out(out, "s"), MakeTensor<std::int64_t>({1}, {-1}));
  // -2^63 * (2^63 - 1) = -2^126 + 2^63 = 2^63 mod 2^64, which is -2^63 as int64.
  EXPECT_TENSOR(Out(out, "p"), MakeTensor<std::int64_t>({1}, {kMin}));
  // 2^126 + (2^126 - 2^64 + 1) = 1 mod 2^64.
  EXPECT_TENSOR(Out(out, "q"), MakeTensor<std::int64_t>({1}, {1}));
  // |-2^63| wraps to -2^63; + 2^63 - 1 = -1.
  EXPECT_TENSOR(Out(out, "l"), MakeTensor<std::int64_t>({1}, {-1}));
  EXPECT_TENSOR(Out(out, "g"), MakeTensor<std::int32_t>({1}, {std::numeric_limits<std::int32_t>::min()}));
}

TEST(TensorKernels, DepthToSpaceAndBack) {
  auto out = RunText(R"ONNX(
    <ir_version: 8, opset_import: ["" : 13]>
    g (float[1,4,1,1] x) => (float[1,1,2,2] d, float[1,4,1,1] s, float[1,1,2,2] c) {
      d = DepthToSpace <blocksize = 2> (x)
      s = SpaceToDepth <blocksize = 2> (d)
      c = DepthToSpace <blocksize = 2, mode = "CRD"> (x)
    })ONNX",
                     {{"x", Iota({1, 4, 1, 1})}});
  EXPECT_TENSOR(Out(out, "d"), MakeTensor<float>({1, 1, 2, 2}, {0, 1, 2, 3}));
  EXPECT_TENSOR(Out(out, "s"), Iota({1, 4, 1, 1}));
  EXPECT_TENSOR(Out(out, "c"), MakeTensor<float>({1, 1, 2, 2}, {0, 1, 2, 3}));
}

// An empty tensor's shape may come with attributes whose products pass int64 (the
// fuzzer's SpaceToDepth of [4, 0, 0, 0] with blocksize 2^40 multiplied 4 * 2^40 * 2^40
// before reaching a 0): the products and strides must not overflow, and the result is
// empty. (An empty tensor's own dims are held to the size limit: eval::Tensor.)
TEST(TensorKernels, EmptyTensorsWithHugeBlocks) {
  auto out = RunText(R"ONNX(
    <ir_version: 8, opset_import: ["" : 13]>
    g (float[a,b,c,d] x) => (float[h,i,j,k] s, float[l,m,n,o] d) {
      s = SpaceToDepth <blocksize = 1099511627776> (x)
      d = DepthToSpace <blocksize = 1099511627776> (x)
    })ONNX",
                     {{"x", MakeTensor<float>({4, 0, 0, 0}, {})}});
  EXPECT_TENSOR(Out(out, "s"), MakeTensor<float>({4, 0, 0, 0}, {}));
  EXPECT_TENSOR(Out(out, "d"), MakeTensor<float>({4, 0, 0, 0}, {}));
}

TEST(TensorKernels, CopiedStringsAreHeldToTheLimit) {
  // One string of 1 000 characters copied 100 times: 10^5 characters, above a limit of
  // 5 * 10^4 bytes that every tensor here fits (it counts string elements, not their
  // characters: one string of 10 MB expanded to [1000] took gigabytes). Refused at the
  // first copy past the limit.
  const core::ir::ScopedTensorLimit limit(50000, "the test's limit");
  const Inputs in = {{"s", MakeTensor<std::string>({1}, {std::string(1000, 'a')})},
                     {"shape", MakeTensor<std::int64_t>({1}, {100})},
                     {"repeats", MakeTensor<std::int64_t>({1}, {100})},
                     {"zeros", MakeTensor<std::int64_t>({100}, I64(100, 0))},
                     {"zeros2", MakeTensor<std::int64_t>({100, 1}, I64(100, 0))},
                     {"pads", MakeTensor<std::int64_t>({2}, {0, 99})},
                     {"c", MakeTensor<bool>({100}, std::vector<bool>(100, true))}};
  const std::string signature =
      "(string[1] s, int64[1] shape, int64[1] repeats, int64[100] zeros, int64[100,1] zeros2, int64[2] pads, "
      "bool[100] c) => (string[100] y)";
  for (const char* node : {"y = Expand (s, shape)", "y = Tile (s, repeats)", "y = Gather (s, zeros)",
                           "y = GatherElements (s, zeros)", "y = GatherND (s, zeros2)",
                           "y = Pad <mode = \"edge\"> (s, pads)", "y = Where (c, s, s)"}) {
    SCOPED_TRACE(node);
    EXPECT_THAT(ModelErrorOf(GraphText(18, signature, node), in),
                ::testing::HasSubstr("the characters of the output strings needs 51000 bytes"));
  }
  // 40 copies fit.
  const Inputs fits = {{"s", MakeTensor<std::string>({1}, {std::string(1000, 'a')})},
                       {"shape", MakeTensor<std::int64_t>({1}, {40})}};
  EXPECT_EQ(RunOne(GraphText(18, "(string[1] s, int64[1] shape) => (string[40] y)", "y = Expand (s, shape)"), fits)
                .size(),
            40);
}

TEST(TensorKernels, EyeLikeAndCompress) {
  auto out = RunText(R"ONNX(
    <ir_version: 8, opset_import: ["" : 13]>
    g (float[2,3] x, bool[2] c) => (int32[2,3] e, float[2,2] k) {
      e = EyeLike <k = 1, dtype = 6> (x)
      k = Compress <axis = 1> (x, c)
    })ONNX",
                     {{"x", Iota({2, 3})}, {"c", MakeTensor<bool>({2}, {false, true})}});
  EXPECT_TENSOR(Out(out, "e"), MakeTensor<std::int32_t>({2, 3}, {0, 1, 0, 0, 0, 1}));
  EXPECT_TENSOR(Out(out, "k"), MakeTensor<float>({2, 1}, {1, 4}));
}

}  // namespace
}  // namespace onnxopt::testing

namespace onnxopt::testing {
namespace {

TEST(TensorKernels, PadWithAxesInput) {
  auto y = RunOne(R"ONNX(
    <ir_version: 8, opset_import: ["" : 18]>
    g (float[2,2] x, int64[2] p, float v, int64[1] ax) => (float[2,3] y) { y = Pad (x, p, v, ax) })ONNX",
                  {{"x", MakeTensor<float>({2, 2}, {1, 2, 3, 4})},
                   {"p", MakeTensor<std::int64_t>({2}, {0, 1})},
                   {"v", MakeScalar<float>(9)},
                   {"ax", MakeTensor<std::int64_t>({1}, {-1})}});
  EXPECT_TENSOR(y, MakeTensor<float>({2, 3}, {1, 2, 9, 3, 4, 9}));
}

TEST(TensorKernels, ReshapeAllowZeroKeepsZeroDims) {
  auto y = RunOne(R"ONNX(
    <ir_version: 8, opset_import: ["" : 14]>
    g (float[0,3] x, int64[2] s) => (float[3,0] y) { y = Reshape <allowzero = 1> (x, s) })ONNX",
                  {{"x", MakeTensor<float>({0, 3}, {})}, {"s", MakeTensor<std::int64_t>({2}, {3, 0})}});
  EXPECT_EQ(y.shape(), (std::vector<std::int64_t>{3, 0}));
}

TEST(TensorKernels, InvalidShapesAreModelErrors) {
  EXPECT_THROW(RunOne(R"ONNX(
    <ir_version: 8, opset_import: ["" : 13]>
    g (float[2,3] x, int64[1] a) => (float[] y) { y = Squeeze (x, a) })ONNX",
                      {{"x", Iota({2, 3})}, {"a", MakeTensor<std::int64_t>({1}, {0})}}),
               ModelError);
  EXPECT_THROW(RunOne(R"ONNX(
    <ir_version: 8, opset_import: ["" : 13]>
    g (float[2,3] x, float[3,2] z) => (float[] y) { y = Concat <axis = 0> (x, z) })ONNX",
                      {{"x", Iota({2, 3})}, {"z", Iota({3, 2})}}),
               ModelError);
  EXPECT_THROW(RunOne(R"ONNX(
    <ir_version: 8, opset_import: ["" : 13]>
    g (float[2,3] x, int64[2] s) => (float[] y) { y = Expand (x, s) })ONNX",
                      {{"x", Iota({2, 3})}, {"s", MakeTensor<std::int64_t>({2}, {2, 4})}}),
               ModelError);
}

// The kernels below once held, for an input the limit on tensor sizes allows, memory that
// it does not see: each runs in 256 MiB of address space more than the test holds.
constexpr std::uint64_t kKernelMemory = std::uint64_t{256} << 20;

TEST(TensorKernels, TopKOfAnEmptyInputSortsNothing) {
  // uint8[0, 2^30] (its dims allowed by a limit of 1 GiB): an order of 2^30 positions (8 GiB)
  // was allocated to sort no row.
  ExpectWithinMemory(kKernelMemory, []() -> std::string {
    const core::ir::ScopedTensorLimit limit(std::uint64_t{1} << 30, "the test's limit");
    const std::int64_t n = std::int64_t{1} << 30;
    const auto out = RunText(GraphText(11, "(uint8[0,1073741824] x, int64[1] k) => (uint8[0,0] v, int64[0,0] i)",
                                       "v, i = TopK <axis = 1> (x, k)"),
                             {{"x", Tensor(TensorProto::UINT8, {0, n})}, {"k", MakeTensor<std::int64_t>({1}, {0})}});
    return Out(out, "v").shape() == I64{0, 0} && Out(out, "i").shape() == I64{0, 0} ? "" : "wrong shapes";
  });
}

TEST(TensorKernels, TensorScatterOfAnEmptyCacheHoldsNoRowIndex) {
  // bool[2^30, 1, 0] (allowed by a limit of 1 GiB) without write indices: a start of 0 for
  // each of its 2^30 batch rows (8 GiB) was allocated to write nothing.
  ExpectWithinMemory(kKernelMemory, []() -> std::string {
    const core::ir::ScopedTensorLimit limit(std::uint64_t{1} << 30, "the test's limit");
    const Tensor cache(TensorProto::BOOL, {std::int64_t{1} << 30, 1, 0});
    const Tensor y = RunOne(GraphText(24, "(bool[1073741824,1,0] past, bool[1073741824,1,0] upd) => "
                                          "(bool[1073741824,1,0] y)",
                                      "y = TensorScatter (past, upd)"),
                            {{"past", cache}, {"upd", cache}});
    return y.shape() == cache.shape() ? "" : "wrong shape";
  });
}

TEST(TensorKernels, NonZeroRefusesAnOutputBeyondTheLimitBeforeCollectingPositions) {
  // 2^26 true values (64 MiB): their positions (512 MiB of int64) are above a limit of
  // 128 MiB. They were collected in a vector first, refused only once collected.
  ExpectWithinMemory(kKernelMemory, []() -> std::string {
    const core::ir::ScopedTensorLimit limit(std::uint64_t{128} << 20, "the test's limit");
    const std::int64_t n = std::int64_t{1} << 26;
    Tensor x(TensorProto::BOOL, {n});
    std::fill_n(x.MutableData<bool>(), n, true);
    const std::string expected =
        "node 'y' (NonZero): tensor int64[1,67108864] needs 536870912 bytes (512.0 MiB), more than the test's limit "
        "of 134217728 bytes (128.0 MiB)";
    const std::string error = ModelErrorOf(GraphText(13, "(bool[67108864] x) => (int64[1,67108864] y)",
                                                     "y = NonZero (x)"),
                                           {{"x", x}});
    return error == expected ? std::string() : "the error is: " + error;
  });
}

TEST(TensorKernels, CompressCopiesTheSelectedSlicesAtOnce) {
  // 2^25 bytes, all selected: a tensor per selected byte (some 200 bytes each, 6 GiB)
  // before the concatenation; a list of the selected positions would take 256 MiB.
  ExpectWithinMemory(kKernelMemory, []() -> std::string {
    const std::int64_t n = std::int64_t{1} << 25;
    Tensor x(TensorProto::UINT8, {n}), condition(TensorProto::BOOL, {n});
    std::fill_n(condition.MutableData<bool>(), n, true);
    x.MutableData<std::uint8_t>()[n - 1] = 7;
    const Tensor y = RunOne(GraphText(11, "(uint8[33554432] x, bool[33554432] c) => (uint8[33554432] y)",
                                      "y = Compress <axis = 0> (x, c)"),
                            {{"x", x}, {"c", condition}});
    return y == x ? "" : "wrong values";
  });
}

TEST(TensorKernels, SqueezeAndUnsqueezeOfManyAxesAreLinear) {
  // 2^18 axes (2 MiB) on a scalar, then all of them squeezed: each axis was looked up
  // among those before it and each dim among the axes, 2^36 comparisons (minutes); a mark
  // per axis now. No work is charged.
  const std::int64_t n = std::int64_t{1} << 18;
  I64 axes(static_cast<std::size_t>(n));
  for (std::int64_t i = 0; i < n; ++i) axes[static_cast<std::size_t>(i)] = i % 2 == 0 ? i : -(n - i);  // i, as -(n - i)
  const Tensor axes_in = MakeTensor<std::int64_t>({n}, axes);
  core::eval::WorkBudget none(0, "the test's budget");
  const core::eval::ScopedWorkBudget scope(none);
  // Squeezing the 2^18 axes Unsqueeze inserted gives the scalar back.
  EXPECT_TENSOR(RunOne(GraphText(13, "(float x, int64[262144] axes) => (float z)",
                                 "y = Unsqueeze (x, axes)\nz = Squeeze (y, axes)"),
                       {{"x", MakeScalar<float>(7)}, {"axes", axes_in}}, "z"),
                MakeScalar<float>(7));
  // Repeated axes: an error for Unsqueeze, one axis for Squeeze.
  EXPECT_EQ(ModelErrorOf(GraphText(13, "(float[3] x, int64[2] axes) => (float[?] y)", "y = Unsqueeze (x, axes)"),
                         {{"x", Iota({3})}, {"axes", MakeTensor<std::int64_t>({2}, {1, -2})}}),
            "node 'y' (Unsqueeze): axes contains axis 1 twice (given as -2)");
  EXPECT_TENSOR(RunOne(GraphText(13, "(float[1,3] x, int64[2] axes) => (float[3] y)", "y = Squeeze (x, axes)"),
                       {{"x", Iota({1, 3})}, {"axes", MakeTensor<std::int64_t>({2}, {0, -2})}}),
                Iota({3}));
  EXPECT_EQ(none.spent(), 0u);
}

TEST(TensorKernels, ReductionsOfAnEmptyInputHoldNoAccumulators) {
  // float[2^25, 0] reduced over axis 1 (its rows allowed by a limit of 128 MiB): 2^25
  // outputs of the reduction of nothing (128 MiB), given a double accumulator each
  // (256 MiB more; 8 bytes per output of a bool input too, 8 times its own size).
  ExpectWithinMemory(kKernelMemory, []() -> std::string {
    const core::ir::ScopedTensorLimit limit(std::uint64_t{128} << 20, "the test's limit");
    const std::int64_t rows = std::int64_t{1} << 25;
    const Tensor y = RunOne(GraphText(18, "(float[33554432,0] x, int64[1] axes) => (float[33554432] y)",
                                      "y = ReduceMax <keepdims = 0> (x, axes)"),
                            {{"x", Tensor(TensorProto::FLOAT, {rows, 0})}, {"axes", MakeTensor<std::int64_t>({1}, {1})}});
    const float lowest = -std::numeric_limits<float>::infinity();
    return y.shape() == I64{rows} && std::count(y.Data<float>(), y.Data<float>() + rows, lowest) == rows
               ? ""
               : "wrong output";
  });
  // The same values as before for the reductions of nothing.
  const auto out = RunText(GraphText(18, "(float[2,0] x, int64[1] axes) => (float[2] s, float[2] m, float[2] l)",
                                     "s = ReduceSum <keepdims = 0> (x, axes)\n"
                                     "m = ReduceMean <keepdims = 0> (x, axes)\n"
                                     "l = ReduceLogSumExp <keepdims = 0> (x, axes)"),
                           {{"x", Tensor(TensorProto::FLOAT, {2, 0})}, {"axes", MakeTensor<std::int64_t>({1}, {1})}});
  const float inf = std::numeric_limits<float>::infinity(), nan = std::numeric_limits<float>::quiet_NaN();
  EXPECT_TENSOR(Out(out, "s"), MakeTensor<float>({2}, {0, 0}));
  EXPECT_TENSOR(Out(out, "m"), MakeTensor<float>({2}, {nan, nan}));
  EXPECT_TENSOR(Out(out, "l"), MakeTensor<float>({2}, {-inf, -inf}));
}

TEST(TensorKernels, BoolReductionsOfNothingGiveTheTypesExtremes) {
  // ReduceMax of no element is the minimum value of the type (False for bool), ReduceMin
  // the maximum (True); the int64 accumulator's extremes both read as True.
  const auto out = RunText(GraphText(20, "(bool[2,0] x, int64[1] axes) => (bool[2] hi, bool[2] lo)",
                                     "hi = ReduceMax <keepdims = 0> (x, axes)\n"
                                     "lo = ReduceMin <keepdims = 0> (x, axes)"),
                           {{"x", Tensor(TensorProto::BOOL, {2, 0})}, {"axes", MakeTensor<std::int64_t>({1}, {1})}});
  EXPECT_TENSOR(Out(out, "hi"), MakeTensor<bool>({2}, {false, false}));
  EXPECT_TENSOR(Out(out, "lo"), MakeTensor<bool>({2}, {true, true}));
  // Not empty: the usual maximum and minimum.
  const auto some = RunText(GraphText(20, "(bool[2,2] x, int64[1] axes) => (bool[2] hi, bool[2] lo)",
                                      "hi = ReduceMax <keepdims = 0> (x, axes)\n"
                                      "lo = ReduceMin <keepdims = 0> (x, axes)"),
                            {{"x", MakeTensor<bool>({2, 2}, {false, true, false, false})},
                             {"axes", MakeTensor<std::int64_t>({1}, {1})}});
  EXPECT_TENSOR(Out(some, "hi"), MakeTensor<bool>({2}, {true, false}));
  EXPECT_TENSOR(Out(some, "lo"), MakeTensor<bool>({2}, {false, false}));
}

TEST(TensorKernels, OneHotReadsItsIndicesInTheirOwnType) {
  // 2^26 uint8 indices (64 MiB), depth 1, uint8 values: a 64 MiB output. The indices were
  // converted to doubles first (512 MiB).
  ExpectWithinMemory(kKernelMemory, []() -> std::string {
    const std::int64_t n = std::int64_t{1} << 26;
    const Tensor y = RunOne(GraphText(11, "(uint8[67108864] i, int64 depth, uint8[2] v) => (uint8[67108864,1] y)",
                                      "y = OneHot (i, depth, v)"),
                            {{"i", Tensor(TensorProto::UINT8, {n})},
                             {"depth", MakeScalar<std::int64_t>(1)},
                             {"v", MakeTensor<std::uint8_t>({2}, {3, 5})}});
    return y.shape() == I64{n, 1} && std::count(y.Data<std::uint8_t>(), y.Data<std::uint8_t>() + n, 5) == n
               ? ""
               : "wrong output";
  });
}

}  // namespace
}  // namespace onnxopt::testing
