#include "onnx_extensions/patterns/attention/rotary_concat_part_pattern.h"

#include <gtest/gtest.h>

#include "tests/onnx_extensions/patterns/pattern_test_util.h"

namespace onnxopt::onnx_patterns {
namespace {

using testing::ExpectNoMatch;
using testing::ExpectRewrite;

// The example of attention.md: Neg on the left part of a Split.
TEST(RotaryConcatPartPattern, ConcatenatesTheNonZeroPartsOfASplit) {
  ExpectRewrite<RotaryConcatPartPattern>(R"ONNX(
    <ir_version: 8, opset_import: ["" : 18]>
    rot_concat (float[3,16] X) => (float[3,16] Y)
    <int64[2] sizes = {8, 8}, int64[2] zshape = {3, 8}>
    {
      x1, x2 = Split<axis = 1>(X, sizes)
      nx1 = Neg(x1)
      zero = ConstantOfShape<value = float[1] {0.0}>(zshape)
      c1 = Concat<axis = 1>(nx1, zero)
      c2 = Concat<axis = 1>(zero, x2)
      Y = Add(c1, c2)
    })ONNX", R"ONNX(
    <ir_version: 8, opset_import: ["" : 18]>
    rot_concat (float[3,16] X) => (float[3,16] Y)
    <int64[2] sizes = {8, 8}>
    {
      x1, x2 = Split<axis = 1>(X, sizes)
      nx1 = Neg(x1)
      Y = Concat<axis = 1>(nx1, x2)
    })ONNX");
}

// Upstream picks the Split output by the side of the Neg; the parts the Concats actually
// read are kept here: [x2, -x1] stays [x2, -x1].
TEST(RotaryConcatPartPattern, KeepsThePartsTheConcatsReadWhenTheNegIsOnTheRight) {
  ExpectRewrite<RotaryConcatPartPattern>(R"ONNX(
    <ir_version: 8, opset_import: ["" : 18]>
    g (float[3,16] X) => (float[3,16] Y)
    <int64[2] sizes = {8, 8}, int64[2] zshape = {3, 8}>
    {
      x1, x2 = Split<axis = -1>(X, sizes)
      nx1 = Neg(x1)
      zero = ConstantOfShape<value = float[1] {0.0}>(zshape)
      c1 = Concat<axis = -1>(x2, zero)
      c2 = Concat<axis = -1>(zero, nx1)
      Y = Add(c2, c1)
    })ONNX", R"ONNX(
    <ir_version: 8, opset_import: ["" : 18]>
    g (float[3,16] X) => (float[3,16] Y)
    <int64[2] sizes = {8, 8}>
    {
      x1, x2 = Split<axis = -1>(X, sizes)
      nx1 = Neg(x1)
      Y = Concat<axis = -1>(x2, nx1)
    })ONNX");
}

// Two Slices of X with a symbolic batch: the zero block's shape is computed from Shape(X).
TEST(RotaryConcatPartPattern, ConcatenatesTwoSlicesWithASymbolicBatch) {
  ExpectRewrite<RotaryConcatPartPattern>(R"ONNX(
    <ir_version: 8, opset_import: ["" : 18]>
    g (float[B,16] X) => (float[B,16] Y)
    <int64[1] z = {0}, int64[1] e8 = {8}, int64[1] e16 = {16}, int64[1] ax = {1}>
    {
      b = Shape<start = 0, end = 1>(X)
      zshape = Concat<axis = 0>(b, e8)
      zero = ConstantOfShape(zshape)
      x1 = Slice(X, z, e8, ax)
      x2 = Slice(X, e8, e16, ax)
      nx2 = Neg(x2)
      c1 = Concat<axis = 1>(nx2, zero)
      c2 = Concat<axis = 1>(zero, x1)
      Y = Add(c2, c1)
    })ONNX", R"ONNX(
    <ir_version: 8, opset_import: ["" : 18]>
    g (float[B,16] X) => (float[B,16] Y)
    <int64[1] z = {0}, int64[1] e8 = {8}, int64[1] e16 = {16}, int64[1] ax = {1}>
    {
      x1 = Slice(X, z, e8, ax)
      x2 = Slice(X, e8, e16, ax)
      nx2 = Neg(x2)
      Y = Concat<axis = 1>(nx2, x1)
    })ONNX");
}

TEST(RotaryConcatPartPattern, RejectsAZeroBlockWiderThanThePart) {
  ExpectNoMatch<RotaryConcatPartPattern>(R"ONNX(
    <ir_version: 8, opset_import: ["" : 18]>
    g (float[3,16] X) => (float[3,24] Y) <int64[2] sizes = {8, 8}, int64[2] zshape = {3, 16}> {
      x1, x2 = Split<axis = 1>(X, sizes)
      nx1 = Neg(x1)
      zero = ConstantOfShape<value = float[1] {0.0}>(zshape)
      c1 = Concat<axis = 1>(nx1, zero)
      c2 = Concat<axis = 1>(zero, x2)
      Y = Add(c1, c2)
    })ONNX", "Y", "the zero blocks do not match the sizes of the parts along the axis");
}

TEST(RotaryConcatPartPattern, RejectsConcatsOfThreeInputs) {
  ExpectNoMatch<RotaryConcatPartPattern>(R"ONNX(
    <ir_version: 8, opset_import: ["" : 18]>
    g (float[3,16] X) => (float[3,24] Y) <int64[2] sizes = {8, 8}, int64[2] zshape = {3, 8}> {
      x1, x2 = Split<axis = 1>(X, sizes)
      nx1 = Neg(x1)
      zero = ConstantOfShape<value = float[1] {0.0}>(zshape)
      c1 = Concat<axis = 1>(nx1, zero, zero)
      c2 = Concat<axis = 1>(zero, x2, zero)
      Y = Add(c1, c2)
    })ONNX", "Y", "a Concat does not have exactly two inputs");
}

TEST(RotaryConcatPartPattern, RejectsZeroBlocksOnTheSameSide) {
  ExpectNoMatch<RotaryConcatPartPattern>(R"ONNX(
    <ir_version: 8, opset_import: ["" : 18]>
    g (float[3,16] X) => (float[3,16] Y) <int64[2] sizes = {8, 8}, int64[2] zshape = {3, 8}> {
      x1, x2 = Split<axis = 1>(X, sizes)
      nx1 = Neg(x1)
      zero = ConstantOfShape<value = float[1] {0.0}>(zshape)
      c1 = Concat<axis = 1>(nx1, zero)
      c2 = Concat<axis = 1>(x2, zero)
      Y = Add(c1, c2)
    })ONNX", "Y", "the zero blocks are not at opposite positions");
}

TEST(RotaryConcatPartPattern, RejectsAConcatThatIsAGraphOutput) {
  ExpectNoMatch<RotaryConcatPartPattern>(R"ONNX(
    <ir_version: 8, opset_import: ["" : 18]>
    g (float[3,16] X) => (float[3,16] Y, float[3,16] c1) <int64[2] sizes = {8, 8}, int64[2] zshape = {3, 8}> {
      x1, x2 = Split<axis = 1>(X, sizes)
      nx1 = Neg(x1)
      zero = ConstantOfShape<value = float[1] {0.0}>(zshape)
      c1 = Concat<axis = 1>(nx1, zero)
      c2 = Concat<axis = 1>(zero, x2)
      Y = Add(c1, c2)
    })ONNX", "Y", "an Add input has another use");
}

// Upstream never reads the fill value; a block of ones is not neutral.
TEST(RotaryConcatPartPattern, RejectsABlockThatIsNotZero) {
  ExpectNoMatch<RotaryConcatPartPattern>(R"ONNX(
    <ir_version: 8, opset_import: ["" : 18]>
    g (float[3,16] X) => (float[3,16] Y) <int64[2] sizes = {8, 8}, int64[2] zshape = {3, 8}> {
      x1, x2 = Split<axis = 1>(X, sizes)
      nx1 = Neg(x1)
      zero = ConstantOfShape<value = float[1] {1.0}>(zshape)
      c1 = Concat<axis = 1>(nx1, zero)
      c2 = Concat<axis = 1>(zero, x2)
      Y = Add(c1, c2)
    })ONNX", "Y", "a Concat does not have exactly one zero ConstantOfShape input");
}

TEST(RotaryConcatPartPattern, RejectsPartsWithoutANeg) {
  ExpectNoMatch<RotaryConcatPartPattern>(R"ONNX(
    <ir_version: 8, opset_import: ["" : 18]>
    g (float[3,16] X) => (float[3,16] Y) <int64[2] sizes = {8, 8}, int64[2] zshape = {3, 8}> {
      x1, x2 = Split<axis = 1>(X, sizes)
      zero = ConstantOfShape<value = float[1] {0.0}>(zshape)
      c1 = Concat<axis = 1>(x1, zero)
      c2 = Concat<axis = 1>(zero, x2)
      Y = Add(c1, c2)
    })ONNX", "Y", "not exactly one of the two parts is a Neg");
}

// Upstream does not compare the Slice axis with the Concat axis.
TEST(RotaryConcatPartPattern, RejectsSlicesOnAnotherAxis) {
  ExpectNoMatch<RotaryConcatPartPattern>(R"ONNX(
    <ir_version: 8, opset_import: ["" : 18]>
    g (float[16,16] X) => (float[8,32] Y)
    <int64[1] z = {0}, int64[1] e8 = {8}, int64[1] e16 = {16}, int64[1] ax = {0}, int64[2] zshape = {8, 16}> {
      zero = ConstantOfShape(zshape)
      x1 = Slice(X, z, e8, ax)
      x2 = Slice(X, e8, e16, ax)
      nx2 = Neg(x2)
      c1 = Concat<axis = 1>(nx2, zero)
      c2 = Concat<axis = 1>(zero, x1)
      Y = Add(c1, c2)
    })ONNX", "Y", "a Slice is not on the Concat axis");
}

}  // namespace
}  // namespace onnxopt::onnx_patterns
