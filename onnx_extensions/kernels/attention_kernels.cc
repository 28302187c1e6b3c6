// The com.microsoft attention operators that onnxruntime's transformer optimizer emits
// (Attention, MultiHeadAttention, GroupQueryAttention), with the semantics of
// onnxruntime's CPU provider (docs/ContribOperators.md, checked against onnxruntime-node
// by tests/differential/cases/attention.py). Inputs that provider does not implement
// (packed QKV for MultiHeadAttention, 4-D Megatron masks, rotary embedding inside
// Attention, shared past/present buffers, beam-search cache indirection) are refused with
// a ModelError saying so.
//
// Every operator reduces to one scaled dot-product attention over heads (Attend):
// Q [B, N, S, H], K [B, N_kv, T, H], V [B, N_kv, T, H_v] in float (float16 and bfloat16
// are read as float and the results rounded once), scores = scale * Q K^T plus
// operator-specific terms, a softmax per query row over the keys that row may see, and
// out [B, S, N * H_v] = softmax * V. As in onnxruntime, Attention and MultiHeadAttention
// mask by adding mask_filter_value (-10000 by default) to the scores, so a fully masked
// row still averages its values; GroupQueryAttention excludes the keys outside its causal
// window from the softmax.

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <initializer_list>
#include <limits>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "onnx_core/eval/kernel_registry.h"
#include "onnx_extensions/kernels/kernel_groups.h"
#include "onnx_extensions/kernels/kernel_helpers.h"
#include "onnx_extensions/kernels/kernel_signature.h"
#include "onnx_extensions/kernels/nn_helpers.h"

namespace onnxopt::onnx_kernels {
namespace {

constexpr const char* kMs = "com.microsoft";
constexpr std::initializer_list<int> kAttentionTypes = {TensorProto::FLOAT, TensorProto::FLOAT16,
                                                        TensorProto::BFLOAT16};

std::string Dims(const Shape& shape) { return ShapeToString(shape); }

// A float tensor of `shape` (the evaluator's size limit applies).
Tensor FloatTensor(const Shape& shape) { return Tensor(TensorProto::FLOAT, shape); }

// The float values of input i, which must have the element type of input 0.
std::vector<float> SameTypeFloats(const KernelContext& ctx, std::size_t i, std::string_view what) {
  return nn::ReadAs<float>(TypedInput(ctx, i, what, {ctx.TensorInput(0).elem_type()}));
}

std::int64_t PositiveIntAttribute(const KernelContext& ctx, std::string_view name) {
  const auto v = ctx.IntAttribute(name);
  if (!v || *v <= 0)
    Fail("attribute " + std::string(name) + " must be given and positive, found " +
         (v ? std::to_string(*v) : std::string("none")));
  return *v;
}

// Heads ---------------------------------------------------------------------------------

// [B, N, L, H] from rows of a [B, L, row] layout where head n of row (b, l) starts at
// column offset + n * H.
Tensor SplitHeads(const float* x, std::int64_t batch, std::int64_t length, std::int64_t heads, std::int64_t size,
                  std::int64_t row, std::int64_t offset) {
  Tensor out = FloatTensor({batch, heads, length, size});
  float* o = out.MutableData<float>();
  for (std::int64_t b = 0; b < batch; ++b)
    for (std::int64_t n = 0; n < heads; ++n)
      for (std::int64_t l = 0; l < length; ++l)
        std::copy_n(x + (b * length + l) * row + offset + n * size, size, o + ((b * heads + n) * length + l) * size);
  return out;
}

// [B, N, P + L, H]: rows [0, P) from past ([B, N, P, H]), then rows [P, P + L) from
// current ([B, N, L, H]).
Tensor ConcatPast(const float* past, std::int64_t past_length, const Tensor& current) {
  const Shape& s = current.shape();
  const std::int64_t batch_heads = s[0] * s[1], length = s[2], size = s[3];
  Tensor out = FloatTensor({s[0], s[1], past_length + length, size});
  float* o = out.MutableData<float>();
  const float* c = current.Data<float>();
  for (std::int64_t i = 0; i < batch_heads; ++i) {
    float* dst = o + i * (past_length + length) * size;
    if (past_length > 0) std::copy_n(past + i * past_length * size, past_length * size, dst);
    std::copy_n(c + i * length * size, length * size, dst + past_length * size);
  }
  return out;
}

// Scaled dot-product attention ----------------------------------------------------------

// The keys a query row sees: [begin, end) of the T keys; the others get probability 0.
struct KeyRange {
  std::int64_t begin, end;
};

struct SoftmaxOptions {
  bool smooth = false;           // an extra exp(sink) term in the denominator
  const float* sinks = nullptr;  // per head; 0 when smooth without sinks
};

// What GroupQueryAttention's qk_output writes: the scores before the softmax or the
// probabilities after it, 0 outside each row's key range.
enum class QkOutput { kNone = 0, kScores = 1, kProbabilities = 2 };

// adjust(b, n, scores) adds the operator's terms to the S x T scores of (b, n);
// keys(b, s) gives the key range of query row s of batch b.
template <class Adjust, class Keys>
Tensor Attend(const Tensor& q, const Tensor& k, const Tensor& v, float scale, const SoftmaxOptions& softmax,
              Adjust&& adjust, Keys&& keys, QkOutput qk_mode = QkOutput::kNone, Tensor* qk = nullptr) {
  const std::int64_t batch = q.shape()[0], heads = q.shape()[1], q_len = q.shape()[2], size = q.shape()[3];
  const std::int64_t kv_heads = k.shape()[1], kv_len = k.shape()[2], v_size = v.shape()[3];
  const std::int64_t group = heads / kv_heads;
  // The products charge their multiply-adds, but every head's scores go through one reused
  // buffer, so nothing bounds B * N * S * T by the data: 8192 heads of size 1 over 2048
  // positions are 64 MB of input and 2^35 scores (over 2 minutes). The softmax passes over
  // each score three times (maximum, exponential, normalization).
  ChargeWork(3.0 * static_cast<double>(batch) * static_cast<double>(heads) * static_cast<double>(q_len) *
                 static_cast<double>(kv_len),
             "the softmax of the attention scores");
  Tensor out = FloatTensor({batch, q_len, heads * v_size});
  if (qk_mode != QkOutput::kNone) *qk = FloatTensor({batch, heads, q_len, kv_len});
  if (out.size() == 0 && (qk_mode == QkOutput::kNone || qk->size() == 0)) return out;
  Tensor scores_buffer = FloatTensor({q_len, kv_len});
  float* scores = scores_buffer.MutableData<float>();
  float* o = out.MutableData<float>();
  for (std::int64_t b = 0; b < batch; ++b) {
    for (std::int64_t n = 0; n < heads; ++n) {
      const float* qh = q.Data<float>() + (b * heads + n) * q_len * size;
      const float* kh = k.Data<float>() + (b * kv_heads + n / group) * kv_len * size;
      const float* vh = v.Data<float>() + (b * kv_heads + n / group) * kv_len * v_size;
      nn::Gemm<float>(q_len, kv_len, size, scale, qh, size, false, kh, size, true, scores, kv_len, false);
      adjust(b, n, scores);
      const float sink = softmax.sinks ? softmax.sinks[n] : 0.0f;
      for (std::int64_t s = 0; s < q_len; ++s) {
        float* row = scores + s * kv_len;
        const KeyRange r = keys(b, s);
        float* qk_row =
            qk_mode == QkOutput::kNone ? nullptr : qk->MutableData<float>() + ((b * heads + n) * q_len + s) * kv_len;
        if (qk_mode == QkOutput::kScores)
          for (std::int64_t t = 0; t < kv_len; ++t) qk_row[t] = t >= r.begin && t < r.end ? row[t] : 0.0f;
        float max = softmax.smooth ? sink : -std::numeric_limits<float>::infinity();
        for (std::int64_t t = r.begin; t < r.end; ++t) max = std::max(max, row[t]);
        double sum = softmax.smooth ? std::exp(static_cast<double>(sink) - max) : 0.0;
        for (std::int64_t t = r.begin; t < r.end; ++t) sum += row[t] = std::exp(row[t] - max);
        for (std::int64_t t = 0; t < kv_len; ++t)
          row[t] = t >= r.begin && t < r.end ? static_cast<float>(row[t] / sum) : 0.0f;
        if (qk_mode == QkOutput::kProbabilities) std::copy_n(row, kv_len, qk_row);
      }
      nn::Gemm<float>(q_len, v_size, kv_len, 1.0f, scores, kv_len, false, vh, v_size, false,
                      o + b * q_len * heads * v_size + n * v_size, heads * v_size, false);
    }
  }
  return out;
}

// Additive terms of Attention and MultiHeadAttention ----------------------------------

// attention_bias [B or 1, N or 1, S, T], added to the scaled scores.
struct AttentionBias {
  std::vector<float> values;
  Shape shape;

  static std::optional<AttentionBias> Read(const KernelContext& ctx, std::size_t i, std::int64_t batch,
                                           std::int64_t heads, std::int64_t q_len, std::int64_t kv_len) {
    if (!ctx.HasInput(i)) return std::nullopt;
    AttentionBias bias{SameTypeFloats(ctx, i, "input 'attention_bias'"), ctx.TensorInput(i).shape()};
    const Shape& s = bias.shape;
    if (s.size() != 4 || (s[0] != 1 && s[0] != batch) || (s[1] != 1 && s[1] != heads) || s[2] != q_len ||
        s[3] != kv_len)
      Fail("input 'attention_bias' must have shape [" + std::to_string(batch) + " or 1, " + std::to_string(heads) +
           " or 1, " + std::to_string(q_len) + ", " + std::to_string(kv_len) + "], found " + Dims(s));
    return bias;
  }
  // The [S, T] bias of (b, n); columns are the first `columns` of each row.
  void Add(std::int64_t b, std::int64_t n, float* scores, std::int64_t columns) const {
    const std::int64_t q_len = shape[2], kv_len = shape[3];
    const float* src = values.data() + ((shape[0] == 1 ? 0 : b) * shape[1] + (shape[1] == 1 ? 0 : n)) * q_len * kv_len;
    for (std::int64_t s = 0; s < q_len; ++s)
      for (std::int64_t t = 0; t < kv_len; ++t) scores[s * columns + t] += src[s * kv_len + t];
  }
};

// The [B, S, T] mask of Attention's mask_index / MultiHeadAttention's key_padding_mask as
// onnxruntime's CPU provider builds it: 0 where a key is visible, mask_filter_value where
// it is not. Formats: [B] (the end of each batch's keys: right padding), [2B] (ends, then
// starts: left padding too), [B, T] (1 visible, 0 masked), [B, S, T]; causal (when S > 1)
// masks the keys after P + s for query row s.
struct PaddingMask {
  Tensor values;  // [B, S, T] float; undefined: no mask

  static PaddingMask Build(const KernelContext& ctx, std::size_t input, std::string_view what,
                           bool allow_start_positions, std::int64_t batch, std::int64_t q_len, std::int64_t past,
                           std::int64_t kv_len, bool causal, float filter) {
    const std::int64_t total = past + kv_len;
    PaddingMask m;
    const bool has_mask = ctx.HasInput(input);
    if (!has_mask && !(causal && q_len > 1)) return m;
    m.values = FloatTensor({batch, q_len, total});
    float* values = m.values.MutableData<float>();
    if (has_mask) {
      const Tensor& mask = TypedInput(ctx, input, what, {TensorProto::INT32});
      const std::vector<std::int64_t> v = mask.ToInt64Vector();
      const Shape& s = mask.shape();
      const auto at = [&](std::int64_t b, std::int64_t q, std::int64_t t) -> float& {
        return values[(b * q_len + q) * total + t];
      };
      if (s.size() == 1 && (s[0] == batch || (allow_start_positions && s[0] == 2 * batch))) {
        for (std::int64_t b = 0; b < batch; ++b) {
          const std::int64_t end = std::clamp<std::int64_t>(v[static_cast<std::size_t>(b)], 0, total);
          const std::int64_t start =
              s[0] == 2 * batch ? std::clamp<std::int64_t>(v[static_cast<std::size_t>(batch + b)], 0, total) : 0;
          for (std::int64_t q = 0; q < q_len; ++q)
            for (std::int64_t t = 0; t < total; ++t)
              if (t >= end || t < start) at(b, q, t) = filter;
        }
      } else if (s.size() == 2 && s[0] == batch && s[1] == total) {
        for (std::int64_t b = 0; b < batch; ++b)
          for (std::int64_t q = 0; q < q_len; ++q)
            for (std::int64_t t = 0; t < total; ++t)
              if (v[static_cast<std::size_t>(b * total + t)] <= 0) at(b, q, t) = filter;
      } else if (s.size() == 3 && s[0] == batch && s[1] == q_len && s[2] == total) {
        for (std::size_t i = 0; i < v.size(); ++i)
          if (v[i] <= 0) values[i] = filter;
      } else {
        Fail(std::string(what) + " must have shape [" + std::to_string(batch) + "]" +
             (allow_start_positions ? ", [" + std::to_string(2 * batch) + "]" : "") + ", [" + std::to_string(batch) +
             ", " + std::to_string(total) + "] or [" + std::to_string(batch) + ", " + std::to_string(q_len) + ", " +
             std::to_string(total) + "], found " + Dims(s) +
             (s.size() == 4 ? " (4-D masks are not implemented by onnxruntime's CPU provider either)" : ""));
      }
    }
    if (causal && q_len > 1)
      for (std::int64_t b = 0; b < batch; ++b)
        for (std::int64_t q = 0; q < q_len; ++q)
          for (std::int64_t t = past + q + 1; t < total; ++t) values[(b * q_len + q) * total + t] = filter;
    return m;
  }

  void Add(std::int64_t b, float* scores, std::int64_t q_len, std::int64_t total) const {
    if (!values.defined()) return;
    const float* src = values.Data<float>() + b * q_len * total;
    for (std::int64_t i = 0; i < q_len * total; ++i) scores[i] += src[i];
  }
};

// scale, or onnxruntime's default 1/sqrt(head size) when it is absent or 0.
float ScaleAttribute(const KernelContext& ctx, std::int64_t head_size) {
  const float scale = ctx.FloatAttribute("scale").value_or(0.0f);
  return scale == 0.0f ? 1.0f / std::sqrt(static_cast<float>(head_size)) : scale;
}

// The attention of Attention and MultiHeadAttention: Q [B, N, S, H] against K and V
// [B, N, past + L, H], every key visible, the padding / causal mask (input mask_input,
// attributes unidirectional and mask_filter_value) and attention_bias (input 5) added to
// the scaled scores.
Tensor AttendWithAdditiveMask(const KernelContext& ctx, const Tensor& q, const Tensor& k, const Tensor& v,
                              std::size_t mask_input, std::string_view mask_what, bool start_positions,
                              std::int64_t past_len) {
  const std::int64_t batch = q.shape()[0], heads = q.shape()[1], q_len = q.shape()[2], total = k.shape()[2];
  const PaddingMask mask = PaddingMask::Build(ctx, mask_input, mask_what, start_positions, batch, q_len, past_len,
                                              total - past_len, ctx.IntAttribute("unidirectional").value_or(0) != 0,
                                              ctx.FloatAttribute("mask_filter_value").value_or(-10000.0f));
  const auto bias = AttentionBias::Read(ctx, 5, batch, heads, q_len, total);
  return Attend(
      q, k, v, ScaleAttribute(ctx, q.shape()[3]), {},
      [&](std::int64_t b, std::int64_t n, float* scores) {
        mask.Add(b, scores, q_len, total);
        if (bias) bias->Add(b, n, scores, total);
      },
      [&](std::int64_t, std::int64_t) {
        return KeyRange{0, total};
      });
}

// Attention (com.microsoft) --------------------------------------------------------------

// Attention(input [B, S, D_in], weights [D_in, D_q + D_k + D_v], bias?, mask_index?,
// past [2, B, N, P, H]?, attention_bias?, past_sequence_length?) ->
// (output [B, S, D_v], present [2, B, N, P + S, H]?).
std::vector<Value> AttentionKernel(KernelContext& ctx) {
  CheckArity(ctx, 2, 7, 2);
  const Tensor& x = TypedInput(ctx, 0, "input 'input'", kAttentionTypes);
  const Tensor& w = TypedInput(ctx, 1, "input 'weights'", {x.elem_type()});
  const std::int64_t heads = PositiveIntAttribute(ctx, "num_heads");
  if (ctx.IntAttribute("do_rotary").value_or(0) != 0)
    Fail(
        "do_rotary=1 is not implemented by onnxruntime's CPU provider (it suggests MultiHeadAttention with "
        "RotaryEmbedding); onnxopt refuses it too");
  if (ctx.IntAttribute("past_present_share_buffer").value_or(0) != 0 || ctx.HasInput(6))
    Fail("past_present_share_buffer and input 'past_sequence_length' (a shared past/present buffer) are not supported");
  if (x.rank() != 3) Fail("input 'input' must have shape [batch, sequence, hidden], found " + Dims(x.shape()));
  const std::int64_t batch = x.shape()[0], q_len = x.shape()[1], in_hidden = x.shape()[2];
  if (w.rank() != 2 || w.shape()[0] != in_hidden)
    Fail("input 'weights' must have shape [" + std::to_string(in_hidden) + ", q + k + v hidden], found " +
         Dims(w.shape()));
  const std::int64_t total_hidden = w.shape()[1];
  std::vector<std::int64_t> sizes =
      ctx.IntsAttribute("qkv_hidden_sizes")
          .value_or(std::vector<std::int64_t>(3, total_hidden % 3 == 0 ? total_hidden / 3 : 0));
  // Summed with overflow checks: sizes near 2^62 wrapped around to the weights' columns.
  if (sizes.size() != 3 || sizes[0] <= 0 || sizes[0] != sizes[1] || sizes[2] <= 0 ||
      CheckedAdd(CheckedAdd(sizes[0], sizes[1], "qkv_hidden_sizes"), sizes[2], "qkv_hidden_sizes") != total_hidden ||
      sizes[0] % heads != 0 || sizes[2] % heads != 0)
    Fail("the weights' " + std::to_string(total_hidden) +
         " columns must split into q, k, v hidden sizes (qkv_hidden_sizes, or three equal parts) with q = k and "
         "each a multiple of num_heads " +
         std::to_string(heads));
  const std::int64_t q_hidden = sizes[0];
  const std::int64_t size = q_hidden / heads, v_size = sizes[2] / heads;

  // Projections: [B * S, q + k + v] = input * weights + bias.
  Tensor projected = FloatTensor({batch * q_len, total_hidden});
  {
    const std::vector<float> xv = nn::ReadAs<float>(x), wv = nn::ReadAs<float>(w);
    float* p = projected.MutableData<float>();
    nn::Gemm<float>(batch * q_len, total_hidden, in_hidden, 1.0f, xv.data(), in_hidden, false, wv.data(), total_hidden,
                    false, p, total_hidden, false);
    if (ctx.HasInput(2)) {
      const Tensor& bias = TypedInput(ctx, 2, "input 'bias'", {x.elem_type()});
      if (bias.shape() != Shape{total_hidden})
        Fail("input 'bias' must have shape [" + std::to_string(total_hidden) + "], found " + Dims(bias.shape()));
      const std::vector<float> bv = nn::ReadAs<float>(bias);
      for (std::int64_t r = 0; r < batch * q_len; ++r)
        for (std::int64_t c = 0; c < total_hidden; ++c) p[r * total_hidden + c] += bv[static_cast<std::size_t>(c)];
    }
  }
  const float* p = projected.Data<float>();
  const Tensor q = SplitHeads(p, batch, q_len, heads, size, total_hidden, 0);
  Tensor k = SplitHeads(p, batch, q_len, heads, size, total_hidden, q_hidden);
  Tensor v = SplitHeads(p, batch, q_len, heads, v_size, total_hidden, 2 * q_hidden);

  std::int64_t past_len = 0;
  if (ctx.HasInput(4)) {
    const Tensor& past = TypedInput(ctx, 4, "input 'past'", {x.elem_type()});
    const Shape& s = past.shape();
    if (v_size != size) Fail("input 'past' needs equal q, k and v hidden sizes");
    if (s.size() != 5 || s[0] != 2 || s[1] != batch || s[2] != heads || s[4] != size)
      Fail("input 'past' must have shape [2, " + std::to_string(batch) + ", " + std::to_string(heads) +
           ", past_sequence, " + std::to_string(size) + "], found " + Dims(s));
    past_len = s[3];
    const std::vector<float> pv = nn::ReadAs<float>(past);
    k = ConcatPast(pv.data(), past_len, k);
    v = ConcatPast(pv.data() + pv.size() / 2, past_len, v);
  }
  const std::int64_t total = past_len + q_len;
  std::vector<Value> outputs(ctx.OutputCount());
  outputs[0] =
      FromComputeType(AttendWithAdditiveMask(ctx, q, k, v, 3, "input 'mask_index'", true, past_len), x.elem_type());
  if (ctx.HasOutput(1)) {
    Tensor present = FloatTensor({2, batch, heads, total, size});
    std::copy_n(k.Data<float>(), k.size(), present.MutableData<float>());
    std::copy_n(v.Data<float>(), v.size(), present.MutableData<float>() + k.size());
    outputs[1] = FromComputeType(present, x.elem_type());
  }
  return outputs;
}

// MultiHeadAttention ---------------------------------------------------------------------

// MultiHeadAttention(query [B, S, D], key [B, L, D] or [B, N, L, H], value (like key),
// bias [D + D + D_v]?, key_padding_mask?, attention_bias?, past_key [B, N, P, H]?,
// past_value?) -> (output [B, S, D_v], present_key [B, N, P + L, H]?, present_value?).
// Keys and values given per head (4-D) are already projected: only the query's bias
// applies to them. onnxruntime ignores past_key and past_value when present_key and
// present_value are not requested; onnxopt always attends to them, as documented.
std::vector<Value> MultiHeadAttentionKernel(KernelContext& ctx) {
  CheckArity(ctx, 1, 10, 4);
  const Tensor& query = TypedInput(ctx, 0, "input 'query'", kAttentionTypes);
  const std::int64_t heads = PositiveIntAttribute(ctx, "num_heads");
  if (query.rank() == 5)
    Fail("packed QKV (a 5-D query) is not implemented by onnxruntime's CPU provider; not supported");
  if (query.rank() != 3) Fail("input 'query' must have shape [batch, sequence, hidden], found " + Dims(query.shape()));
  if (!ctx.HasInput(1) || !ctx.HasInput(2))
    Fail("needs inputs key and value (packed KV is not implemented by onnxruntime's CPU provider; not supported)");
  if (ctx.HasInput(8) || ctx.HasInput(9))
    Fail("inputs past_sequence_length and cache_indirection (shared buffers, beam search) are not supported");
  if (ctx.HasOutput(3)) Fail("output qk is not supported");
  const std::int64_t batch = query.shape()[0], q_len = query.shape()[1], hidden = query.shape()[2];
  if (hidden % heads != 0)
    Fail("the query's hidden size " + std::to_string(hidden) + " is not a multiple of num_heads " +
         std::to_string(heads));
  const std::int64_t size = hidden / heads;
  const Tensor& key = TypedInput(ctx, 1, "input 'key'", {query.elem_type()});
  const Tensor& value = TypedInput(ctx, 2, "input 'value'", {query.elem_type()});
  const bool per_head = key.rank() == 4;
  if (key.rank() == 5) Fail("packed KV (a 5-D key) is not implemented by onnxruntime's CPU provider; not supported");
  const Shape& ks = key.shape();
  const Shape& vs = value.shape();
  std::int64_t kv_len = 0, v_size = 0;
  if (!per_head) {
    if (ks.size() != 3 || ks[0] != batch || ks[2] != hidden || vs.size() != 3 || vs[0] != batch || vs[1] != ks[1] ||
        vs[2] % heads != 0)
      Fail("inputs key and value must have shapes [" + std::to_string(batch) + ", L, " + std::to_string(hidden) +
           "] and [" + std::to_string(batch) + ", L, a multiple of num_heads] (or per head, 4-D), found " + Dims(ks) +
           " and " + Dims(vs));
    kv_len = ks[1], v_size = vs[2] / heads;
  } else {
    if (ks.size() != 4 || ks[0] != batch || ks[1] != heads || ks[3] != size || vs.size() != 4 || vs[0] != batch ||
        vs[1] != heads || vs[2] != ks[2])
      Fail("inputs key and value given per head must have shapes [" + std::to_string(batch) + ", " +
           std::to_string(heads) + ", L, " + std::to_string(size) + "] and [" + std::to_string(batch) + ", " +
           std::to_string(heads) + ", L, head size of V], found " + Dims(ks) + " and " + Dims(vs));
    kv_len = ks[2], v_size = vs[3];
  }
  const std::int64_t v_hidden = v_size * heads;

  std::vector<float> qv = nn::ReadAs<float>(query), kv = nn::ReadAs<float>(key), vv = nn::ReadAs<float>(value);
  if (ctx.HasInput(3)) {
    const std::vector<float> bias = SameTypeFloats(ctx, 3, "input 'bias'");
    if (ctx.TensorInput(3).shape() != Shape{2 * hidden + v_hidden})
      Fail("input 'bias' must have shape [" + std::to_string(2 * hidden + v_hidden) + "], found " +
           Dims(ctx.TensorInput(3).shape()));
    const auto add = [](std::vector<float>& x, const float* b, std::int64_t width) {
      for (std::size_t i = 0; i < x.size(); ++i) x[i] += b[static_cast<std::int64_t>(i) % width];
    };
    add(qv, bias.data(), hidden);
    if (!per_head) add(kv, bias.data() + hidden, hidden), add(vv, bias.data() + 2 * hidden, v_hidden);
  }
  const Tensor q = SplitHeads(qv.data(), batch, q_len, heads, size, hidden, 0);
  Tensor k =
      per_head ? nn::WriteAs(TensorProto::FLOAT, ks, kv) : SplitHeads(kv.data(), batch, kv_len, heads, size, hidden, 0);
  Tensor v = per_head ? nn::WriteAs(TensorProto::FLOAT, vs, vv)
                      : SplitHeads(vv.data(), batch, kv_len, heads, v_size, v_hidden, 0);

  std::int64_t past_len = 0;
  if (ctx.HasInput(6) != ctx.HasInput(7)) Fail("inputs past_key and past_value must be given together");
  if (ctx.HasInput(6)) {
    const Tensor& pk = TypedInput(ctx, 6, "input 'past_key'", {query.elem_type()});
    const Tensor& pv = TypedInput(ctx, 7, "input 'past_value'", {query.elem_type()});
    past_len = pk.rank() == 4 ? pk.shape()[2] : -1;
    if (pk.shape() != Shape{batch, heads, past_len, size} || pv.shape() != Shape{batch, heads, past_len, v_size})
      Fail("inputs past_key and past_value must have shapes [" + std::to_string(batch) + ", " + std::to_string(heads) +
           ", P, " + std::to_string(size) + "] and [" + std::to_string(batch) + ", " + std::to_string(heads) + ", P, " +
           std::to_string(v_size) + "], found " + Dims(pk.shape()) + " and " + Dims(pv.shape()));
    k = ConcatPast(nn::ReadAs<float>(pk).data(), past_len, k);
    v = ConcatPast(nn::ReadAs<float>(pv).data(), past_len, v);
  }
  std::vector<Value> outputs(ctx.OutputCount());
  outputs[0] = FromComputeType(AttendWithAdditiveMask(ctx, q, k, v, 4, "input 'key_padding_mask'", false, past_len),
                               query.elem_type());
  if (ctx.HasOutput(1)) outputs[1] = FromComputeType(k, query.elem_type());
  if (ctx.HasOutput(2)) outputs[2] = FromComputeType(v, query.elem_type());
  return outputs;
}

// GroupQueryAttention --------------------------------------------------------------------

// Rotary embedding of the first rot_dim values of each head of x [B, N, S, H] in place:
// halves (x[i], x[i + rot/2]) or interleaved pairs (x[2i], x[2i+1]) rotate by the angle
// of position(b, s), whose cosines and sines are the rows of the caches.
void RotateHeads(Tensor& x, const std::vector<float>& cos, const std::vector<float>& sin, std::int64_t half,
                 bool interleaved, const std::vector<std::int64_t>& positions) {
  const Shape& s = x.shape();
  nn::ApplyRotary<float>(x.MutableData<float>(), s[0], s[2], s[1], s[3], true, 2 * half, interleaved,
                         [&](std::int64_t b, std::int64_t q) {
                           const std::int64_t p = positions[static_cast<std::size_t>(b * s[2] + q)];
                           return std::pair{cos.data() + p * half, sin.data() + p * half};
                         });
}

// GroupQueryAttention(query, key?, value?, past_key?, past_value?, seqlens_k,
// total_sequence_length, cos_cache?, sin_cache?, position_ids?, attention_bias?,
// head_sink?) -> (output [B, S, N * H], present_key [B, N_kv, T, H], present_value,
// output_qk?). Causal: batch b holds seqlens_k[b] + 1 tokens; its queries are the last S
// of them (the first prompt: S == total_sequence_length, positions from 0), query s sees
// the keys up to its own position (and no more than local_window_size + 1 of them).
std::vector<Value> GroupQueryAttentionKernel(KernelContext& ctx) {
  CheckArity(ctx, 7, 12, 4);
  const Tensor& query = TypedInput(ctx, 0, "input 'query'", kAttentionTypes);
  const std::int64_t heads = PositiveIntAttribute(ctx, "num_heads");
  const std::int64_t kv_heads = PositiveIntAttribute(ctx, "kv_num_heads");
  if (heads % kv_heads != 0)
    Fail("num_heads " + std::to_string(heads) + " must be a multiple of kv_num_heads " + std::to_string(kv_heads));
  // Attributes of later onnxruntime versions (after 1.23) that change the computation.
  if (ctx.IntAttribute("causal").value_or(1) != 1 || ctx.IntAttribute("sliding_window_cache").value_or(0) != 0 ||
      ctx.StringAttribute("k_quant_type").value_or("NONE") != "NONE" ||
      ctx.StringAttribute("v_quant_type").value_or("NONE") != "NONE")
    Fail("non-causal attention, sliding-window caches and quantized caches (attributes causal, "
         "sliding_window_cache, k_quant_type, v_quant_type) are not supported");
  if (query.rank() != 3) Fail("input 'query' must have shape [batch, sequence, hidden], found " + Dims(query.shape()));
  const std::int64_t batch = query.shape()[0], q_len = query.shape()[1];
  if (heads > query.shape()[2] || kv_heads > query.shape()[2])
    Fail("num_heads and kv_num_heads must not exceed the query's hidden size " + std::to_string(query.shape()[2]));
  const bool packed = !ctx.HasInput(1);
  if (packed == ctx.HasInput(2)) Fail("inputs key and value must be given together (or neither, for packed QKV)");
  const std::int64_t size = query.shape()[2] / (packed ? heads + 2 * kv_heads : heads);
  // onnxruntime's kernels require it.
  if (size <= 0 || size % 8 != 0 || query.shape()[2] != size * (packed ? heads + 2 * kv_heads : heads))
    Fail("the head size must be a positive multiple of 8 dividing the query's hidden size, found hidden size " +
         std::to_string(query.shape()[2]));
  const std::int64_t hidden = heads * size, kv_hidden = kv_heads * size;

  const std::vector<float> qv = nn::ReadAs<float>(query);
  Tensor q, k, v;
  if (packed) {
    const std::int64_t row = hidden + 2 * kv_hidden;
    q = SplitHeads(qv.data(), batch, q_len, heads, size, row, 0);
    k = SplitHeads(qv.data(), batch, q_len, kv_heads, size, row, hidden);
    v = SplitHeads(qv.data(), batch, q_len, kv_heads, size, row, hidden + kv_hidden);
  } else {
    const Tensor& key = TypedInput(ctx, 1, "input 'key'", {query.elem_type()});
    const Tensor& value = TypedInput(ctx, 2, "input 'value'", {query.elem_type()});
    if (key.shape() != Shape{batch, q_len, kv_hidden} || value.shape() != key.shape())
      Fail("inputs key and value must have shape [" + std::to_string(batch) + ", " + std::to_string(q_len) + ", " +
           std::to_string(kv_hidden) + "], found " + Dims(key.shape()) + " and " + Dims(value.shape()));
    q = SplitHeads(qv.data(), batch, q_len, heads, size, hidden, 0);
    k = SplitHeads(nn::ReadAs<float>(key).data(), batch, q_len, kv_heads, size, kv_hidden, 0);
    v = SplitHeads(nn::ReadAs<float>(value).data(), batch, q_len, kv_heads, size, kv_hidden, 0);
  }

  // Sequence lengths.
  std::int64_t past_buffer = 0;
  if (ctx.HasInput(3) != ctx.HasInput(4)) Fail("inputs past_key and past_value must be given together");
  if (ctx.HasInput(3)) {
    const Shape& pk = TypedInput(ctx, 3, "input 'past_key'", {query.elem_type()}).shape();
    past_buffer = pk.size() == 4 ? pk[2] : -1;
    if (pk != Shape{batch, kv_heads, past_buffer, size} ||
        TypedInput(ctx, 4, "input 'past_value'", {query.elem_type()}).shape() != pk)
      Fail("inputs past_key and past_value must have shape [" + std::to_string(batch) + ", " +
           std::to_string(kv_heads) + ", P, " + std::to_string(size) + "], found " + Dims(pk) + " and " +
           Dims(ctx.TensorInput(4).shape()));
  }
  const Tensor& seqlens = TypedInput(ctx, 5, "input 'seqlens_k'", {TensorProto::INT32});
  if (seqlens.shape() != Shape{batch})
    Fail("input 'seqlens_k' must have shape [" + std::to_string(batch) + "], found " + Dims(seqlens.shape()));
  const std::int64_t total = ScalarIntInput(ctx, 6, "input 'total_sequence_length'", {TensorProto::INT32});
  const bool first_prompt = q_len == total;
  if (!first_prompt && q_len > 1 && batch != 1)
    Fail("the batch must be 1 when the sequence length " + std::to_string(q_len) +
         " (> 1) differs from total_sequence_length " + std::to_string(total) + " (a prompt after a past)");
  const std::int64_t present_len = std::max(total, past_buffer);
  // Per batch: its tokens (past and new) and how many of them are past.
  std::vector<std::int64_t> tokens(static_cast<std::size_t>(batch)), past_len(static_cast<std::size_t>(batch));
  for (std::int64_t b = 0; b < batch; ++b) {
    const std::int64_t count = seqlens.Data<std::int32_t>()[b] + std::int64_t{1};
    const std::int64_t past = first_prompt ? 0 : count - q_len;
    if (count < 1 || count > total || past < 0 || past > past_buffer)
      Fail("seqlens_k[" + std::to_string(b) + "] + 1 = " + std::to_string(count) + " tokens does not fit: it must be " +
           (first_prompt ? "in [1, " + std::to_string(total) + "]"
                         : "in [" + std::to_string(q_len) + ", " + std::to_string(q_len + past_buffer) +
                               "] and at most total_sequence_length " + std::to_string(total)));
    tokens[static_cast<std::size_t>(b)] = count;
    past_len[static_cast<std::size_t>(b)] = past;
  }

  // Rotary embedding of the new queries and keys.
  if (ctx.IntAttribute("do_rotary").value_or(0) != 0) {
    if (!ctx.HasInput(7) || !ctx.HasInput(8)) Fail("do_rotary=1 needs inputs cos_cache and sin_cache");
    const Shape& cs = TypedInput(ctx, 7, "input 'cos_cache'", {query.elem_type()}).shape();
    if (cs.size() != 2 || TypedInput(ctx, 8, "input 'sin_cache'", {query.elem_type()}).shape() != cs ||
        size % 16 != 0 || cs[1] % 8 != 0 || cs[1] > size / 2 || cs[0] < total)
      Fail("inputs cos_cache and sin_cache must have one shape [at least total_sequence_length " +
           std::to_string(total) +
           ", a multiple of 8 up to head size / 2] with a head size multiple of 16 (onnxruntime's rules), found " +
           Dims(cs) + " and " + Dims(ctx.TensorInput(8).shape()) + " for head size " + std::to_string(size));
    // Positions: position_ids when given (the first prompt reads only its first element
    // and counts up from it, as onnxruntime does), else each token's index.
    std::vector<std::int64_t> positions(static_cast<std::size_t>(batch * q_len));
    std::optional<std::vector<std::int64_t>> ids;
    if (ctx.HasInput(9)) {
      const Tensor& p = TypedInput(ctx, 9, "input 'position_ids'", {TensorProto::INT64});
      if (p.shape() != Shape{batch, q_len})
        Fail("input 'position_ids' must have shape [" + std::to_string(batch) + ", " + std::to_string(q_len) +
             "], found " + Dims(p.shape()));
      ids = p.ToInt64Vector();
      // Bounded here: the first prompt adds the token index to it.
      if (first_prompt && !ids->empty() && ((*ids)[0] < 0 || (*ids)[0] >= cs[0]))
        Fail("position_ids[0][0] = " + std::to_string((*ids)[0]) + " is outside the " + std::to_string(cs[0]) +
             " rows of cos_cache");
    }
    for (std::int64_t b = 0; b < batch; ++b)
      for (std::int64_t s = 0; s < q_len; ++s) {
        const auto i = static_cast<std::size_t>(b * q_len + s);
        std::int64_t position = past_len[static_cast<std::size_t>(b)] + s;
        if (ids) position = first_prompt ? (*ids)[0] + s : (*ids)[i];
        if (position < 0 || position >= cs[0])
          Fail("rotary position " + std::to_string(position) + " is outside the " + std::to_string(cs[0]) +
               " rows of cos_cache");
        positions[i] = position;
      }
    const std::vector<float> cos = nn::ReadAs<float>(ctx.TensorInput(7)), sin = nn::ReadAs<float>(ctx.TensorInput(8));
    const bool interleaved = ctx.IntAttribute("rotary_interleaved").value_or(0) != 0;
    RotateHeads(q, cos, sin, cs[1], interleaved, positions);
    RotateHeads(k, cos, sin, cs[1], interleaved, positions);
  }

  // Present key/value: the valid past rows, then the new ones, zeros after.
  const auto present_of = [&](const Tensor& current, std::size_t past_input) {
    Tensor present = FloatTensor({batch, kv_heads, present_len, size});
    float* dst = present.MutableData<float>();
    const std::vector<float> past =
        ctx.HasInput(past_input) ? nn::ReadAs<float>(ctx.TensorInput(past_input)) : std::vector<float>{};
    for (std::int64_t b = 0; b < batch; ++b)
      for (std::int64_t n = 0; n < kv_heads; ++n) {
        const std::int64_t bn = b * kv_heads + n, p = past_len[static_cast<std::size_t>(b)];
        std::copy_n(past.data() + bn * past_buffer * size, p * size, dst + bn * present_len * size);
        std::copy_n(current.Data<float>() + bn * q_len * size, q_len * size, dst + (bn * present_len + p) * size);
      }
    return present;
  };
  const Tensor present_key = present_of(k, 3);
  const Tensor present_value = present_of(v, 4);

  std::optional<AttentionBias> bias;
  if (ctx.HasInput(10)) bias = AttentionBias::Read(ctx, 10, batch, heads, q_len, total);
  std::vector<float> sinks;
  if (ctx.HasInput(11)) {
    sinks = SameTypeFloats(ctx, 11, "input 'head_sink'");
    if (ctx.TensorInput(11).shape() != Shape{heads})
      Fail("input 'head_sink' must have shape [" + std::to_string(heads) + "], found " +
           Dims(ctx.TensorInput(11).shape()));
  }
  const std::int64_t qk_mode = ctx.IntAttribute("qk_output").value_or(0);
  if (qk_mode < 0 || qk_mode > 2) Fail("attribute qk_output must be 0, 1 or 2, found " + std::to_string(qk_mode));
  if ((qk_mode != 0) != ctx.HasOutput(3)) Fail("output output_qk is produced exactly when qk_output is 1 or 2");
  const float softcap = ctx.FloatAttribute("softcap").value_or(0.0f);
  const std::int64_t window = ctx.IntAttribute("local_window_size").value_or(-1);
  SoftmaxOptions softmax;
  softmax.smooth = ctx.IntAttribute("smooth_softmax").value_or(0) != 0 || !sinks.empty();
  softmax.sinks = sinks.empty() ? nullptr : sinks.data();
  Tensor qk;
  const Tensor out = Attend(
      q, present_key, present_value, ScaleAttribute(ctx, size), softmax,
      [&](std::int64_t b, std::int64_t n, float* scores) {
        if (softcap > 0)
          for (std::int64_t i = 0; i < q_len * present_len; ++i) scores[i] = softcap * std::tanh(scores[i] / softcap);
        if (bias) bias->Add(b, n, scores, present_len);
      },
      [&](std::int64_t b, std::int64_t s) {
        const auto bi = static_cast<std::size_t>(b);
        // Keys up to the query's own position and, in a first prompt padded beyond the
        // batch's tokens, no further than those (onnxruntime leaves padded rows undefined).
        const std::int64_t end = std::min(past_len[bi] + s + 1, tokens[bi]);
        return KeyRange{window > 0 ? std::max<std::int64_t>(0, end - window - 1) : 0, end};
      },
      static_cast<QkOutput>(qk_mode), &qk);
  std::vector<Value> outputs(ctx.OutputCount());
  outputs[0] = FromComputeType(out, query.elem_type());
  if (ctx.HasOutput(1)) outputs[1] = FromComputeType(present_key, query.elem_type());
  if (ctx.HasOutput(2)) outputs[2] = FromComputeType(present_value, query.elem_type());
  if (ctx.HasOutput(3)) {
    // onnxruntime's output_qk has total_sequence_length columns, not the present's.
    Tensor columns = FloatTensor({batch, heads, q_len, total});
    for (std::int64_t row = 0; row < batch * heads * q_len; ++row)
      std::copy_n(qk.Data<float>() + row * present_len, total, columns.MutableData<float>() + row * total);
    outputs[3] = FromComputeType(columns, query.elem_type());
  }
  return outputs;
}

}  // namespace

void RegisterAttentionKernels() {
  using core::eval::RegisterKernel;
  RegisterKernel(kMs, "Attention", AttentionKernel);
  RegisterKernel(kMs, "MultiHeadAttention", MultiHeadAttentionKernel);
  RegisterKernel(kMs, "GroupQueryAttention", GroupQueryAttentionKernel);
}

}  // namespace onnxopt::onnx_kernels
