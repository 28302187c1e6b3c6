"""Differential cases of the com.microsoft kernels (onnx_extensions/kernels/contrib_kernels.cc),
whose semantics are onnxruntime's: FusedMatMul, the Gelu family, BiasAdd, the skip and
simplified layer normalizations, RotaryEmbedding."""
import numpy as np

from differential import Case

CASES = []
MS = "com.microsoft"


def add(**kwargs):
    CASES.append(Case(domain=MS, opset=1, **kwargs))


def uniform(seed, shape, lo=-2.0, hi=2.0, dtype=np.float32):
    return np.random.default_rng(seed).uniform(lo, hi, shape).astype(dtype)


GEMM_REASON = "float32 sums in another order than onnxruntime's MLAS GEMM"

# --- FusedMatMul -------------------------------------------------------------------------------
for ta in [0, 1]:
    for tb in [0, 1]:
        a = uniform(1, [2, 4, 3] if ta else [2, 3, 4])
        b = uniform(2, [5, 4] if tb else [4, 5])
        add(op="FusedMatMul", name=f"fusedmatmul_trans_a{ta}_b{tb}", attrs={"transA": ta, "transB": tb, "alpha": 0.5},
            inputs=[("a", a), ("b", b)], rtol=1e-4, atol=1e-5, reason=GEMM_REASON)
add(op="FusedMatMul", name="fusedmatmul_vector", inputs=[("a", uniform(3, [4])), ("b", uniform(4, [4, 2]))],
    rtol=1e-4, atol=1e-5, reason=GEMM_REASON)
A64, B64 = uniform(3, [2, 4], dtype=np.float64), uniform(4, [4, 2], dtype=np.float64)
add(op="FusedMatMul", name="fusedmatmul_double", attrs={"alpha": 2.0}, inputs=[("a", A64), ("b", B64)], expect="spec",
    expected=[2.0 * A64 @ B64], reason="alpha * A B; onnxruntime's CPU provider has FusedMatMul for float only")
add(op="FusedMatMul", name="fusedmatmul_inner_mismatch", attrs={"transB": 1},
    inputs=[("a", uniform(3, [2, 4])), ("b", uniform(4, [4, 2]))], expect="error")

# --- Gelu family ---------------------------------------------------------------------------------
X = uniform(5, [2, 3, 4], -5, 5)
SPECIALS = np.array([[0, -0.0, 10, -10, 30, -30, np.inf, -np.inf]], np.float32)
add(op="Gelu", name="gelu_random", inputs=[("x", X)])
add(op="Gelu", name="gelu_specials", inputs=[("x", SPECIALS)])
add(op="Gelu", name="gelu_empty", inputs=[("x", np.zeros([0, 4], np.float32))])
add(op="BiasGelu", name="biasgelu_random", inputs=[("x", X), ("bias", uniform(6, [4]))])
add(op="BiasGelu", name="biasgelu_bias_mismatch", inputs=[("x", X), ("bias", uniform(6, [3]))], expect="error")
add(op="FastGelu", name="fastgelu_random", inputs=[("x", X)], rtol=1e-4, atol=1e-5,
    reason="onnxruntime evaluates tanh with MLAS's polynomial approximation")
add(op="FastGelu", name="fastgelu_bias", inputs=[("x", X), ("bias", uniform(7, [4]))], rtol=1e-4, atol=1e-5,
    reason="onnxruntime evaluates tanh with MLAS's polynomial approximation")
add(op="FastGelu", name="fastgelu_specials", inputs=[("x", SPECIALS)], rtol=1e-4, atol=1e-5,
    reason="onnxruntime evaluates tanh with MLAS's polynomial approximation")
add(op="QuickGelu", name="quickgelu_default", inputs=[("x", X)])
add(op="QuickGelu", name="quickgelu_alpha", attrs={"alpha": 1.0}, inputs=[("x", X)])
add(op="QuickGelu", name="quickgelu_specials", inputs=[("x", SPECIALS)])
def fast_gelu(v):
    v = v.astype(np.float64)
    return (0.5 * v * (1 + np.tanh(np.sqrt(2 / np.pi) * (v + 0.044715 * v ** 3)))).astype(np.float32)


NO_CPU_KERNEL = "onnxruntime's CPU provider has no kernel for it (CUDA/ROCm only); expected from its definition"
GX, GW, GB = uniform(8, [3, 4]), uniform(9, [4, 5]), uniform(10, [5])
add(op="GemmFastGelu", name="gemmfastgelu_bias", inputs=[("x", GX), ("w", GW), ("bias", GB)], expect="spec",
    expected=[fast_gelu(GX.astype(np.float64) @ GW + GB)], rtol=1e-5, atol=1e-6, reason="FastGelu(X W + bias); " + NO_CPU_KERNEL)
GX3 = uniform(8, [2, 3, 4])
add(op="GemmFastGelu", name="gemmfastgelu_no_bias", inputs=[("x", GX3), ("w", GW)], expect="spec",
    expected=[fast_gelu(GX3.astype(np.float64) @ GW)], rtol=1e-5, atol=1e-6, reason="FastGelu(X W); " + NO_CPU_KERNEL)

# --- BiasAdd ---------------------------------------------------------------------------------------
BX, BB, BS = uniform(11, [2, 3, 4]), uniform(12, [4]), uniform(13, [2, 3, 4])
add(op="BiasAdd", name="biasadd_basic", inputs=[("x", BX), ("bias", BB), ("skip", BS)], expect="spec",
    expected=[BX + BB + BS], reason="X + bias + skip; " + NO_CPU_KERNEL)
add(op="BiasAdd", name="biasadd_skip_mismatch", inputs=[("x", uniform(11, [2, 3, 4])), ("bias", uniform(12, [4])),
                                                        ("skip", uniform(13, [1, 3, 4]))], expect="error")

# --- Skip / simplified layer normalizations ---------------------------------------------------------
H = 8
XS = uniform(14, [2, 3, H])
NORM_REASON = "variance as E[x^2] - E[x]^2 in double here, in float with another summation order in onnxruntime"
# Outputs 1 and 2 (mean, inv_std_var) are training outputs onnxruntime's CPU kernel does not
# compute (it crashes when they are requested): only the output and the sum are compared.
add(op="SkipLayerNormalization", name="skiplayernormalization_sum_output", outputs=["y", "", "", "sum"],
    inputs=[("x", XS), ("skip", uniform(15, [2, 3, H])), ("gamma", uniform(16, [H])), ("beta", uniform(17, [H])),
            ("bias", uniform(18, [H]))], rtol=1e-4, atol=1e-5, reason=NORM_REASON)
add(op="SkipLayerNormalization", name="skiplayernormalization_minimal",
    inputs=[("x", XS), ("skip", uniform(15, [2, 3, H])), ("gamma", uniform(16, [H]))], rtol=1e-4, atol=1e-5, reason=NORM_REASON)
add(op="SkipLayerNormalization", name="skiplayernormalization_skip_broadcast", attrs={"epsilon": 1e-3},
    inputs=[("x", XS), ("skip", uniform(15, [3, H])), ("gamma", uniform(16, [H])), ("beta", uniform(17, [H]))],
    rtol=1e-4, atol=1e-5, reason=NORM_REASON)
add(op="SkipLayerNormalization", name="skiplayernormalization_gamma_mismatch",
    inputs=[("x", XS), ("skip", uniform(15, [2, 3, H])), ("gamma", uniform(16, [H - 1]))], expect="error")
add(op="SkipSimplifiedLayerNormalization", name="skipsimplifiedlayernormalization_sum_output", outputs=["y", "", "", "sum"],
    inputs=[("x", XS), ("skip", uniform(15, [2, 3, H])), ("gamma", uniform(16, [H])), ("bias", uniform(18, [H]))],
    rtol=1e-4, atol=1e-5, reason=NORM_REASON)
add(op="SkipSimplifiedLayerNormalization", name="skipsimplifiedlayernormalization_minimal",
    inputs=[("x", XS), ("skip", uniform(15, [2, 3, H])), ("gamma", uniform(16, [H]))], rtol=1e-4, atol=1e-5, reason=NORM_REASON)
# onnxruntime registers SimplifiedLayerNormalization in the default domain only (version 1).
for case in [
        Case(op="SimplifiedLayerNormalization", opset=1, name="simplifiedlayernormalization_last_axis", outputs=2,
             inputs=[("x", XS), ("scale", uniform(16, [H]))], rtol=1e-4, atol=1e-5, reason=NORM_REASON),
        Case(op="SimplifiedLayerNormalization", opset=1, name="simplifiedlayernormalization_two_axes", attrs={"axis": -2},
             inputs=[("x", XS), ("scale", uniform(16, [3, H]))], rtol=1e-4, atol=1e-5, reason=NORM_REASON),
        Case(op="SimplifiedLayerNormalization", opset=1, name="simplifiedlayernormalization_zeros",
             inputs=[("x", np.zeros([2, H], np.float32)), ("scale", uniform(16, [H]))]),
        Case(op="SimplifiedLayerNormalization", opset=1, name="simplifiedlayernormalization_scale_mismatch",
             inputs=[("x", XS), ("scale", uniform(16, [H + 1]))], expect="error")]:
    CASES.append(case)

# --- RotaryEmbedding (com.microsoft) ------------------------------------------------------------------
B, S, N, HD = 2, 3, 2, 4
for interleaved in [0, 1]:
    add(op="RotaryEmbedding", name=f"rotaryembedding_ms_3d_interleaved{interleaved}", attrs={"interleaved": interleaved},
        inputs=[("x", uniform(20, [B, S, N * HD])), ("pos", np.array([[0, 1, 2], [3, 4, 5]], np.int64)),
                ("cos", uniform(21, [8, HD // 2])), ("sin", uniform(22, [8, HD // 2]))])
add(op="RotaryEmbedding", name="rotaryembedding_ms_offset_position",
    inputs=[("x", uniform(20, [B, S, N * HD])), ("pos", np.array([2], np.int64)), ("cos", uniform(21, [8, HD // 2])),
            ("sin", uniform(22, [8, HD // 2]))])
add(op="RotaryEmbedding", name="rotaryembedding_ms_4d", inputs=[("x", uniform(20, [B, N, S, HD])),
                                                                ("pos", np.array([[0, 1, 2], [3, 4, 5]], np.int64)),
                                                                ("cos", uniform(21, [8, HD // 2])),
                                                                ("sin", uniform(22, [8, HD // 2]))])
add(op="RotaryEmbedding", name="rotaryembedding_ms_position_out_of_range",
    inputs=[("x", uniform(20, [B, S, N * HD])), ("pos", np.array([[0, 1, 2], [3, 4, 9]], np.int64)),
            ("cos", uniform(21, [8, HD // 2])), ("sin", uniform(22, [8, HD // 2]))], expect="onnxopt-error",
    reason="position ids select rows of the caches (8 here); onnxruntime reads past them")
