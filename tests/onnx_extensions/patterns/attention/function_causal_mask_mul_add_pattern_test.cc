#include "onnx_extensions/patterns/attention/function_causal_mask_mul_add_pattern.h"

#include <gtest/gtest.h>

#include <initializer_list>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "onnx_core/builder/graph_builder.h"
#include "onnx_core/optimizer/graph_graph.h"
#include "onnx_extensions/kernels/register_kernels.h"
#include "onnx_extensions/shapes/register_shape_functions.h"
#include "tests/onnx_extensions/patterns/attention/local_function_test_util.h"
#include "tests/onnx_extensions/patterns/pattern_test_util.h"
#include "tests/support/test_support.h"

namespace onnxopt::onnx_patterns {
namespace {

using testing::Cat;
using testing::ExpectNoMatch;
using testing::ExpectRewrite;


ModelProto Optimized(std::string_view text) {
  return testing::OptimizeWithPattern(std::make_shared<FunctionCausalMaskMulAddPattern>(), text);
}

std::vector<std::string> BodyOpTypes(const FunctionProto& function) {
  std::vector<std::string> ops;
  for (const NodeProto& node : function.node()) ops.push_back(node.op_type());
  return ops;
}

constexpr std::string_view kSignature = R"ONNX(
    mask_mul_add (int64[1] d1, int64[1] d2, int64[1] n) => (int64[R,1,1,K] Y))ONNX";
constexpr std::string_view kConstants = R"ONNX(
    <int64 zero = {0}, int64 one = {1}, int64[3] a012 = {0, 1, 2}, int64[3] a123 = {1, 2, 3}>)ONNX";

// The example of attention.md, the second Unsqueeze's axes and the limits replaceable.
std::string Grid(std::string_view u2_axes = "a123", std::string_view s1 = "s1 = Squeeze(d1)",
                 std::string_view extra = "") {
  return Cat({R"ONNX(
    <ir_version: 8, opset_import: ["" : 18]>)ONNX", kSignature, kConstants, R"ONNX(
    {
      )ONNX", s1, R"ONNX(
      s2 = Squeeze(d2)
      r1 = Range(zero, s1, one)
      r2 = Range(zero, s2, one)
      u1 = Unsqueeze(r1, a012)
      u2 = Unsqueeze(r2, )ONNX", u2_axes, R"ONNX()
      m = Mul(u2, n)
      Y = Add(u1, m)
      )ONNX", extra, R"ONNX(
    })ONNX"});
}

TEST(FunctionCausalMaskMulAddPattern, FoldsTheIndexGridIntoAFunctionCall) {
  ExpectRewrite<FunctionCausalMaskMulAddPattern>(Grid(), Cat({R"ONNX(
    <ir_version: 8, opset_import: ["" : 18, "intermediate" : 1]>)ONNX", kSignature, R"ONNX(
    {
      Y = intermediate.CausalMaskMulAdd(d1, d2, n)
    })ONNX"}));
}

TEST(FunctionCausalMaskMulAddPattern, AddsTheCausalMaskMulAddFunction) {
  const ModelProto model = Optimized(Grid());
  ASSERT_EQ(model.functions_size(), 1);
  const FunctionProto& function = model.functions(0);
  EXPECT_EQ(function.domain(), "intermediate");
  EXPECT_EQ(function.name(), "CausalMaskMulAdd");
  EXPECT_EQ(std::vector<std::string>(function.input().begin(), function.input().end()),
            (std::vector<std::string>{"A", "B", "C"}));
  EXPECT_EQ(std::vector<std::string>(function.output().begin(), function.output().end()),
            (std::vector<std::string>{"mask"}));
  EXPECT_EQ(function.attribute_size(), 0);
  EXPECT_EQ(BodyOpTypes(function),
            (std::vector<std::string>{"Squeeze", "Squeeze", "Constant", "Constant", "Range", "Range", "Constant",
                                      "Constant", "Unsqueeze", "Unsqueeze", "Mul", "Add"}));
  ASSERT_EQ(function.opset_import_size(), 1);
  EXPECT_EQ(function.opset_import(0).domain(), "");
  EXPECT_EQ(function.opset_import(0).version(), 18);
  bool imported = false;
  for (const OperatorSetIdProto& import : model.opset_import())
    if (import.domain() == "intermediate") imported = import.version() == 1;
  EXPECT_TRUE(imported);
}

// Two grids: the second call reuses the function.
TEST(FunctionCausalMaskMulAddPattern, ReusesTheFunctionForASecondGrid) {
  constexpr std::string_view signature = R"ONNX(
    two_grids (int64[1] d1, int64[1] d2, int64[1] n, int64[1] d3, int64[1] d4, int64[1] n2) => (int64[R,1,1,K] Y, int64[R,1,1,K] Y2))ONNX";
  const std::string before = Cat({R"ONNX(
    <ir_version: 8, opset_import: ["" : 18]>)ONNX", signature, kConstants, R"ONNX(
    {
      s1 = Squeeze(d1)
      s2 = Squeeze(d2)
      r1 = Range(zero, s1, one)
      r2 = Range(zero, s2, one)
      u1 = Unsqueeze(r1, a012)
      u2 = Unsqueeze(r2, a123)
      m = Mul(u2, n)
      Y = Add(u1, m)
      t1 = Squeeze(d3)
      t2 = Squeeze(d4)
      q1 = Range(zero, t1, one)
      q2 = Range(zero, t2, one)
      v1 = Unsqueeze(q1, a012)
      v2 = Unsqueeze(q2, a123)
      m2 = Mul(v2, n2)
      Y2 = Add(v1, m2)
    })ONNX"});
  ExpectRewrite<FunctionCausalMaskMulAddPattern>(before, Cat({R"ONNX(
    <ir_version: 8, opset_import: ["" : 18, "intermediate" : 1]>)ONNX", signature, R"ONNX(
    {
      Y = intermediate.CausalMaskMulAdd(d1, d2, n)
      Y2 = intermediate.CausalMaskMulAdd(d3, d4, n2)
    })ONNX"}));
  EXPECT_EQ(Optimized(before).functions_size(), 1);
}

// A Squeeze read elsewhere stays.
TEST(FunctionCausalMaskMulAddPattern, KeepsASqueezeUsedElsewhere) {
  constexpr std::string_view signature = R"ONNX(
    mask_mul_add (int64[1] d1, int64[1] d2, int64[1] n) => (int64[R,1,1,K] Y, int64 s1))ONNX";
  ExpectRewrite<FunctionCausalMaskMulAddPattern>(Cat({R"ONNX(
    <ir_version: 8, opset_import: ["" : 18]>)ONNX", signature, kConstants, R"ONNX(
    {
      s1 = Squeeze(d1)
      s2 = Squeeze(d2)
      r1 = Range(zero, s1, one)
      r2 = Range(zero, s2, one)
      u1 = Unsqueeze(r1, a012)
      u2 = Unsqueeze(r2, a123)
      m = Mul(u2, n)
      Y = Add(u1, m)
    })ONNX"}), Cat({R"ONNX(
    <ir_version: 8, opset_import: ["" : 18, "intermediate" : 1]>)ONNX", signature, R"ONNX(
    {
      s1 = Squeeze(d1)
      Y = intermediate.CausalMaskMulAdd(d1, d2, n)
    })ONNX"}));
}

// The factor is computed after the Ranges: the call goes where the Add was.
TEST(FunctionCausalMaskMulAddPattern, PlacesTheCallAfterALateFactor) {
  ExpectRewrite<FunctionCausalMaskMulAddPattern>(Cat({R"ONNX(
    <ir_version: 8, opset_import: ["" : 18]>)ONNX", kSignature, kConstants, R"ONNX(
    {
      s1 = Squeeze(d1)
      s2 = Squeeze(d2)
      r1 = Range(zero, s1, one)
      r2 = Range(zero, s2, one)
      u1 = Unsqueeze(r1, a012)
      u2 = Unsqueeze(r2, a123)
      c = Neg(n)
      m = Mul(u2, c)
      Y = Add(u1, m)
    })ONNX"}), Cat({R"ONNX(
    <ir_version: 8, opset_import: ["" : 18, "intermediate" : 1]>)ONNX", kSignature, R"ONNX(
    {
      c = Neg(n)
      Y = intermediate.CausalMaskMulAdd(d1, d2, c)
    })ONNX"}));
}

TEST(FunctionCausalMaskMulAddPattern, RejectsOtherSecondAxes) {
  ExpectNoMatch<FunctionCausalMaskMulAddPattern>(
      Cat({R"ONNX(
    <ir_version: 8, opset_import: ["" : 18]>
    mask_mul_add (int64[1] d1, int64[1] d2, int64[1] n) => (int64[1,1,R,K] Y))ONNX", kConstants, R"ONNX(
    {
      a013 = Constant<value = int64[3] {0, 1, 3}>()
      s1 = Squeeze(d1)
      s2 = Squeeze(d2)
      r1 = Range(zero, s1, one)
      r2 = Range(zero, s2, one)
      u1 = Unsqueeze(r1, a012)
      u2 = Unsqueeze(r2, a013)
      m = Mul(u2, n)
      Y = Add(u1, m)
    })ONNX"}),
      "Y", "the second Unsqueeze axes are not the constant (1, 2, 3)");
}

TEST(FunctionCausalMaskMulAddPattern, RejectsAFirstUnsqueezeUsedTwice) {
  constexpr std::string_view signature = R"ONNX(
    mask_mul_add (int64[1] d1, int64[1] d2, int64[1] n) => (int64[R,1,1,K] Y, int64[1,1,1,K] w))ONNX";
  ExpectNoMatch<FunctionCausalMaskMulAddPattern>(
      Cat({R"ONNX(
    <ir_version: 8, opset_import: ["" : 18]>)ONNX", signature, kConstants, R"ONNX(
    {
      s1 = Squeeze(d1)
      s2 = Squeeze(d2)
      r1 = Range(zero, s1, one)
      r2 = Range(zero, s2, one)
      u1 = Unsqueeze(r1, a012)
      u2 = Unsqueeze(r2, a123)
      m = Mul(u2, n)
      Y = Add(u1, m)
      w = Neg(u1)
    })ONNX"}),
      "Y", "the first Add input is not an Unsqueeze with an axes input used once");
}

TEST(FunctionCausalMaskMulAddPattern, RejectsALimitFromAGather) {
  ExpectNoMatch<FunctionCausalMaskMulAddPattern>(
      Cat({R"ONNX(
    <ir_version: 8, opset_import: ["" : 18]>)ONNX", kSignature, kConstants, R"ONNX(
    {
      s1 = Gather<axis = 0>(d1, zero)
      s2 = Squeeze(d2)
      r1 = Range(zero, s1, one)
      r2 = Range(zero, s2, one)
      u1 = Unsqueeze(r1, a012)
      u2 = Unsqueeze(r2, a123)
      m = Mul(u2, n)
      Y = Add(u1, m)
    })ONNX"}),
      "Y", "a Range limit is not produced by a Squeeze without axes");
}

// Upstream does not check that the second Add input is a Mul.
TEST(FunctionCausalMaskMulAddPattern, RejectsASubInsteadOfTheMul) {
  ExpectNoMatch<FunctionCausalMaskMulAddPattern>(
      Cat({R"ONNX(
    <ir_version: 8, opset_import: ["" : 18]>)ONNX", kSignature, kConstants, R"ONNX(
    {
      s1 = Squeeze(d1)
      s2 = Squeeze(d2)
      r1 = Range(zero, s1, one)
      r2 = Range(zero, s2, one)
      u1 = Unsqueeze(r1, a012)
      u2 = Unsqueeze(r2, a123)
      m = Sub(u2, n)
      Y = Add(u1, m)
    })ONNX"}),
      "Y", "the second Add input is not produced by a Mul");
}

// Upstream's checks on the Range constants never verify anything; the body starts at 0.
TEST(FunctionCausalMaskMulAddPattern, RejectsARangeStartingAtOne) {
  ExpectNoMatch<FunctionCausalMaskMulAddPattern>(
      Cat({R"ONNX(
    <ir_version: 8, opset_import: ["" : 18]>)ONNX", kSignature, kConstants, R"ONNX(
    {
      s1 = Squeeze(d1)
      s2 = Squeeze(d2)
      r1 = Range(one, s1, one)
      r2 = Range(zero, s2, one)
      u1 = Unsqueeze(r1, a012)
      u2 = Unsqueeze(r2, a123)
      m = Mul(u2, n)
      Y = Add(u1, m)
    })ONNX"}),
      "Y", "a Range start is not the constant 0");
}

TEST(FunctionCausalMaskMulAddPattern, RejectsARangeWithStepTwo) {
  ExpectNoMatch<FunctionCausalMaskMulAddPattern>(
      Cat({R"ONNX(
    <ir_version: 8, opset_import: ["" : 18]>)ONNX", kSignature, kConstants, R"ONNX(
    {
      two = Constant<value = int64 {2}>()
      s1 = Squeeze(d1)
      s2 = Squeeze(d2)
      r1 = Range(zero, s1, one)
      r2 = Range(zero, s2, two)
      u1 = Unsqueeze(r1, a012)
      u2 = Unsqueeze(r2, a123)
      m = Mul(u2, n)
      Y = Add(u1, m)
    })ONNX"}),
      "Y", "a Range delta is not the constant 1");
}

}  // namespace
}  // namespace onnxopt::onnx_patterns
