#include "onnx_extensions/patterns/elimination/split_single_output_pattern.h"

#include <gtest/gtest.h>

#include "tests/onnx_extensions/patterns/pattern_test_util.h"

namespace onnxopt::onnx_patterns {
namespace {

using testing::ExpectNoMatch;
using testing::ExpectRewrite;

TEST(SplitSingleOutputPattern, RemovesSplitIntoOneOutput) {
  ExpectRewrite<SplitSingleOutputPattern>(R"ONNX(
    <ir_version: 8, opset_import: ["" : 18]>
    g (float[N,6] X) => (float[N,6] Y) {
      s = Split<axis=1, num_outputs=1>(X)
      Y = Relu(s)
    })ONNX", R"ONNX(
    <ir_version: 8, opset_import: ["" : 18]>
    g (float[N,6] X) => (float[N,6] Y) {
      Y = Relu(X)
    })ONNX");
}

TEST(SplitSingleOutputPattern, RejectsTwoOutputs) {
  ExpectNoMatch<SplitSingleOutputPattern>(R"ONNX(
    <ir_version: 8, opset_import: ["" : 18]>
    g (float[N,6] X) => (float[N,3] Y, float[N,3] Z) {
      Y, Z = Split<axis=1, num_outputs=2>(X)
    })ONNX", "Y", "the Split has more than one output");
}

}  // namespace
}  // namespace onnxopt::onnx_patterns
