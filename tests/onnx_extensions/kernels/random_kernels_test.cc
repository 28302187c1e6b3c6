// Random generators: distributions (range, moments within five standard errors),
// determinism for a seed, the seed rule of NodeRandomSeed, and that constant folding
// leaves them alone.

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <string>
#include <vector>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "onnx_core/builder/graph_builder.h"
#include "onnx_core/eval/kernel_registry.h"
#include "onnx_core/eval/random_seed.h"
#include "onnx_core/passes/constant_folding.h"
#include "onnx_extensions/kernels/register_kernels.h"
#include "onnx_core/common/error.h"
#include "tests/onnx_extensions/kernels/kernel_test_util.h"
#include "tests/support/test_support.h"

namespace onnxopt::testing {
namespace {

using ::testing::HasSubstr;
using ::testing::ThrowsMessage;
using core::eval::Value;

struct Moments {
  double mean = 0, variance = 0;
};

Moments MomentsOf(const std::vector<double>& v) {
  Moments m;
  for (double x : v) m.mean += x;
  m.mean /= static_cast<double>(v.size());
  for (double x : v) m.variance += (x - m.mean) * (x - m.mean);
  m.variance /= static_cast<double>(v.size());
  return m;
}

std::vector<double> Values(const Tensor& t) {
  if (t.elem_type() == TensorProto::FLOAT16) {
    std::vector<double> v;
    for (std::int64_t i = 0; i < t.size(); ++i) v.push_back(core::eval::HalfToFloat(t.Data<std::uint16_t>()[i]));
    return v;
  }
  return t.ToDoubleVector();
}

std::string Generator(const std::string& op, const std::string& attributes, const std::string& output_type,
                      int opset = 17) {
  return "<ir_version: 10, opset_import: [\"\" : " + std::to_string(opset) + "]>\ng () => (" + output_type +
         " y) { y = " + op + (attributes.empty() ? "" : " <" + attributes + ">") + " () }";
}

TEST(RandomUniformKernel, DrawsInTheRangeWithUniformMoments) {
  const Tensor y = RunOne(Generator("RandomUniform", "low = -2.0, high = 3.0, seed = 7.0, shape = [20000]", "float[20000]"), {});
  ASSERT_EQ(y.elem_type(), TensorProto::FLOAT);
  const std::vector<double> v = Values(y);
  EXPECT_GE(*std::min_element(v.begin(), v.end()), -2.0);
  EXPECT_LE(*std::max_element(v.begin(), v.end()), 3.0);
  // Uniform on [-2, 3]: mean 0.5, variance 25 / 12; standard error of the mean 0.0102.
  const Moments m = MomentsOf(v);
  EXPECT_NEAR(m.mean, 0.5, 0.05);
  EXPECT_NEAR(m.variance, 25.0 / 12.0, 0.1);
  // Both ends of the range are reached.
  EXPECT_LT(*std::min_element(v.begin(), v.end()), -1.99);
  EXPECT_GT(*std::max_element(v.begin(), v.end()), 2.99);
}

TEST(RandomNormalKernel, DrawsWithTheMeanAndScale) {
  for (const char* type : {"float", "double", "float16"}) {
    const int dtype = std::string(type) == "float" ? 1 : std::string(type) == "double" ? 11 : 10;
    const Tensor y = RunOne(Generator("RandomNormal", "mean = 1.0, scale = 2.0, seed = 3.0, shape = [100, 200], dtype = " +
                                                          std::to_string(dtype),
                                      std::string(type) + "[100,200]"),
                            {});
    ASSERT_EQ(y.elem_type(), dtype) << type;
    ASSERT_EQ(y.shape(), (std::vector<std::int64_t>{100, 200}));
    const std::vector<double> v = Values(y);
    // Standard error of the mean 2 / sqrt(20000) = 0.014; of the variance about 0.04.
    const Moments m = MomentsOf(v);
    EXPECT_NEAR(m.mean, 1.0, 0.07) << type;
    EXPECT_NEAR(m.variance, 4.0, 0.2) << type;
    // About 68.3% within one standard deviation.
    const auto within = std::count_if(v.begin(), v.end(), [](double x) { return std::abs(x - 1) < 2; });
    EXPECT_NEAR(static_cast<double>(within) / static_cast<double>(v.size()), 0.6827, 0.02) << type;
  }
}

TEST(RandomKernels, SameSeedSameValuesOtherSeedOtherValues) {
  const auto draw = [](const std::string& seed) {
    return RunOne(Generator("RandomNormal", "seed = " + seed + ", shape = [64]", "float[64]"), {});
  };
  EXPECT_TENSOR(draw("5.0"), draw("5.0"));
  EXPECT_FALSE(draw("5.0") == draw("6.0"));
}

// A KernelContext of a node with given outputs and attributes, to test NodeRandomSeed.
class SeedContext final : public core::eval::KernelContext {
 public:
  explicit SeedContext(NodeProto node) : node_(std::move(node)) {}
  const NodeProto& Node() const override { return node_; }
  std::int64_t OpsetVersion() const override { return 17; }
  const Value& Input(std::size_t) const override { return none_; }
  std::vector<Value> RunSubgraph(std::string_view, const std::vector<Value>&) override { return {}; }

 private:
  NodeProto node_;
  Value none_;
};

SeedContext NodeWith(const std::string& output, const AttributeProto* seed = nullptr) {
  NodeProto node;
  node.set_op_type("RandomNormal");
  node.add_output(output);
  if (seed) *node.add_attribute() = *seed;
  return SeedContext(node);
}

TEST(NodeRandomSeed, UsesTheSeedAttributeElseTheEvaluationSeedAndTheOutputName) {
  const std::uint64_t saved = core::eval::EvaluationSeed();
  AttributeProto float_seed;
  float_seed.set_name("seed");
  float_seed.set_type(AttributeProto::FLOAT);
  float_seed.set_f(2.0f);
  AttributeProto int_seed;
  int_seed.set_name("seed");
  int_seed.set_type(AttributeProto::INT);
  int_seed.set_i(12345);

  core::eval::SetEvaluationSeed(0);
  // The attribute alone decides: a float seed by its bits, an int seed as is.
  EXPECT_EQ(core::eval::NodeRandomSeed(NodeWith("a", &float_seed)), 0x40000000u);
  EXPECT_EQ(core::eval::NodeRandomSeed(NodeWith("a", &int_seed)), 12345u);
  const std::uint64_t a0 = core::eval::NodeRandomSeed(NodeWith("a"));
  EXPECT_EQ(core::eval::NodeRandomSeed(NodeWith("a")), a0) << "one evaluation seed and name give one seed";
  EXPECT_NE(core::eval::NodeRandomSeed(NodeWith("b")), a0) << "the output name takes part";

  core::eval::SetEvaluationSeed(1);
  EXPECT_NE(core::eval::NodeRandomSeed(NodeWith("a")), a0) << "the evaluation seed takes part";
  EXPECT_EQ(core::eval::NodeRandomSeed(NodeWith("a", &float_seed)), 0x40000000u);
  core::eval::SetEvaluationSeed(saved);
}

TEST(RandomKernels, WithoutSeedFollowTheEvaluationSeed) {
  const std::uint64_t saved = core::eval::EvaluationSeed();
  const std::string model = Generator("RandomUniform", "shape = [32]", "float[32]");
  core::eval::SetEvaluationSeed(11);
  const Tensor first = RunOne(model, {});
  EXPECT_TENSOR(RunOne(model, {}), first);
  core::eval::SetEvaluationSeed(12);
  EXPECT_FALSE(RunOne(model, {}) == first);
  core::eval::SetEvaluationSeed(saved);
}

TEST(RandomKernels, LikeFormsTakeShapeAndTypeFromTheInput) {
  const Tensor like = MakeHalf({3, 5}, std::vector<float>(15, 0));
  const Tensor normal = RunOne(R"ONNX(
    <ir_version: 8, opset_import: ["" : 17]>
    g (float16[3,5] x) => (float16[3,5] y) { y = RandomNormalLike <seed = 1.0> (x) })ONNX",
                               {{"x", like}});
  EXPECT_EQ(normal.elem_type(), TensorProto::FLOAT16);
  EXPECT_EQ(normal.shape(), like.shape());
  const Tensor uniform = RunOne(R"ONNX(
    <ir_version: 8, opset_import: ["" : 17]>
    g (int32[4] x) => (double[4] y) { y = RandomUniformLike <dtype = 11, low = 5.0, high = 6.0> (x) })ONNX",
                                {{"x", MakeTensor<std::int32_t>({4}, {0, 0, 0, 0})}});
  EXPECT_EQ(uniform.elem_type(), TensorProto::DOUBLE);
  for (double v : uniform.ToDoubleVector()) {
    EXPECT_GE(v, 5.0);
    EXPECT_LE(v, 6.0);
  }
  // An int32 input without dtype: no float type to draw.
  EXPECT_THAT(
      [] {
        RunText(R"ONNX(
          <ir_version: 8, opset_import: ["" : 17]>
          g (int32[4] x) => (int32[4] y) { y = RandomUniformLike (x) })ONNX",
                {{"x", MakeTensor<std::int32_t>({4}, {0, 0, 0, 0})}});
      },
      ThrowsMessage<ModelError>(HasSubstr("node 'y' (RandomUniformLike): the input's element type (used when dtype is "
                                          "absent) must be a float type, found INT32")));
}

TEST(RandomKernels, RefuseInvalidAttributes) {
  const auto run = [](const std::string& op, const std::string& attributes, int opset = 17) {
    return [=] { RunText(Generator(op, attributes, "float[2]", opset), {}); };
  };
  EXPECT_THAT(run("RandomUniform", "low = 1.0, high = 0.0, shape = [2]"),
              ThrowsMessage<ModelError>(HasSubstr("node 'y' (RandomUniform): attribute high (0.000000) is below low")));
  EXPECT_THAT(run("RandomNormal", "scale = -1.0, shape = [2]"),
              ThrowsMessage<ModelError>(HasSubstr("attribute scale (the standard deviation) must not be negative")));
  EXPECT_THAT(run("RandomNormal", "shape = [2, -1]"),
              ThrowsMessage<ModelError>(HasSubstr("attribute shape has a negative dimension: [2,-1]")));
  EXPECT_THAT(run("RandomNormal", "dtype = 7, shape = [2]"),
              ThrowsMessage<ModelError>(HasSubstr("dtype must be a float type, found INT64")));
  EXPECT_THAT(run("RandomNormal", ""), ThrowsMessage<ModelError>(HasSubstr("attribute shape is required")));
  EXPECT_THAT(run("RandomNormal", "dtype = 16, shape = [2]", 21),
              ThrowsMessage<ModelError>(HasSubstr("dtype must be a float type, found BFLOAT16")));
  EXPECT_EQ(RunOne(Generator("RandomNormal", "dtype = 16, shape = [2]", "bfloat16[2]", 22), {}).elem_type(),
            TensorProto::BFLOAT16);
  // A shape whose size the evaluator refuses: an error, not an allocation.
  EXPECT_THAT(run("RandomUniform", "shape = [4294967296, 4294967296]"),
              ThrowsMessage<ModelError>(HasSubstr("node 'y' (RandomUniform)")));
}

TEST(BernoulliKernel, DrawsOnesWithTheGivenProbabilities) {
  std::vector<double> p(20002, 0.3);
  p[0] = 0;
  p[1] = 1;
  const Tensor y = RunOne(R"ONNX(
    <ir_version: 8, opset_import: ["" : 15]>
    g (double[20002] p) => (double[20002] y) { y = Bernoulli <seed = 4.0> (p) })ONNX",
                          {{"p", MakeTensor<double>({20002}, p)}});
  ASSERT_EQ(y.elem_type(), TensorProto::DOUBLE);
  const std::vector<double> v = y.ToDoubleVector();
  EXPECT_EQ(v[0], 0);
  EXPECT_EQ(v[1], 1);
  EXPECT_TRUE(std::all_of(v.begin(), v.end(), [](double x) { return x == 0 || x == 1; }));
  // Standard error sqrt(0.3 * 0.7 / 20000) = 0.0032.
  EXPECT_NEAR(MomentsOf(std::vector<double>(v.begin() + 2, v.end())).mean, 0.3, 0.02);
  const Tensor b = RunOne(R"ONNX(
    <ir_version: 8, opset_import: ["" : 15]>
    g (float[2] p) => (bool[2] y) { y = Bernoulli <dtype = 9> (p) })ONNX",
                          {{"p", MakeTensor<float>({2}, {1, 0})}});
  EXPECT_TENSOR(b, MakeTensor<bool>({2}, {true, false}));
}

TEST(BernoulliKernel, RefusesValuesThatAreNotProbabilities) {
  for (float bad : {-0.5f, 1.5f, std::numeric_limits<float>::quiet_NaN()}) {
    EXPECT_THAT(
        [&] {
          RunText(R"ONNX(
            <ir_version: 8, opset_import: ["" : 15]>
            g (float[2] p) => (float[2] y) { y = Bernoulli (p) })ONNX",
                  {{"p", MakeTensor<float>({2}, {0.5f, bad})}});
        },
        ThrowsMessage<ModelError>(HasSubstr("node 'y' (Bernoulli): input value")))
        << bad;
  }
}

TEST(MultinomialKernel, SamplesClassesWithSoftmaxProbabilities) {
  // Row 0: probabilities 1/4, 3/4, 0 (log 0 = -inf); row 1: only class 2.
  const float inf = std::numeric_limits<float>::infinity();
  const Tensor y = RunOne(R"ONNX(
    <ir_version: 8, opset_import: ["" : 7]>
    g (float[2,3] x) => (int64[2,20000] y) { y = Multinomial <dtype = 7, sample_size = 20000, seed = 9.0> (x) })ONNX",
                          {{"x", MakeTensor<float>({2, 3}, {0, std::log(3.0f), -inf, -inf, -inf, 5})}});
  ASSERT_EQ(y.elem_type(), TensorProto::INT64);
  ASSERT_EQ(y.shape(), (std::vector<std::int64_t>{2, 20000}));
  const std::int64_t* d = y.Data<std::int64_t>();
  const auto ones = std::count(d, d + 20000, 1);
  EXPECT_EQ(std::count(d, d + 20000, 2), 0) << "a class of probability 0 is never drawn";
  EXPECT_EQ(ones + std::count(d, d + 20000, 0), 20000);
  // Standard error sqrt(0.75 * 0.25 / 20000) = 0.003.
  EXPECT_NEAR(static_cast<double>(ones) / 20000.0, 0.75, 0.02);
  EXPECT_EQ(std::count(d + 20000, d + 40000, 2), 20000);
}

TEST(MultinomialKernel, RefusesInvalidInputsAndAttributes) {
  const auto run = [](const std::string& attributes, const std::string& shape, const Tensor& x) {
    return [=] {
      RunText("<ir_version: 8, opset_import: [\"\" : 7]>\ng (float" + shape + " x) => (int32[1,1] y) { y = Multinomial <" +
                  attributes + "> (x) }",
              {{"x", x}});
    };
  };
  const float inf = std::numeric_limits<float>::infinity();
  EXPECT_THAT(run("sample_size = 0", "[1,2]", MakeTensor<float>({1, 2}, {0, 0})),
              ThrowsMessage<ModelError>(HasSubstr("node 'y' (Multinomial): sample_size must be positive, found 0")));
  EXPECT_THAT(run("dtype = 1", "[1,2]", MakeTensor<float>({1, 2}, {0, 0})),
              ThrowsMessage<ModelError>(HasSubstr("dtype must be int32 or int64, found FLOAT")));
  EXPECT_THAT(run("sample_size = 1", "[2]", MakeTensor<float>({2}, {0, 0})),
              ThrowsMessage<ModelError>(HasSubstr("input must be 2-D [batch_size, class_size]")));
  EXPECT_THAT(run("sample_size = 1", "[1,2]", MakeTensor<float>({1, 2}, {-inf, -inf})),
              ThrowsMessage<ModelError>(HasSubstr("input row 0 gives no class a positive probability")));
  EXPECT_THAT(run("sample_size = 1", "[1,2]", MakeTensor<float>({1, 2}, {0, std::numeric_limits<float>::quiet_NaN()})),
              ThrowsMessage<ModelError>(HasSubstr("input row 0 has a NaN or +inf log-probability")));
}

TEST(RandomKernels, AreNondeterministicAndNeverFolded) {
  for (const char* op : {"RandomNormal", "RandomUniform", "RandomNormalLike", "RandomUniformLike", "Bernoulli", "Multinomial"})
    EXPECT_TRUE(core::eval::IsNondeterministicOp("", op)) << op;
  onnx_kernels::RegisterKernels();
  core::builder::GraphBuilder builder(ParseText(R"ONNX(
    <ir_version: 8, opset_import: ["" : 17]>
    g () => (float[2] n, float[2] u, float[2] nl, float[2] ul, float[2] b, int32[1,2] m)
      <float[2] p = {0.5, 0.5}, float[1,2] l = {0, 0}> {
      n = RandomNormal <seed = 1.0, shape = [2]> ()
      u = RandomUniform <seed = 1.0, shape = [2]> ()
      nl = RandomNormalLike <seed = 1.0> (p)
      ul = RandomUniformLike <seed = 1.0> (p)
      b = Bernoulli <seed = 1.0> (p)
      m = Multinomial <seed = 1.0, sample_size = 2> (l)
    })ONNX"));
  const auto result = core::builder::FoldConstants(builder);
  EXPECT_EQ(result.folded_nodes, 0u);
  EXPECT_EQ(builder.Nodes().size(), 6);
}

}  // namespace
}  // namespace onnxopt::testing
