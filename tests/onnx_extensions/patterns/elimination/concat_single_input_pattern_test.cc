#include "onnx_extensions/patterns/elimination/concat_single_input_pattern.h"

#include <gtest/gtest.h>

#include "tests/onnx_extensions/patterns/pattern_test_util.h"

namespace onnxopt::onnx_patterns {
namespace {

using testing::ExpectNoMatch;
using testing::ExpectRewrite;

TEST(ConcatSingleInputPattern, RemovesConcatOfOneInput) {
  ExpectRewrite<ConcatSingleInputPattern>(R"ONNX(
    <ir_version: 8, opset_import: ["" : 18]>
    g (float[N,6] X) => (float[N,6] Y) {
      c = Concat<axis=1>(X)
      Y = Relu(c)
    })ONNX", R"ONNX(
    <ir_version: 8, opset_import: ["" : 18]>
    g (float[N,6] X) => (float[N,6] Y) {
      Y = Relu(X)
    })ONNX");
}

TEST(ConcatSingleInputPattern, RejectsTwoInputs) {
  ExpectNoMatch<ConcatSingleInputPattern>(R"ONNX(
    <ir_version: 8, opset_import: ["" : 18]>
    g (float[N,6] X) => (float[N,12] Y) {
      Y = Concat<axis=1>(X, X)
    })ONNX", "Y", "the Concat has more than one input");
}

}  // namespace
}  // namespace onnxopt::onnx_patterns
