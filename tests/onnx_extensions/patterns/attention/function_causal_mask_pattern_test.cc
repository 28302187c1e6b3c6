#include "onnx_extensions/patterns/attention/function_causal_mask_pattern.h"

#include <gtest/gtest.h>

#include <memory>
#include <string>

#include "tests/onnx_extensions/patterns/attention/local_function_test_util.h"
#include "tests/onnx_extensions/patterns/pattern_test_util.h"

namespace onnxopt::onnx_patterns {
namespace {

using testing::ExpectAddedFunction;
using testing::ExpectNoMatch;
using testing::ExpectRewrite;

constexpr std::string_view kEmptyModel = R"ONNX(<ir_version: 8, opset_import: ["" : 18]> g (float x) => (float x) {})ONNX";

constexpr std::string_view kFunction = R"ONNX(
    <domain: "intermediate", opset_import: ["" : 18]>
    CausalMask (A, B) => (mask)
    {
      sA = Squeeze(A)
      sB = Squeeze(B)
      zero = Constant<value = int64 {0}>()
      one = Constant<value = int64 {1}>()
      rg1 = Range(zero, sB, one)
      rg2 = Range(sA, sB, one)
      ax1 = Constant<value = int64[3] {0, 1, 2}>()
      ax2 = Constant<value = int64[3] {0, 1, 3}>()
      u1 = Unsqueeze(rg1, ax1)
      u2 = Unsqueeze(rg2, ax2)
      mask = LessOrEqual(u1, u2)
    })ONNX";

constexpr std::string_view kShiftedFunction = R"ONNX(
    <domain: "intermediate", opset_import: ["" : 18]>
    ShiftedCausalMask (A, B, shift) => (mask)
    {
      sA = Squeeze(A)
      sB = Squeeze(B)
      zero = Constant<value = int64 {0}>()
      one = Constant<value = int64 {1}>()
      rg1 = Range(zero, sB, one)
      rg2 = Range(sA, sB, one)
      ax1 = Constant<value = int64[3] {0, 1, 2}>()
      ax2 = Constant<value = int64[3] {0, 1, 3}>()
      u1 = Unsqueeze(rg1, ax1)
      u2 = Unsqueeze(rg2, ax2)
      d = Sub(u2, shift)
      mask = Greater(u1, d)
    })ONNX";

constexpr std::string_view kExample = R"ONNX(
    <ir_version: 8, opset_import: ["" : 18]>
    causal_mask (int64[1] past, int64[1] total) => (bool[1,1,Q,T] mask)
    <int64 zero = {0}, int64 one = {1}, int64[3] a012 = {0, 1, 2}, int64[3] a013 = {0, 1, 3}>
    {
      p = Squeeze(past)
      t = Squeeze(total)
      r1 = Range(zero, t, one)
      r2 = Range(p, t, one)
      u1 = Unsqueeze(r1, a012)
      u2 = Unsqueeze(r2, a013)
      mask = LessOrEqual(u1, u2)
    })ONNX";

TEST(FunctionCausalMaskPattern, FoldsTheCausalMask) {
  ExpectRewrite<FunctionCausalMaskPattern>(kExample, std::string(R"ONNX(
    <ir_version: 8, opset_import: ["" : 18, "intermediate" : 1]>
    causal_mask (int64[1] past, int64[1] total) => (bool[1,1,Q,T] mask)
    {
      mask = intermediate.CausalMask(past, total)
    })ONNX") + std::string(kFunction));
}

TEST(FunctionCausalMaskPattern, AddsTheFunctionOfTheSpecification) {
  ExpectAddedFunction(std::make_shared<FunctionCausalMaskPattern>(), kExample,
                      std::string(kEmptyModel) + std::string(kFunction), 1);
}

// Two masks (two layers exported separately) call one function.
constexpr std::string_view kTwoMasks = R"ONNX(
    <ir_version: 8, opset_import: ["" : 18]>
    g (int64[1] past, int64[1] total, int64[1] past2, int64[1] total2) => (bool[1,1,Q,T] mask, bool[1,1,R,S] mask2)
    <int64 zero = {0}, int64 one = {1}, int64[3] a012 = {0, 1, 2}, int64[3] a013 = {0, 1, 3}>
    {
      p = Squeeze(past)
      t = Squeeze(total)
      r1 = Range(zero, t, one)
      r2 = Range(p, t, one)
      u1 = Unsqueeze(r1, a012)
      u2 = Unsqueeze(r2, a013)
      mask = LessOrEqual(u1, u2)
      p2 = Squeeze(past2)
      t2 = Squeeze(total2)
      s1 = Range(zero, t2, one)
      s2 = Range(p2, t2, one)
      v1 = Unsqueeze(s1, a012)
      v2 = Unsqueeze(s2, a013)
      mask2 = LessOrEqual(v1, v2)
    })ONNX";

TEST(FunctionCausalMaskPattern, TwoMasksCallOneFunction) {
  ExpectRewrite<FunctionCausalMaskPattern>(kTwoMasks, std::string(R"ONNX(
    <ir_version: 8, opset_import: ["" : 18, "intermediate" : 1]>
    g (int64[1] past, int64[1] total, int64[1] past2, int64[1] total2) => (bool[1,1,Q,T] mask, bool[1,1,R,S] mask2)
    {
      mask = intermediate.CausalMask(past, total)
      mask2 = intermediate.CausalMask(past2, total2)
    })ONNX") + std::string(kFunction));
  ExpectAddedFunction(std::make_shared<FunctionCausalMaskPattern>(), kTwoMasks,
                      std::string(kEmptyModel) + std::string(kFunction), 2);
}

// Version 1; the key positions u1 and the limit t are still read elsewhere and stay.
constexpr std::string_view kShifted = R"ONNX(
    <ir_version: 8, opset_import: ["" : 18]>
    g (int64[1] past, int64[1] total, int64 shift) => (bool[1,1,Q,T] mask, int64[1,1,1,T] u1, int64 t)
    <int64 zero = {0}, int64 one = {1}, int64[3] a012 = {0, 1, 2}, int64[3] a013 = {0, 1, 3}>
    {
      p = Squeeze(past)
      t = Squeeze(total)
      r1 = Range(zero, t, one)
      r2 = Range(p, t, one)
      u1 = Unsqueeze(r1, a012)
      u2 = Unsqueeze(r2, a013)
      d = Sub(u2, shift)
      mask = Greater(u1, d)
    })ONNX";

TEST(FunctionCausalMaskPattern, FoldsTheShiftedMaskAndKeepsWhatIsStillRead) {
  ExpectRewrite<FunctionCausalMaskPattern>(kShifted, std::string(R"ONNX(
    <ir_version: 8, opset_import: ["" : 18, "intermediate" : 1]>
    g (int64[1] past, int64[1] total, int64 shift) => (bool[1,1,Q,T] mask, int64[1,1,1,T] u1, int64 t)
    <int64 zero = {0}, int64 one = {1}, int64[3] a012 = {0, 1, 2}>
    {
      t = Squeeze(total)
      r1 = Range(zero, t, one)
      u1 = Unsqueeze(r1, a012)
      mask = intermediate.ShiftedCausalMask(past, total, shift)
    })ONNX") + std::string(kShiftedFunction));
  ExpectAddedFunction(std::make_shared<FunctionCausalMaskPattern>(), kShifted,
                      std::string(kEmptyModel) + std::string(kShiftedFunction), 1);
}

// The example's inputs and constants with `body` in place of its nodes.
std::string Mask(std::string_view body) {
  return R"ONNX(
    <ir_version: 8, opset_import: ["" : 18]>
    g (int64[1] past, int64[1] total, int64[1] total2, int64[2] idx, int64 shift) => (bool mask)
    <int64 zero = {0}, int64 one = {1}, int64 two = {2}, int64[3] a012 = {0, 1, 2}, int64[3] a013 = {0, 1, 3}>
    {)ONNX" + std::string(body) + "}";
}

TEST(FunctionCausalMaskPattern, RejectsFirstAxes013) {
  ExpectNoMatch<FunctionCausalMaskPattern>(Mask(R"ONNX(
      p = Squeeze(past)
      t = Squeeze(total)
      r1 = Range(zero, t, one)
      r2 = Range(p, t, one)
      u1 = Unsqueeze(r1, a013)
      u2 = Unsqueeze(r2, a013)
      mask = LessOrEqual(u1, u2)
  )ONNX"), "mask", "the first Unsqueeze axes are not (0, 1, 2)");
}

TEST(FunctionCausalMaskPattern, RejectsDifferentLimits) {
  ExpectNoMatch<FunctionCausalMaskPattern>(Mask(R"ONNX(
      p = Squeeze(past)
      t = Squeeze(total)
      t2 = Squeeze(total2)
      r1 = Range(zero, t, one)
      r2 = Range(p, t2, one)
      u1 = Unsqueeze(r1, a012)
      u2 = Unsqueeze(r2, a013)
      mask = LessOrEqual(u1, u2)
  )ONNX"), "mask", "the two Range nodes have different limits");
}

TEST(FunctionCausalMaskPattern, RejectsAStartFromAGather) {
  ExpectNoMatch<FunctionCausalMaskPattern>(Mask(R"ONNX(
      p = Gather<axis = 0>(idx, zero)
      t = Squeeze(total)
      r1 = Range(zero, t, one)
      r2 = Range(p, t, one)
      u1 = Unsqueeze(r1, a012)
      u2 = Unsqueeze(r2, a013)
      mask = LessOrEqual(u1, u2)
  )ONNX"), "mask", "the second Range start is not produced by a one-input Squeeze");
}

// Upstream picks the version from the Sub alone: Greater without a Sub would become LessOrEqual.
TEST(FunctionCausalMaskPattern, RejectsGreaterWithoutASub) {
  ExpectNoMatch<FunctionCausalMaskPattern>(Mask(R"ONNX(
      p = Squeeze(past)
      t = Squeeze(total)
      r1 = Range(zero, t, one)
      r2 = Range(p, t, one)
      u1 = Unsqueeze(r1, a012)
      u2 = Unsqueeze(r2, a013)
      mask = Greater(u1, u2)
  )ONNX"), "mask", "a Greater does not compare with a Sub (only ShiftedCausalMask uses Greater)");
}

TEST(FunctionCausalMaskPattern, RejectsLessOrEqualWithASub) {
  ExpectNoMatch<FunctionCausalMaskPattern>(Mask(R"ONNX(
      p = Squeeze(past)
      t = Squeeze(total)
      r1 = Range(zero, t, one)
      r2 = Range(p, t, one)
      u1 = Unsqueeze(r1, a012)
      u2 = Unsqueeze(r2, a013)
      d = Sub(u2, shift)
      mask = LessOrEqual(u1, d)
  )ONNX"), "mask", "a LessOrEqual compares with a Sub (only CausalMask uses LessOrEqual)");
}

// Upstream's checks of the Range constants never verify anything.
TEST(FunctionCausalMaskPattern, RejectsAFirstStartOf1) {
  ExpectNoMatch<FunctionCausalMaskPattern>(Mask(R"ONNX(
      p = Squeeze(past)
      t = Squeeze(total)
      r1 = Range(one, t, one)
      r2 = Range(p, t, one)
      u1 = Unsqueeze(r1, a012)
      u2 = Unsqueeze(r2, a013)
      mask = LessOrEqual(u1, u2)
  )ONNX"), "mask", "the first Range start is not the constant 0");
}

TEST(FunctionCausalMaskPattern, RejectsADeltaOf2) {
  ExpectNoMatch<FunctionCausalMaskPattern>(Mask(R"ONNX(
      p = Squeeze(past)
      t = Squeeze(total)
      r1 = Range(zero, t, one)
      r2 = Range(p, t, two)
      u1 = Unsqueeze(r1, a012)
      u2 = Unsqueeze(r2, a013)
      mask = LessOrEqual(u1, u2)
  )ONNX"), "mask", "a Range delta is not the constant 1");
}

TEST(FunctionCausalMaskPattern, RejectsInt32Ranges) {
  ExpectNoMatch<FunctionCausalMaskPattern>(R"ONNX(
    <ir_version: 8, opset_import: ["" : 18]>
    g (int32[1] past, int32[1] total) => (bool mask)
    <int32 zero = {0}, int32 one = {1}, int64[3] a012 = {0, 1, 2}, int64[3] a013 = {0, 1, 3}>
    {
      p = Squeeze(past)
      t = Squeeze(total)
      r1 = Range(zero, t, one)
      r2 = Range(p, t, one)
      u1 = Unsqueeze(r1, a012)
      u2 = Unsqueeze(r2, a013)
      mask = LessOrEqual(u1, u2)
    })ONNX", "mask", "the Range inputs are not int64");
}

}  // namespace
}  // namespace onnxopt::onnx_patterns
