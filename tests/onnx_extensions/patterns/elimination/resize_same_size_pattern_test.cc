#include "onnx_extensions/patterns/elimination/resize_same_size_pattern.h"

#include <gtest/gtest.h>

#include "tests/onnx_extensions/patterns/pattern_test_util.h"

namespace onnxopt::onnx_patterns {
namespace {

using testing::ExpectNoMatch;
using testing::ExpectRewrite;

TEST(ResizeSameSizePattern, RemovesResizeByScalesOfOne) {
  ExpectRewrite<ResizeSameSizePattern>(R"ONNX(
    <ir_version: 8, opset_import: ["" : 18]>
    g (float[N,3,4,4] X) => (float[N,3,4,4] Y) <float[4] scales = {1.0, 1.0, 1.0, 1.0}> {
      r = Resize<mode="linear">(X, , scales)
      Y = Relu(r)
    })ONNX", R"ONNX(
    <ir_version: 8, opset_import: ["" : 18]>
    g (float[N,3,4,4] X) => (float[N,3,4,4] Y) {
      Y = Relu(X)
    })ONNX");
}

TEST(ResizeSameSizePattern, RemovesResizeToItsOwnSizes) {
  ExpectRewrite<ResizeSameSizePattern>(R"ONNX(
    <ir_version: 8, opset_import: ["" : 13]>
    g (float[2,3,4,4] X) => (float[2,3,4,4] Y) <int64[4] sizes = {2, 3, 4, 4}> {
      r = Resize(X, , , sizes)
      Y = Relu(r)
    })ONNX", R"ONNX(
    <ir_version: 8, opset_import: ["" : 13]>
    g (float[2,3,4,4] X) => (float[2,3,4,4] Y) {
      Y = Relu(X)
    })ONNX");
}

TEST(ResizeSameSizePattern, RejectsUpsampling) {
  ExpectNoMatch<ResizeSameSizePattern>(R"ONNX(
    <ir_version: 8, opset_import: ["" : 18]>
    g (float[N,3,4,4] X) => (float[N,3,8,8] Y) <float[4] scales = {1.0, 1.0, 2.0, 2.0}> {
      Y = Resize(X, , scales)
    })ONNX", "Y", "the output size is not the input size");
}

TEST(ResizeSameSizePattern, RejectsAlignCorners) {
  ExpectNoMatch<ResizeSameSizePattern>(R"ONNX(
    <ir_version: 8, opset_import: ["" : 18]>
    g (float[N,3,4,4] X) => (float[N,3,4,4] Y) <float[4] scales = {1.0, 1.0, 1.0, 1.0}> {
      Y = Resize<coordinate_transformation_mode="align_corners">(X, , scales)
    })ONNX", "Y", "the coordinate transformation may not map each index to itself");
}

TEST(ResizeSameSizePattern, RejectsCubic) {
  ExpectNoMatch<ResizeSameSizePattern>(R"ONNX(
    <ir_version: 8, opset_import: ["" : 18]>
    g (float[N,3,4,4] X) => (float[N,3,4,4] Y) <float[4] scales = {1.0, 1.0, 1.0, 1.0}> {
      Y = Resize<mode="cubic">(X, , scales)
    })ONNX", "Y", "the mode is neither nearest nor linear");
}

}  // namespace
}  // namespace onnxopt::onnx_patterns
