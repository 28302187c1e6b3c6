// Shape functions of the onnxruntime contrib operators (domain com.microsoft) that the
// patterns produce. Their signatures are onnxruntime's (docs/ContribOperators.md); where
// an optional output's shape is not certain (the statistics of the fused
// normalizations), it is left unknown.

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "onnx_core/shapes/shape_registry.h"
#include "onnx_extensions/shapes/nn_helpers.h"
#include "onnx_extensions/shapes/shape_groups.h"
#include "onnx_extensions/shapes/shape_helpers.h"

namespace onnxopt::onnx_shapes {

namespace {

using core::shapes::RegisterShapeFunction;

constexpr std::string_view kMicrosoft = "com.microsoft";



SymDim IntAttrDim(const InferenceContext& ctx, std::string_view name) {
  auto v = ctx.IntAttribute(name);
  return v ? SymDim(*v) : SymDim::Unknown();
}

// Output i when the node has it (a non-empty name), else Unknown.
std::vector<SymTensor> PresentOutputs(const InferenceContext& ctx, std::vector<SymTensor> out) {
  std::vector<SymTensor> result;
  for (std::size_t i = 0; i < ctx.OutputCount(); ++i) {
    const bool present = i < out.size() && !ctx.Node().output(static_cast<int>(i)).empty();
    result.push_back(present ? std::move(out[i]) : SymTensor::Unknown());
  }
  return result;
}

// FusedMatMul(A, B): MatMul of A and B, each transposed on its last two dims when
// transA / transB. transBatchA / transBatchB (batch dims moved) are not described.
std::vector<SymTensor> InferFusedMatMul(InferenceContext& ctx) {
  const int type = InputElemType(ctx, 0);
  if (ctx.IntAttribute("transBatchA").value_or(0) != 0 || ctx.IntAttribute("transBatchB").value_or(0) != 0) {
    return Outputs(ctx, UnknownTensor(type));
  }
  SymShape a = InputShape(ctx, 0);
  SymShape b = InputShape(ctx, 1);
  for (auto [shape, attr] : {std::pair{&a, "transA"}, std::pair{&b, "transB"}}) {
    if (ctx.IntAttribute(attr).value_or(0) == 0 || !shape->HasRank()) continue;
    if (shape->Rank() < 2) return Outputs(ctx, UnknownTensor(type));
    std::vector<SymDim> dims = shape->Dims();
    std::swap(dims[dims.size() - 1], dims[dims.size() - 2]);
    *shape = SymShape(dims);
  }
  return Outputs(ctx, SymTensor::Tensor(type, MatMulShape(ctx, a, b)));
}

// FusedConv(X, W, B?, Z?): Conv followed by an activation (and the sum with Z).
std::vector<SymTensor> InferFusedConv(InferenceContext& ctx) {
  return Outputs(ctx, ConvOutput(ctx, 0, 1, InputElemType(ctx, 0)));
}

// Elementwise with an optional bias broadcast against the input (FastGelu, BiasGelu).
std::vector<SymTensor> InferWithBias(InferenceContext& ctx) {
  const int type = InputElemType(ctx, 0);
  if (!ctx.HasInput(1)) return Outputs(ctx, SymTensor::Tensor(type, InputShape(ctx, 0)));
  return Outputs(ctx, SymTensor::Tensor(type, BroadcastShapes(ctx, {InputShape(ctx, 0), InputShape(ctx, 1)})));
}

// Skip(Simplified)LayerNormalization(input, skip, gamma, ...): output and
// input_skip_bias_sum (output 3) have the input's shape; mean and inv_std_var unknown.
std::vector<SymTensor> InferSkipNormalization(InferenceContext& ctx) {
  const SymTensor y = TypeAndShape(ctx.Input(0));
  return PresentOutputs(ctx, {y, SymTensor::Unknown(), SymTensor::Unknown(), y});
}

// SimplifiedLayerNormalization(X, scale): Y like X; inv_std_var unknown.
std::vector<SymTensor> InferSimplifiedLayerNormalization(InferenceContext& ctx) {
  return PresentOutputs(ctx, {TypeAndShape(ctx.Input(0))});
}

// MultiHeadAttention(query, key?, value?, bias?, key_padding_mask?, attention_bias?,
// past_key?, past_value?, ...): output [batch, seq, v_hidden]; present key/value
// [batch, heads, past + kv_seq, head_size] when query, key and value are 3-D.
std::vector<SymTensor> InferMultiHeadAttention(InferenceContext& ctx) {
  const int type = InputElemType(ctx, 0);
  const SymShape q = InputShape(ctx, 0);
  const SymShape k = InputShape(ctx, 1);
  const SymShape v = InputShape(ctx, 2);
  const SymDim heads = IntAttrDim(ctx, "num_heads");
  std::vector<SymTensor> out(3, SymTensor::Unknown());
  if (!q.HasRank()) {
    out[0] = UnknownTensor(type);
    return PresentOutputs(ctx, out);
  }
  if (q.Rank() != 3 && q.Rank() != 5) {
    ctx.Diagnose("MultiHeadAttention query must be 3-D or packed 5-D, got rank " + std::to_string(q.Rank()));
    return UnknownOutputs(ctx);
  }
  const SymDim batch = q[0];
  const SymDim seq = q[1];
  SymDim v_hidden;
  if (q.Rank() == 5) {
    v_hidden = q[2] * q[4];  // packed QKV [batch, seq, heads, 3, head_size]
  } else if (ctx.HasInput(2) && v.HasRank() && v.Rank() == 3) {
    v_hidden = v[2];
  } else if (ctx.HasInput(2) && v.HasRank() && v.Rank() == 4) {
    v_hidden = v[1] * v[3];  // [batch, heads, kv_seq, head_size]
  } else if (!ctx.HasInput(2) && k.HasRank() && k.Rank() == 5) {
    v_hidden = k[2] * k[4];  // packed KV [batch, kv_seq, heads, 2, head_size]
  }
  out[0] = SymTensor::Tensor(type, SymShape({batch, seq, v_hidden}));
  const bool has_past = ctx.HasInput(6) && ctx.HasInput(7);
  if (q.Rank() == 3 && k.HasRank() && k.Rank() == 3 && v.HasRank() && v.Rank() == 3 && !ctx.HasInput(8)) {
    SymDim total = k[1];
    if (has_past) {
      const SymShape pk = InputShape(ctx, 6);
      total = pk.HasRank() && pk.Rank() == 4 ? pk[2] + k[1] : SymDim::Unknown();
    }
    out[1] = SymTensor::Tensor(type, SymShape({batch, heads, total, SymDim::ExactDiv(k[2], heads)}));
    out[2] = SymTensor::Tensor(type, SymShape({batch, heads, total, SymDim::ExactDiv(v[2], heads)}));
  }
  return PresentOutputs(ctx, out);
}

// GroupQueryAttention(query, key?, value?, past_key?, past_value?, seqlens_k,
// total_sequence_length, ...): output [batch, seq, num_heads*head_size]; present
// key/value [batch, kv_num_heads, ?, head_size] (their length depends on the buffer
// sharing and on total_sequence_length's value).
std::vector<SymTensor> InferGroupQueryAttention(InferenceContext& ctx) {
  const int type = InputElemType(ctx, 0);
  const SymShape q = InputShape(ctx, 0);
  const SymShape past = InputShape(ctx, 3);
  const SymDim heads = IntAttrDim(ctx, "num_heads");
  const SymDim kv_heads = IntAttrDim(ctx, "kv_num_heads");
  std::vector<SymTensor> out(3, SymTensor::Unknown());
  if (!q.HasRank()) {
    out[0] = UnknownTensor(type);
    return PresentOutputs(ctx, out);
  }
  if (q.Rank() != 3) {
    ctx.Diagnose("GroupQueryAttention query must be 3-D, got rank " + std::to_string(q.Rank()));
    return UnknownOutputs(ctx);
  }
  SymDim head_size;
  SymDim hidden;
  if (ctx.HasInput(1)) {
    hidden = q[2];
    head_size = SymDim::ExactDiv(q[2], heads);
  } else {
    // Packed QKV: [batch, seq, (num_heads + 2*kv_num_heads) * head_size].
    head_size = SymDim::ExactDiv(q[2], heads + SymDim(2) * kv_heads);
    hidden = heads * head_size;
  }
  if (past.HasRank() && past.Rank() == 4 && head_size.IsUnknown()) head_size = past[3];
  out[0] = SymTensor::Tensor(type, SymShape({q[0], q[1], hidden}));
  out[1] = SymTensor::Tensor(type, SymShape({q[0], kv_heads, SymDim::Unknown(), head_size}));
  out[2] = out[1];
  return PresentOutputs(ctx, out);
}

// Attention (com.microsoft)(input [batch, seq, in_hidden], weights [in_hidden, q+k+v],
// bias?, mask_index?, past?, ...): output [batch, seq, v_hidden] with v_hidden from
// qkv_hidden_sizes or a third of the weights' last dim; present [2, batch, heads,
// past_seq + seq, head_size] when past is given and not shared with present.
std::vector<SymTensor> InferContribAttention(InferenceContext& ctx) {
  const int type = InputElemType(ctx, 0);
  const SymShape x = InputShape(ctx, 0);
  const SymShape w = InputShape(ctx, 1);
  std::vector<SymTensor> out(2, SymTensor::Unknown());
  if (!x.HasRank()) {
    out[0] = UnknownTensor(type);
    return PresentOutputs(ctx, out);
  }
  if (x.Rank() != 3) {
    ctx.Diagnose("Attention input must be 3-D, got rank " + std::to_string(x.Rank()));
    return UnknownOutputs(ctx);
  }
  SymDim v_hidden;
  if (auto sizes = ctx.IntsAttribute("qkv_hidden_sizes")) {
    if (sizes->size() == 3) v_hidden = SymDim((*sizes)[2]);
  } else if (w.HasRank() && w.Rank() == 2) {
    v_hidden = SymDim::ExactDiv(w[1], SymDim(3));
  }
  out[0] = SymTensor::Tensor(type, SymShape({x[0], x[1], v_hidden}));
  const SymShape past = InputShape(ctx, 4);
  if (ctx.HasInput(4) && past.HasRank() && past.Rank() == 5 &&
      ctx.IntAttribute("past_present_share_buffer").value_or(0) == 0) {
    out[1] = SymTensor::Tensor(type, SymShape({past[0], past[1], past[2], past[3] + x[1], past[4]}));
  }
  return PresentOutputs(ctx, out);
}

}  // namespace

void RegisterContribShapes() {
  auto reg = [](std::string_view op, ShapeFunction fn) { RegisterShapeFunction(kMicrosoft, op, std::move(fn)); };
  reg("FusedMatMul", InferFusedMatMul);
  reg("FusedConv", InferFusedConv);
  for (const char* op : {"Gelu", "QuickGelu", "RotaryEmbedding", "BiasAdd"}) reg(op, SameAsInput(0));
  for (const char* op : {"FastGelu", "BiasGelu"}) reg(op, InferWithBias);
  for (const char* op : {"SkipLayerNormalization", "SkipSimplifiedLayerNormalization"}) reg(op, InferSkipNormalization);
  reg("SimplifiedLayerNormalization", InferSimplifiedLayerNormalization);
  // onnxruntime registers SimplifiedLayerNormalization in the default domain, too.
  RegisterShapeFunction("", "SimplifiedLayerNormalization", InferSimplifiedLayerNormalization);
  reg("MultiHeadAttention", InferMultiHeadAttention);
  reg("GroupQueryAttention", InferGroupQueryAttention);
  reg("Attention", InferContribAttention);
}

}  // namespace onnxopt::onnx_shapes
