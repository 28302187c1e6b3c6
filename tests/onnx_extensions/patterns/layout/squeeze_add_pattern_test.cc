#include "onnx_extensions/patterns/layout/squeeze_add_pattern.h"

#include <gtest/gtest.h>

#include "tests/onnx_extensions/patterns/pattern_test_util.h"

namespace onnxopt::onnx_patterns {
namespace {

using testing::ExpectNoMatch;
using testing::ExpectRewrite;

TEST(SqueezeAddPattern, AddsBeforeSqueezing) {
  ExpectRewrite<SqueezeAddPattern>(R"ONNX(
    <ir_version: 8, opset_import: ["" : 18]>
    g (int64[1] S1, int64[1] S2) => (int64 s) {
      a = Squeeze(S1)
      b = Squeeze(S2)
      s = Add(a, b)
    })ONNX", R"ONNX(
    <ir_version: 8, opset_import: ["" : 18]>
    g (int64[1] S1, int64[1] S2) => (int64 s) {
      t = Add(S1, S2)
      s = Squeeze(t)
    })ONNX");
}

// [1] and [-2] are the same axis of rank-3 inputs; P and Q still broadcast dim 0.
TEST(SqueezeAddPattern, ComparesNormalizedAxes) {
  ExpectRewrite<SqueezeAddPattern>(R"ONNX(
    <ir_version: 8, opset_import: ["" : 18]>
    g (float[2,1,3] P, float[1,1,3] Q) => (float[2,3] Z) <int64[1] ap = {1}, int64[1] aq = {-2}> {
      p = Squeeze(P, ap)
      q = Squeeze(Q, aq)
      Z = Add(p, q)
    })ONNX", R"ONNX(
    <ir_version: 8, opset_import: ["" : 18]>
    g (float[2,1,3] P, float[1,1,3] Q) => (float[2,3] Z) <int64[1] ap = {1}> {
      t = Add(P, Q)
      Z = Squeeze(t, ap)
    })ONNX");
}

TEST(SqueezeAddPattern, KeepsASharedSqueeze) {
  ExpectRewrite<SqueezeAddPattern>(R"ONNX(
    <ir_version: 8, opset_import: ["" : 18]>
    g (float[1,3] P, float[1,3] Q) => (float[3] Z, float[3] W) <int64[1] ax = {0}> {
      p = Squeeze(P, ax)
      q = Squeeze(Q, ax)
      W = Relu(p)
      Z = Add(p, q)
    })ONNX", R"ONNX(
    <ir_version: 8, opset_import: ["" : 18]>
    g (float[1,3] P, float[1,3] Q) => (float[3] Z, float[3] W) <int64[1] ax = {0}> {
      p = Squeeze(P, ax)
      t = Add(P, Q)
      Z = Squeeze(t, ax)
      W = Relu(p)
    })ONNX");
}

TEST(SqueezeAddPattern, RejectsAnInputThatIsNotSqueezed) {
  ExpectNoMatch<SqueezeAddPattern>(R"ONNX(
    <ir_version: 8, opset_import: ["" : 18]>
    g (int64[1] S1, int64 S2) => (int64 s) {
      a = Squeeze(S1)
      s = Add(a, S2)
    })ONNX", "s", "an input of the Add is not produced by a Squeeze");
}

TEST(SqueezeAddPattern, RejectsDifferentAxes) {
  ExpectNoMatch<SqueezeAddPattern>(R"ONNX(
    <ir_version: 8, opset_import: ["" : 18]>
    g (float[1,1,3] P, float[1,1,3] Q) => (float[1,3] Z) <int64[1] a0 = {0}, int64[1] a1 = {1}> {
      p = Squeeze(P, a0)
      q = Squeeze(Q, a1)
      Z = Add(p, q)
    })ONNX", "Z", "the two Squeezes remove different axes");
}

// Squeeze() of (1,1) removes both dims, not [0].
TEST(SqueezeAddPattern, RejectsASqueezeWithoutAxesOfAnotherShape) {
  ExpectNoMatch<SqueezeAddPattern>(R"ONNX(
    <ir_version: 8, opset_import: ["" : 18]>
    g (float[1,1] P, float[1,1] Q) => (float Z) {
      p = Squeeze(P)
      q = Squeeze(Q)
      Z = Add(p, q)
    })ONNX", "Z", "a Squeeze has no axes input and its input is not of shape (1,)");
}

// (2,1,3) squeezed to (2,3) plus (1,3) squeezed to (3,): Add(P, Q) would not even
// broadcast back; upstream does not compare the ranks.
TEST(SqueezeAddPattern, RejectsInputsOfDifferentRanks) {
  ExpectNoMatch<SqueezeAddPattern>(R"ONNX(
    <ir_version: 8, opset_import: ["" : 18]>
    g (float[2,1,3] P, float[1,3] Q) => (float[2,3] Z) <int64[1] a1 = {1}, int64[1] a0 = {0}> {
      p = Squeeze(P, a1)
      q = Squeeze(Q, a0)
      Z = Add(p, q)
    })ONNX", "Z", "the inputs of the Squeezes do not have the same known rank");
}

TEST(SqueezeAddPattern, RejectsOpset12) {
  ExpectNoMatch<SqueezeAddPattern>(R"ONNX(
    <ir_version: 8, opset_import: ["" : 12]>
    g (int64[1] S1, int64[1] S2) => (int64 s) {
      a = Squeeze(S1)
      b = Squeeze(S2)
      s = Add(a, b)
    })ONNX", "s", "the opset is older than 13");
}

TEST(SqueezeAddPattern, RejectsTheSameSqueezeTwice) {
  ExpectNoMatch<SqueezeAddPattern>(R"ONNX(
    <ir_version: 8, opset_import: ["" : 18]>
    g (int64[1] S1) => (int64 s) {
      a = Squeeze(S1)
      s = Add(a, a)
    })ONNX", "s", "both inputs come from the same Squeeze");
}

// The kept Squeeze p would have to stay before W, the new Add after Q.
TEST(SqueezeAddPattern, RejectsASharedSqueezeBeforeTheOtherInput) {
  ExpectNoMatch<SqueezeAddPattern>(R"ONNX(
    <ir_version: 8, opset_import: ["" : 18]>
    g (float[1,3] P, float[1,3] R) => (float[3] Z, float[3] W) <int64[1] ax = {0}> {
      p = Squeeze(P, ax)
      W = Relu(p)
      Q = Neg(R)
      q = Squeeze(Q, ax)
      Z = Add(p, q)
    })ONNX", "Z", "a Squeeze has other readers and the other Squeeze reads a value computed after it");
}

}  // namespace
}  // namespace onnxopt::onnx_patterns
