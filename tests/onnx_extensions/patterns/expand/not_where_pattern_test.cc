#include "onnx_extensions/patterns/expand/not_where_pattern.h"

#include <gtest/gtest.h>

#include "tests/onnx_extensions/patterns/pattern_test_util.h"

namespace onnxopt::onnx_patterns {
namespace {

using testing::ExpectNoMatch;
using testing::ExpectRewrite;

TEST(NotWherePattern, SwapsBranches) {
  ExpectRewrite<NotWherePattern>(R"ONNX(
    <ir_version: 8, opset_import: ["" : 18]>
    g (bool[N,4] C, float[N,4] A, float[N,4] B) => (float[N,4] Y) {
      nc = Not(C)
      Y = Where(nc, A, B)
    })ONNX", R"ONNX(
    <ir_version: 8, opset_import: ["" : 18]>
    g (bool[N,4] C, float[N,4] A, float[N,4] B) => (float[N,4] Y) {
      Y = Where(C, B, A)
    })ONNX");
}

TEST(NotWherePattern, RejectsNotReadByAnd) {
  ExpectNoMatch<NotWherePattern>(R"ONNX(
    <ir_version: 8, opset_import: ["" : 18]>
    g (bool[4] X) => (bool[4] Y) {
      n = Not(X)
      Y = And(n, X)
    })ONNX", "n", "the output of the Not is not read by a Where alone");
}

TEST(NotWherePattern, RejectsSharedNot) {
  ExpectNoMatch<NotWherePattern>(R"ONNX(
    <ir_version: 8, opset_import: ["" : 18]>
    g (bool[4] C, float[4] A, float[4] B) => (float[4] Y, bool[4] Z) {
      n = Not(C)
      Y = Where(n, A, B)
      Z = Xor(n, C)
    })ONNX", "n", "the output of the Not is not read by a Where alone");
}

TEST(NotWherePattern, RejectsNotAsValueBranch) {
  ExpectNoMatch<NotWherePattern>(R"ONNX(
    <ir_version: 8, opset_import: ["" : 18]>
    g (bool[4] C, bool[4] D, bool[4] B) => (bool[4] Y) {
      n = Not(D)
      Y = Where(C, n, B)
    })ONNX", "n", "the Not is not the condition of the Where");
}

}  // namespace
}  // namespace onnxopt::onnx_patterns
