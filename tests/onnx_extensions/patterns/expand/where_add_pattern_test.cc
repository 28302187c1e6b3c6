#include "onnx_extensions/patterns/expand/where_add_pattern.h"

#include <gtest/gtest.h>

#include "tests/onnx_extensions/patterns/pattern_test_util.h"

namespace onnxopt::onnx_patterns {
namespace {

using testing::ExpectNoMatch;
using testing::ExpectRewrite;

TEST(WhereAddPattern, ReplacesTheAddOfAnInfiniteBias) {
  // The text parser reads no infinity literal: Log(0) computes it.
  ExpectRewrite<WhereAddPattern>(R"ONNX(
    <ir_version: 8, opset_import: ["" : 18]>
    g (bool[B,S] mask, float[B,S] X) => (float[B,S] Y) <float zero = {0.0}> {
      ninf = Log(zero)
      bias = Where(mask, zero, ninf)
      Y = Add(bias, X)
    })ONNX", R"ONNX(
    <ir_version: 8, opset_import: ["" : 18]>
    g (bool[B,S] mask, float[B,S] X) => (float[B,S] Y) <float zero = {0.0}> {
      ninf = Log(zero)
      Y = Where(mask, X, ninf)
    })ONNX");
}

TEST(WhereAddPattern, RejectsNonZeroFirstBranch) {
  ExpectNoMatch<WhereAddPattern>(R"ONNX(
    <ir_version: 8, opset_import: ["" : 18]>
    g (bool[4] mask, float[4] X) => (float[4] Y) <float zero = {0.0}, float one = {1.0}> {
      ninf = Log(zero)
      bias = Where(mask, one, ninf)
      Y = Add(bias, X)
    })ONNX", "bias", "the first branch is not the constant scalar 0");
}

TEST(WhereAddPattern, RejectsFiniteBias) {
  ExpectNoMatch<WhereAddPattern>(R"ONNX(
    <ir_version: 8, opset_import: ["" : 18]>
    g (bool[4] mask, float[4] X) => (float[4] Y) <float zero = {0.0}, float big = {-1e9}> {
      bias = Where(mask, zero, big)
      Y = Add(bias, X)
    })ONNX", "bias", "the second branch is not infinite");
}

TEST(WhereAddPattern, RejectsMulReader) {
  ExpectNoMatch<WhereAddPattern>(R"ONNX(
    <ir_version: 8, opset_import: ["" : 18]>
    g (bool[4] mask, float[4] X) => (float[4] Y) <float zero = {0.0}> {
      ninf = Log(zero)
      bias = Where(mask, zero, ninf)
      Y = Mul(bias, X)
    })ONNX", "bias", "the output of the Where is not read by an Add alone");
}

TEST(WhereAddPattern, RejectsAddOfTheWhereToItself) {
  ExpectNoMatch<WhereAddPattern>(R"ONNX(
    <ir_version: 8, opset_import: ["" : 18]>
    g (bool[4] mask) => (float[4] Y) <float zero = {0.0}> {
      ninf = Log(zero)
      bias = Where(mask, zero, ninf)
      Y = Add(bias, bias)
    })ONNX", "bias", "the output of the Where is not read by an Add alone");
}

}  // namespace
}  // namespace onnxopt::onnx_patterns
