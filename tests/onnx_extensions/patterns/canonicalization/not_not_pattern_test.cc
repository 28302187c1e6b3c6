#include "onnx_extensions/patterns/canonicalization/not_not_pattern.h"

#include <gtest/gtest.h>

#include "tests/onnx_extensions/patterns/pattern_test_util.h"

namespace onnxopt::onnx_patterns {
namespace {

using testing::ExpectNoMatch;
using testing::ExpectRewrite;

TEST(NotNotPattern, RemovesDoubleNegation) {
  ExpectRewrite<NotNotPattern>(R"ONNX(
    <ir_version: 8, opset_import: ["" : 18]>
    g (bool[N,2] X, bool[N,2] Z) => (bool[N,2] Y) {
      a = Not(X)
      b = Not(a)
      Y = Or(b, Z)
    })ONNX", R"ONNX(
    <ir_version: 8, opset_import: ["" : 18]>
    g (bool[N,2] X, bool[N,2] Z) => (bool[N,2] Y) {
      Y = Or(X, Z)
    })ONNX");
}

TEST(NotNotPattern, KeepsTheFirstNotWhenItHasOtherReaders) {
  ExpectRewrite<NotNotPattern>(R"ONNX(
    <ir_version: 8, opset_import: ["" : 18]>
    g (bool[3] X, bool[3] Z) => (bool[3] Y, bool[3] W) {
      a = Not(X)
      b = Not(a)
      Y = Or(b, Z)
      W = And(a, Z)
    })ONNX", R"ONNX(
    <ir_version: 8, opset_import: ["" : 18]>
    g (bool[3] X, bool[3] Z) => (bool[3] Y, bool[3] W) {
      a = Not(X)
      Y = Or(X, Z)
      W = And(a, Z)
    })ONNX");
}

TEST(NotNotPattern, RejectsSingleNot) {
  ExpectNoMatch<NotNotPattern>(R"ONNX(
    <ir_version: 8, opset_import: ["" : 18]>
    g (bool[3] X, bool[3] Z) => (bool[3] Y) {
      a = And(X, Z)
      Y = Not(a)
    })ONNX", "Y", "the input is not produced by a Not");
}

}  // namespace
}  // namespace onnxopt::onnx_patterns
