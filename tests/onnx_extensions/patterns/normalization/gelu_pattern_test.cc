#include "onnx_extensions/patterns/normalization/gelu_pattern.h"

#include <gtest/gtest.h>

#include <string>

#include "tests/onnx_extensions/patterns/pattern_test_util.h"

namespace onnxopt::onnx_patterns {
namespace {

using testing::ExpectNoMatch;
using testing::ExpectRewrite;

// float16 constants stand in for the exact ones and every node rounds to float16: a few
// float16 units on values of magnitude ~2.
constexpr double kFloat16Tolerance = 4e-3;
constexpr double kTolerance = 1e-5;

// The float16 chain. The ONNX text parser of onnx 1.12 reads no float16 initializer: the
// constants are float ones cast to float16 (0.044715 -> 0.044708, 0.7978846 -> 0.79785).
std::string Float16Chain(const std::string& opset, const std::string& cpi, const std::string& t1,
                         const std::string& extra_output = "", const std::string& extra_node = "") {
  return R"ONNX(
    <ir_version: 9, opset_import: ["" : )ONNX" + opset + R"ONNX(]>
    gelu_tanh (float16[2,8] x) => (float16[2,8] y)ONNX" + extra_output + R"ONNX()
    <float[1] f3 = {3.0}, float[1] f04 = {0.044715}, float[1] fpi = {)ONNX" + cpi + R"ONNX(},
     float[1] f1 = {1.0}, float[1] f2 = {0.5}> {
      c3 = Cast<to = 10>(f3)
      c04 = Cast<to = 10>(f04)
      cpi = Cast<to = 10>(fpi)
      one = Cast<to = 10>(f1)
      c2 = Cast<to = 10>(f2)
      x3 = Pow(x, c3)
      t1 = )ONNX" + t1 + R"ONNX(
      t2 = Add(x, t1)
      t3 = Mul(t2, cpi)
      t4 = Tanh(t3)
      t5 = Add(t4, one)
      xh = Mul(x, c2)
      y = Mul(xh, t5)
      )ONNX" + extra_node + R"ONNX(
    })ONNX";
}

TEST(GeluPattern, FusesTheFloat16TanhApproximation) {
  ExpectRewrite<GeluPattern>(Float16Chain("20", "0.7978845608", "Mul(x3, c04)"), R"ONNX(
    <ir_version: 9, opset_import: ["" : 20]>
    gelu_tanh (float16[2,8] x) => (float16[2,8] y) {
      y = Gelu<approximate = "tanh">(x)
    })ONNX", kFloat16Tolerance);
}

// Upstream compares the constants as exact doubles and never matches float32 graphs.
TEST(GeluPattern, FusesTheFloat32TanhApproximation) {
  ExpectRewrite<GeluPattern>(R"ONNX(
    <ir_version: 9, opset_import: ["" : 20]>
    g (float[N,8] x) => (float[N,8] y)
    <float c3 = {3.0}, float c04 = {0.044715}, float cpi = {0.7978845608}, float one = {1.0}, float c2 = {0.5}> {
      x3 = Pow(x, c3)
      t1 = Mul(x3, c04)
      t2 = Add(x, t1)
      t3 = Mul(t2, cpi)
      t4 = Tanh(t3)
      t5 = Add(t4, one)
      xh = Mul(x, c2)
      y = Mul(xh, t5)
    })ONNX", R"ONNX(
    <ir_version: 9, opset_import: ["" : 20]>
    g (float[N,8] x) => (float[N,8] y) {
      y = Gelu<approximate = "tanh">(x)
    })ONNX", kTolerance);
}

TEST(GeluPattern, RejectsOpset18) {
  ExpectNoMatch<GeluPattern>(Float16Chain("18", "0.7978845608", "Mul(x3, c04)"), "y",
                             "the main opset is below 20 (Gelu)");
}

TEST(GeluPattern, RejectsAnotherTanhFactor) {
  ExpectNoMatch<GeluPattern>(Float16Chain("20", "0.5", "Mul(x3, c04)"), "y",
                             "the Tanh argument is not multiplied by a constant scalar sqrt(2/pi)");
}

TEST(GeluPattern, RejectsAnIntermediateWithAnotherReader) {
  ExpectNoMatch<GeluPattern>(Float16Chain("20", "0.7978845608", "Mul(x3, c04)", ", float16[2,8] z", "z = Neg(t3)"), "y",
                             "an intermediate result has other readers");
}

// The template matches operand positions: the constant first is another graph for it.
TEST(GeluPattern, RejectsTheCubeFactorWrittenFirst) {
  ExpectNoMatch<GeluPattern>(Float16Chain("20", "0.7978845608", "Mul(c04, x3)"), "y",
                             "the first input of the innermost Mul is not produced by a Pow");
}

TEST(GeluPattern, RejectsAnotherCubeFactor) {
  ExpectNoMatch<GeluPattern>(R"ONNX(
    <ir_version: 9, opset_import: ["" : 20]>
    g (float[N,8] x) => (float[N,8] y)
    <float c3 = {3.0}, float c04 = {0.045}, float cpi = {0.7978845608}, float one = {1.0}, float c2 = {0.5}> {
      x3 = Pow(x, c3)
      t1 = Mul(x3, c04)
      t2 = Add(x, t1)
      t3 = Mul(t2, cpi)
      t4 = Tanh(t3)
      t5 = Add(t4, one)
      xh = Mul(x, c2)
      y = Mul(xh, t5)
    })ONNX", "y", "the cube is not multiplied by a constant scalar 0.044715");
}

// x of shape () with constants of shape (1,): the chain's output has shape (1,), Gelu(x)
// would have ().
TEST(GeluPattern, RejectsConstantsOfHigherRankThanX) {
  ExpectNoMatch<GeluPattern>(R"ONNX(
    <ir_version: 9, opset_import: ["" : 20]>
    g (float[] x) => (float[1] y)
    <float[1] c3 = {3.0}, float[1] c04 = {0.044715}, float[1] cpi = {0.7978845608}, float[1] one = {1.0},
     float[1] c2 = {0.5}> {
      x3 = Pow(x, c3)
      t1 = Mul(x3, c04)
      t2 = Add(x, t1)
      t3 = Mul(t2, cpi)
      t4 = Tanh(t3)
      t5 = Add(t4, one)
      xh = Mul(x, c2)
      y = Mul(xh, t5)
    })ONNX", "y", "a constant has a higher rank than x");
}

}  // namespace
}  // namespace onnxopt::onnx_patterns
