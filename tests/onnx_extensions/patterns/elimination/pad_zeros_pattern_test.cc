#include "onnx_extensions/patterns/elimination/pad_zeros_pattern.h"

#include <gtest/gtest.h>

#include "tests/onnx_extensions/patterns/pattern_test_util.h"

namespace onnxopt::onnx_patterns {
namespace {

using testing::ExpectNoMatch;
using testing::ExpectRewrite;

TEST(PadZerosPattern, RemovesPadOfZeros) {
  ExpectRewrite<PadZerosPattern>(R"ONNX(
    <ir_version: 8, opset_import: ["" : 18]>
    g (float[N,6] X) => (float[N,6] Y) <int64[4] pads = {0, 0, 0, 0}> {
      p = Pad<mode="reflect">(X, pads)
      Y = Relu(p)
    })ONNX", R"ONNX(
    <ir_version: 8, opset_import: ["" : 18]>
    g (float[N,6] X) => (float[N,6] Y) {
      Y = Relu(X)
    })ONNX");
}

TEST(PadZerosPattern, RemovesPadAttributeOfZeros) {
  ExpectRewrite<PadZerosPattern>(R"ONNX(
    <ir_version: 8, opset_import: ["" : 10]>
    g (float[N,6] X) => (float[N,6] Y) {
      p = Pad<pads=[0, 0, 0, 0]>(X)
      Y = Relu(p)
    })ONNX", R"ONNX(
    <ir_version: 8, opset_import: ["" : 10]>
    g (float[N,6] X) => (float[N,6] Y) {
      Y = Relu(X)
    })ONNX");
}

TEST(PadZerosPattern, RejectsNegativePad) {
  ExpectNoMatch<PadZerosPattern>(R"ONNX(
    <ir_version: 8, opset_import: ["" : 18]>
    g (float[N,6] X) => (float[N,5] Y) <int64[4] pads = {0, 0, 0, -1}> {
      Y = Pad(X, pads)
    })ONNX", "Y", "a pad is not 0");
}

TEST(PadZerosPattern, RejectsComputedPads) {
  ExpectNoMatch<PadZerosPattern>(R"ONNX(
    <ir_version: 8, opset_import: ["" : 18]>
    g (float[N,6] X, int64[4] pads) => (float[?,?] Y) {
      Y = Pad(X, pads)
    })ONNX", "Y", "the pads are not a constant");
}

}  // namespace
}  // namespace onnxopt::onnx_patterns
