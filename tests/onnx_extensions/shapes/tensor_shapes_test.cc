#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "tests/onnx_extensions/shapes/shape_test_util.h"

namespace onnxopt::testing {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;
using ::testing::IsEmpty;

// ---- The end-to-end case of the issue ----

TEST(TensorShapes, ReshapeFromComputedShapeIsExact) {
  auto s = InferText(R"ONNX(
    <ir_version: 8, opset_import: ["" : 13]>
    g (float[batch,seq,64] x) => (float[batch,8,?] y) {
      shape = Shape (x)
      zero = Constant <value_int = 0> ()
      b = Gather <axis = 0> (shape, zero)
      axes = Constant <value_ints = [0]> ()
      b1 = Unsqueeze (b, axes)
      eight = Constant <value_ints = [8]> ()
      minus1 = Constant <value_ints = [-1]> ()
      target = Concat <axis = 0> (b1, eight, minus1)
      y = Reshape (x, target)
    })ONNX");
  EXPECT_EQ(s.Get("b"), "int64[] = [batch]");
  EXPECT_EQ(s.Get("b1"), "int64[1] = [batch]");
  EXPECT_EQ(s.Get("target"), "int64[3] = [batch,8,-1]");
  EXPECT_EQ(s.Get("y"), "float[batch,8,8*seq]");
  EXPECT_TRUE(s.SameDims("y", {"batch", "8", "seq*64/8"}));
  EXPECT_THAT(s.Diagnostics(), IsEmpty());
}

// ---- Shape, Size ----

TEST(TensorShapes, ShapeGivesTheDimsAsValues) {
  auto s = InferText(R"ONNX(
    <ir_version: 8, opset_import: ["" : 15]>
    g (float[batch,?,64] x) => (int64[3] y) {
      y = Shape (x)
      tail = Shape <start = 1> (x)
      mid = Shape <start = -2, end = -1> (x)
      n = Size (x)
    })ONNX");
  EXPECT_EQ(s.Get("y"), "int64[3] = [batch,?,64]");
  EXPECT_EQ(s.Get("tail"), "int64[2] = [?,64]");
  EXPECT_EQ(s.Get("mid"), "int64[1] = [?]");
  EXPECT_EQ(s.Get("n"), "int64[] = [?]");
}

TEST(TensorShapes, ShapeAndSizeOfSymbolicInput) {
  auto s = InferText(R"ONNX(
    <ir_version: 8, opset_import: ["" : 13]>
    g (float[batch,seq,64] x, float[] u) => (int64[3] y) {
      y = Shape <start = 1> (x)
      n = Size (x)
      r = Shape (u)
    })ONNX");
  // `start` exists from opset 15 only.
  EXPECT_EQ(s.Get("y"), "int64[3] = [batch,seq,64]");
  EXPECT_EQ(s.Get("n"), "int64[] = [64*batch*seq]");
  EXPECT_EQ(s.Get("r"), "int64[?]");
}

// ---- Reshape, Flatten, Squeeze, Unsqueeze ----

TEST(TensorShapes, ReshapeCopiesZerosAndInfersMinusOne) {
  auto s = InferText(R"ONNX(
    <ir_version: 8, opset_import: ["" : 14]>
    g (float[batch,seq,768] x) => (float[batch,seq,12,64] y) {
      target = Constant <value_ints = [0, 0, 12, -1]> ()
      y = Reshape (x, target)
      flat = Constant <value_ints = [-1, 768]> ()
      z = Reshape (x, flat)
      literal = Constant <value_ints = [0, 768]> ()
      w = Reshape <allowzero = 1> (x, literal)
    })ONNX");
  EXPECT_EQ(s.Get("y"), "float[batch,seq,12,64]");
  EXPECT_EQ(s.Get("z"), "float[batch*seq,768]");
  EXPECT_EQ(s.Get("w"), "float[0,768]");
}

// A symbolic entry that is 0 at run time copies the input dim at its position: it is the
// output dim only where that dim is the same symbol, or with allowzero.
TEST(TensorShapes, ReshapeTakesASymbolicEntryOnlyWhereAZeroWouldGiveTheSameDim) {
  auto s = InferText(R"ONNX(
    <ir_version: 8, opset_import: ["" : 15]>
    g (float[d,1] x, float[d,e] v) => (float[?,?] y) {
      minus1 = Constant <value_ints = [-1]> ()
      d1 = Shape <start = 0, end = 1> (x)
      target = Concat <axis = 0> (minus1, d1)
      y = Reshape (x, target)
      same = Concat <axis = 0> (d1, minus1)
      z = Reshape (x, same)
      w = Reshape <allowzero = 1> (x, target)
      e1 = Shape <start = 1, end = 2> (v)
      both = Concat <axis = 0> (d1, e1)
      u = Reshape (v, both)
    })ONNX");
  // d = 0: y is [0, 1] (the d copies x's 1), not [1, 0].
  EXPECT_EQ(s.Get("target"), "int64[2] = [-1,d]");
  EXPECT_EQ(s.Get("y"), "float[?,?]");
  EXPECT_EQ(s.Get("z"), "float[d,1]");
  EXPECT_EQ(s.Get("w"), "float[1,d]");
  EXPECT_EQ(s.Get("u"), "float[d,e]");
}

TEST(TensorShapes, ReshapeWithNonConstantShapeStaysUnknown) {
  auto s = InferText(R"ONNX(
    <ir_version: 8, opset_import: ["" : 13]>
    g (float[batch,seq,64] x, int64[3] target, int64[?] any) => (float[?,?,?] y) {
      y = Reshape (x, target)
      z = Reshape (x, any)
    })ONNX");
  EXPECT_EQ(s.Get("y"), "float[?,?,?]");
  EXPECT_EQ(s.Get("z"), "float?");
}

TEST(TensorShapes, ReshapeVersion1UsesTheAttribute) {
  auto s = InferText(R"ONNX(
    <ir_version: 3, opset_import: ["" : 1]>
    g (float[2,3,4] x) => (float[6,4] y) {
      y = Reshape <shape = [-1, 4]> (x)
    })ONNX");
  EXPECT_EQ(s.Get("y"), "float[6,4]");
}

TEST(TensorShapes, ReshapeDiagnosesAnImpossibleCount) {
  auto s = InferText(R"ONNX(
    <ir_version: 8, opset_import: ["" : 13]>
    g (float[2,3,5] x) => (float[?,4] y) {
      target = Constant <value_ints = [-1, 4]> ()
      y = Reshape (x, target)
    })ONNX");
  EXPECT_EQ(s.Get("y"), "float[?,4]");
  EXPECT_THAT(s.Diagnostics(), ElementsAre(HasSubstr("cannot reshape 30 elements")));
}

TEST(TensorShapes, FlattenMultipliesDims) {
  auto s = InferText(R"ONNX(
    <ir_version: 8, opset_import: ["" : 13]>
    g (float[batch,c,h,w] x) => (float[batch,?] y) {
      y = Flatten (x)
      z = Flatten <axis = 0> (x)
      v = Flatten <axis = -2> (x)
    })ONNX");
  EXPECT_EQ(s.Get("y"), "float[batch,c*h*w]");
  EXPECT_EQ(s.Get("z"), "float[1,batch*c*h*w]");
  EXPECT_EQ(s.Get("v"), "float[batch*c,h*w]");
}

TEST(TensorShapes, SqueezeAttributeAndInputForms) {
  auto v11 = InferText(R"ONNX(
    <ir_version: 7, opset_import: ["" : 11]>
    g (float[batch,1,seq,1] x) => (float[batch,seq] y) {
      y = Squeeze <axes = [1, -1]> (x)
    })ONNX");
  EXPECT_EQ(v11.Get("y"), "float[batch,seq]");
  auto v13 = InferText(R"ONNX(
    <ir_version: 8, opset_import: ["" : 13]>
    g (float[batch,1,seq,1] x, int64[2] dynamic) => (float[batch,seq] y) {
      axes = Constant <value_ints = [1, 3]> ()
      y = Squeeze (x, axes)
      d = Squeeze (x, dynamic)
    })ONNX");
  EXPECT_EQ(v13.Get("y"), "float[batch,seq]");
  EXPECT_EQ(v13.Get("d"), "float[?,?]");
}

TEST(TensorShapes, SqueezeWithoutAxesNeedsConstantDims) {
  auto s = InferText(R"ONNX(
    <ir_version: 8, opset_import: ["" : 13]>
    g (float[batch,1,3] x, float[1,3,1] c) => (float[?] y) {
      y = Squeeze (x)
      z = Squeeze (c)
    })ONNX");
  // batch may be 1: the rank is unknown.
  EXPECT_EQ(s.Get("y"), "float?");
  EXPECT_EQ(s.Get("z"), "float[3]");
}

TEST(TensorShapes, SqueezeOfANonUnitDimIsRefused) {
  EXPECT_EQ(InferenceRefusal(R"ONNX(
    <ir_version: 7, opset_import: ["" : 11]>
    g (float[batch,4] x) => (float[?] y) {
      y = Squeeze <axes = [1]> (x)
    })ONNX"),
            "node #0 (Squeeze): Squeeze-11 axes select dims of size 1; found axis 1 of size 4 in shape [batch,4]");
}

TEST(TensorShapes, UnsqueezeAttributeAndInputForms) {
  auto v11 = InferText(R"ONNX(
    <ir_version: 7, opset_import: ["" : 11]>
    g (float[batch,seq] x) => (float[batch,1,seq,1] y) {
      y = Unsqueeze <axes = [1, -1]> (x)
    })ONNX");
  EXPECT_EQ(v11.Get("y"), "float[batch,1,seq,1]");
  auto v13 = InferText(R"ONNX(
    <ir_version: 8, opset_import: ["" : 13]>
    g (float[batch,seq] x) => (float[1,batch,seq] y) {
      axes = Constant <value_ints = [0]> ()
      y = Unsqueeze (x, axes)
      shape = Shape (x)
      sq = Squeeze (y, axes)
      two = Constant <value_ints = [0, 2]> ()
      v = Unsqueeze (shape, axes)
    })ONNX");
  EXPECT_EQ(v13.Get("y"), "float[1,batch,seq]");
  EXPECT_EQ(v13.Get("sq"), "float[batch,seq]");
  EXPECT_EQ(v13.Get("v"), "int64[1,2] = [batch,seq]");
}

TEST(TensorShapes, TransposeDefaultReversesAndPermutesValues) {
  auto s = InferText(R"ONNX(
    <ir_version: 8, opset_import: ["" : 13]>
    g (float[batch,seq,heads,64] x) => (float[batch,heads,seq,64] y) {
      y = Transpose <perm = [0, 2, 1, 3]> (x)
      r = Transpose (x)
      c = Constant <value = int64[2,3] {1, 2, 3, 4, 5, 6}> ()
      t = Transpose (c)
    })ONNX");
  EXPECT_EQ(s.Get("y"), "float[batch,heads,seq,64]");
  EXPECT_EQ(s.Get("r"), "float[64,heads,seq,batch]");
  EXPECT_EQ(s.Get("t"), "int64[3,2] = [1,4,2,5,3,6]");
}

TEST(TensorShapes, TransposeWithABadPermIsRefused) {
  for (const char* perm : {"[0, 0]", "[0]", "[0, 2]", "[1, 0, 2]"}) {
    EXPECT_THAT(InferenceRefusal(std::string(R"ONNX(
      <ir_version: 8, opset_import: ["" : 13]>
      g (float[a,b] x) => (float[?,?] y) {
        y = Transpose <perm = )ONNX") + perm + R"ONNX(> (x)
      })ONNX"),
                HasSubstr("node #0 (Transpose): Transpose-13 perm is a permutation of [0, 2) (the input rank)"))
        << perm;
  }
}

// ---- Concat, Split ----

TEST(TensorShapes, ConcatAddsTheAxisDims) {
  auto s = InferText(R"ONNX(
    <ir_version: 8, opset_import: ["" : 13]>
    g (float[batch,past,64] a, float[batch,seq,64] b, float[?,1,64] c) => (float[batch,?,64] y) {
      y = Concat <axis = -2> (a, b, c)
    })ONNX");
  EXPECT_EQ(s.Get("y"), "float[batch,past+seq+1,64]");
}

TEST(TensorShapes, ConcatVersion1DefaultsToAxis1) {
  auto s = InferText(R"ONNX(
    <ir_version: 3, opset_import: ["" : 1]>
    g (float[n,a] x, float[n,b] y) => (float[n,?] z) {
      z = Concat (x, y)
    })ONNX");
  EXPECT_EQ(s.Get("z"), "float[n,a+b]");
}

TEST(TensorShapes, ConcatOfUnknownAxisDimStaysUnknown) {
  auto s = InferText(R"ONNX(
    <ir_version: 8, opset_import: ["" : 13]>
    g (float[n,?] x, float[n,b] y, float[] u) => (float[n,?] z) {
      z = Concat <axis = 1> (x, y)
      w = Concat <axis = 1> (y, u)
    })ONNX");
  EXPECT_EQ(s.Get("z"), "float[n,?]");
  EXPECT_EQ(s.Get("w"), "float[n,?]");
}

// Constant inputs that differ on an axis other than the concatenated one: diagnosed, and no
// values attached. Before, the values were read by the first input's dims, past the end of
// the shorter second one (a crash found by graph_fuzzer: concat-mismatched-constants-overread).
TEST(TensorShapes, ConcatOfMismatchedConstantsAttachesNoValues) {
  auto s = InferText(R"ONNX(
    <ir_version: 8, opset_import: ["" : 13]>
    g (float[2] x) => (int64[?,?] y) {
      a = Constant <value = int64[2,1] {1, 2}> ()
      b = Constant <value = int64[0,1] {}> ()
      y = Concat <axis = 1> (a, b)
    })ONNX");
  EXPECT_EQ(s.Get("y"), "int64[?,2]");
  EXPECT_THAT(s.Diagnostics(), ElementsAre(HasSubstr("inputs differ on axis 0: 2 vs 0")));
}

TEST(TensorShapes, SplitAttributeForm) {
  auto s = InferText(R"ONNX(
    <ir_version: 7, opset_import: ["" : 11]>
    g (float[batch,seq,96] x) => (float[batch,seq,32] q) {
      q, k, v = Split <axis = -1, split = [32, 32, 32]> (x)
      a, b = Split <axis = 1> (x)
    })ONNX");
  EXPECT_EQ(s.Get("q"), "float[batch,seq,32]");
  EXPECT_EQ(s.Get("v"), "float[batch,seq,32]");
  EXPECT_EQ(s.Get("a"), "float[batch,seq/2,96]");
}

TEST(TensorShapes, SplitInputForm) {
  auto s = InferText(R"ONNX(
    <ir_version: 8, opset_import: ["" : 13]>
    g (float[batch,seq,96] x, int64[2] dynamic) => (float[batch,seq,64] a) {
      sizes = Constant <value_ints = [64, 32]> ()
      a, b = Split <axis = 2> (x, sizes)
      c, d = Split <axis = 2> (x, dynamic)
      e, f, g2 = Split <axis = 2> (x)
    })ONNX");
  EXPECT_EQ(s.Get("a"), "float[batch,seq,64]");
  EXPECT_EQ(s.Get("b"), "float[batch,seq,32]");
  EXPECT_EQ(s.Get("c"), "float[batch,seq,?]");
  EXPECT_EQ(s.Get("g2"), "float[batch,seq,32]");
}

TEST(TensorShapes, SplitNumOutputsForm) {
  auto s = InferText(R"ONNX(
    <ir_version: 8, opset_import: ["" : 18]>
    g (float[batch,10] x, float[n] y) => (float[batch,4] a) {
      a, b, c = Split <axis = 1, num_outputs = 3> (x)
      p, q = Split <num_outputs = 2> (y)
    })ONNX");
  EXPECT_EQ(s.Get("a"), "float[batch,4]");
  EXPECT_EQ(s.Get("b"), "float[batch,4]");
  EXPECT_EQ(s.Get("c"), "float[batch,2]");
  EXPECT_EQ(s.Get("p"), "float[(n+1)//2]");
  EXPECT_TRUE(s.SameDims("q", {"n-(n+1)//2"}));
}

TEST(TensorShapes, SplitOfValues) {
  auto s = InferText(R"ONNX(
    <ir_version: 8, opset_import: ["" : 13]>
    g (float[batch,seq,64] x) => (int64[1] a) {
      shape = Shape (x)
      sizes = Constant <value_ints = [1, 2]> ()
      a, b = Split (shape, sizes)
    })ONNX");
  EXPECT_EQ(s.Get("a"), "int64[1] = [batch]");
  EXPECT_EQ(s.Get("b"), "int64[2] = [seq,64]");
}

TEST(TensorShapes, SplitOfAnIndivisibleDimIsRefused) {
  EXPECT_EQ(InferenceRefusal(R"ONNX(
    <ir_version: 8, opset_import: ["" : 13]>
    g (float[7] x) => (float[?] a) {
      a, b = Split (x)
    })ONNX"),
            "node #0 (Split): Split-13 without split sizes, splits the dim into equal parts (one per output); found a "
            "dim of 7 for 2 outputs");
}

TEST(TensorShapes, SplitSizesMustMatchTheOutputsAndTheDim) {
  auto split = [](const char* sizes, int opset) {
    return InferenceRefusal("<ir_version: 8, opset_import: [\"\" : " + std::to_string(opset) +
                            "]>\ng (float[5,2] x) => (float[?] a) {\n  s = Constant <value = int64[2] {" + sizes +
                            "}> ()\n  a, b = Split <axis = 0> (x, s)\n}");
  };
  EXPECT_EQ(split("3, 2", 13), "");
  EXPECT_EQ(split("2, 2", 13),
            "node #1 (Split): Split-13 split sizes add up to the dim split; found split [2,2] (sum 4) for a dim of 5");
  EXPECT_EQ(split("6, -1", 18), "node #1 (Split): Split-18 split sizes >= 0; found split [6,-1]");
  // Sizes whose sum is beyond int64 (the graph fuzzer's INT64_MAX + INT64_MAX) split no dim.
  EXPECT_EQ(split("9223372036854775807, 9223372036854775807", 18),
            "node #1 (Split): Split-18 split sizes add up to the dim split; found split "
            "[9223372036854775807,9223372036854775807] (sum beyond int64)");
  EXPECT_THAT(InferenceRefusal(R"ONNX(
    <ir_version: 8, opset_import: ["" : 18]>
    g (float[6] x) => (float[?] a) {
      s = Constant <value = int64[2] {3, 3}> ()
      a, b = Split <axis = 0, num_outputs = 2> (x, s)
    })ONNX"),
              HasSubstr("Split-18 takes the split input or the num_outputs attribute, not both"));
  EXPECT_THAT(InferenceRefusal(R"ONNX(
    <ir_version: 8, opset_import: ["" : 11]>
    g (float[6] x) => (float[?] a) {
      a, b = Split <axis = 0, split = [2, 2, 2]> (x)
    })ONNX"),
              HasSubstr("node #0 (Split): Split-11 has 2 split values (one per output); found 3"));
}

// ---- Slice ----

TEST(TensorShapes, SliceWithConstantBounds) {
  auto s = InferText(R"ONNX(
    <ir_version: 8, opset_import: ["" : 13]>
    g (float[batch,seq,64] x) => (float[batch,seq,32] y) {
      starts = Constant <value_ints = [0, 32]> ()
      ends = Constant <value_ints = [9223372036854775807, 64]> ()
      axes = Constant <value_ints = [1, -1]> ()
      y = Slice (x, starts, ends, axes)
      rs = Constant <value_ints = [-1]> ()
      re = Constant <value_ints = [-9223372036854775807]> ()
      ra = Constant <value_ints = [2]> ()
      step = Constant <value_ints = [-2]> ()
      r = Slice (x, rs, re, ra, step)
    })ONNX");
  EXPECT_EQ(s.Get("y"), "float[batch,seq,32]");
  EXPECT_EQ(s.Get("r"), "float[batch,seq,32]");
}

TEST(TensorShapes, SliceOfAHugeDimIsCountedNotListed) {
  // Every selected index was listed, value known or not: a dim of 2^40 took seconds and
  // gigabytes. The lengths are worked out; a step of -2^63 counts one element.
  auto s = InferText(R"ONNX(
    <ir_version: 8, opset_import: ["" : 13]>
    g (float[1099511627776,0] x, float[7] v) => (float[1099511627776,0] y) {
      starts = Constant <value_ints = [0, 0]> ()
      ends = Constant <value_ints = [1099511627776, 0]> ()
      y = Slice (x, starts, ends)
      third = Constant <value_ints = [3]> ()
      all = Constant <value_ints = [9223372036854775807]> ()
      first = Constant <value_ints = [0]> ()
      t = Slice (x, first, all, first, third)
      last = Constant <value_ints = [-1]> ()
      past = Constant <value_ints = [-9223372036854775807]> ()
      lowest = Constant <value_ints = [-9223372036854775808]> ()
      b = Slice (v, last, past, first, lowest)
      c = Slice (v, last, past, first, third)
    })ONNX");
  EXPECT_EQ(s.Get("y"), "float[1099511627776,0]");
  EXPECT_EQ(s.Get("t"), "float[366503875926,0]");
  EXPECT_EQ(s.Get("b"), "float[1]");
  EXPECT_EQ(s.Get("c"), "float[0]");
}

TEST(TensorShapes, SliceWithSymbolicBounds) {
  // x[:, past:past+seq] where the bounds come from shapes.
  auto s = InferText(R"ONNX(
    <ir_version: 8, opset_import: ["" : 13]>
    g (float[batch,total] mask, float[batch,past,64] k, float[batch,seq,64] q) => (float[batch,seq] y) {
      ks = Shape (k)
      qs = Shape (q)
      one = Constant <value_ints = [1]> ()
      two = Constant <value_ints = [2]> ()
      p = Slice (ks, one, two)
      l = Slice (qs, one, two)
      e = Add (p, l)
      y = Slice (mask, p, e, one)
      neg = Constant <value_ints = [-1]> ()
      zero = Constant <value_ints = [0]> ()
      u = Slice (mask, zero, neg, one)
    })ONNX");
  EXPECT_EQ(s.Get("p"), "int64[1] = [past]");
  // past <= total is not known: clamping cannot be decided.
  EXPECT_EQ(s.Get("y"), "float[batch,?]");
  // total-1 may be negative (total = 0).
  EXPECT_EQ(s.Get("u"), "float[batch,?]");
}

TEST(TensorShapes, SliceToTheEndOfASymbolicDim) {
  auto s = InferText(R"ONNX(
    <ir_version: 8, opset_import: ["" : 13]>
    g (float[batch,seq,64] x) => (float[batch,seq,64] y) {
      starts = Constant <value_ints = [0]> ()
      ends = Constant <value_ints = [2147483647]> ()
      axes = Constant <value_ints = [1]> ()
      y = Slice (x, starts, ends, axes)
      shape = Shape (x)
      sz = Constant <value_ints = [0]> ()
      ez = Constant <value_ints = [1]> ()
      e = Slice (shape, ez, ends)
    })ONNX");
  EXPECT_EQ(s.Get("y"), "float[batch,seq,64]");
  EXPECT_EQ(s.Get("e"), "int64[2] = [seq,64]");
}

TEST(TensorShapes, SliceArgumentsOfDifferentLengthsAreRefused) {
  // ends = [seq, 64] (computed) against a single axis.
  EXPECT_EQ(InferenceRefusal(R"ONNX(
    <ir_version: 8, opset_import: ["" : 13]>
    g (float[batch,seq,64] x) => (float[batch,seq,64] y) {
      shape = Shape (x)
      one = Constant <value_ints = [1]> ()
      big = Constant <value_ints = [2147483647]> ()
      e = Slice (shape, one, big)
      zero = Constant <value_ints = [0]> ()
      y = Slice (x, zero, e, one)
    })ONNX"),
            "node #5 (Slice): Slice-13 starts, ends, axes and steps have one length; found lengths 1, 2, 1, -");
}

// starts, ends, axes, steps and the shape of Reshape, Expand and Tile are 1-D tensors;
// rewrites that concatenate them (SliceSlicePattern) built invalid nodes from a [1, 1].
TEST(TensorShapes, VectorArgumentsOfAnotherRankAreRefused) {
  EXPECT_EQ(InferenceRefusal(R"ONNX(
    <ir_version: 8, opset_import: ["" : 18]>
    g (float[N,8,6] x) => (float[N,?,6] y) <int64[1] s = {1}, int64[1,1] e = {3}, int64[1] a = {1}> {
      y = Slice (x, s, e, a)
    })ONNX"),
            "node #0 (Slice): Slice-13 ends is a 1-D tensor; found rank 2");
  EXPECT_EQ(InferenceRefusal(R"ONNX(
    <ir_version: 8, opset_import: ["" : 18]>
    g (float[2,3] x) => (float[6] y) <int64 shape = {6}> {
      y = Reshape (x, shape)
    })ONNX"),
            "node #0 (Reshape): Reshape-14 shape is a 1-D tensor; found rank 0");
  EXPECT_EQ(InferenceRefusal(R"ONNX(
    <ir_version: 8, opset_import: ["" : 18]>
    g (float[2,3] x) => (float[2,3] y) <int64[1,2] shape = {2, 3}> {
      y = Expand (x, shape)
    })ONNX"),
            "node #0 (Expand): Expand-13 shape is a 1-D tensor; found rank 2");
  EXPECT_EQ(InferenceRefusal(R"ONNX(
    <ir_version: 8, opset_import: ["" : 18]>
    g (float[2,3] x) => (float[4,3] y) <int64[2,1] repeats = {2, 1}> {
      y = Tile (x, repeats)
    })ONNX"),
            "node #0 (Tile): Tile-13 repeats is a 1-D tensor; found rank 2");
  EXPECT_EQ(InferenceRefusal(R"ONNX(
    <ir_version: 8, opset_import: ["" : 18]>
    g (float[2,3] x) => (float[2,1,3] y) <int64[1,1] axes = {1}> {
      y = Unsqueeze (x, axes)
    })ONNX"),
            "node #0 (Unsqueeze): Unsqueeze-13 axes is a 1-D tensor or a scalar; found rank 2");
}

// The length of a shape input gives the output's rank, up to kMaxRankFromLength: a shape
// input declared with 2^40 elements made a shape of 2^40 dims (minutes of allocation,
// found by mutate_pattern_graphs.py).
TEST(TensorShapes, AHugeShapeLengthGivesNoRank) {
  auto s = InferText(R"ONNX(
    <ir_version: 8, opset_import: ["" : 18]>
    g (float[2,3] x, int64[1099511627776] huge, int64[3] three) => (float[?] y) {
      y = Reshape (x, huge)
      e = Expand (x, huge)
      c = ConstantOfShape (huge)
      u = Unsqueeze (x, huge)
      r = Reshape (x, three)
    })ONNX");
  EXPECT_EQ(s.Get("y"), "float?");  // unknown rank
  EXPECT_EQ(s.Get("e"), "float?");
  EXPECT_EQ(s.Get("c"), "float?");
  EXPECT_EQ(s.Get("u"), "float?");
  EXPECT_EQ(s.Get("r"), "float[?,?,?]") << "a length within the limit still gives the rank";
}

// Runtimes take a scalar for the axes of Unsqueeze and Squeeze, which exporters write.
TEST(TensorShapes, ScalarAxesOfUnsqueezeAndSqueezeAreAccepted) {
  auto s = InferText(R"ONNX(
    <ir_version: 8, opset_import: ["" : 18]>
    g (float[2,3] x) => (float[2,3] z) <int64 axis = {1}> {
      y = Unsqueeze (x, axis)
      z = Squeeze (y, axis)
    })ONNX");
  EXPECT_EQ(s.Get("y"), "float[2,1,3]");
  EXPECT_EQ(s.Get("z"), "float[2,3]");
}

TEST(TensorShapes, SliceVersion1UsesAttributes) {
  auto s = InferText(R"ONNX(
    <ir_version: 3, opset_import: ["" : 1]>
    g (float[batch,20,10] x) => (float[batch,5,10] y) {
      y = Slice <starts = [5], ends = [-10], axes = [1]> (x)
    })ONNX");
  EXPECT_EQ(s.Get("y"), "float[batch,5,10]");
}

TEST(TensorShapes, SliceOfValues) {
  auto s = InferText(R"ONNX(
    <ir_version: 8, opset_import: ["" : 13]>
    g (float[batch,seq,heads,64] x) => (int64[2] y) {
      shape = Shape (x)
      starts = Constant <value_ints = [-2]> ()
      ends = Constant <value_ints = [9223372036854775807]> ()
      y = Slice (shape, starts, ends)
      rs = Constant <value_ints = [-1]> ()
      re = Constant <value_ints = [-9223372036854775807]> ()
      ax = Constant <value_ints = [0]> ()
      st = Constant <value_ints = [-1]> ()
      rev = Slice (shape, rs, re, ax, st)
    })ONNX");
  EXPECT_EQ(s.Get("y"), "int64[2] = [heads,64]");
  EXPECT_EQ(s.Get("rev"), "int64[4] = [64,heads,seq,batch]");
}

// ---- Pad ----

TEST(TensorShapes, PadAllForms) {
  auto v2 = InferText(R"ONNX(
    <ir_version: 3, opset_import: ["" : 2]>
    g (float[n,c,h,w] x) => (float[n,c,?,?] y) {
      y = Pad <pads = [0, 0, 1, 2, 0, 0, 3, 4]> (x)
    })ONNX");
  EXPECT_EQ(v2.Get("y"), "float[n,c,h+4,w+6]");
  auto v13 = InferText(R"ONNX(
    <ir_version: 8, opset_import: ["" : 13]>
    g (float[n,c,h,w] x, int64[8] dynamic) => (float[n,c,?,?] y) {
      pads = Constant <value_ints = [0, 0, 1, 1, 0, 0, 1, 1]> ()
      y = Pad <mode = "reflect"> (x, pads)
      d = Pad (x, dynamic)
    })ONNX");
  EXPECT_EQ(v13.Get("y"), "float[n,c,h+2,w+2]");
  EXPECT_EQ(v13.Get("d"), "float[?,?,?,?]");
  auto v18 = InferText(R"ONNX(
    <ir_version: 8, opset_import: ["" : 18]>
    g (float[n,c,h,w] x, int64[2] dynamic) => (float[n,c,?,?] y) {
      pads = Constant <value_ints = [2, -1]> ()
      axes = Constant <value_ints = [-1]> ()
      y = Pad <mode = "edge"> (x, pads, , axes)
      d = Pad (x, dynamic, , axes)
    })ONNX");
  EXPECT_EQ(v18.Get("y"), "float[n,c,h,w+1]");
  EXPECT_EQ(v18.Get("d"), "float[n,c,h,?]");
}

// ---- Gather family, Scatter family ----

TEST(TensorShapes, GatherInsertsTheIndicesShape) {
  auto s = InferText(R"ONNX(
    <ir_version: 8, opset_import: ["" : 13]>
    g (float[vocab,768] emb, int64[batch,seq] ids) => (float[batch,seq,768] y) {
      y = Gather (emb, ids)
      z = Gather <axis = -1> (emb, ids)
    })ONNX");
  EXPECT_EQ(s.Get("y"), "float[batch,seq,768]");
  EXPECT_EQ(s.Get("z"), "float[vocab,batch,seq]");
}

TEST(TensorShapes, GatherOfValuesNormalizesNegativeIndices) {
  auto s = InferText(R"ONNX(
    <ir_version: 8, opset_import: ["" : 13]>
    g (float[batch,seq,64] x) => (int64[2] y) {
      shape = Shape (x)
      idx = Constant <value_ints = [-1, 0]> ()
      y = Gather (shape, idx)
      bad = Constant <value_ints = [3]> ()
      z = Gather (shape, bad)
    })ONNX");
  EXPECT_EQ(s.Get("y"), "int64[2] = [64,batch]");
  EXPECT_EQ(s.Get("z"), "int64[1]");
  EXPECT_THAT(s.Diagnostics(), ElementsAre(HasSubstr("index 3 is out of range")));
}

TEST(TensorShapes, GatherElementsGatherNDAndScatter) {
  auto s = InferText(R"ONNX(
    <ir_version: 8, opset_import: ["" : 13]>
    g (float[batch,seq,64] x, int64[batch,k,64] ie, int64[batch,n,2] ind, float[batch,n,64] upd) => (float[batch,k,64] y) {
      y = GatherElements <axis = 1> (x, ie)
      nd = GatherND (x, ind)
      bnd = GatherND <batch_dims = 1> (x, ind)
      sc = ScatterND (x, ind, upd)
      se = ScatterElements <axis = 1> (x, ie, upd)
    })ONNX");
  EXPECT_EQ(s.Get("y"), "float[batch,k,64]");
  EXPECT_EQ(s.Get("nd"), "float[batch,n,64]");
  EXPECT_EQ(s.Get("bnd"), "float[batch,n]");
  EXPECT_EQ(s.Get("sc"), "float[batch,seq,64]");
  EXPECT_EQ(s.Get("se"), "float[batch,seq,64]");
}

// TensorScatter (opset 24): the output is the cache; symbols of the cache stay, an unknown
// dim of the cache outside the axis is the update's.
TEST(TensorShapes, TensorScatterKeepsTheCacheShape) {
  auto s = InferText(R"ONNX(
    <ir_version: 10, opset_import: ["" : 24]>
    g (float[batch,heads,max,64] past, float[1,heads,seq,64] upd, int64[batch] pos, float16[?,4,8,?] p2,
       float16[2,4,1,16] u2) => (float[batch,heads,max,64] y) {
      y = TensorScatter <axis = 2> (past, upd, pos)
      z = TensorScatter <mode = "circular"> (p2, u2)
      r = Relu (y)
    })ONNX");
  EXPECT_EQ(s.Get("y"), "float[batch,heads,max,64]");
  EXPECT_EQ(s.Get("z"), "float16[2,4,8,16]");
  EXPECT_EQ(s.Get("r"), "float[batch,heads,max,64]");
  EXPECT_THAT(s.Diagnostics(), IsEmpty());
}

TEST(TensorShapes, TensorScatterContradictionsAreDiagnosedOrRefused) {
  auto s = InferText(R"ONNX(
    <ir_version: 10, opset_import: ["" : 24]>
    g (float[2,4,8,64] past, float[2,3,1,64] upd) => (float[2,4,8,64] y) {
      y = TensorScatter (past, upd)
    })ONNX");
  EXPECT_EQ(s.Get("y"), "float[2,?,8,64]");
  EXPECT_THAT(s.Diagnostics(), ElementsAre(HasSubstr("inputs differ on axis 1: 4 vs 3")));
  auto refusal = [](std::string_view signature, std::string_view node) {
    return InferenceRefusal(std::string("<ir_version: 10, opset_import: [\"\" : 24]>\ng ") + std::string(signature) +
                            " => (float[2,4,8,64] y) { y = " + std::string(node) + " }");
  };
  EXPECT_EQ(refusal("(float[2,4,8,64] past, float[2,4,9,64] upd)", "TensorScatter (past, upd)"),
            "node #0 (TensorScatter): TensorScatter-24 update is no longer than past_cache along axis; found "
            "lengths 9 and 8");
  EXPECT_EQ(refusal("(float[2,4,8,64] past, float[2,4,8] upd)", "TensorScatter (past, upd)"),
            "node #0 (TensorScatter): TensorScatter-24 update has the rank of past_cache; found ranks 3 and 4");
  EXPECT_EQ(refusal("(float[2,4,8,64] past, float[2,4,1,64] upd)", "TensorScatter <axis = -4> (past, upd)"),
            "node #0 (TensorScatter): TensorScatter-24 axis is not the batch dim 0; found axis -4");
  EXPECT_THAT(refusal("(float[2,4,8,64] past, float[2,4,1,64] upd)", "TensorScatter <mode = \"ring\"> (past, upd)"),
              HasSubstr("ring"));
}

// ---- Expand, Tile ----

TEST(TensorShapes, ExpandBroadcastsWithTheShapeValue) {
  auto s = InferText(R"ONNX(
    <ir_version: 8, opset_import: ["" : 13]>
    g (float[1,1,seq,seq] mask, float[batch,heads,seq,64] q, int64[4] dynamic) => (float[batch,heads,seq,seq] y) {
      qs = Shape (q)
      idx = Constant <value_ints = [0, 1, 2, 2]> ()
      target = Gather (qs, idx)
      y = Expand (mask, target)
      d = Expand (mask, dynamic)
    })ONNX");
  EXPECT_EQ(s.Get("y"), "float[batch,heads,seq,seq]");
  EXPECT_EQ(s.Get("d"), "float[?,?,?,?]");
}

TEST(TensorShapes, TileMultipliesDims) {
  auto s = InferText(R"ONNX(
    <ir_version: 8, opset_import: ["" : 13]>
    g (float[batch,seq] x) => (float[batch,?] y) {
      shape = Shape (x)
      idx = Constant <value_ints = [1]> ()
      seq = Gather (shape, idx)
      one = Constant <value_ints = [1]> ()
      reps = Concat <axis = 0> (one, seq)
      y = Tile (x, reps)
      c = Constant <value_ints = [3, 4]> ()
      two = Constant <value_ints = [2]> ()
      tv = Tile (c, two)
    })ONNX");
  EXPECT_EQ(s.Get("y"), "float[batch,seq*seq]");
  EXPECT_TRUE(s.SameDims("y", {"batch", "seq*seq"}));
  EXPECT_EQ(s.Get("tv"), "int64[4] = [3,4,3,4]");
}

TEST(TensorShapes, TileVersion1TakesTilesAndAxisInputs) {
  auto s = InferText(R"ONNX(
    <ir_version: 3, opset_import: ["" : 1]>
    g (float[batch,seq] x) => (float[batch,?] y) <float tiles = {3}, float axis = {1}> {
      y = Tile (x, tiles, axis)
    })ONNX");
  EXPECT_EQ(s.Get("y"), "float[batch,3*seq]");
}

// ---- Range, ConstantOfShape, EyeLike ----

TEST(TensorShapes, RangeWithConstantAndSymbolicBounds) {
  auto s = InferText(R"ONNX(
    <ir_version: 8, opset_import: ["" : 13]>
    g (float[batch,seq] x) => (int64[?] y) {
      start = Constant <value_int = 0> ()
      limit = Constant <value_int = 10> ()
      delta = Constant <value_int = 3> ()
      y = Range (start, limit, delta)
      shape = Shape (x)
      i = Constant <value_int = 1> ()
      seq = Gather (shape, i)
      one = Constant <value_int = 1> ()
      positions = Range (start, seq, one)
      back = Range (seq, start, delta)
      fs = Constant <value = float {0.5}> ()
      fl = Constant <value = float {2.0}> ()
      fd = Constant <value = float {0.5}> ()
      f = Range (fs, fl, fd)
    })ONNX");
  EXPECT_EQ(s.Get("y"), "int64[4] = [0,3,6,9]");
  EXPECT_EQ(s.Get("positions"), "int64[seq]");
  // A negative step from 0 upwards: seq may be 0, so nothing is known... except
  // max(ceil(-seq/3), 0) = 0 when it is decidable, which it is not here.
  EXPECT_EQ(s.Get("back"), "int64[?]");
  EXPECT_EQ(s.Get("f"), "float[3]");
}

// Bounds whose count or values do not fit in int64 (found by graph_fuzzer:
// range-count-overflow-ubsan): an empty float range far below zero, an int64 range whose
// limit - start overflows, and one whose offsets k * delta overflow though its values fit.
TEST(TensorShapes, RangeBoundsBeyondInt64) {
  auto s = InferText(R"ONNX(
    <ir_version: 8, opset_import: ["" : 13]>
    g (float x) => (float[?] y) {
      fs = Constant <value = float {1e30}> ()
      fl = Constant <value = float {-1e30}> ()
      fd = Constant <value = float {1}> ()
      y = Range (fs, fl, fd)
      lowest = Constant <value = int64 {-9223372036854775808}> ()
      highest = Constant <value = int64 {9223372036854775807}> ()
      one = Constant <value = int64 {1}> ()
      all = Range (lowest, highest, one)
      quarter = Constant <value = int64 {4611686018427387904}> ()
      steps = Range (lowest, highest, quarter)
    })ONNX");
  EXPECT_EQ(s.Get("y"), "float[0]");
  EXPECT_EQ(s.Get("all"), "int64[?]");
  // 4 values, -2^63 + k * 2^62: k * 2^62 overflows at k = 2 and 3, so no values.
  EXPECT_EQ(s.Get("steps"), "int64[4]");
}

TEST(TensorShapes, ConstantOfShapeTakesTheShapeValue) {
  auto s = InferText(R"ONNX(
    <ir_version: 8, opset_import: ["" : 13]>
    g (float[batch,seq] x, int64[3] dynamic) => (float[batch,seq] y) {
      shape = Shape (x)
      y = ConstantOfShape (shape)
      i = ConstantOfShape <value = int64[1] {1}> (shape)
      two = Constant <value_ints = [2]> ()
      v = ConstantOfShape <value = int64[1] {7}> (two)
      d = ConstantOfShape (dynamic)
      e = EyeLike <dtype = 7> (x)
    })ONNX");
  EXPECT_EQ(s.Get("y"), "float[batch,seq]");
  EXPECT_EQ(s.Get("i"), "int64[batch,seq]");
  EXPECT_EQ(s.Get("v"), "int64[2] = [7,7]");
  EXPECT_EQ(s.Get("d"), "float[?,?,?]");
  EXPECT_EQ(s.Get("e"), "int64[batch,seq]");
}

// ---- OneHot, TopK, ArgMax, Reduce* ----

TEST(TensorShapes, OneHotInsertsDepth) {
  auto s = InferText(R"ONNX(
    <ir_version: 8, opset_import: ["" : 11]>
    g (int64[batch,seq] ids, float[2] values) => (float[batch,seq,10] y) {
      depth = Constant <value_int = 10> ()
      y = OneHot (ids, depth, values)
      z = OneHot <axis = 1> (ids, depth, values)
    })ONNX");
  EXPECT_EQ(s.Get("y"), "float[batch,seq,10]");
  EXPECT_EQ(s.Get("z"), "float[batch,10,seq]");
}

TEST(TensorShapes, TopKAttributeAndInputForms) {
  auto v1 = InferText(R"ONNX(
    <ir_version: 3, opset_import: ["" : 1]>
    g (float[batch,vocab] x) => (float[batch,5] v) {
      v, i = TopK <k = 5> (x)
    })ONNX");
  EXPECT_EQ(v1.Get("v"), "float[batch,5]");
  EXPECT_EQ(v1.Get("i"), "int64[batch,5]");
  auto v11 = InferText(R"ONNX(
    <ir_version: 7, opset_import: ["" : 11]>
    g (float[batch,vocab] x, int64[1] dynamic) => (float[batch,5] v) {
      k = Constant <value_ints = [5]> ()
      v, i = TopK <axis = 0> (x, k)
      w, j = TopK (x, dynamic)
    })ONNX");
  EXPECT_EQ(v11.Get("v"), "float[5,vocab]");
  EXPECT_EQ(v11.Get("w"), "float[batch,?]");
}

TEST(TensorShapes, ArgMaxKeepsOrDropsTheAxis) {
  auto s = InferText(R"ONNX(
    <ir_version: 8, opset_import: ["" : 13]>
    g (float[batch,seq,vocab] x) => (int64[batch,seq,1] y) {
      y = ArgMax <axis = -1> (x)
      z = ArgMin <axis = 1, keepdims = 0, select_last_index = 1> (x)
    })ONNX");
  EXPECT_EQ(s.Get("y"), "int64[batch,seq,1]");
  EXPECT_EQ(s.Get("z"), "int64[batch,vocab]");
}

TEST(TensorShapes, ReduceSumAttributeVersusInput) {
  auto v11 = InferText(R"ONNX(
    <ir_version: 7, opset_import: ["" : 11]>
    g (float[batch,seq,64] x) => (float[batch,1,64] y) {
      y = ReduceSum <axes = [1]> (x)
      all = ReduceSum <keepdims = 0> (x)
    })ONNX");
  EXPECT_EQ(v11.Get("y"), "float[batch,1,64]");
  EXPECT_EQ(v11.Get("all"), "float[]");
  auto v13 = InferText(R"ONNX(
    <ir_version: 8, opset_import: ["" : 13]>
    g (float[batch,seq,64] x, int64[1] dynamic) => (float[batch,64] y) {
      axes = Constant <value_ints = [-2]> ()
      y = ReduceSum <keepdims = 0> (x, axes)
      noop = ReduceSum <noop_with_empty_axes = 1> (x)
      d = ReduceSum <keepdims = 0> (x, dynamic)
      k = ReduceSum (x, dynamic)
    })ONNX");
  EXPECT_EQ(v13.Get("y"), "float[batch,64]");
  EXPECT_EQ(v13.Get("noop"), "float[batch,seq,64]");
  EXPECT_EQ(v13.Get("d"), "float[?,?]");
  EXPECT_EQ(v13.Get("k"), "float[?,?,?]");
}

TEST(TensorShapes, ReduceMeanAttributeUntil18) {
  auto v13 = InferText(R"ONNX(
    <ir_version: 8, opset_import: ["" : 13]>
    g (float[batch,seq,64] x) => (float[batch,seq,1] y) {
      y = ReduceMean <axes = [-1]> (x)
    })ONNX");
  EXPECT_EQ(v13.Get("y"), "float[batch,seq,1]");
  auto v18 = InferText(R"ONNX(
    <ir_version: 8, opset_import: ["" : 18]>
    g (float[batch,seq,64] x) => (float[batch,seq,1] y) {
      axes = Constant <value_ints = [-1]> ()
      y = ReduceMean (x, axes)
      l2 = ReduceL2 <keepdims = 0> (x, axes)
      all = ReduceMax (x)
    })ONNX");
  EXPECT_EQ(v18.Get("y"), "float[batch,seq,1]");
  EXPECT_EQ(v18.Get("l2"), "float[batch,seq]");
  EXPECT_EQ(v18.Get("all"), "float[1,1,1]");
}

TEST(TensorShapes, ReduceOfValues) {
  auto s = InferText(R"ONNX(
    <ir_version: 8, opset_import: ["" : 18]>
    g (float[batch,seq,64] x) => (int64[1] n) {
      shape = Shape (x)
      n = ReduceProd (shape)
      axes = Constant <value_ints = [0]> ()
      sum = ReduceSum <keepdims = 0> (shape, axes)
      mx = ReduceMax <keepdims = 0> (shape)
    })ONNX");
  EXPECT_EQ(s.Get("n"), "int64[1] = [64*batch*seq]");
  EXPECT_EQ(s.Get("sum"), "int64[] = [batch+seq+64]");
  EXPECT_EQ(s.Get("mx"), "int64[] = [?]");
}

TEST(TensorShapes, ReduceWithAnAxisOutOfRangeIsRefused) {
  EXPECT_EQ(InferenceRefusal(R"ONNX(
    <ir_version: 7, opset_import: ["" : 11]>
    g (float[batch,seq] x) => (float[?] y) {
      y = ReduceMean <axes = [2]> (x)
    })ONNX"),
            "node #0 (ReduceMean): ReduceMean-11 axes is in [-r, r-1] for r = 2; found axes 2");
}

// ---- Data-dependent sizes ----

TEST(TensorShapes, NonZeroCompressAndUniqueGetFreshSymbols) {
  auto s = InferText(R"ONNX(
    <ir_version: 8, opset_import: ["" : 13]>
    g (float[batch,seq] x, bool[seq] keep) => (int64[2,?] nz) {
      nz = NonZero (x)
      c = Compress <axis = 1> (x, keep)
      flat = Compress (x, keep)
      cond = Constant <value = bool[3] {1, 0, 1}> ()
      three = Constant <value_ints = [5, 6, 7]> ()
      known = Compress (three, cond)
      y, idx, inv, counts = Unique (x)
      ya, ia, inva, ca = Unique <axis = 0> (x)
    })ONNX");
  const std::string nz = s.Get("nz");
  EXPECT_THAT(nz, HasSubstr("int64[2,unk__"));
  EXPECT_TRUE(s.SameDims("c", {"batch", s.Tensor("c").shape[1].ToString()}));
  EXPECT_NE(s.Tensor("c").shape[1].ToString(), s.Tensor("nz").shape[1].ToString());
  EXPECT_EQ(s.Get("known"), "int64[2]");
  EXPECT_EQ(s.Tensor("y").shape.Rank(), 1u);
  EXPECT_EQ(s.Tensor("idx").shape[0].ToString(), s.Tensor("y").shape[0].ToString());
  EXPECT_EQ(s.Get("inv"), "int64[batch*seq]");
  EXPECT_EQ(s.Get("inva"), "int64[batch]");
  EXPECT_TRUE(s.SameDims("ya", {s.Tensor("ia").shape[0].ToString(), "seq"}));
}

// ---- Layout ----

TEST(TensorShapes, DepthToSpaceAndSpaceToDepth) {
  auto s = InferText(R"ONNX(
    <ir_version: 8, opset_import: ["" : 13]>
    g (float[n,64,h,w] x) => (float[n,16,?,?] y) {
      y = DepthToSpace <blocksize = 2> (x)
      z = SpaceToDepth <blocksize = 2> (y)
    })ONNX");
  EXPECT_EQ(s.Get("y"), "float[n,16,2*h,2*w]");
  EXPECT_EQ(s.Get("z"), "float[n,64,h,w]");
}

TEST(TensorShapes, SameShapeOps) {
  auto s = InferText(R"ONNX(
    <ir_version: 8, opset_import: ["" : 14]>
    g (float[batch,seq,seq] x, int64 k, int64[batch] lens, int32 axis) => (float[batch,seq,seq] y) {
      y = Trilu <upper = 0> (x, k)
      c = CumSum (x, axis)
      r = ReverseSequence <batch_axis = 0, time_axis = 1> (x, lens)
      d = Det (x)
    })ONNX");
  EXPECT_EQ(s.Get("y"), "float[batch,seq,seq]");
  EXPECT_EQ(s.Get("c"), "float[batch,seq,seq]");
  EXPECT_EQ(s.Get("r"), "float[batch,seq,seq]");
  EXPECT_EQ(s.Get("d"), "float[batch]");
}

}  // namespace
}  // namespace onnxopt::testing
