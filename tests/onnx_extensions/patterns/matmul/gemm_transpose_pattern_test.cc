#include "onnx_extensions/patterns/matmul/gemm_transpose_pattern.h"

#include <gtest/gtest.h>

#include <string>

#include "onnx_core/builder/graph_builder.h"
#include "onnx_core/shapes/shape_registry.h"
#include "onnx_extensions/shapes/register_shape_functions.h"
#include "tests/onnx_extensions/patterns/pattern_test_util.h"
#include "tests/support/test_support.h"

namespace onnxopt::onnx_patterns {
namespace {

using testing::ExpectNoMatch;
using testing::ExpectRewrite;

// The Transpose of the constant is folded into a new initializer; W is no longer read.
TEST(GemmTransposePattern, TransposesConstantWeights) {
  ExpectRewrite<GemmTransposePattern>(R"ONNX(
    <ir_version: 8, opset_import: ["" : 18]>
    gemm_cst (float[2,3] X) => (float[2,4] Y)
    <float[3,4] W = {0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 0.9, 1.0, 1.1, 1.2}>
    {
      Y = Gemm(X, W)
    })ONNX", R"ONNX(
    <ir_version: 8, opset_import: ["" : 18]>
    gemm_cst (float[2,3] X) => (float[2,4] Y)
    <float[4,3] Wt = {0.1, 0.5, 0.9, 0.2, 0.6, 1.0, 0.3, 0.7, 1.1, 0.4, 0.8, 1.2}>
    {
      Y = Gemm<transB = 1>(X, Wt)
    })ONNX");
}

// alpha, beta = 1 and C are kept (upstream drops alpha); W stays for its other reader.
TEST(GemmTransposePattern, KeepsAlphaAndCAndASharedWeight) {
  ExpectRewrite<GemmTransposePattern>(R"ONNX(
    <ir_version: 8, opset_import: ["" : 18]>
    g (float[2,3] X, float[4] C) => (float[2,4] Y, float[3,4] V)
    <float[3,4] W = {1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12}>
    {
      Y = Gemm<alpha = 0.5, beta = 1.0, transA = 0, transB = 0>(X, W, C)
      V = Neg(W)
    })ONNX", R"ONNX(
    <ir_version: 8, opset_import: ["" : 18]>
    g (float[2,3] X, float[4] C) => (float[2,4] Y, float[3,4] V)
    <float[3,4] W = {1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12},
     float[4,3] Wt = {1, 5, 9, 2, 6, 10, 3, 7, 11, 4, 8, 12}>
    {
      Y = Gemm<alpha = 0.5, beta = 1.0, transA = 0, transB = 1>(X, Wt, C)
      V = Neg(W)
    })ONNX");
}

TEST(GemmTransposePattern, RejectsWeightsThatAreAGraphInput) {
  ExpectNoMatch<GemmTransposePattern>(R"ONNX(
    <ir_version: 8, opset_import: ["" : 18]>
    g (float[2,3] X, float[3,4] W) => (float[2,4] Y) {
      Y = Gemm(X, W)
    })ONNX", "Y", "the second input of the Gemm is not a constant");
}

// 600 x 512 floats (1.2 MB) exceed the folding limit: the Transpose would stay in the graph.
TEST(GemmTransposePattern, RejectsWeightsTooLargeToFold) {
  ExpectNoMatch<GemmTransposePattern>(R"ONNX(
    <ir_version: 8, opset_import: ["" : 18]>
    g (float[2,600] X) => (float[2,512] Y)
    <int64[2] s = {600, 512}>
    {
      W = ConstantOfShape<value = float[1] {0.5}>(s)
      Y = Gemm(X, W)
    })ONNX", "Y", "the second input of the Gemm is too large for its Transpose to be folded");
}

// An invalid Gemm (B of rank 3, which shape inference only diagnoses): the Transpose the
// rewrite adds would be invalid too (found by graph_fuzzer: gemm-transpose-rank-3-weights).
// Gemm takes 2-D operands: a model with 3-D weights is refused by shape inference before
// any pattern sees it (the pattern's own "not a matrix" check stays, for a caller that
// matches without inferring shapes).
TEST(GemmTransposePattern, WeightsThatAreNotAMatrixAreRefusedBeforeMatching) {
  onnx_shapes::RegisterShapeFunctions();
  core::builder::GraphBuilder builder(testing::ParseText(R"ONNX(
    <ir_version: 8, opset_import: ["" : 18]>
    g (float[2,3] X) => (float Y)
    <float[1,3,4] W = {1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12}>
    {
      Y = Gemm(X, W)
    })ONNX"));
  try {
    builder.InferShapes();
    ADD_FAILURE() << "the Gemm was not refused";
  } catch (const core::shapes::InvalidNodeError& error) {
    EXPECT_NE(std::string(error.what()).find("Gemm-13 takes 2-D A and B; found rank 3"), std::string::npos)
        << error.what();
  }
}

TEST(GemmTransposePattern, RejectsTransBAlreadySet) {
  ExpectNoMatch<GemmTransposePattern>(R"ONNX(
    <ir_version: 8, opset_import: ["" : 18]>
    g (float[2,3] X) => (float[2,4] Y)
    <float[4,3] W = {1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12}>
    {
      Y = Gemm<transB = 1>(X, W)
    })ONNX", "Y", "the Gemm already has transB=1");
}

TEST(GemmTransposePattern, RejectsTransA) {
  ExpectNoMatch<GemmTransposePattern>(R"ONNX(
    <ir_version: 8, opset_import: ["" : 18]>
    g (float[3,2] X) => (float[2,4] Y)
    <float[3,4] W = {1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12}>
    {
      Y = Gemm<transA = 1>(X, W)
    })ONNX", "Y", "the Gemm has transA=1");
}

TEST(GemmTransposePattern, RejectsBetaOtherThanOne) {
  ExpectNoMatch<GemmTransposePattern>(R"ONNX(
    <ir_version: 8, opset_import: ["" : 18]>
    g (float[2,3] X, float[4] C) => (float[2,4] Y)
    <float[3,4] W = {1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12}>
    {
      Y = Gemm<beta = 0.5>(X, W, C)
    })ONNX", "Y", "the Gemm has a beta other than 1");
}

}  // namespace
}  // namespace onnxopt::onnx_patterns
