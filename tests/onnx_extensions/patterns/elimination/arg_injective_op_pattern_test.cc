#include "onnx_extensions/patterns/elimination/arg_injective_op_pattern.h"

#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <vector>

#include "onnx_core/eval/evaluator.h"
#include "onnx_core/eval/tensor.h"
#include "onnx_extensions/kernels/register_kernels.h"
#include "tests/onnx_extensions/patterns/pattern_test_util.h"
#include "tests/support/test_support.h"

namespace onnxopt::onnx_patterns {
namespace {

using testing::ExpectNoMatch;
using testing::ExpectRewrite;

TEST(ArgInjectiveOpPattern, DropsAWideningCastOfFloat16) {
  ExpectRewrite<ArgInjectiveOpPattern>(R"ONNX(
    <ir_version: 8, opset_import: ["" : 18]>
    g (float16[N,5] X) => (int64[N] Y) {
      t = Cast<to = 1>(X)
      Y = ArgMax<axis = 1, keepdims = 0, select_last_index = 1>(t)
    })ONNX", R"ONNX(
    <ir_version: 8, opset_import: ["" : 18]>
    g (float16[N,5] X) => (int64[N] Y) {
      Y = ArgMax<axis = 1, keepdims = 0, select_last_index = 1>(X)
    })ONNX");
}

// The random int32 inputs (0 to 4) tie often: ties stay ties through an exact Cast.
TEST(ArgInjectiveOpPattern, DropsAWideningIntegerCastKeepingTies) {
  ExpectRewrite<ArgInjectiveOpPattern>(R"ONNX(
    <ir_version: 8, opset_import: ["" : 18]>
    g (int32[4,N] X) => (int64[1,N] Y) {
      t = Cast<to = 11>(X)
      Y = ArgMin<axis = 0>(t)
    })ONNX", R"ONNX(
    <ir_version: 8, opset_import: ["" : 18]>
    g (int32[4,N] X) => (int64[1,N] Y) {
      Y = ArgMin<axis = 0>(X)
    })ONNX");
}

TEST(ArgInjectiveOpPattern, TurnsArgMaxOfNegIntoArgMin) {
  ExpectRewrite<ArgInjectiveOpPattern>(R"ONNX(
    <ir_version: 8, opset_import: ["" : 18]>
    g (float[N,5] X) => (int64[N] Y) {
      t = Neg(X)
      Y = ArgMax<axis = -1, keepdims = 0, select_last_index = 1>(t)
    })ONNX", R"ONNX(
    <ir_version: 8, opset_import: ["" : 18]>
    g (float[N,5] X) => (int64[N] Y) {
      Y = ArgMin<axis = -1, keepdims = 0, select_last_index = 1>(X)
    })ONNX");
}

TEST(ArgInjectiveOpPattern, TurnsArgMinOfNegIntoArgMax) {
  ExpectRewrite<ArgInjectiveOpPattern>(R"ONNX(
    <ir_version: 8, opset_import: ["" : 18]>
    g (double[N,5] X) => (int64[N,1] Y) {
      t = Neg(X)
      Y = ArgMin<axis = 1>(t)
    })ONNX", R"ONNX(
    <ir_version: 8, opset_import: ["" : 18]>
    g (double[N,5] X) => (int64[N,1] Y) {
      Y = ArgMax<axis = 1>(X)
    })ONNX");
}

// Ties, signed zeros and NaN (first, inside, and as the only candidates of a row): the
// evaluator gives ArgMax(Neg(x)) and ArgMin(x) the same index for either select_last_index.
TEST(ArgInjectiveOpPattern, NegKeepsTheIndexOnTiesZerosAndNaN) {
  onnx_kernels::RegisterKernels();
  const float nan = std::numeric_limits<float>::quiet_NaN();
  core::eval::Tensor x(TensorProto::FLOAT, {4, 5});
  const std::vector<float> values = {nan, 1.0f, -3.0f, -3.0f, 2.0f,  0.0f, -0.0f, 0.0f, 5.0f, 5.0f,
                                     1.0f, nan, -3.0f, nan, -3.0f,   nan, nan, nan, nan, nan};
  std::copy(values.begin(), values.end(), x.MutableData<float>());
  for (const char* last : {"0", "1"}) {
    const std::string attributes = std::string("<axis = 1, keepdims = 0, select_last_index = ") + last + ">";
    const ModelProto original = onnxopt::testing::ParseText(R"ONNX(
      <ir_version: 8, opset_import: ["" : 18]>
      g (float[4,5] X) => (int64[4] Y) {
        t = Neg(X)
        Y = ArgMax)ONNX" + attributes + R"ONNX((t)
      })ONNX");
    const ModelProto rewritten = onnxopt::testing::ParseText(R"ONNX(
      <ir_version: 8, opset_import: ["" : 18]>
      g (float[4,5] X) => (int64[4] Y) {
        Y = ArgMin)ONNX" + attributes + R"ONNX((X)
      })ONNX");
    const core::eval::ValueMap inputs = {{"X", x}};
    EXPECT_EQ(std::get<core::eval::Tensor>(core::eval::Run(original, inputs).at("Y")),
              std::get<core::eval::Tensor>(core::eval::Run(rewritten, inputs).at("Y")))
        << "select_last_index = " << last;
  }
}

TEST(ArgInjectiveOpPattern, RejectsANarrowingCast) {
  ExpectNoMatch<ArgInjectiveOpPattern>(R"ONNX(
    <ir_version: 8, opset_import: ["" : 18]>
    g (float[N,5] X) => (int64[N,1] Y) {
      t = Cast<to = 10>(X)
      Y = ArgMax<axis = 1>(t)
    })ONNX", "Y", "the Cast does not convert every value exactly");
}

// int32 holds 31 bits of magnitude, float 24: large integers would round together.
TEST(ArgInjectiveOpPattern, RejectsAnInexactIntegerToFloatCast) {
  ExpectNoMatch<ArgInjectiveOpPattern>(R"ONNX(
    <ir_version: 8, opset_import: ["" : 18]>
    g (int32[N,5] X) => (int64[N,1] Y) {
      t = Cast<to = 1>(X)
      Y = ArgMax<axis = 1>(t)
    })ONNX", "Y", "the Cast does not convert every value exactly");
}

TEST(ArgInjectiveOpPattern, RejectsATypeRuntimesLackAnArgMaxFor) {
  ExpectNoMatch<ArgInjectiveOpPattern>(R"ONNX(
    <ir_version: 8, opset_import: ["" : 18]>
    g (int16[N,5] X) => (int64[N,1] Y) {
      t = Cast<to = 6>(X)
      Y = ArgMax<axis = 1>(t)
    })ONNX", "Y", "the Cast input is of a type ArgMax runtimes lack (float16, float, int8, uint8, int32 only)");
}

// Neg of the int32 minimum is the minimum again.
TEST(ArgInjectiveOpPattern, RejectsAnIntegerNeg) {
  ExpectNoMatch<ArgInjectiveOpPattern>(R"ONNX(
    <ir_version: 8, opset_import: ["" : 18]>
    g (int32[N,5] X) => (int64[N,1] Y) {
      t = Neg(X)
      Y = ArgMax<axis = 1>(t)
    })ONNX", "Y", "the Neg input is not of a float type");
}

TEST(ArgInjectiveOpPattern, RejectsASharedCast) {
  ExpectNoMatch<ArgInjectiveOpPattern>(R"ONNX(
    <ir_version: 8, opset_import: ["" : 18]>
    g (float16[N,5] X) => (int64[N,1] Y, float[N,5] t) {
      t = Cast<to = 1>(X)
      Y = ArgMax<axis = 1>(t)
    })ONNX", "Y", "the input of the ArgMax or ArgMin has another reader");
}

TEST(ArgInjectiveOpPattern, RejectsANonInjectiveOp) {
  ExpectNoMatch<ArgInjectiveOpPattern>(R"ONNX(
    <ir_version: 8, opset_import: ["" : 18]>
    g (float[N,5] X) => (int64[N,1] Y) {
      t = Exp(X)
      Y = ArgMax<axis = 1>(t)
    })ONNX", "Y", "the input is produced by neither a Cast nor a Neg");
}

}  // namespace
}  // namespace onnxopt::onnx_patterns
