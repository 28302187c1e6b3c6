#include "onnx_extensions/patterns/algebra/same_children_pattern.h"

#include <gtest/gtest.h>

#include "onnx_extensions/patterns/algebra/algebra_matchers.h"
#include "tests/onnx_extensions/patterns/pattern_test_util.h"

namespace onnxopt::onnx_patterns {
namespace {

using testing::ExpectNoMatch;
using testing::ExpectRewrite;
using testing::ApplicationsUntilConvergence;

// The swapped Mul pairs first, then the chain below it. The identities of b2 and c2 are
// removed by the cleanup; Y2 = Identity(Y1) stays (both are graph outputs).
TEST(SameChildrenPattern, MergesSwappedProductAndTheChainBelow) {
  ExpectRewrite<SameChildrenPattern>(R"ONNX(
    <ir_version: 8, opset_import: ["" : 18]>
    g (float[N,4] X, float[4] W) => (float[N,4] Y1, float[N,4] Y2) {
      a = Relu(X)
      b1 = Mul(a, W)
      b2 = Mul(W, a)
      c1 = Exp(b1)
      c2 = Exp(b2)
      Y1 = Neg(c1)
      Y2 = Neg(c2)
    })ONNX", R"ONNX(
    <ir_version: 8, opset_import: ["" : 18]>
    g (float[N,4] X, float[4] W) => (float[N,4] Y1, float[N,4] Y2) {
      a = Relu(X)
      b1 = Mul(a, W)
      c1 = Exp(b1)
      Y1 = Neg(c1)
      Y2 = Identity(Y1)
    })ONNX");
}

// The cleanup leaves duplicates that are graph outputs: the pattern keeps their names.
TEST(SameChildrenPattern, MergesDuplicatesThatAreGraphOutputs) {
  ExpectRewrite<SameChildrenPattern>(R"ONNX(
    <ir_version: 8, opset_import: ["" : 18]>
    g (float[N,4] X) => (float16[N,4] Y1, float16[N,4] Y2) {
      a = Relu(X)
      Y1 = Cast<to=10>(a)
      Y2 = Cast<to=10>(a)
    })ONNX", R"ONNX(
    <ir_version: 8, opset_import: ["" : 18]>
    g (float[N,4] X) => (float16[N,4] Y1, float16[N,4] Y2) {
      a = Relu(X)
      Y1 = Cast<to=10>(a)
      Y2 = Identity(Y1)
    })ONNX");
}

// More than eight readers of one op type are compared by their sorted inputs (as in a
// decoder, where a value feeds the same operator in every layer): every duplicate pair
// is still found, swapped Adds included, one per rewrite.
TEST(SameChildrenPattern, FindsTheFirstDuplicatePairAmongManyReaders) {
  ExpectRewrite<SameChildrenPattern>(R"ONNX(
    <ir_version: 8, opset_import: ["" : 18]>
    g (float[N,4] X, float[4] W0, float[4] W1, float[4] W2, float[4] W3, float[4] W4, float[4] W5,
       float[4] W6, float[4] W7)
      => (float[N,4] Y0, float[N,4] Y1, float[N,4] Y2, float[N,4] Y3, float[N,4] Y4, float[N,4] Y5,
          float[N,4] Y6, float[N,4] Y7, float[N,4] Y8, float[N,4] Y9, float[N,4] Y10) {
      a = Relu(X)
      Y0 = Add(a, W0)
      Y1 = Add(a, W1)
      Y2 = Add(a, W2)
      Y3 = Add(a, W3)
      Y4 = Add(a, W4)
      Y5 = Add(W3, a)
      Y6 = Add(a, W5)
      Y7 = Add(a, W6)
      Y8 = Add(a, W7)
      Y9 = Add(W1, a)
      Y10 = Add(a, W5)
    })ONNX", R"ONNX(
    <ir_version: 8, opset_import: ["" : 18]>
    g (float[N,4] X, float[4] W0, float[4] W1, float[4] W2, float[4] W3, float[4] W4, float[4] W5,
       float[4] W6, float[4] W7)
      => (float[N,4] Y0, float[N,4] Y1, float[N,4] Y2, float[N,4] Y3, float[N,4] Y4, float[N,4] Y5,
          float[N,4] Y6, float[N,4] Y7, float[N,4] Y8, float[N,4] Y9, float[N,4] Y10) {
      a = Relu(X)
      Y0 = Add(a, W0)
      Y1 = Add(a, W1)
      Y9 = Identity(Y1)
      Y2 = Add(a, W2)
      Y3 = Add(a, W3)
      Y5 = Identity(Y3)
      Y4 = Add(a, W4)
      Y6 = Add(a, W5)
      Y10 = Identity(Y6)
      Y7 = Add(a, W6)
      Y8 = Add(a, W7)
    })ONNX");
}

// More than eight readers with the same inputs are split by attributes before they are
// compared (a condition read by every If of a graph): the duplicates among ten LeakyRelus
// of one value are found, the ten Dropouts, alike but counted as random, are left alone.
TEST(SameChildrenPattern, SplitsManyReadersWithTheSameInputsByAttributes) {
  ExpectRewrite<SameChildrenPattern>(R"ONNX(
    <ir_version: 8, opset_import: ["" : 18]>
    g (float[N,4] X)
      => (float[N,4] Y0, float[N,4] Y1, float[N,4] Y2, float[N,4] Y3, float[N,4] Y4, float[N,4] Y5,
          float[N,4] Y6, float[N,4] Y7, float[N,4] Y8, float[N,4] Y9, float[N,4] R0, float[N,4] R1,
          float[N,4] R2, float[N,4] R3, float[N,4] R4, float[N,4] R5, float[N,4] R6, float[N,4] R7,
          float[N,4] R8, float[N,4] R9) {
      a = Relu(X)
      Y0 = LeakyRelu<alpha = 0.9>(a)
      Y1 = LeakyRelu<alpha = 0.2>(a)
      Y2 = LeakyRelu<alpha = 0.3>(a)
      Y3 = LeakyRelu<alpha = 0.4>(a)
      Y4 = LeakyRelu<alpha = 0.5>(a)
      Y5 = LeakyRelu<alpha = 0.2>(a)
      Y6 = LeakyRelu<alpha = 0.9>(a)
      Y7 = LeakyRelu<alpha = 0.7>(a)
      Y8 = LeakyRelu<alpha = 0.4>(a)
      Y9 = LeakyRelu<alpha = 0.8>(a)
      R0 = Dropout(a)
      R1 = Dropout(a)
      R2 = Dropout(a)
      R3 = Dropout(a)
      R4 = Dropout(a)
      R5 = Dropout(a)
      R6 = Dropout(a)
      R7 = Dropout(a)
      R8 = Dropout(a)
      R9 = Dropout(a)
    })ONNX", R"ONNX(
    <ir_version: 8, opset_import: ["" : 18]>
    g (float[N,4] X)
      => (float[N,4] Y0, float[N,4] Y1, float[N,4] Y2, float[N,4] Y3, float[N,4] Y4, float[N,4] Y5,
          float[N,4] Y6, float[N,4] Y7, float[N,4] Y8, float[N,4] Y9, float[N,4] R0, float[N,4] R1,
          float[N,4] R2, float[N,4] R3, float[N,4] R4, float[N,4] R5, float[N,4] R6, float[N,4] R7,
          float[N,4] R8, float[N,4] R9) {
      a = Relu(X)
      Y0 = LeakyRelu<alpha = 0.9>(a)
      Y6 = Identity(Y0)
      Y1 = LeakyRelu<alpha = 0.2>(a)
      Y5 = Identity(Y1)
      Y2 = LeakyRelu<alpha = 0.3>(a)
      Y3 = LeakyRelu<alpha = 0.4>(a)
      Y8 = Identity(Y3)
      Y4 = LeakyRelu<alpha = 0.5>(a)
      Y7 = LeakyRelu<alpha = 0.7>(a)
      Y9 = LeakyRelu<alpha = 0.8>(a)
      R0 = Dropout(a)
      R1 = Dropout(a)
      R2 = Dropout(a)
      R3 = Dropout(a)
      R4 = Dropout(a)
      R5 = Dropout(a)
      R6 = Dropout(a)
      R7 = Dropout(a)
      R8 = Dropout(a)
      R9 = Dropout(a)
    })ONNX");
}

// One pair per op type, in one rewrite; no chain extension with two pairs.
TEST(SameChildrenPattern, MergesOnePairPerOpType) {
  ExpectRewrite<SameChildrenPattern>(R"ONNX(
    <ir_version: 8, opset_import: ["" : 18]>
    g (float[N,4] X, float[4] W, float[4] V) => (float[N,4] S1, float[N,4] S2, float[N,4] P1, float[N,4] P2) {
      a = Relu(X)
      S1 = Add(a, W)
      P1 = Mul(V, a)
      S2 = Add(W, a)
      P2 = Mul(a, V)
    })ONNX", R"ONNX(
    <ir_version: 8, opset_import: ["" : 18]>
    g (float[N,4] X, float[4] W, float[4] V) => (float[N,4] S1, float[N,4] S2, float[N,4] P1, float[N,4] P2) {
      a = Relu(X)
      S1 = Add(a, W)
      S2 = Identity(S1)
      P1 = Mul(V, a)
      P2 = Identity(P1)
    })ONNX");
}

// The second pair of the chain reads z, defined after the first kept node: it is left to
// the cleanup and to the next iteration, which merge it too.
TEST(SameChildrenPattern, LeavesAPairThatCannotMoveForLater) {
  ExpectRewrite<SameChildrenPattern>(R"ONNX(
    <ir_version: 8, opset_import: ["" : 18]>
    g (float[N,4] X, float[4] W) => (float[N,4] Y1, float[N,4] Y2) {
      a = Relu(X)
      b1 = Mul(a, W)
      z = Sigmoid(X)
      b2 = Mul(W, a)
      c1 = Add(b1, z)
      c2 = Add(b2, z)
      Y1 = Neg(c1)
      Y2 = Neg(c2)
    })ONNX", R"ONNX(
    <ir_version: 8, opset_import: ["" : 18]>
    g (float[N,4] X, float[4] W) => (float[N,4] Y1, float[N,4] Y2) {
      a = Relu(X)
      b1 = Mul(a, W)
      z = Sigmoid(X)
      c1 = Add(b1, z)
      Y1 = Neg(c1)
      Y2 = Identity(Y1)
    })ONNX");
}

// Graph attributes count as attributes: equal branches compute the same thing.
TEST(SameChildrenPattern, MergesIfNodesWithEqualBranches) {
  ExpectRewrite<SameChildrenPattern>(R"ONNX(
    <ir_version: 8, opset_import: ["" : 18]>
    g (float[4] X, float[4] Z) => (float[4] Y1, float[4] Y2) {
      s = ReduceSum<keepdims=0>(X)
      c = Greater(s, s)
      Y1 = If(c) <then_branch = t () => (float[4] r) { r = Neg(Z) }, else_branch = e () => (float[4] r) { r = Abs(Z) }>
      Y2 = If(c) <then_branch = t () => (float[4] r) { r = Neg(Z) }, else_branch = e () => (float[4] r) { r = Abs(Z) }>
    })ONNX", R"ONNX(
    <ir_version: 8, opset_import: ["" : 18]>
    g (float[4] X, float[4] Z) => (float[4] Y1, float[4] Y2) {
      s = ReduceSum<keepdims=0>(X)
      c = Greater(s, s)
      Y1 = If(c) <then_branch = t () => (float[4] r) { r = Neg(Z) }, else_branch = e () => (float[4] r) { r = Abs(Z) }>
      Y2 = Identity(Y1)
    })ONNX");
}

TEST(SameChildrenPattern, RejectsIfNodesWithOtherBranches) {
  ExpectNoMatch<SameChildrenPattern>(R"ONNX(
    <ir_version: 8, opset_import: ["" : 18]>
    g (float[4] X, float[4] Z) => (float[4] Y1, float[4] Y2) {
      s = ReduceSum<keepdims=0>(X)
      c = Greater(s, s)
      Y1 = If(c) <then_branch = t () => (float[4] r) { r = Neg(Z) }, else_branch = e () => (float[4] r) { r = Abs(Z) }>
      Y2 = If(c) <then_branch = t () => (float[4] r) { r = Neg(Z) }, else_branch = e () => (float[4] r) { r = Exp(Z) }>
    })ONNX", "c", "the nodes have different attributes");
}

TEST(SameChildrenPattern, RejectsRandomBranches) {
  ExpectNoMatch<SameChildrenPattern>(R"ONNX(
    <ir_version: 8, opset_import: ["" : 18]>
    g (float[4] X, float[4] Z) => (float[4] Y1, float[4] Y2) {
      s = ReduceSum<keepdims=0>(X)
      c = Greater(s, s)
      Y1 = If(c) <then_branch = t () => (float[4] r) { r = RandomUniformLike(Z) }, else_branch = e () => (float[4] r) { r = Abs(Z) }>
      Y2 = If(c) <then_branch = t () => (float[4] r) { r = RandomUniformLike(Z) }, else_branch = e () => (float[4] r) { r = Abs(Z) }>
    })ONNX", "c", "the nodes are not deterministic ONNX operators");
}

TEST(SameChildrenPattern, RejectsRandomOperators) {
  ExpectNoMatch<SameChildrenPattern>(R"ONNX(
    <ir_version: 8, opset_import: ["" : 18]>
    g (float[N,4] X) => (float[N,4] Y1, float[N,4] Y2) {
      a = Relu(X)
      Y1 = RandomNormalLike(a)
      Y2 = RandomNormalLike(a)
    })ONNX", "a", "the nodes are not deterministic ONNX operators");
}

TEST(SameChildrenPattern, RejectsTrainingDropout) {
  ExpectNoMatch<SameChildrenPattern>(R"ONNX(
    <ir_version: 8, opset_import: ["" : 18]>
    g (float[N,4] X) => (float[N,4] Y1, float[N,4] Y2) <float ratio = {0.5}, bool training = {1}> {
      a = Relu(X)
      Y1 = Dropout(a, ratio, training)
      Y2 = Dropout(a, ratio, training)
    })ONNX", "a", "the nodes are not deterministic ONNX operators");
}

TEST(SameChildrenPattern, RejectsDifferentOpTypes) {
  ExpectNoMatch<SameChildrenPattern>(R"ONNX(
    <ir_version: 8, opset_import: ["" : 18]>
    g (float[N,4] X) => (float[N,4] Y1, float[N,4] Y2) {
      a = Relu(X)
      Y1 = Relu(a)
      Y2 = Sigmoid(a)
    })ONNX", "a", "no two readers of a value have the same op type");
}

TEST(SameChildrenPattern, RejectsDifferentAttributes) {
  ExpectNoMatch<SameChildrenPattern>(R"ONNX(
    <ir_version: 8, opset_import: ["" : 18]>
    g (float[N,4] X) => (float16[N,4] Y1, float[N,4] Y2) {
      a = Relu(X)
      Y1 = Cast<to=10>(a)
      Y2 = Cast<to=1>(a)
    })ONNX", "a", "the nodes have different attributes");
}

// Swapped inputs only count for Add and Mul.
TEST(SameChildrenPattern, RejectsSwappedSub) {
  ExpectNoMatch<SameChildrenPattern>(R"ONNX(
    <ir_version: 8, opset_import: ["" : 18]>
    g (float[N,4] X, float[N,4] b) => (float[N,4] Y1, float[N,4] Y2) {
      a = Relu(X)
      Y1 = Sub(a, b)
      Y2 = Sub(b, a)
    })ONNX", "a", "the nodes read different inputs");
}

// Readers of a graph input have no parent node (SameChildrenFromInputPattern's case).
TEST(SameChildrenPattern, RejectsNodeWithoutTwoReaders) {
  ExpectNoMatch<SameChildrenPattern>(R"ONNX(
    <ir_version: 8, opset_import: ["" : 18]>
    g (float[N,4] X) => (float16[N,4] Y1, float16[N,4] Y2) {
      Y1 = Cast<to=10>(X)
      Y2 = Cast<to=10>(X)
    })ONNX", "Y1", "no output of the node has two readers");
}

// Every reader duplicating the kept one merges in the same rewrite, in each op type
// (upstream: one pair per op type and iteration, here (Y1, Y2) and (Z1, Z2), then (Y1, Y3)).
// The readers are graph outputs, which the cleanup's duplicate pass leaves to the pattern.
constexpr std::string_view kGroups = R"ONNX(
  <ir_version: 8, opset_import: ["" : 18]>
  g (float[N,4] X) => (float[N,4] Y1, float[N,4] Y2, float[N,4] Y3, float[N,4] Z1, float[N,4] Z2) {
    a = Relu(X)
    Y1 = Neg(a)
    Z1 = Sigmoid(a)
    Y2 = Neg(a)
    Y3 = Neg(a)
    Z2 = Sigmoid(a)
  })ONNX";

TEST(SameChildrenPattern, MergesEveryDuplicateOfAReaderAtOnce) {
  ExpectRewrite<SameChildrenPattern>(kGroups, R"ONNX(
    <ir_version: 8, opset_import: ["" : 18]>
    g (float[N,4] X) => (float[N,4] Y1, float[N,4] Y2, float[N,4] Y3, float[N,4] Z1, float[N,4] Z2) {
      a = Relu(X)
      Y1 = Neg(a)
      Y2 = Identity(Y1)
      Y3 = Identity(Y1)
      Z1 = Sigmoid(a)
      Z2 = Identity(Z1)
    })ONNX");
  EXPECT_EQ(ApplicationsUntilConvergence(std::make_shared<SameChildrenPattern>(), kGroups), 1u);
}

// Identity takes sequences from opset 14 (the graph fuzzer's
// same-children-identity-of-sequence-opset13, there with SameChildrenFromInputPattern).
// The outputs' types are left out: the text syntax has no sequence types.
std::string SequenceErases(std::string_view opset) {
  return "<ir_version: 8, opset_import: [\"\" : " + std::string(opset) + R"ONNX(]>
    g (int64[N] a, int64[N] b) => (Y1, Y2) {
      s = SequenceConstruct(a, b)
      Y1 = SequenceErase(s)
      Y2 = SequenceErase(s)
    })ONNX";
}

TEST(SameChildrenPattern, MergesSequencesFromOpset14) {
  ExpectRewrite<SameChildrenPattern>(SequenceErases("14"), R"ONNX(
    <ir_version: 8, opset_import: ["" : 14]>
    g (int64[N] a, int64[N] b) => (Y1, Y2) {
      s = SequenceConstruct(a, b)
      Y1 = SequenceErase(s)
      Y2 = Identity(Y1)
    })ONNX");
}

TEST(SameChildrenPattern, RejectsSequencesBeforeOpset14) {
  ExpectNoMatch<SameChildrenPattern>(SequenceErases("13"), "s", algebra::kNothingToMerge);
}
}  // namespace
}  // namespace onnxopt::onnx_patterns
