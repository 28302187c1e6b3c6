// The operators of opset 27 for models that carry a recurrent state from one step to the
// next instead of a growing KV cache (Gated DeltaNet, Mamba and their hybrids):
// CausalConvWithState, the short convolution before the mixer, and LinearAttention, the
// mixer. Both are defined by a recurrence over the sequence (Operators.md); they are
// evaluated as written there, one position after the other, in float (double for double
// inputs), float16 and bfloat16 rounded once at the end.

#include <cmath>
#include <cstdint>
#include <string>
#include <vector>

#include "onnx_core/common/error.h"
#include "onnx_core/eval/kernel_registry.h"
#include "onnx_extensions/kernels/kernel_groups.h"
#include "onnx_extensions/kernels/kernel_helpers.h"
#include "onnx_extensions/kernels/nn_helpers.h"

namespace onnxopt::onnx_kernels {
namespace {

using core::eval::Arity;
using nn::DispatchFloat;
using nn::ReadAs;
using nn::WriteAs;

// CausalConvWithState (opset 27): a depthwise convolution over the last axis that sees only
// the current and past positions. The input [B, C, L] is preceded by past_state [B, C, K-1]
// (zeros without it); output[b, c, t] = bias[c] + sum_j weight[c, 0, j] * padded[b, c, t + j],
// then SiLU when activation is 'silu' or 'swish'; present_state is the last K-1 positions of
// the padded sequence.
std::vector<Value> CausalConvWithStateKernel(KernelContext& ctx) {
  const Tensor& x = ctx.TensorInput(0);
  const Tensor& w = ctx.TensorInput(1);
  ExpectRank(x, 3, 3, InputLabel(ctx, 0));
  ExpectRank(w, 3, 3, InputLabel(ctx, 1));
  const std::int64_t batch = x.shape()[0], channels = x.shape()[1], length = x.shape()[2];
  const std::int64_t taps = w.shape()[2];
  if (w.shape()[0] != channels || w.shape()[1] != 1 || taps < 1)
    Fail(InputLabel(ctx, 1) + " must be [channels, 1, k] with k >= 1 for " + x.Describe() + ", found " + w.Describe());
  const std::int64_t carried = taps - 1;
  if (ctx.HasInput(2) && ctx.TensorInput(2).shape() != Shape{channels})
    Fail(InputLabel(ctx, 2) + " must be [channels], found " + ctx.TensorInput(2).Describe());
  if (ctx.HasInput(3) && ctx.TensorInput(3).shape() != Shape{batch, channels, carried})
    Fail(InputLabel(ctx, 3) + " must be [batch, channels, k - 1] = " + ShapeToString({batch, channels, carried}) +
         ", found " + ctx.TensorInput(3).Describe());
  // k - 1 comes from the weight, not from x: the state may be far larger than the input.
  CheckedShapeSize({batch, channels, carried}, "present_state");
  const std::string activation = ctx.StringAttribute("activation").value_or("none");
  const bool silu = activation == "silu" || activation == "swish";
  if (!silu && activation != "none")
    Fail("attribute activation is '" + activation + "', expected 'silu', 'swish' or 'none'");
  // Per row (batch, channel): L outputs of k taps, and the k - 1 carried positions read and
  // written even when L is 0 (an empty input with many rows still costs its rows).
  ChargeWork(static_cast<double>(batch) * static_cast<double>(channels) * (static_cast<double>(length) + 1) *
                 static_cast<double>(taps),
             "CausalConvWithState's taps");
  return DispatchFloat(x.elem_type(), "CausalConvWithState", [&](auto tag) -> std::vector<Value> {
    using T = decltype(tag);
    const std::vector<T> xv = ReadAs<T>(x), wv = ReadAs<T>(w);
    const std::vector<T> bias = ctx.HasInput(2) ? ReadAs<T>(ctx.TensorInput(2)) : std::vector<T>();
    const std::vector<T> past = ctx.HasInput(3) ? ReadAs<T>(ctx.TensorInput(3)) : std::vector<T>();
    std::vector<T> y(xv.size()), present(static_cast<std::size_t>(batch * channels * carried));
    std::vector<T> padded(static_cast<std::size_t>(carried + length));
    for (std::int64_t row = 0; row < batch * channels; ++row) {
      const std::int64_t c = row % channels;
      for (std::int64_t i = 0; i < carried; ++i)
        padded[static_cast<std::size_t>(i)] = past.empty() ? T{0} : past[static_cast<std::size_t>(row * carried + i)];
      for (std::int64_t t = 0; t < length; ++t)
        padded[static_cast<std::size_t>(carried + t)] = xv[static_cast<std::size_t>(row * length + t)];
      for (std::int64_t t = 0; t < length; ++t) {
        T sum = bias.empty() ? T{0} : bias[static_cast<std::size_t>(c)];
        for (std::int64_t j = 0; j < taps; ++j)
          sum += wv[static_cast<std::size_t>(c * taps + j)] * padded[static_cast<std::size_t>(t + j)];
        y[static_cast<std::size_t>(row * length + t)] = silu ? sum / (T{1} + std::exp(-sum)) : sum;
      }
      for (std::int64_t i = 0; i < carried; ++i)
        present[static_cast<std::size_t>(row * carried + i)] = padded[static_cast<std::size_t>(length + i)];
    }
    std::vector<Value> outputs{WriteAs(x.elem_type(), x.shape(), y)};
    if (ctx.OutputCount() > 1) outputs.push_back(WriteAs(x.elem_type(), {batch, channels, carried}, present));
    return outputs;
  });
}

// LinearAttention (opset 27). query [B, T, Hq * dk], key [B, T, Hkv * dk], value
// [B, T, Hkv * dv]; one state S [dk, dv] per batch and key/value head (past_state
// [B, Hkv, dk, dv], zeros without it), updated at each position t by update_rule:
//   linear       S = S + k v^T
//   gated        S = exp(g) * S + k v^T
//   delta        S = S + beta * k (v - S^T k)^T
//   gated_delta  S = exp(g) * S + beta * k (v - (exp(g) * S)^T k)^T
// then o = scale * S^T q for each query head of the group sharing that key/value head
// (query head n reads key/value head n / (Hq / Hkv), as GQA groups heads). The decay g is
// per key dimension (decay [B, T, Hkv * dk]: row i of S scaled by exp(g_i)) or per head
// ([B, T, Hkv]); beta is per head ([B, T, Hkv]) or shared ([B, T, 1]). scale 0 (the
// default) is 1 / sqrt(dk). chunk_size only tunes chunked implementations: not read.
std::vector<Value> LinearAttentionKernel(KernelContext& ctx) {
  const Tensor& query = ctx.TensorInput(0);
  const Tensor& key = ctx.TensorInput(1);
  const Tensor& value = ctx.TensorInput(2);
  for (std::size_t i = 0; i < 3; ++i) ExpectRank(ctx.TensorInput(i), 3, 3, InputLabel(ctx, i));
  const std::int64_t q_heads = RequiredIntAttribute(ctx, "q_num_heads");
  const std::int64_t kv_heads = RequiredIntAttribute(ctx, "kv_num_heads");
  if (kv_heads < 1 || q_heads < 1 || q_heads % kv_heads != 0)
    Fail("q_num_heads " + std::to_string(q_heads) + " must be a positive multiple of kv_num_heads " +
         std::to_string(kv_heads));
  const std::int64_t batch = query.shape()[0], steps = query.shape()[1];
  if (query.shape()[2] % q_heads != 0)
    Fail(InputLabel(ctx, 0) + " " + query.Describe() + ": its last dim is not q_num_heads * dk");
  const std::int64_t dk = query.shape()[2] / q_heads;
  if (key.shape() != Shape{batch, steps, kv_heads * dk})
    Fail(InputLabel(ctx, 1) + " must be [B, T, kv_num_heads * dk] = " + ShapeToString({batch, steps, kv_heads * dk}) +
         ", found " + key.Describe());
  if (value.shape()[0] != batch || value.shape()[1] != steps || value.shape()[2] % kv_heads != 0)
    Fail(InputLabel(ctx, 2) + " must be [B, T, kv_num_heads * dv] with B = " + std::to_string(batch) +
         " and T = " + std::to_string(steps) + ", found " + value.Describe());
  const std::int64_t dv = value.shape()[2] / kv_heads;
  const std::string rule = ctx.StringAttribute("update_rule").value_or("gated_delta");
  if (rule != "linear" && rule != "gated" && rule != "delta" && rule != "gated_delta")
    Fail("attribute update_rule is '" + rule + "', expected 'linear', 'gated', 'delta' or 'gated_delta'");
  const bool gated = rule == "gated" || rule == "gated_delta";
  const bool delta = rule == "delta" || rule == "gated_delta";
  const Shape state_shape{batch, kv_heads, dk, dv};
  if (ctx.HasInput(3) && ctx.TensorInput(3).shape() != state_shape)
    Fail(InputLabel(ctx, 3) + " must be [B, kv_num_heads, dk, dv] = " + ShapeToString(state_shape) + ", found " +
         ctx.TensorInput(3).Describe());
  // Per key dimension or per head; the stride of one position and of one head in it.
  std::int64_t decay_values_per_head = 0;
  if (gated) {
    if (!ctx.HasInput(4)) Fail("update_rule '" + rule + "' needs the input decay");
    const Shape& shape = ctx.TensorInput(4).shape();
    if (shape == Shape{batch, steps, kv_heads * dk}) decay_values_per_head = dk;
    else if (shape == Shape{batch, steps, kv_heads}) decay_values_per_head = 1;
    else
      Fail(InputLabel(ctx, 4) + " must be [B, T, kv_num_heads * dk] or [B, T, kv_num_heads], found " +
           ctx.TensorInput(4).Describe());
  }
  std::int64_t beta_heads = 0;
  if (delta) {
    if (!ctx.HasInput(5)) Fail("update_rule '" + rule + "' needs the input beta");
    const Shape& shape = ctx.TensorInput(5).shape();
    if (shape == Shape{batch, steps, kv_heads}) beta_heads = kv_heads;
    else if (shape == Shape{batch, steps, 1}) beta_heads = 1;
    else
      Fail(InputLabel(ctx, 5) + " must be [B, T, kv_num_heads] or [B, T, 1], found " + ctx.TensorInput(5).Describe());
  }
  const double scale_attribute = ctx.FloatAttribute("scale").value_or(0.0);
  // The heads come from attributes: with empty inputs (dk or dv 0) nothing bounds them, and
  // the products below could overflow.
  CheckedShapeSize(state_shape, "present_state");
  CheckedShapeSize({batch, steps, q_heads, dv}, "the output");
  // Each position updates every state (dk * dv, a few times) and reads it for every query
  // head; a head costs its loop even when dk * dv is 0 (the heads are attributes).
  ChargeWork(static_cast<double>(batch) * (static_cast<double>(steps) + 1) *
                 (static_cast<double>(q_heads) + 3 * static_cast<double>(kv_heads)) *
                 (static_cast<double>(dk) * static_cast<double>(dv) + 1),
             "LinearAttention's state updates");
  const int state_type = ctx.HasInput(3) ? ctx.TensorInput(3).elem_type() : query.elem_type();
  return DispatchFloat(query.elem_type(), "LinearAttention", [&](auto tag) -> std::vector<Value> {
    using T = decltype(tag);
    const T scale = scale_attribute != 0.0 ? static_cast<T>(scale_attribute) : T{1} / std::sqrt(static_cast<T>(dk));
    const std::vector<T> q = ReadAs<T>(query), k = ReadAs<T>(key), v = ReadAs<T>(value);
    const std::vector<T> decay = gated ? ReadAs<T>(ctx.TensorInput(4)) : std::vector<T>();
    const std::vector<T> beta = delta ? ReadAs<T>(ctx.TensorInput(5)) : std::vector<T>();
    std::vector<T> state = ctx.HasInput(3) ? ReadAs<T>(ctx.TensorInput(3))
                                           : std::vector<T>(static_cast<std::size_t>(batch * kv_heads * dk * dv), T{0});
    std::vector<T> out(static_cast<std::size_t>(batch * steps * q_heads * dv), T{0});
    std::vector<T> update(static_cast<std::size_t>(dv));
    const std::int64_t group = q_heads / kv_heads;
    for (std::int64_t b = 0; b < batch; ++b)
      for (std::int64_t h = 0; h < kv_heads; ++h) {
        T* s = state.data() + (b * kv_heads + h) * dk * dv;
        for (std::int64_t t = 0; t < steps; ++t) {
          const std::int64_t position = b * steps + t;
          const T* kt = k.data() + (position * kv_heads + h) * dk;
          const T* vt = v.data() + (position * kv_heads + h) * dv;
          if (gated) {
            const T* g = decay.data() + (position * kv_heads + h) * decay_values_per_head;
            for (std::int64_t i = 0; i < dk; ++i) {
              const T factor = std::exp(g[decay_values_per_head == 1 ? 0 : i]);
              for (std::int64_t j = 0; j < dv; ++j) s[i * dv + j] *= factor;
            }
          }
          // The row added to S for each key dimension i: k_i * update.
          T rate = T{1};
          for (std::int64_t j = 0; j < dv; ++j) update[static_cast<std::size_t>(j)] = vt[j];
          if (delta) {
            rate = beta[static_cast<std::size_t>(position * beta_heads + (beta_heads == 1 ? 0 : h))];
            for (std::int64_t j = 0; j < dv; ++j) {
              T recalled = T{0};
              for (std::int64_t i = 0; i < dk; ++i) recalled += s[i * dv + j] * kt[i];
              update[static_cast<std::size_t>(j)] -= recalled;
            }
          }
          for (std::int64_t i = 0; i < dk; ++i)
            for (std::int64_t j = 0; j < dv; ++j) s[i * dv + j] += rate * kt[i] * update[static_cast<std::size_t>(j)];
          for (std::int64_t n = h * group; n < (h + 1) * group; ++n) {
            const T* qt = q.data() + (position * q_heads + n) * dk;
            T* o = out.data() + (position * q_heads + n) * dv;
            for (std::int64_t i = 0; i < dk; ++i)
              for (std::int64_t j = 0; j < dv; ++j) o[j] += qt[i] * s[i * dv + j];
            for (std::int64_t j = 0; j < dv; ++j) o[j] *= scale;
          }
        }
      }
    std::vector<Value> outputs{WriteAs(query.elem_type(), {batch, steps, q_heads * dv}, out)};
    if (ctx.OutputCount() > 1) outputs.push_back(WriteAs(state_type, state_shape, state));
    return outputs;
  });
}

}  // namespace

void RegisterRecurrentStateKernels() {
  using core::eval::RegisterKernel;
  RegisterKernel("", "CausalConvWithState", Arity{2, 4, 1, 2}, CausalConvWithStateKernel);
  RegisterKernel("", "LinearAttention", Arity{3, 6, 1, 2}, LinearAttentionKernel);
}

}  // namespace onnxopt::onnx_kernels
