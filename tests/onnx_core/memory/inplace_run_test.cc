// The evaluator's in-place execution: where the plan allows, a writer's output takes its
// data input's buffer; everywhere else the evaluation is the usual one.

#include "onnx_core/memory/inplace_run.h"

#include <gtest/gtest.h>

#include "onnx_core/eval/evaluator.h"
#include "onnx_core/eval/tensor.h"
#include "tests/onnx_core/memory/memory_test_util.h"
#include "tests/support/test_support.h"

namespace onnxopt::core::memory {
namespace {

using eval::Tensor;
using testing::ParseText;

Tensor Floats(std::vector<float> values) {
  Tensor tensor(TensorProto::FLOAT, {static_cast<std::int64_t>(values.size())});
  for (std::size_t i = 0; i < values.size(); ++i) tensor.MutableData<float>()[i] = values[i];
  return tensor;
}

// z is a private buffer of 1024 floats written in place by ScatterND; the peak is there.
const char* kPrivateWriter = R"(<ir_version: 8, opset_import: ["" : 18]>
  g (float[1] upd) => (float[1] y) <int64[1] shp = {1024}, int64[1,1] idx = {5}> {
    z = ConstantOfShape(shp)
    w = ScatterND(z, idx, upd)
    y = ReduceSum(w)
  })";

eval::ValueMap PrivateWriterInputs() { return {{"upd", Floats({3.5f})}}; }

TEST(InPlaceRun, WriterTakesItsInputBufferAndSavesOneBuffer) {
  testing::RegisterMemoryTestOperators();
  const ModelProto model = ParseText(kPrivateWriter);
  eval::RunOptions copying;
  copying.measure_memory = true;
  eval::RunStats copying_stats, in_place_stats;
  const eval::ValueMap want = eval::Run(model, PrivateWriterInputs(), copying, &copying_stats);
  eval::RunOptions in_place = InPlaceRunOptions(model, {});
  EXPECT_EQ(in_place.in_place_inputs, (std::map<int, int>{{1, 0}}));
  in_place.measure_memory = true;
  const eval::ValueMap got = eval::Run(model, PrivateWriterInputs(), in_place, &in_place_stats);
  EXPECT_TRUE(std::get<Tensor>(want.at("y")) == std::get<Tensor>(got.at("y")));
  EXPECT_EQ(in_place_stats.in_place_writes, 1);
  EXPECT_EQ(in_place_stats.in_place_refused, 0);
  EXPECT_EQ(copying_stats.peak_live_bytes - in_place_stats.peak_live_bytes, 4096);
}

// An opset-24 KV-cache step: both caches are private buffers (computed by Sigmoid), each
// written by a circular TensorScatter that wraps (position 7 then 0), then read by attention.
const char* kTensorScatterKvCache = R"(<ir_version: 10, opset_import: ["" : 24]>
  g (float[1,2,8,4] past_k, float[1,2,8,4] past_v, float[1,2,2,4] k_new, float[1,2,2,4] v_new, int64[1] pos,
     float[1,2,1,4] q) => (float[1,2,8,4] present_k, float[1,2,8,4] present_v, float[1,2,1,4] h) {
    k = Sigmoid(past_k)
    v = Sigmoid(past_v)
    present_k = TensorScatter <mode = "circular"> (k, k_new, pos)
    present_v = TensorScatter <mode = "circular"> (v, v_new, pos)
    kt = Transpose <perm = [0, 1, 3, 2]> (present_k)
    s = MatMul(q, kt)
    p = Softmax(s)
    h = MatMul(p, present_v)
  })";

Tensor Sequence(std::vector<std::int64_t> shape, float first, float step) {
  Tensor tensor(TensorProto::FLOAT, std::move(shape));
  for (std::int64_t i = 0; i < tensor.size(); ++i)
    tensor.MutableData<float>()[i] = first + step * static_cast<float>(i);
  return tensor;
}

TEST(InPlaceRun, TensorScatterWritesTheKvCachesInPlace) {
  testing::RegisterMemoryTestOperators();
  const ModelProto model = ParseText(kTensorScatterKvCache);
  Tensor pos(TensorProto::INT64, {1});
  pos.MutableData<std::int64_t>()[0] = 7;
  const eval::ValueMap inputs{{"past_k", Sequence({1, 2, 8, 4}, -1.0f, 0.03f)},
                              {"past_v", Sequence({1, 2, 8, 4}, 2.0f, -0.05f)},
                              {"k_new", Sequence({1, 2, 2, 4}, 0.5f, 0.25f)},
                              {"v_new", Sequence({1, 2, 2, 4}, -3.0f, 0.5f)},
                              {"pos", pos},
                              {"q", Sequence({1, 2, 1, 4}, 0.1f, 0.2f)}};
  eval::RunOptions copying;
  copying.measure_memory = true;
  eval::RunStats copying_stats, in_place_stats;
  const eval::ValueMap want = eval::Run(model, inputs, copying, &copying_stats);
  eval::RunOptions in_place = InPlaceRunOptions(model, {});
  EXPECT_EQ(in_place.in_place_inputs, (std::map<int, int>{{2, 0}, {3, 0}}));
  in_place.measure_memory = true;
  const eval::ValueMap got = eval::Run(model, inputs, in_place, &in_place_stats);
  for (const char* output : {"present_k", "present_v", "h"})
    EXPECT_TRUE(std::get<Tensor>(want.at(output)) == std::get<Tensor>(got.at(output))) << output;
  EXPECT_EQ(in_place_stats.in_place_writes, 2);
  EXPECT_EQ(in_place_stats.in_place_refused, 0);
  EXPECT_LE(in_place_stats.peak_live_bytes, copying_stats.peak_live_bytes);
  // The wrapped write: head 0's position 7 holds k_new's first row, position 0 its second.
  const float* present_k = std::get<Tensor>(got.at("present_k")).Data<float>();
  EXPECT_EQ(present_k[7 * 4], 0.5f);
  EXPECT_EQ(present_k[0], 1.5f);
}

TEST(InPlaceRun, WithoutAPlanTheEvaluationIsTheUsualOne) {
  testing::RegisterMemoryTestOperators();
  const ModelProto model = ParseText(kPrivateWriter);
  eval::RunStats stats;
  const eval::ValueMap got = eval::Run(model, PrivateWriterInputs(), eval::RunOptions{}, &stats);
  EXPECT_TRUE(std::get<Tensor>(eval::Run(model, PrivateWriterInputs()).at("y")) == std::get<Tensor>(got.at("y")));
  EXPECT_EQ(stats.in_place_writes, 0);
  EXPECT_EQ(stats.peak_live_bytes, 0);  // not measured
}

TEST(InPlaceRun, CallerMemoryIsNeverWrittenEvenWhenDeclared) {
  testing::RegisterMemoryTestOperators();
  const ModelProto model = ParseText(R"(<ir_version: 8, opset_import: ["" : 18]>
    g (float[4] x, float[1] upd) => (float[4] y) <int64[1,1] idx = {1}> {
      w = ScatterND(x, idx, upd)
      y = Neg(w)
    })");
  MemoryOptions options;
  options.input_reuse = {0};
  const eval::RunOptions in_place = InPlaceRunOptions(model, options);
  ASSERT_EQ(in_place.in_place_inputs.size(), 1u);
  const eval::ValueMap inputs{{"x", Floats({1, 2, 3, 4})}, {"upd", Floats({9})}};
  eval::RunStats stats;
  const eval::ValueMap got = eval::Run(model, inputs, in_place, &stats);
  // The caller still holds x: the buffer is shared, so the write copies it.
  EXPECT_EQ(stats.in_place_refused, 1);
  EXPECT_TRUE(std::get<Tensor>(inputs.at("x")) == Floats({1, 2, 3, 4}));
  EXPECT_TRUE(std::get<Tensor>(got.at("y")) == Floats({-1, -9, -3, -4}));
}

TEST(InPlaceRun, AWrongPlanCannotChangeResults) {
  // r views z's buffer and is read after the writer: the plan refuses this write; forced
  // anyway, the evaluator sees the shared buffer and copies.
  testing::RegisterMemoryTestOperators();
  const ModelProto model = ParseText(R"(<ir_version: 8, opset_import: ["" : 18]>
    g (float[1] upd) => (float[4] y) <int64[1] shp = {4}, int64[1,1] idx = {1}, int64[2] s = {2, 2}, int64[1] f = {4}> {
      z = ConstantOfShape(shp)
      r = Reshape(z, s)
      w = ScatterND(z, idx, upd)
      rf = Reshape(r, f)
      y = Add(w, rf)
    })");
  EXPECT_TRUE(InPlaceRunOptions(model, {}).in_place_inputs.empty());
  eval::RunOptions forced;
  forced.in_place_inputs = {{2, 0}};
  const eval::ValueMap inputs{{"upd", Floats({9})}};
  eval::RunStats stats;
  const eval::ValueMap got = eval::Run(model, inputs, forced, &stats);
  EXPECT_TRUE(std::get<Tensor>(got.at("y")) == std::get<Tensor>(eval::Run(model, inputs).at("y")));
  EXPECT_EQ(stats.in_place_writes, 0);
}

}  // namespace
}  // namespace onnxopt::core::memory
