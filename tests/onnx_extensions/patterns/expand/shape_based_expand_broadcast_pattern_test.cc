#include "onnx_extensions/patterns/expand/shape_based_expand_broadcast_pattern.h"

#include <gtest/gtest.h>

#include "tests/onnx_extensions/patterns/pattern_test_util.h"

namespace onnxopt::onnx_patterns {
namespace {

using testing::ExpectNoMatch;
using testing::ExpectRewrite;

TEST(ShapeBasedExpandBroadcastPattern, LetsTheAddBroadcast) {
  ExpectRewrite<ShapeBasedExpandBroadcastPattern>(R"ONNX(
    <ir_version: 8, opset_import: ["" : 18]>
    g (float[N,1] x, float[1,B] y) => (float[N,B] z) {
      n = Shape<start=0, end=1>(x)
      b = Shape<start=1, end=2>(y)
      sh = Concat<axis=0>(n, b)
      e = Expand(x, sh)
      z = Add(e, y)
    })ONNX", R"ONNX(
    <ir_version: 8, opset_import: ["" : 18]>
    g (float[N,1] x, float[1,B] y) => (float[N,B] z) {
      z = Add(x, y)
    })ONNX");
}

TEST(ShapeBasedExpandBroadcastPattern, KeepsAnExpandWithOtherReaders) {
  ExpectRewrite<ShapeBasedExpandBroadcastPattern>(R"ONNX(
    <ir_version: 8, opset_import: ["" : 18]>
    g (float[N,1] x, float[N,B] y) => (float[N,B] z, float[N,B] w) {
      sh = Shape(y)
      e = Expand(x, sh)
      z = Sub(y, e)
      w = Relu(e)
    })ONNX", R"ONNX(
    <ir_version: 8, opset_import: ["" : 18]>
    g (float[N,1] x, float[N,B] y) => (float[N,B] z, float[N,B] w) {
      sh = Shape(y)
      e = Expand(x, sh)
      z = Sub(y, x)
      w = Relu(e)
    })ONNX");
}

TEST(ShapeBasedExpandBroadcastPattern, RejectsExpandProvidingTheBatch) {
  ExpectNoMatch<ShapeBasedExpandBroadcastPattern>(R"ONNX(
    <ir_version: 8, opset_import: ["" : 18]>
    g (float[1,1,S,T] x, float[1,1,S,T] y, float[B] w) => (float[B,1,S,T] z) <int64[3] o = {1, 1, 1}> {
      b = Shape(w)
      sh = Concat<axis=0>(b, o)
      e = Expand(x, sh)
      z = Add(e, y)
    })ONNX", "z", "broadcasting without the Expand does not give the output shape");
}

TEST(ShapeBasedExpandBroadcastPattern, RejectsNoExpand) {
  ExpectNoMatch<ShapeBasedExpandBroadcastPattern>(R"ONNX(
    <ir_version: 8, opset_import: ["" : 18]>
    g (float[N,1] x, float[1,B] y) => (float[N,B] z) {
      z = Add(x, y)
    })ONNX", "z", "no input is produced by an Expand");
}

TEST(ShapeBasedExpandBroadcastPattern, RejectsUnknownOutputShape) {
  ExpectNoMatch<ShapeBasedExpandBroadcastPattern>(R"ONNX(
    <ir_version: 8, opset_import: ["" : 18]>
    g (float[N,1] x, float[?,?] y, int64[2] sh) => (float[?,?] z) {
      e = Expand(x, sh)
      z = Add(e, y)
    })ONNX", "z", "the shape of an input or of the output is not known");
}

}  // namespace
}  // namespace onnxopt::onnx_patterns
