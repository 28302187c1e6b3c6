// com.microsoft Attention, MultiHeadAttention and GroupQueryAttention: small problems
// whose softmax weights are computed by hand, the layout of present key/value, and the
// refusals of what onnxruntime's CPU provider does not implement.

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <string>
#include <vector>

#include "onnx_core/eval/work_budget.h"
#include "tests/onnx_extensions/kernels/kernel_test_util.h"

namespace onnxopt::testing {
namespace {

using ::testing::AllOf;
using ::testing::HasSubstr;

std::string MsModel(const std::string& signature, const std::string& body) {
  return GraphText("\"\" : 21, \"com.microsoft\" : 1", signature, body);
}

const Tensor& Out(const core::eval::ValueMap& out, const std::string& name) {
  return core::eval::AsTensor(out.at(name), name);
}

// One head of size 2, one query q = [1, 0], keys [1, 0] and [0, 1], values [1, 2] and
// [3, 4]: scores q.k / sqrt(2) = [1/sqrt(2), 0], weights w0 = 1 / (1 + e^(-1/sqrt(2))).
std::vector<float> TwoKeyOutput(double scale = 1 / std::sqrt(2.0)) {
  const double w0 = 1 / (1 + std::exp(-scale));
  return {static_cast<float>(w0 * 1 + (1 - w0) * 3), static_cast<float>(w0 * 2 + (1 - w0) * 4)};
}

const Inputs kTwoKeys = {{"q", MakeTensor<float>({1, 1, 2}, {1, 0})},
                         {"k", MakeTensor<float>({1, 2, 2}, {1, 0, 0, 1})},
                         {"v", MakeTensor<float>({1, 2, 2}, {1, 2, 3, 4})}};

TEST(MultiHeadAttentionKernel, WeightsValuesBySoftmaxOfScaledScores) {
  const std::string sig = "(float[1,1,2] q, float[1,2,2] k, float[1,2,2] v) => (y, pk, pv)";
  const auto out =
      RunText(MsModel(sig, "y, pk, pv = com.microsoft.MultiHeadAttention <num_heads = 1> (q, k, v)"), kTwoKeys);
  EXPECT_TENSOR(Out(out, "y"), MakeTensor<float>({1, 1, 2}, TwoKeyOutput()));
  // Present key/value per head: [B, N, L, H].
  EXPECT_TENSOR(Out(out, "pk"), MakeTensor<float>({1, 1, 2, 2}, {1, 0, 0, 1}));
  EXPECT_TENSOR(Out(out, "pv"), MakeTensor<float>({1, 1, 2, 2}, {1, 2, 3, 4}));
  EXPECT_TENSOR(
      RunOne(MsModel(sig, "y, pk, pv = com.microsoft.MultiHeadAttention <num_heads = 1, scale = 2.0> (q, k, v)"),
             kTwoKeys),
      MakeTensor<float>({1, 1, 2}, TwoKeyOutput(2)));
}

TEST(MultiHeadAttentionKernel, MasksAddTheFilterValue) {
  Inputs in = kTwoKeys;
  in.push_back({"m", MakeTensor<std::int32_t>({1}, {1})});  // keys from 1 on are padding
  EXPECT_TENSOR(RunOne(MsModel("(float[1,1,2] q, float[1,2,2] k, float[1,2,2] v, int32[1] m) => (y)",
                               "y = com.microsoft.MultiHeadAttention <num_heads = 1> (q, k, v, , m)"),
                       in),
                MakeTensor<float>({1, 1, 2}, {1, 2}));
  // With mask_filter_value = 0 the mask changes nothing.
  EXPECT_TENSOR(
      RunOne(MsModel("(float[1,1,2] q, float[1,2,2] k, float[1,2,2] v, int32[1] m) => (y)",
                     "y = com.microsoft.MultiHeadAttention <num_heads = 1, mask_filter_value = 0.0> (q, k, v, , m)"),
             in),
      MakeTensor<float>({1, 1, 2}, TwoKeyOutput()));
  // attention_bias of -1000 on key 0 leaves key 1.
  Inputs biased = kTwoKeys;
  biased.push_back({"b", MakeTensor<float>({1, 1, 1, 2}, {-1000, 0})});
  EXPECT_TENSOR(RunOne(MsModel("(float[1,1,2] q, float[1,2,2] k, float[1,2,2] v, float[1,1,1,2] b) => (y)",
                               "y = com.microsoft.MultiHeadAttention <num_heads = 1> (q, k, v, , , b)"),
                       biased),
                MakeTensor<float>({1, 1, 2}, {3, 4}));
}

TEST(MultiHeadAttentionKernel, PastKeysComeFirst) {
  // Past key [1, 0] / value [1, 2], new key [0, 1] / value [3, 4]: the two-key problem.
  const auto out = RunText(
      MsModel("(float[1,1,2] q, float[1,1,2] k, float[1,1,2] v, float[1,1,1,2] pk, float[1,1,1,2] pv) => (y, ok, ov)",
              "y, ok, ov = com.microsoft.MultiHeadAttention <num_heads = 1> (q, k, v, , , , pk, pv)"),
      {{"q", MakeTensor<float>({1, 1, 2}, {1, 0})},
       {"k", MakeTensor<float>({1, 1, 2}, {0, 1})},
       {"v", MakeTensor<float>({1, 1, 2}, {3, 4})},
       {"pk", MakeTensor<float>({1, 1, 1, 2}, {1, 0})},
       {"pv", MakeTensor<float>({1, 1, 1, 2}, {1, 2})}});
  EXPECT_TENSOR(Out(out, "y"), MakeTensor<float>({1, 1, 2}, TwoKeyOutput()));
  EXPECT_TENSOR(Out(out, "ok"), MakeTensor<float>({1, 1, 2, 2}, {1, 0, 0, 1}));
}

TEST(MultiHeadAttentionKernel, RefusesWhatTheCpuProviderLacks) {
  EXPECT_THAT(
      ModelErrorOf(MsModel("(float[1,1,1,3,2] q) => (y)", "y = com.microsoft.MultiHeadAttention <num_heads = 1> (q)"),
                   {{"q", MakeTensor<float>({1, 1, 1, 3, 2}, {1, 0, 0, 1, 1, 2})}}),
      AllOf(HasSubstr("node 'y' (MultiHeadAttention)"), HasSubstr("packed QKV")));
  EXPECT_THAT(ModelErrorOf(MsModel("(float[1,1,2] q, float[1,2,2] k, float[1,2,2] v) => (y)",
                                   "y = com.microsoft.MultiHeadAttention <num_heads = 3> (q, k, v)"),
                           kTwoKeys),
              HasSubstr("not a multiple of num_heads 3"));
  Inputs bad_mask = kTwoKeys;
  bad_mask.push_back({"m", MakeTensor<std::int32_t>({1, 3}, {1, 1, 1})});
  EXPECT_THAT(ModelErrorOf(MsModel("(float[1,1,2] q, float[1,2,2] k, float[1,2,2] v, int32[1,3] m) => (y)",
                                   "y = com.microsoft.MultiHeadAttention <num_heads = 1> (q, k, v, , m)"),
                           bad_mask),
              HasSubstr("'key_padding_mask' must have shape [1], [1, 2] or [1, 1, 2]"));
  EXPECT_THAT(ModelErrorOf(MsModel("(float[1,1,2] q, float[1,2,2] k, float[1,2,2] v) => (y)",
                                   "y = com.microsoft.MultiHeadAttention (q, k, v)"),
                           kTwoKeys),
              HasSubstr("num_heads must be given"));
}

TEST(AttentionKernel, ProjectsThenAttendsCausally) {
  // Identity-like weights: q = k = v = x (hidden 2, one head), bias [0, 0 | 0, 0 | 10, 20].
  // Token 0 attends to itself only (unidirectional): its output is its value x0 + [10, 20].
  const std::string model =
      MsModel("(float[1,2,2] x, float[2,6] w, float[6] b) => (y, present)",
              "y, present = com.microsoft.Attention <num_heads = 1, unidirectional = 1> (x, w, b)");
  const auto out = RunText(model, {{"x", MakeTensor<float>({1, 2, 2}, {1, 0, 0, 1})},
                                   {"w", MakeTensor<float>({2, 6}, {1, 0, 1, 0, 1, 0, 0, 1, 0, 1, 0, 1})},
                                   {"b", MakeTensor<float>({6}, {0, 0, 0, 0, 10, 20})}});
  const Tensor& y = Out(out, "y");
  ASSERT_EQ(y.shape(), (std::vector<std::int64_t>{1, 2, 2}));
  EXPECT_FLOAT_EQ(y.Data<float>()[0], 11);
  EXPECT_FLOAT_EQ(y.Data<float>()[1], 20);
  // Token 1 = query [0, 1] against keys [1, 0], [0, 1]: weights of the two-key problem
  // swapped, values [11, 20] and [10, 21].
  const double w1 = 1 / (1 + std::exp(-1 / std::sqrt(2.0)));
  EXPECT_NEAR(y.Data<float>()[2], (1 - w1) * 11 + w1 * 10, 1e-5);
  EXPECT_NEAR(y.Data<float>()[3], (1 - w1) * 20 + w1 * 21, 1e-5);
  // present [2, B, N, T, H]: keys then values.
  EXPECT_TENSOR(Out(out, "present"), MakeTensor<float>({2, 1, 1, 2, 2}, {1, 0, 0, 1, 11, 20, 10, 21}));
}

TEST(AttentionKernel, RefusesUnsupportedInputs) {
  const Inputs in = {{"x", MakeTensor<float>({1, 2, 2}, {1, 0, 0, 1})},
                     {"w", MakeTensor<float>({2, 6}, {1, 0, 1, 0, 1, 0, 0, 1, 0, 1, 0, 1})},
                     {"b", MakeTensor<float>({6}, {0, 0, 0, 0, 0, 0})}};
  EXPECT_THAT(ModelErrorOf(MsModel("(float[1,2,2] x, float[2,6] w, float[6] b) => (y)",
                                   "y = com.microsoft.Attention <num_heads = 1, do_rotary = 1> (x, w, b)"),
                           in),
              AllOf(HasSubstr("node 'y' (Attention)"), HasSubstr("do_rotary=1")));
  Inputs mask4 = in;
  mask4.push_back({"m", MakeTensor<std::int32_t>({1, 1, 2, 2}, {1, 1, 1, 1})});
  EXPECT_THAT(ModelErrorOf(MsModel("(float[1,2,2] x, float[2,6] w, float[6] b, int32[1,1,2,2] m) => (y)",
                                   "y = com.microsoft.Attention <num_heads = 1> (x, w, b, m)"),
                           mask4),
              HasSubstr("4-D masks"));
  EXPECT_THAT(
      ModelErrorOf(MsModel("(float[1,2,2] x, float[2,6] w, float[6] b) => (y)",
                           "y = com.microsoft.Attention <num_heads = 1, qkv_hidden_sizes = [2, 1, 3]> (x, w, b)"),
                   in),
      HasSubstr("q = k"));
  // 2 * (2^62 + 4) + 2^63 - 2 wraps around to the 6 columns of the weights.
  EXPECT_EQ(ModelErrorOf(MsModel("(float[1,2,2] x, float[2,6] w, float[6] b) => (y)",
                                 "y = com.microsoft.Attention <num_heads = 1, qkv_hidden_sizes = [4611686018427387908, "
                                 "4611686018427387908, 9223372036854775806]> (x, w, b)"),
                         in),
            "node 'y' (Attention): qkv_hidden_sizes: 4611686018427387908 + 4611686018427387908 does not fit in 64 bits");
  EXPECT_THAT(
      ModelErrorOf(MsModel("(float[1,2,2] x, float[2,6] w, float[6] b) => (y)",
                           "y = com.microsoft.Attention <num_heads = 1, past_present_share_buffer = 1> (x, w, b)"),
                   in),
      HasSubstr("shared past/present buffer"));
}

// GroupQueryAttention: two query heads sharing one key/value head of size 8.
std::vector<float> Iota(int n, float start) {
  std::vector<float> v(static_cast<std::size_t>(n));
  for (int i = 0; i < n; ++i) v[static_cast<std::size_t>(i)] = start + static_cast<float>(i);
  return v;
}

TEST(GroupQueryAttentionKernel, FirstPromptIsCausalAndFillsPresent) {
  // Query row 0 sees key 0 only: both heads output value row 0.
  const auto out = RunText(
      MsModel("(float[1,2,16] q, float[1,2,8] k, float[1,2,8] v, int32[1] s, int32 t) => (y, pk, pv)",
              "y, pk, pv = com.microsoft.GroupQueryAttention <num_heads = 2, kv_num_heads = 1> (q, k, v, , , s, t)"),
      {{"q", MakeTensor<float>({1, 2, 16}, Iota(32, 0))},
       {"k", MakeTensor<float>({1, 2, 8}, Iota(16, 1))},
       {"v", MakeTensor<float>({1, 2, 8}, Iota(16, 100))},
       {"s", MakeTensor<std::int32_t>({1}, {1})},
       {"t", MakeScalar<std::int32_t>(2)}});
  const Tensor& y = Out(out, "y");
  for (int head = 0; head < 2; ++head)
    for (int i = 0; i < 8; ++i) EXPECT_FLOAT_EQ(y.Data<float>()[head * 8 + i], 100.0f + static_cast<float>(i));
  EXPECT_TENSOR(Out(out, "pk"), MakeTensor<float>({1, 1, 2, 8}, Iota(16, 1)));
}

TEST(GroupQueryAttentionKernel, TokenGenerationAppendsAfterThePast) {
  // A past buffer of 3 rows of which seqlens_k + 1 - 1 = 1 is valid: the new key goes to
  // row 1, the rest of present stays 0 (present length max(3, total 2) = 3).
  std::vector<float> past(24, 7.0f);
  const auto out = RunText(
      MsModel(
          "(float[1,1,16] q, float[1,1,8] k, float[1,1,8] v, float[1,1,3,8] pk, float[1,1,3,8] pv, int32[1] s, "
          "int32 t) => (y, ok, ov)",
          "y, ok, ov = com.microsoft.GroupQueryAttention <num_heads = 2, kv_num_heads = 1> (q, k, v, pk, pv, s, t)"),
      {{"q", MakeTensor<float>({1, 1, 16}, std::vector<float>(16, 0.0f))},
       {"k", MakeTensor<float>({1, 1, 8}, Iota(8, 1))},
       {"v", MakeTensor<float>({1, 1, 8}, Iota(8, 1))},
       {"pk", MakeTensor<float>({1, 1, 3, 8}, past)},
       {"pv", MakeTensor<float>({1, 1, 3, 8}, past)},
       {"s", MakeTensor<std::int32_t>({1}, {1})},
       {"t", MakeScalar<std::int32_t>(2)}});
  std::vector<float> present(24, 0.0f);
  for (int i = 0; i < 8; ++i)
    present[static_cast<std::size_t>(i)] = 7, present[static_cast<std::size_t>(8 + i)] = 1.0f + static_cast<float>(i);
  EXPECT_TENSOR(Out(out, "ok"), MakeTensor<float>({1, 1, 3, 8}, present));
  // A zero query weighs the two valid rows equally: (7 + (1 + i)) / 2.
  const Tensor& y = Out(out, "y");
  for (int i = 0; i < 8; ++i) EXPECT_FLOAT_EQ(y.Data<float>()[i], (7.0f + 1.0f + static_cast<float>(i)) / 2);
}

TEST(GroupQueryAttentionKernel, RefusesInconsistentLengthsAndHeads) {
  const std::string model =
      MsModel("(float[1,2,16] q, float[1,2,8] k, float[1,2,8] v, int32[1] s, int32 t) => (y, pk, pv)",
              "y, pk, pv = com.microsoft.GroupQueryAttention <num_heads = 2, kv_num_heads = 1> (q, k, v, , , s, t)");
  const auto inputs = [](std::int32_t seqlen, std::int32_t total) {
    return Inputs{{"q", MakeTensor<float>({1, 2, 16}, Iota(32, 0))},
                  {"k", MakeTensor<float>({1, 2, 8}, Iota(16, 0))},
                  {"v", MakeTensor<float>({1, 2, 8}, Iota(16, 0))},
                  {"s", MakeTensor<std::int32_t>({1}, {seqlen})},
                  {"t", MakeScalar<std::int32_t>(total)}};
  };
  EXPECT_THAT(ModelErrorOf(model, inputs(5, 2)),
              AllOf(HasSubstr("node 'y' (GroupQueryAttention)"), HasSubstr("seqlens_k[0] + 1 = 6")));
  EXPECT_THAT(ModelErrorOf(model, inputs(-3, 2)), HasSubstr("seqlens_k[0] + 1 = -2"));
  // Not a first prompt (2 != 3) without a past: no room for the past tokens.
  EXPECT_THAT(ModelErrorOf(model, inputs(2, 3)), HasSubstr("does not fit"));
  EXPECT_THAT(
      ModelErrorOf(MsModel("(float[1,2,16] q, float[1,2,8] k, float[1,2,8] v, int32[1] s, int32 t) => (y, pk, pv)",
                           "y, pk, pv = com.microsoft.GroupQueryAttention <num_heads = 2, kv_num_heads = 3> "
                           "(q, k, v, , , s, t)"),
                   inputs(1, 2)),
      HasSubstr("multiple of kv_num_heads 3"));
  EXPECT_THAT(
      ModelErrorOf(MsModel("(float[1,2,16] q, float[1,2,8] k, float[1,2,8] v, int32[1] s, int32 t) => (y, pk, pv)",
                           "y, pk, pv = com.microsoft.GroupQueryAttention <num_heads = 4, kv_num_heads = 1> "
                           "(q, k, v, , , s, t)"),
                   inputs(1, 2)),
      HasSubstr("multiple of 8"));
  EXPECT_THAT(
      ModelErrorOf(MsModel("(float[1,2,16] q, float[1,2,8] k, float[1,2,8] v, int32[1] s, int32 t) => (y, pk, pv)",
                           "y, pk, pv = com.microsoft.GroupQueryAttention <num_heads = 2, kv_num_heads = 1, "
                           "do_rotary = 1> (q, k, v, , , s, t)"),
                   inputs(1, 2)),
      HasSubstr("needs inputs cos_cache and sin_cache"));
  EXPECT_THAT(
      ModelErrorOf(MsModel("(float[1,2,16] q, float[1,2,8] k, float[1,2,8] v, int32[1] s, int32 t) => (y, pk, pv)",
                           "y, pk, pv = com.microsoft.GroupQueryAttention <num_heads = 4611686018427387904, "
                           "kv_num_heads = 1> (q, k, v, , , s, t)"),
                   inputs(1, 2)),
      HasSubstr("must not exceed the query's hidden size 16"));
  EXPECT_THAT(
      ModelErrorOf(MsModel("(float[1,2,16] q, float[1,2,8] k, float[1,2,8] v, int32[1] s, int32 t) => (y, pk, pv)",
                           "y, pk, pv = com.microsoft.GroupQueryAttention <num_heads = 2, kv_num_heads = 1, "
                           "causal = 0> (q, k, v, , , s, t)"),
                   inputs(1, 2)),
      HasSubstr("non-causal attention"));
}

TEST(GroupQueryAttentionKernel, RefusesRotaryPositionsOutsideTheCaches) {
  // Head size 16 rotated whole by caches of 8 columns (onnxruntime requires a multiple of 8).
  const std::string model = MsModel(
      "(float[1,2,32] q, float[1,2,16] k, float[1,2,16] v, int32[1] s, int32 t, float[4,8] c, float[4,8] n, "
      "int64[1,2] p) => (y, pk, pv)",
      "y, pk, pv = com.microsoft.GroupQueryAttention <num_heads = 2, kv_num_heads = 1, do_rotary = 1> "
      "(q, k, v, , , s, t, c, n, p)");
  const auto inputs = [](std::int64_t first) {
    return Inputs{{"q", MakeTensor<float>({1, 2, 32}, Iota(64, 0))},
                  {"k", MakeTensor<float>({1, 2, 16}, Iota(32, 0))},
                  {"v", MakeTensor<float>({1, 2, 16}, Iota(32, 0))},
                  {"s", MakeTensor<std::int32_t>({1}, {1})},
                  {"t", MakeScalar<std::int32_t>(2)},
                  {"c", MakeTensor<float>({4, 8}, std::vector<float>(32, 1.0f))},
                  {"n", MakeTensor<float>({4, 8}, std::vector<float>(32, 0.0f))},
                  {"p", MakeTensor<std::int64_t>({1, 2}, {first, 0})}};
  };
  // cos = 1, sin = 0: the rotation is the identity; query row 0 sees value row 0 only.
  const auto out = RunText(model, inputs(2));
  for (int i = 0; i < 16; ++i) EXPECT_FLOAT_EQ(Out(out, "y").Data<float>()[i], static_cast<float>(i));
  // The first prompt counts up from position_ids[0][0]: 3 + 1 is beyond the 4 rows.
  EXPECT_THAT(ModelErrorOf(model, inputs(3)), HasSubstr("rotary position 4 is outside the 4 rows"));
  EXPECT_THAT(ModelErrorOf(model, inputs(std::int64_t{1} << 62)),
              HasSubstr("position_ids[0][0] = 4611686018427387904"));
  EXPECT_THAT(ModelErrorOf(model, inputs(-1)), HasSubstr("position_ids[0][0] = -1"));
}

TEST(MultiHeadAttentionKernel, ChargesTheSoftmaxOfEveryHeadsScores) {
  // 4 heads of size 1, 3 queries, 5 keys: 3 * 4 * 3 * 5 = 180 softmax steps, then per head
  // 3 * 5 * 1 multiply-adds for the scores and as many for the values (4 * 30 = 120). The
  // heads reuse one buffer of scores: 8192 heads of size 1 over 2048 positions (64 MB)
  // computed 2^35 scores for over 2 minutes, uncharged.
  const std::string model = MsModel("(float[1,3,4] q, float[1,5,4] k, float[1,5,4] v) => (float[1,3,4] y)",
                                    "y = com.microsoft.MultiHeadAttention <num_heads = 4> (q, k, v)");
  const Inputs in = {{"q", Tensor(TensorProto::FLOAT, {1, 3, 4})},
                     {"k", Tensor(TensorProto::FLOAT, {1, 5, 4})},
                     {"v", MakeTensor<float>({1, 5, 4}, std::vector<float>(20, 2.0f))}};
  core::eval::WorkBudget enough(300, "the test's budget");
  {
    const core::eval::ScopedWorkBudget scope(enough);
    EXPECT_TENSOR(RunOne(model, in), MakeTensor<float>({1, 3, 4}, std::vector<float>(12, 2.0f)));
  }
  EXPECT_EQ(enough.spent(), 300u);
  core::eval::WorkBudget small(179, "the test's budget");
  const core::eval::ScopedWorkBudget scope(small);
  EXPECT_EQ(ModelErrorOf(model, in),
            "node 'y' (MultiHeadAttention): the softmax of the attention scores: 180 steps, more than the 179 left "
            "of the test's budget (179 steps)");
}

}  // namespace
}  // namespace onnxopt::testing
