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

TEST(WhereAddPattern, RejectsAZeroOfHigherRankThanTheOtherOperands) {
  // Add(Where(c, zero[1], k), x) is float[1] for scalars c, k and x; Where(c, x, k) would be
  // a scalar.
  ExpectNoMatch<WhereAddPattern>(R"ONNX(
    <ir_version: 8, opset_import: ["" : 18]>
    g (bool mask, float X) => (float[1] Y) <float[1] zero = {0.0}, float scalar_zero = {0.0}> {
      ninf = Log(scalar_zero)
      bias = Where(mask, zero, ninf)
      Y = Add(bias, X)
    })ONNX", "bias", "the zero may give the result axes no other operand gives");
}

TEST(WhereAddPattern, KeepsAZeroWhoseRankAnotherOperandHas) {
  // The zero's axis of 1 broadcasts into X's.
  ExpectRewrite<WhereAddPattern>(R"ONNX(
    <ir_version: 8, opset_import: ["" : 18]>
    g (bool mask, float[3] X) => (float[3] Y) <float[1] zero = {0.0}, float scalar_zero = {0.0}> {
      ninf = Log(scalar_zero)
      bias = Where(mask, zero, ninf)
      Y = Add(bias, X)
    })ONNX", R"ONNX(
    <ir_version: 8, opset_import: ["" : 18]>
    g (bool mask, float[3] X) => (float[3] Y) <float scalar_zero = {0.0}> {
      ninf = Log(scalar_zero)
      Y = Where(mask, X, ninf)
    })ONNX");
}

}  // namespace
}  // namespace onnxopt::onnx_patterns
