#include "onnx_extensions/patterns/expand/shape_based_expand_cast_where_swap_pattern.h"

#include <gtest/gtest.h>

#include "tests/onnx_extensions/patterns/pattern_test_util.h"

namespace onnxopt::onnx_patterns {
namespace {

using testing::ExpectNoMatch;
using testing::ExpectRewrite;

TEST(ShapeBasedExpandCastWhereSwapPattern, RunsCastAndWhereBeforeTheExpand) {
  ExpectRewrite<ShapeBasedExpandCastWhereSwapPattern>(R"ONNX(
    <ir_version: 8, opset_import: ["" : 18]>
    g (float[B,C] X) => (float[B,B,C] Y) <int64[2] o11 = {1, 1}, float cst = {-1.0}> {
      b = Shape<start=0, end=1>(X)
      sh = Concat<axis=0>(b, o11)
      xe = Expand(X, sh)
      xb = Cast<to=9>(xe)
      Y = Where(xb, xe, cst)
    })ONNX", R"ONNX(
    <ir_version: 8, opset_import: ["" : 18]>
    g (float[B,C] X) => (float[B,B,C] Y) <int64[2] o11 = {1, 1}, float cst = {-1.0}> {
      b = Shape<start=0, end=1>(X)
      sh = Concat<axis=0>(b, o11)
      c = Cast<to=9>(X)
      w = Where(c, X, cst)
      Y = Expand(w, sh)
    })ONNX");
}

TEST(ShapeBasedExpandCastWhereSwapPattern, KeepsTheBranchPosition) {
  ExpectRewrite<ShapeBasedExpandCastWhereSwapPattern>(R"ONNX(
    <ir_version: 8, opset_import: ["" : 18]>
    g (int64[B,C] X, int64[C] O) => (int64[B,B,C] Y) <int64[2] o11 = {1, 1}> {
      b = Shape<start=0, end=1>(X)
      sh = Concat<axis=0>(b, o11)
      xe = Expand(X, sh)
      xb = Cast<to=9>(xe)
      Y = Where(xb, O, xe)
    })ONNX", R"ONNX(
    <ir_version: 8, opset_import: ["" : 18]>
    g (int64[B,C] X, int64[C] O) => (int64[B,B,C] Y) <int64[2] o11 = {1, 1}> {
      b = Shape<start=0, end=1>(X)
      sh = Concat<axis=0>(b, o11)
      c = Cast<to=9>(X)
      w = Where(c, O, X)
      Y = Expand(w, sh)
    })ONNX");
}

TEST(ShapeBasedExpandCastWhereSwapPattern, RejectsThirdReaderOfTheExpand) {
  ExpectNoMatch<ShapeBasedExpandCastWhereSwapPattern>(R"ONNX(
    <ir_version: 8, opset_import: ["" : 18]>
    g (float[B,C] X) => (float[B,B,C] Y, float[B,B,C] Z) <int64[2] o11 = {1, 1}, float cst = {-1.0}> {
      b = Shape<start=0, end=1>(X)
      sh = Concat<axis=0>(b, o11)
      xe = Expand(X, sh)
      xb = Cast<to=9>(xe)
      Y = Where(xb, xe, cst)
      Z = Relu(xe)
    })ONNX", "Y", "the output of the Expand has other readers");
}

TEST(ShapeBasedExpandCastWhereSwapPattern, RejectsSharedCast) {
  ExpectNoMatch<ShapeBasedExpandCastWhereSwapPattern>(R"ONNX(
    <ir_version: 8, opset_import: ["" : 18]>
    g (float[B,C] X) => (float[B,B,C] Y, bool[B,B,C] xb) <int64[2] o11 = {1, 1}, float cst = {-1.0}> {
      b = Shape<start=0, end=1>(X)
      sh = Concat<axis=0>(b, o11)
      xe = Expand(X, sh)
      xb = Cast<to=9>(xe)
      Y = Where(xb, xe, cst)
    })ONNX", "Y", "the output of the Cast has other readers");
}

TEST(ShapeBasedExpandCastWhereSwapPattern, RejectsCastOfAnotherValue) {
  ExpectNoMatch<ShapeBasedExpandCastWhereSwapPattern>(R"ONNX(
    <ir_version: 8, opset_import: ["" : 18]>
    g (float[B,C] X, float[B,B,C] M) => (float[B,B,C] Y) <int64[2] o11 = {1, 1}, float cst = {-1.0}> {
      b = Shape<start=0, end=1>(X)
      sh = Concat<axis=0>(b, o11)
      xe = Expand(X, sh)
      mb = Cast<to=9>(M)
      Y = Where(mb, xe, cst)
    })ONNX", "Y", "the Cast input is not a value branch");
}

TEST(ShapeBasedExpandCastWhereSwapPattern, RejectsExpandOnBothBranches) {
  ExpectNoMatch<ShapeBasedExpandCastWhereSwapPattern>(R"ONNX(
    <ir_version: 8, opset_import: ["" : 18]>
    g (float[B,C] X) => (float[B,B,C] Y) <int64[2] o11 = {1, 1}> {
      b = Shape<start=0, end=1>(X)
      sh = Concat<axis=0>(b, o11)
      xe = Expand(X, sh)
      xb = Cast<to=9>(xe)
      Y = Where(xb, xe, xe)
    })ONNX", "Y", "the Cast input is both value branches");
}

}  // namespace
}  // namespace onnxopt::onnx_patterns
