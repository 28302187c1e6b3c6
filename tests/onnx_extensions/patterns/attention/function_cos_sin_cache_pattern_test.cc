#include "onnx_extensions/patterns/attention/function_cos_sin_cache_pattern.h"

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

constexpr std::string_view kRangeFunction = R"ONNX(
    <domain: "intermediate", opset_import: ["" : 18]>
    CosSinCacheWithRange_to10 (dim1, dim2, weights) => (cos, sin)
    {
      sA = Squeeze(dim1)
      sB = Squeeze(dim2)
      one = Constant<value = int64 {1}>()
      rg = Range(sA, sB, one)
      axes = Constant<value = int64[2] {0, 1}>()
      u = Unsqueeze(rg, axes)
      f = Cast<to = 1>(u)
      shp = Constant<value = int64[3] {0, -1, 1}>()
      r = Reshape(f, shp)
      m = Mul(weights, r)
      c = Cos(m)
      s = Sin(m)
      cos = Cast<to = 10>(c)
      sin = Cast<to = 10>(s)
    })ONNX";

constexpr std::string_view kExample = R"ONNX(
    <ir_version: 8, opset_import: ["" : 18]>
    cos_sin (int64[1] d1, int64[1] d2, float[1,1,4] w) => (float16[1,S,4] cos, float16[1,S,4] sin)
    <int64 one = {1}, int64[2] a01 = {0, 1}, int64[3] sh = {0, -1, 1}>
    {
      s1 = Squeeze(d1)
      s2 = Squeeze(d2)
      rg = Range(s1, s2, one)
      u = Unsqueeze(rg, a01)
      f = Cast<to = 1>(u)
      r = Reshape(f, sh)
      m = Mul(w, r)
      cf = Cos(m)
      sf = Sin(m)
      cos = Cast<to = 10>(cf)
      sin = Cast<to = 10>(sf)
    })ONNX";

TEST(FunctionCosSinCachePattern, FoldsTheRangeFormWithCasts) {
  ExpectRewrite<FunctionCosSinCachePattern>(kExample, std::string(R"ONNX(
    <ir_version: 8, opset_import: ["" : 18, "intermediate" : 1]>
    cos_sin (int64[1] d1, int64[1] d2, float[1,1,4] w) => (float16[1,S,4] cos, float16[1,S,4] sin)
    {
      cos, sin = intermediate.CosSinCacheWithRange_to10(d1, d2, w)
    })ONNX") + std::string(kRangeFunction));
}

TEST(FunctionCosSinCachePattern, AddsTheFunctionOfTheSpecification) {
  ExpectAddedFunction(std::make_shared<FunctionCosSinCachePattern>(), kExample,
                      std::string(kEmptyModel) + std::string(kRangeFunction), 1);
}

// Position ids as an input, the Cast before the Unsqueeze, no output casts; two caches of
// one graph call one function.
constexpr std::string_view kPositionIds = R"ONNX(
    <ir_version: 8, opset_import: ["" : 18]>
    g (int64[2,3] p, float[1,1,4] w, int64[2,3] q, float[1,1,4] v) => (float[2,3,4] cos, float[2,3,4] sin, float[2,3,4] cos2, float[2,3,4] sin2)
    <int64[1] a1 = {1}, int64[3] sh = {0, -1, 1}>
    {
      f = Cast<to = 1>(p)
      u = Unsqueeze(f, a1)
      r = Reshape(u, sh)
      m = Mul(w, r)
      cos = Cos(m)
      sin = Sin(m)
      u2 = Unsqueeze(q, a1)
      f2 = Cast<to = 1>(u2)
      r2 = Reshape(f2, sh)
      m2 = Mul(v, r2)
      sin2 = Sin(m2)
      cos2 = Cos(m2)
    })ONNX";

constexpr std::string_view kPositionIdsFunction = R"ONNX(
    <domain: "intermediate", opset_import: ["" : 18]>
    CosSinCache_p1 (position_ids, weights) => (cos, sin)
    {
      axes = Constant<value = int64[1] {1}>()
      u = Unsqueeze(position_ids, axes)
      f = Cast<to = 1>(u)
      shp = Constant<value = int64[3] {0, -1, 1}>()
      r = Reshape(f, shp)
      m = Mul(weights, r)
      cos = Cos(m)
      sin = Sin(m)
    })ONNX";

TEST(FunctionCosSinCachePattern, FoldsPositionIdsAndReusesTheFunction) {
  ExpectRewrite<FunctionCosSinCachePattern>(kPositionIds, std::string(R"ONNX(
    <ir_version: 8, opset_import: ["" : 18, "intermediate" : 1]>
    g (int64[2,3] p, float[1,1,4] w, int64[2,3] q, float[1,1,4] v) => (float[2,3,4] cos, float[2,3,4] sin, float[2,3,4] cos2, float[2,3,4] sin2)
    {
      cos, sin = intermediate.CosSinCache_p1(p, w)
      cos2, sin2 = intermediate.CosSinCache_p1(q, v)
    })ONNX") + std::string(kPositionIdsFunction));
  ExpectAddedFunction(std::make_shared<FunctionCosSinCachePattern>(), kPositionIds,
                      std::string(kEmptyModel) + std::string(kPositionIdsFunction), 2);
}

// The Reshape output also read elsewhere: the position chain stays.
TEST(FunctionCosSinCachePattern, KeepsThePositionChainStillRead) {
  ExpectRewrite<FunctionCosSinCachePattern>(R"ONNX(
    <ir_version: 8, opset_import: ["" : 18]>
    g (int64[2,3] p, float[1,1,4] w) => (float[2,3,4] cos, float[2,3,4] sin, float[2,3,1] r)
    <int64[1] a1 = {1}, int64[3] sh = {0, -1, 1}>
    {
      u = Unsqueeze(p, a1)
      f = Cast<to = 1>(u)
      r = Reshape(f, sh)
      m = Mul(w, r)
      cos = Cos(m)
      sin = Sin(m)
    })ONNX", std::string(R"ONNX(
    <ir_version: 8, opset_import: ["" : 18, "intermediate" : 1]>
    g (int64[2,3] p, float[1,1,4] w) => (float[2,3,4] cos, float[2,3,4] sin, float[2,3,1] r)
    <int64[1] a1 = {1}, int64[3] sh = {0, -1, 1}>
    {
      u = Unsqueeze(p, a1)
      f = Cast<to = 1>(u)
      r = Reshape(f, sh)
      cos, sin = intermediate.CosSinCache_p1(p, w)
    })ONNX") + std::string(kPositionIdsFunction));
}

// The example with its constants and `body` in place of its nodes.
std::string Cache(std::string_view body) {
  return R"ONNX(
    <ir_version: 8, opset_import: ["" : 18]>
    g (int64[1] d1, int64[1] d2, float[1,1,4] w, int64[2,3] p) => (float cos, float sin, float z)
    <int64 one = {1}, int64 two = {2}, int64[2] a01 = {0, 1}, int64[2] a02 = {0, 2}, int64[1] a1 = {1}, int64[3] sh = {0, -1, 1}, int64[3] sh1 = {1, -1, 1}>
    {)ONNX" + std::string(body) + "}";
}

TEST(FunctionCosSinCachePattern, RejectsAnotherReshapeShape) {
  ExpectNoMatch<FunctionCosSinCachePattern>(Cache(R"ONNX(
      s1 = Squeeze(d1)
      s2 = Squeeze(d2)
      rg = Range(s1, s2, one)
      u = Unsqueeze(rg, a01)
      f = Cast<to = 1>(u)
      r = Reshape(f, sh1)
      m = Mul(w, r)
      cos = Cos(m)
      sin = Sin(m)
      z = Identity(cos)
  )ONNX"), "cos", "the Reshape shape is not the constant [0, -1, 1]");
}

TEST(FunctionCosSinCachePattern, RejectsACastOfTheCosOutputOnly) {
  ExpectNoMatch<FunctionCosSinCachePattern>(Cache(R"ONNX(
      s1 = Squeeze(d1)
      s2 = Squeeze(d2)
      rg = Range(s1, s2, one)
      u = Unsqueeze(rg, a01)
      f = Cast<to = 1>(u)
      r = Reshape(f, sh)
      m = Mul(w, r)
      cf = Cos(m)
      sin = Sin(m)
      cos = Cast<to = 10>(cf)
      z = Identity(sin)
  )ONNX"), "cf", "only one of the Cos and Sin outputs is cast");
}

TEST(FunctionCosSinCachePattern, RejectsOutputCastsToTwoTypes) {
  ExpectNoMatch<FunctionCosSinCachePattern>(Cache(R"ONNX(
      s1 = Squeeze(d1)
      s2 = Squeeze(d2)
      rg = Range(s1, s2, one)
      u = Unsqueeze(rg, a01)
      f = Cast<to = 1>(u)
      r = Reshape(f, sh)
      m = Mul(w, r)
      cf = Cos(m)
      sf = Sin(m)
      cos = Cast<to = 10>(cf)
      sin = Cast<to = 11>(sf)
      z = Identity(sin)
  )ONNX"), "cf", "the two output Casts are not to the same type");
}

TEST(FunctionCosSinCachePattern, RejectsWeightsReadElsewhere) {
  ExpectNoMatch<FunctionCosSinCachePattern>(Cache(R"ONNX(
      s1 = Squeeze(d1)
      s2 = Squeeze(d2)
      rg = Range(s1, s2, one)
      u = Unsqueeze(rg, a01)
      f = Cast<to = 1>(u)
      r = Reshape(f, sh)
      m = Mul(w, r)
      cos = Cos(m)
      sin = Sin(m)
      z = Neg(w)
  )ONNX"), "cos", "the weights have another use");
}

TEST(FunctionCosSinCachePattern, RejectsUnsqueezeAxes02) {
  ExpectNoMatch<FunctionCosSinCachePattern>(Cache(R"ONNX(
      s1 = Squeeze(d1)
      s2 = Squeeze(d2)
      rg = Range(s1, s2, one)
      u = Unsqueeze(rg, a02)
      f = Cast<to = 1>(u)
      r = Reshape(f, sh)
      m = Mul(w, r)
      cos = Cos(m)
      sin = Sin(m)
      z = Identity(cos)
  )ONNX"), "cos", "the Unsqueeze axes are neither [0, 1] nor [1]");
}

// Upstream accepts the axes [1] with a Range and then fails on an assertion.
TEST(FunctionCosSinCachePattern, RejectsARangeWithAxes1) {
  ExpectNoMatch<FunctionCosSinCachePattern>(Cache(R"ONNX(
      s1 = Squeeze(d1)
      s2 = Squeeze(d2)
      rg = Range(s1, s2, one)
      u = Unsqueeze(rg, a1)
      f = Cast<to = 1>(u)
      r = Reshape(f, sh)
      m = Mul(w, r)
      cos = Cos(m)
      sin = Sin(m)
      z = Identity(cos)
  )ONNX"), "cos", "positions from a Range need the Unsqueeze axes [0, 1]");
}

TEST(FunctionCosSinCachePattern, RejectsPositionIdsWithAxes01) {
  ExpectNoMatch<FunctionCosSinCachePattern>(Cache(R"ONNX(
      u = Unsqueeze(p, a01)
      f = Cast<to = 1>(u)
      r = Reshape(f, sh)
      m = Mul(w, r)
      cos = Cos(m)
      sin = Sin(m)
      z = Identity(cos)
  )ONNX"), "cos", "positions without a Range need the Unsqueeze axes [1]");
}

TEST(FunctionCosSinCachePattern, RejectsARangeDeltaOf2) {
  ExpectNoMatch<FunctionCosSinCachePattern>(Cache(R"ONNX(
      s1 = Squeeze(d1)
      s2 = Squeeze(d2)
      rg = Range(s1, s2, two)
      u = Unsqueeze(rg, a01)
      f = Cast<to = 1>(u)
      r = Reshape(f, sh)
      m = Mul(w, r)
      cos = Cos(m)
      sin = Sin(m)
      z = Identity(cos)
  )ONNX"), "cos", "the Range delta is not the constant 1");
}

// The body hard-codes the inner Cast to float.
TEST(FunctionCosSinCachePattern, RejectsAnInnerCastToDouble) {
  ExpectNoMatch<FunctionCosSinCachePattern>(R"ONNX(
    <ir_version: 8, opset_import: ["" : 18]>
    g (int64[2,3] p, double[1,1,4] w) => (double cos, double sin)
    <int64[1] a1 = {1}, int64[3] sh = {0, -1, 1}>
    {
      u = Unsqueeze(p, a1)
      f = Cast<to = 11>(u)
      r = Reshape(f, sh)
      m = Mul(w, r)
      cos = Cos(m)
      sin = Sin(m)
    })ONNX", "cos", "the Cast before the Reshape is not to float");
}

// Upstream does not check the op type of the second reader of m.
TEST(FunctionCosSinCachePattern, RejectsASecondReaderThatIsNotASin) {
  ExpectNoMatch<FunctionCosSinCachePattern>(Cache(R"ONNX(
      u = Unsqueeze(p, a1)
      f = Cast<to = 1>(u)
      r = Reshape(f, sh)
      m = Mul(w, r)
      cos = Cos(m)
      sin = Tan(m)
      z = Identity(cos)
  )ONNX"), "cos", "the other consumer of the Mul output is not a Sin");
}

}  // namespace
}  // namespace onnxopt::onnx_patterns
