#include "onnx_extensions/patterns/algebra/same_children_from_input_pattern.h"

#include <gtest/gtest.h>

#include "tests/onnx_extensions/patterns/pattern_test_util.h"

namespace onnxopt::onnx_patterns {
namespace {

using testing::ExpectNoMatch;
using testing::ExpectRewrite;
using testing::ApplicationsUntilConvergence;

// The cleanup merges duplicates except graph outputs: these are the pattern's.
TEST(SameChildrenFromInputPattern, MergesCastsOfAGraphInput) {
  ExpectRewrite<SameChildrenFromInputPattern>(R"ONNX(
    <ir_version: 8, opset_import: ["" : 18]>
    g (float[N,4] X) => (float16[N,4] Y1, float16[N,4] Y2) {
      Y1 = Cast<to=10>(X)
      Y2 = Cast<to=10>(X)
    })ONNX", R"ONNX(
    <ir_version: 8, opset_import: ["" : 18]>
    g (float[N,4] X) => (float16[N,4] Y1, float16[N,4] Y2) {
      Y1 = Cast<to=10>(X)
      Y2 = Identity(Y1)
    })ONNX");
}

// Swapped Add operands; the pair is found whichever reader comes first.
TEST(SameChildrenFromInputPattern, MergesSwappedSumsOfAnInitializer) {
  ExpectRewrite<SameChildrenFromInputPattern>(R"ONNX(
    <ir_version: 8, opset_import: ["" : 18]>
    g (float[4] X) => (float[4] Y1, float[4] Y2) <float[4] W = {1.0, 2.0, 3.0, 4.0}> {
      Y1 = Add(W, X)
      Y2 = Add(X, W)
    })ONNX", R"ONNX(
    <ir_version: 8, opset_import: ["" : 18]>
    g (float[4] X) => (float[4] Y1, float[4] Y2) <float[4] W = {1.0, 2.0, 3.0, 4.0}> {
      Y1 = Add(W, X)
      Y2 = Identity(Y1)
    })ONNX");
}

TEST(SameChildrenFromInputPattern, RejectsDifferentCasts) {
  ExpectNoMatch<SameChildrenFromInputPattern>(R"ONNX(
    <ir_version: 8, opset_import: ["" : 18]>
    g (float[N,4] X) => (float16[N,4] Y1, double[N,4] Y2) {
      Y1 = Cast<to=10>(X)
      Y2 = Cast<to=11>(X)
    })ONNX", "Y1", "the nodes have different attributes");
}

TEST(SameChildrenFromInputPattern, RejectsSingleReader) {
  ExpectNoMatch<SameChildrenFromInputPattern>(R"ONNX(
    <ir_version: 8, opset_import: ["" : 18]>
    g (float[N,4] X) => (float16[N,4] Y1) {
      Y1 = Cast<to=10>(X)
    })ONNX", "Y1", "the first input has a single reader");
}

// SameChildrenPattern's case.
TEST(SameChildrenFromInputPattern, RejectsValueProducedByANode) {
  ExpectNoMatch<SameChildrenFromInputPattern>(R"ONNX(
    <ir_version: 8, opset_import: ["" : 18]>
    g (float[N,4] X) => (float16[N,4] Y1, float16[N,4] Y2) {
      a = Relu(X)
      Y1 = Cast<to=10>(a)
      Y2 = Cast<to=10>(a)
    })ONNX", "Y1", "the first input is produced by a node");
}

TEST(SameChildrenFromInputPattern, RejectsRandomOperators) {
  ExpectNoMatch<SameChildrenFromInputPattern>(R"ONNX(
    <ir_version: 8, opset_import: ["" : 18]>
    g (float[N,4] X) => (float[N,4] Y1, float[N,4] Y2) {
      Y1 = RandomUniformLike(X)
      Y2 = RandomUniformLike(X)
    })ONNX", "Y1", "the nodes are not deterministic ONNX operators");
}

// The readers of X are compared from the first one only.
TEST(SameChildrenFromInputPattern, LeavesTheReadersToTheFirstOne) {
  ExpectNoMatch<SameChildrenFromInputPattern>(R"ONNX(
    <ir_version: 8, opset_import: ["" : 18]>
    g (float[N,4] X) => (float16[N,4] Y1, double[N,4] Y2) {
      Y1 = Cast<to=10>(X)
      Y2 = Cast<to=11>(X)
    })ONNX", "Y2", "an earlier node reads the first input as its first input");
}

// Every reader duplicating the first one merges in one rewrite (upstream merges one pair
// per iteration: n identical readers took n iterations over the whole graph); the
// Cast<to=1> is not a duplicate and stays.
constexpr std::string_view kFourCasts = R"ONNX(
  <ir_version: 8, opset_import: ["" : 18]>
  g (float[N,4] X) => (float16[N,4] Y1, float16[N,4] Y2, float[N,4] Y3, float16[N,4] Y4) {
    Y1 = Cast<to=10>(X)
    Y2 = Cast<to=10>(X)
    Y3 = Cast<to=1>(X)
    Y4 = Cast<to=10>(X)
  })ONNX";

TEST(SameChildrenFromInputPattern, MergesEveryDuplicateOfAReaderAtOnce) {
  ExpectRewrite<SameChildrenFromInputPattern>(kFourCasts, R"ONNX(
    <ir_version: 8, opset_import: ["" : 18]>
    g (float[N,4] X) => (float16[N,4] Y1, float16[N,4] Y2, float[N,4] Y3, float16[N,4] Y4) {
      Y1 = Cast<to=10>(X)
      Y2 = Identity(Y1)
      Y4 = Identity(Y1)
      Y3 = Cast<to=1>(X)
    })ONNX");
  EXPECT_EQ(ApplicationsUntilConvergence(std::make_shared<SameChildrenFromInputPattern>(), kFourCasts), 1u);
}

}  // namespace
}  // namespace onnxopt::onnx_patterns
