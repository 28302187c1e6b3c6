"""Differential cases of the com.microsoft attention kernels
(onnx_extensions/kernels/attention_kernels.cc): Attention, MultiHeadAttention and
GroupQueryAttention, whose semantics are those of onnxruntime's CPU provider. Where
onnxruntime departs from its own documentation (docs/ContribOperators.md), the case is
"spec" with values from the numpy reference below."""
import numpy as np

from differential import Case

CASES = []
MS = "com.microsoft"
GEMM = "float32 sums in another order than onnxruntime's MLAS GEMM and softmax"


def add(**kwargs):
    kwargs.setdefault("atol", 1e-5)
    kwargs.setdefault("rtol", 1e-4)
    if kwargs.get("expect", "equal") in ("equal", "spec"):
        kwargs.setdefault("reason", GEMM)
    else:
        kwargs.pop("atol"), kwargs.pop("rtol")
    CASES.append(Case(domain=MS, opset=1, **kwargs))


def normal(seed, shape, dtype=np.float32):
    return np.random.default_rng(seed).standard_normal(shape).astype(dtype)


# --- A numpy reference of the documented semantics ----------------------------------------------
def softmax(x):
    e = np.exp(x - x.max(axis=-1, keepdims=True))
    return e / e.sum(axis=-1, keepdims=True)


def heads(x, n):
    b, l, d = x.shape
    return x.reshape(b, l, n, d // n).transpose(0, 2, 1, 3)


def attend(q, k, v, additive, scale=None):
    """q [B,N,S,H], k [B,N,T,H], v [B,N,T,Hv], additive broadcast to [B,N,S,T]."""
    scale = scale or 1 / np.sqrt(q.shape[-1])
    p = softmax(np.einsum("bnsh,bnth->bnst", q, k) * scale + additive)
    o = np.einsum("bnst,bnth->bnsh", p, v)
    return o.transpose(0, 2, 1, 3).reshape(o.shape[0], o.shape[2], -1)


def causal(s, t, past, filter_value=-10000.0):
    m = np.zeros((s, t))
    for i in range(s):
        m[i, past + i + 1:] = filter_value
    return m


# --- Attention ----------------------------------------------------------------------------------------
B, S, D_IN, N, H = 2, 3, 6, 2, 4
X = normal(1, [B, S, D_IN])
W = normal(2, [D_IN, 3 * N * H])
BIAS = normal(3, [3 * N * H])


def attention(name, extra_inputs=(), attrs=None, outputs=1, **kwargs):
    inputs = [("input", X), ("weights", W), ("bias", BIAS)] + list(extra_inputs)
    add(op="Attention", name=f"attention_{name}", attrs={"num_heads": N, **(attrs or {})}, inputs=inputs,
        outputs=outputs, **kwargs)


attention("basic")
attention("unidirectional", attrs={"unidirectional": 1})
attention("scale", attrs={"scale": 0.2})
attention("mask_end_positions", [("mask_index", np.array([2, 3], np.int32))])
attention("mask_end_and_start_positions", [("mask_index", np.array([3, 2, 1, 0], np.int32))])
attention("mask_end_beyond_length", [("mask_index", np.array([3, 7], np.int32))])
attention("mask_2d", [("mask_index", np.array([[1, 0, 1], [1, 1, 0]], np.int32))])
attention("mask_2d_unidirectional", [("mask_index", np.array([[1, 0, 1], [1, 1, 0]], np.int32))],
          attrs={"unidirectional": 1})
attention("mask_2d_values", [("mask_index", np.array([[2, -1, 0], [1, 1, 1]], np.int32))])
attention("mask_2d_filter_value", [("mask_index", np.array([[1, 0, 1], [0, 1, 1]], np.int32))],
          attrs={"mask_filter_value": -3.0})
attention("mask_3d", [("mask_index", (np.random.default_rng(4).random([B, S, S]) > 0.4).astype(np.int32))])
attention("mask_all_masked", [("mask_index", np.zeros([B, S], np.int32))], atol=2e-3,
          reason="every score plus -10000: onnxruntime's float32 sum rounds to 1e-3 (onnxopt adds the same float "
                 "but sums the softmax in double)")
PAST = normal(5, [2, B, N, 2, H])
attention("past", [("mask_index", None), ("past", PAST)], outputs=2)
attention("past_unidirectional", [("mask_index", None), ("past", PAST)], attrs={"unidirectional": 1}, outputs=2)
attention("past_mask_2d", [("mask_index", np.array([[1, 0, 1, 1, 1], [1, 1, 1, 1, 0]], np.int32)), ("past", PAST)],
          attrs={"unidirectional": 1}, outputs=2)
attention("present_without_past", outputs=2)
attention("attention_bias_heads", [("mask_index", None), ("past", None), ("attention_bias", normal(6, [1, N, S, S]))])
attention("attention_bias_batch", [("mask_index", None), ("past", None), ("attention_bias", normal(7, [B, 1, S, S]))])
add(op="Attention", name="attention_qkv_hidden_sizes", attrs={"num_heads": N, "qkv_hidden_sizes": [8, 8, 12]},
    inputs=[("input", X), ("weights", normal(8, [D_IN, 28])), ("bias", normal(9, [28]))])
add(op="Attention", name="attention_float16", attrs={"num_heads": N},
    inputs=[("input", X.astype(np.float16)), ("weights", W.astype(np.float16)), ("bias", BIAS.astype(np.float16))],
    atol=2e-2, rtol=1e-2, reason="onnxruntime rounds the projections to float16 before attending; onnxopt keeps float")
add(op="Attention", name="attention_empty_batch", attrs={"num_heads": N},
    inputs=[("input", np.zeros([0, S, D_IN], np.float32)), ("weights", W), ("bias", BIAS)])
x_proj = X.astype(np.float64) @ W.astype(np.float64)
q_, k_, v_ = (heads(x_proj[..., i * N * H:(i + 1) * N * H], N) for i in range(3))
add(op="Attention", name="attention_without_bias", attrs={"num_heads": N}, inputs=[("input", X), ("weights", W)],
    expect="spec", expected=[attend(q_, k_, v_, 0).astype(np.float32)],
    reason="bias is optional; onnxruntime-node 1.23 crashes without it")
attention("rotary", attrs={"do_rotary": 1}, expect="error")
attention("mask_4d", [("mask_index", np.ones([B, 1, S, S], np.int32))], expect="error")
attention("mask_2d_wrong_length", [("mask_index", np.ones([B, 4], np.int32))], expect="error")
attention("share_buffer", [("mask_index", None), ("past", PAST)], attrs={"past_present_share_buffer": 1},
          outputs=2, expect="error")
add(op="Attention", name="attention_no_num_heads", inputs=[("input", X), ("weights", W), ("bias", BIAS)],
    expect="error")
attention("heads_not_dividing", attrs={"num_heads": 5}, expect="onnxopt-error",
          reason="the hidden size (8) must be a multiple of num_heads; onnxruntime computes with a truncated head size")
attention("mask_3b_plus_2", [("mask_index", np.array([3, 3, 0, 0, 0, 0, 0, 0], np.int32))], expect="onnxopt-error",
          reason="a mask of shape [3 * batch + 2] is onnxruntime's CUDA format; its CPU provider reads the first "
                 "batch values as end positions")

# --- MultiHeadAttention --------------------------------------------------------------------------------
L = 4
Q = normal(10, [B, S, N * H])
K = normal(11, [B, L, N * H])
V = normal(12, [B, L, N * H])
MHA_BIAS = normal(13, [3 * N * H])
PK, PV = normal(14, [B, N, 2, H]), normal(15, [B, N, 2, H])
KS, VS = normal(16, [B, S, N * H]), normal(17, [B, S, N * H])
KB, VB = normal(18, [B, N, L, H]), normal(19, [B, N, L, H])


def mha(name, inputs, attrs=None, outputs=1, **kwargs):
    add(op="MultiHeadAttention", name=f"multiheadattention_{name}", attrs={"num_heads": N, **(attrs or {})},
        inputs=inputs, outputs=outputs, **kwargs)


mha("basic", [("query", Q), ("key", K), ("value", V)], outputs=3)
mha("bias", [("query", Q), ("key", K), ("value", V), ("bias", MHA_BIAS)], outputs=3)
mha("scale", [("query", Q), ("key", K), ("value", V)], attrs={"scale": 0.7})
mha("key_lengths", [("query", Q), ("key", K), ("value", V), ("bias", None), ("mask", np.array([2, 4], np.int32))])
mha("key_padding_2d", [("query", Q), ("key", K), ("value", V), ("bias", None),
                       ("mask", np.array([[1, 0, 1, 1], [1, 1, 1, 0]], np.int32))])
mha("mask_3d", [("query", Q), ("key", K), ("value", V), ("bias", None),
                ("mask", (np.random.default_rng(20).random([B, S, L]) > 0.3).astype(np.int32))])
mha("mask_filter_value", [("query", Q), ("key", K), ("value", V), ("bias", None),
                          ("mask", np.array([[1, 0, 1, 1], [0, 0, 1, 1]], np.int32))], attrs={"mask_filter_value": -5.0})
mha("attention_bias", [("query", Q), ("key", K), ("value", V), ("bias", None), ("mask", None),
                       ("attention_bias", normal(21, [1, N, S, L]))])
mha("past", [("query", Q), ("key", KS), ("value", VS), ("bias", MHA_BIAS), ("mask", None), ("attention_bias", None),
             ("past_key", PK), ("past_value", PV)], attrs={"unidirectional": 1}, outputs=3)
mha("past_key_padding", [("query", Q), ("key", KS), ("value", VS), ("bias", None),
                         ("mask", np.array([[1, 0, 1, 1, 1], [1, 1, 1, 1, 0]], np.int32)), ("attention_bias", None),
                         ("past_key", PK), ("past_value", PV)], outputs=3)
mha("keys_per_head", [("query", Q), ("key", KB), ("value", VB)], outputs=3)
mha("keys_per_head_bias", [("query", Q), ("key", KB), ("value", VB), ("bias", MHA_BIAS)])
mha("keys_per_head_past", [("query", Q), ("key", KB), ("value", VB), ("bias", None), ("mask", None),
                           ("attention_bias", None), ("past_key", PK), ("past_value", PV)], outputs=3)
mha("value_hidden_differs", [("query", Q), ("key", K), ("value", normal(22, [B, L, 2 * N * H]))])
mha("self_unidirectional", [("query", Q), ("key", KS), ("value", VS)], attrs={"unidirectional": 1})
mha("single_query_unidirectional", [("query", Q[:, :1]), ("key", K), ("value", V)], attrs={"unidirectional": 1})
mha("float16", [("query", Q.astype(np.float16)), ("key", K.astype(np.float16)), ("value", V.astype(np.float16))],
    atol=5e-3, rtol=5e-3, reason="float16 inputs: onnxruntime and onnxopt both attend in float, rounding differs")
mha("packed_qkv", [("query", np.stack([heads(Q, N).transpose(0, 2, 1, 3)] * 3, axis=3))], expect="error")
mha("packed_kv", [("query", Q), ("key", np.stack([K.reshape(B, L, N, H), V.reshape(B, L, N, H)], axis=3))],
    expect="error")
mha("mask_start_positions", [("query", Q), ("key", K), ("value", V), ("bias", None),
                             ("mask", np.array([3, 4, 1, 0], np.int32))], expect="error")
mha("mask_key_length_with_past", [("query", Q), ("key", KS), ("value", VS), ("bias", None),
                                  ("mask", np.ones([B, S], np.int32)), ("attention_bias", None),
                                  ("past_key", PK), ("past_value", PV)], outputs=3, expect="error")
mha("past_sequence_length", [("query", Q), ("key", KS), ("value", VS), ("bias", None), ("mask", None),
                             ("attention_bias", None), ("past_key", PK), ("past_value", PV),
                             ("past_sequence_length", np.int32(1))], outputs=3, expect="onnxopt-error",
    reason="past_sequence_length belongs to shared past/present buffers, which onnxopt does not implement; "
           "onnxruntime's CPU provider accepts it and returns a present of the past's length")
qh, ksh, vsh = heads(Q.astype(np.float64), N), heads(KS.astype(np.float64), N), heads(VS.astype(np.float64), N)
mha("past_without_present", [("query", Q), ("key", KS), ("value", VS), ("bias", None), ("mask", None),
                             ("attention_bias", None), ("past_key", PK), ("past_value", PV)], expect="spec",
    expected=[attend(qh, np.concatenate([PK, ksh], axis=2), np.concatenate([PV, vsh], axis=2), 0).astype(np.float32)],
    reason="onnxruntime ignores past_key and past_value when present_key and present_value are not requested")
kh, vh = heads(K.astype(np.float64), N), heads(V.astype(np.float64), N)
mha("cross_unidirectional", [("query", Q), ("key", K), ("value", V)], attrs={"unidirectional": 1}, expect="spec",
    expected=[attend(qh, kh, vh, causal(S, L, 0)).astype(np.float32)],
    reason="query row s sees keys up to s (no past); onnxruntime lets the last query row see every key")

# --- GroupQueryAttention -----------------------------------------------------------------------------------
GN, GKV, GH = 4, 2, 16
GQ = normal(30, [B, S, GN * GH])
GK = normal(31, [B, S, GKV * GH])
GV = normal(32, [B, S, GKV * GH])
SEQ = np.array([S - 1] * B, np.int32)
P_BUF = 5
GPK, GPV = normal(33, [B, GKV, P_BUF, GH]), normal(34, [B, GKV, P_BUF, GH])
COS, SIN = normal(35, [10, 8]), normal(36, [10, 8])


def gqa(name, inputs, attrs=None, outputs=3, **kwargs):
    add(op="GroupQueryAttention", name=f"groupqueryattention_{name}",
        attrs={"num_heads": GN, "kv_num_heads": GKV, **(attrs or {})}, inputs=inputs, outputs=outputs, **kwargs)


def prompt(q=GQ, k=GK, v=GV, seq=SEQ, total=S, extra=()):
    return [("query", q), ("key", k), ("value", v), ("past_key", None), ("past_value", None), ("seqlens_k", seq),
            ("total_sequence_length", np.int32(total))] + list(extra)


def token(seq=(3, 2), total=4, extra=()):
    return [("query", GQ[:, :1]), ("key", GK[:, :1]), ("value", GV[:, :1]), ("past_key", GPK), ("past_value", GPV),
            ("seqlens_k", np.array(seq, np.int32)), ("total_sequence_length", np.int32(total))] + list(extra)


ROTARY = [("cos_cache", COS), ("sin_cache", SIN)]
gqa("prompt", prompt())
gqa("token", token())
gqa("token_full_buffer", token(seq=(4, 4), total=5))
gqa("subsequent_prompt", [("query", GQ[:1]), ("key", GK[:1]), ("value", GV[:1]), ("past_key", GPK[:1]),
                          ("past_value", GPV[:1]), ("seqlens_k", np.array([5], np.int32)),
                          ("total_sequence_length", np.int32(6))])
gqa("packed_qkv", [("query", np.concatenate([GQ, GK, GV], axis=2)), ("key", None), ("value", None),
                   ("past_key", None), ("past_value", None), ("seqlens_k", SEQ), ("total_sequence_length", np.int32(S))])
gqa("multi_query", prompt(k=GK[..., :GH], v=GV[..., :GH]), attrs={"kv_num_heads": 1})
gqa("scale", prompt(), attrs={"scale": 0.3})
gqa("softcap", prompt(), attrs={"softcap": 2.0})
gqa("local_window", prompt(), attrs={"local_window_size": 1})
gqa("local_window_token", token(), attrs={"local_window_size": 2})
gqa("smooth_softmax", prompt(), attrs={"smooth_softmax": 1})
gqa("head_sink", prompt(extra=[("cos_cache", None), ("sin_cache", None), ("position_ids", None),
                               ("attention_bias", None), ("head_sink", normal(37, [GN]))]))
gqa("attention_bias_softcap", prompt(extra=[("cos_cache", None), ("sin_cache", None), ("position_ids", None),
                                            ("attention_bias", normal(38, [B, 1, S, S]))]), attrs={"softcap": 1.5})
gqa("attention_bias_token", token(extra=[("cos_cache", None), ("sin_cache", None), ("position_ids", None),
                                         ("attention_bias", normal(39, [B, GN, 1, 4]))]))
for interleaved in [0, 1]:
    gqa(f"rotary_interleaved{interleaved}", prompt(extra=ROTARY), attrs={"do_rotary": 1, "rotary_interleaved": interleaved})
    gqa(f"rotary_token_interleaved{interleaved}", token(extra=ROTARY),
        attrs={"do_rotary": 1, "rotary_interleaved": interleaved})
gqa("rotary_position_ids_prompt", prompt(extra=ROTARY + [("position_ids", np.array([[2, 9, 9], [6, 6, 6]], np.int64))]),
    attrs={"do_rotary": 1})
gqa("rotary_position_ids_token", token(extra=ROTARY + [("position_ids", np.array([[7], [2]], np.int64))]),
    attrs={"do_rotary": 1})
gqa("rotary_packed", [("query", np.concatenate([GQ, GK, GV], axis=2)), ("key", None), ("value", None),
                      ("past_key", None), ("past_value", None), ("seqlens_k", SEQ),
                      ("total_sequence_length", np.int32(S))] + ROTARY, attrs={"do_rotary": 1})
for mode in [1, 2]:
    gqa(f"qk_output{mode}", prompt(), attrs={"qk_output": mode, "softcap": 1.5}, outputs=4)
    # Both batches hold 4 tokens: onnxruntime leaves the scores of keys beyond a batch's tokens undefined.
    gqa(f"qk_output{mode}_token", token(seq=(3, 3)), attrs={"qk_output": mode}, outputs=4)
gqa("float16", [(n, v.astype(np.float16) if v is not None and v.dtype == np.float32 else v) for n, v in prompt()],
    atol=5e-3, rtol=5e-3, reason="float16 inputs: onnxruntime and onnxopt both attend in float, rounding differs")
gqa("head_size_not_multiple_of_8", prompt(q=GQ[..., :GN * 4], k=GK[..., :GKV * 4], v=GV[..., :GKV * 4]), expect="error")
gqa("heads_not_multiple_of_kv_heads", prompt(), attrs={"kv_num_heads": 3}, expect="error")
gqa("rotary_partial_cache", prompt(extra=[("cos_cache", COS[:, :4]), ("sin_cache", SIN[:, :4])]),
    attrs={"do_rotary": 1}, expect="error")
gqa("prompt_batch_after_past", prompt(total=4), expect="error")
gqa("seqlens_beyond_total", prompt(seq=np.array([7, 2], np.int32)), expect="onnxopt-error",
    reason="seqlens_k + 1 (8 tokens) exceeds total_sequence_length (3); onnxruntime reads beyond its buffers")
