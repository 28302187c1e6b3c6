"""Differential cases of the neural-network kernels (onnx_extensions/kernels/nn_kernels.cc):
MatMul, Gemm, Softmax family, normalizations, Conv, pooling, quantization, Resize,
RotaryEmbedding, Attention, Einsum, RNN/GRU/LSTM."""
import numpy as np

from differential import Case, uniform, i64, iota

CASES = []


def add(**kwargs):
    CASES.append(Case(**kwargs))


# Sums of products in another order than onnxruntime's (blocked GEMM, FMA): relative
# error grows with the length of the sums and where they cancel.
GEMM_REASON = "float32 sums in another order than onnxruntime's MLAS GEMM"

# --- MatMul ----------------------------------------------------------------------------------
for tag, a, b in [("2d", [3, 4], [4, 5]), ("vector_left", [4], [4, 5]), ("vector_right", [3, 4], [4]),
                  ("vectors", [4], [4]), ("batch_broadcast", [2, 1, 3, 4], [5, 4, 2]), ("batch_one_side", [3, 4], [2, 4, 5]),
                  ("empty_m", [0, 4], [4, 5]), ("empty_k", [3, 0], [0, 5]), ("empty_batch", [0, 3, 4], [4, 2]),
                  ("large_k", [3, 300], [300, 20])]:
    add(op="MatMul", opset=13, name=f"matmul_{tag}", inputs=[("a", uniform(1, a)), ("b", uniform(2, b))],
        rtol=1e-4, atol=1e-5, reason=GEMM_REASON)
add(op="MatMul", opset=13, name="matmul_double", inputs=[("a", uniform(1, [3, 4], dtype=np.float64)),
                                                         ("b", uniform(2, [4, 2], dtype=np.float64))])
add(op="MatMul", opset=13, name="matmul_float16", inputs=[("a", uniform(1, [3, 4], dtype=np.float16)),
                                                          ("b", uniform(2, [4, 2], dtype=np.float16))])
for dtype in [np.int32, np.int64, np.uint32, np.uint64]:
    add(op="MatMul", opset=13, name=f"matmul_{np.dtype(dtype).name}",
        inputs=[("a", iota([2, 3], dtype)), ("b", iota([3, 2], dtype))])
add(op="MatMul", opset=13, name="matmul_inner_mismatch", inputs=[("a", uniform(1, [3, 4])), ("b", uniform(2, [5, 2]))],
    expect="error")
add(op="MatMul", opset=13, name="matmul_batch_mismatch", inputs=[("a", uniform(1, [2, 3, 4])), ("b", uniform(2, [3, 4, 2]))],
    expect="error")
add(op="MatMul", opset=13, name="matmul_scalar", inputs=[("a", np.float32(2)), ("b", uniform(2, [2]))], expect="error")
add(op="MatMul", opset=13, name="matmul_mixed_types", inputs=[("a", uniform(1, [2, 2])), ("b", uniform(2, [2, 2], dtype=np.float64))],
    expect="error")
add(op="MatMul", opset=13, name="matmul_nan_inf", inputs=[("a", np.array([[np.nan, 1], [np.inf, 0]], np.float32)),
                                                          ("b", np.array([[1, 0], [0, 1]], np.float32))])

add(op="MatMulInteger", opset=10, name="matmulinteger_uint8",
    inputs=[("a", np.array([[11, 7, 3], [10, 6, 2]], np.uint8)), ("b", np.array([[1, 4], [2, 5], [3, 6]], np.uint8)),
            ("a_zero", np.uint8(12)), ("b_zero", np.uint8(0))])
A_INT8 = np.array([[-128, 127], [5, -5]], np.int8)
B_INT8 = np.array([[1, 2], [3, 4]], np.int8)
add(op="MatMulInteger", opset=10, name="matmulinteger_int8_per_row_zero",
    inputs=[("a", A_INT8), ("b", B_INT8), ("a_zero", np.array([1, -1], np.int8))], expect="spec",
    expected=[((A_INT8.astype(np.int32) - np.array([[1], [-1]], np.int32)) @ B_INT8.astype(np.int32)).astype(np.int32)],
    reason="a 1-D a_zero_point holds one zero point per row of A; onnxruntime supports only a scalar")
add(op="MatMulInteger", opset=10, name="matmulinteger_per_column_b_zero",
    inputs=[("a", np.array([[1, 2]], np.uint8)), ("b", np.array([[1, 2, 3], [4, 5, 6]], np.uint8)), ("a_zero", None),
            ("b_zero", np.array([1, 2, 3], np.uint8))])
add(op="MatMulInteger", opset=10, name="matmulinteger_no_zero_points",
    inputs=[("a", np.array([[255, 255]], np.uint8)), ("b", np.array([[255], [255]], np.uint8))])
add(op="MatMulInteger", opset=10, name="matmulinteger_batched",
    inputs=[("a", np.arange(12, dtype=np.uint8).reshape(2, 2, 3)), ("b", np.arange(6, dtype=np.uint8).reshape(3, 2))])
add(op="MatMulInteger", opset=10, name="matmulinteger_zero_point_type_mismatch",
    inputs=[("a", np.array([[1]], np.uint8)), ("b", np.array([[1]], np.uint8)), ("a_zero", np.int8(1))], expect="error")
add(op="MatMulInteger", opset=10, name="matmulinteger_float", inputs=[("a", uniform(1, [2, 2])), ("b", uniform(2, [2, 2]))],
    expect="error")

# --- Gemm --------------------------------------------------------------------------------------
for ta in [0, 1]:
    for tb in [0, 1]:
        a = uniform(3, [4, 3] if ta else [3, 4])
        b = uniform(4, [5, 4] if tb else [4, 5])
        add(op="Gemm", opset=13, name=f"gemm_trans_a{ta}_b{tb}", attrs={"transA": ta, "transB": tb, "alpha": 0.5, "beta": 2.0},
            inputs=[("a", a), ("b", b), ("c", uniform(5, [5]))], rtol=1e-4, atol=1e-5, reason=GEMM_REASON)
for tag, c in [("c_scalar", np.float32(1.5)), ("c_column", uniform(6, [3, 1])), ("c_full", uniform(7, [3, 5])),
               ("c_row_one", uniform(8, [1, 5]))]:
    add(op="Gemm", opset=13, name=f"gemm_{tag}", inputs=[("a", uniform(1, [3, 4])), ("b", uniform(2, [4, 5])), ("c", c)],
        rtol=1e-4, atol=1e-5, reason=GEMM_REASON)
add(op="Gemm", opset=13, name="gemm_no_c", inputs=[("a", uniform(1, [3, 4])), ("b", uniform(2, [4, 5]))],
    rtol=1e-4, atol=1e-5, reason=GEMM_REASON)
add(op="Gemm", opset=13, name="gemm_beta_zero_nan_c", attrs={"beta": 0.0},
    inputs=[("a", uniform(1, [2, 2])), ("b", uniform(2, [2, 2])), ("c", np.full([2, 2], np.nan, np.float32))])
add(op="Gemm", opset=13, name="gemm_empty_k", inputs=[("a", np.zeros([2, 0], np.float32)), ("b", np.zeros([0, 3], np.float32)),
                                                      ("c", np.float32(1))])
add(op="Gemm", opset=13, name="gemm_double", inputs=[("a", uniform(1, [2, 3], dtype=np.float64)),
                                                     ("b", uniform(2, [3, 2], dtype=np.float64))])
add(op="Gemm", opset=13, name="gemm_c_not_broadcastable", inputs=[("a", uniform(1, [3, 4])), ("b", uniform(2, [4, 5])),
                                                                  ("c", uniform(3, [4]))], expect="error")
add(op="Gemm", opset=13, name="gemm_inner_mismatch", inputs=[("a", uniform(1, [3, 4])), ("b", uniform(2, [3, 5]))],
    expect="error")
add(op="Gemm", opset=13, name="gemm_not_2d", inputs=[("a", uniform(1, [4])), ("b", uniform(2, [4, 5]))], expect="error")
add(op="Gemm", opset=11, name="gemm_opset11_int32", inputs=[("a", iota([2, 2], np.int32)), ("b", iota([2, 2], np.int32)),
                                                            ("c", np.int32(1))],
    expect="spec", expected=[(iota([2, 2], np.int32) @ iota([2, 2], np.int32) + 1).astype(np.int32)],
    reason="Y = alpha A B + beta C (int32 is a type of Gemm since opset 11); onnxruntime's CPU provider has no int32 Gemm")
add(op="Gemm", opset=7, name="gemm_opset7", inputs=[("a", uniform(1, [2, 3])), ("b", uniform(2, [3, 2])), ("c", uniform(3, [2]))])

# --- Softmax, LogSoftmax, Hardmax ------------------------------------------------------------------
X = uniform(9, [2, 3, 4], -5, 5)
for op in ["Softmax", "LogSoftmax", "Hardmax"]:
    lower = op.lower()
    for axis in [0, 1, -1]:
        add(op=op, opset=13, name=f"{lower}_axis_{axis}".replace("-", "m"), attrs={"axis": axis}, inputs=[("x", X)])
        add(op=op, opset=11, name=f"{lower}_opset11_axis_{axis}".replace("-", "m"), attrs={"axis": axis}, inputs=[("x", X)])
    add(op=op, opset=13, name=f"{lower}_default", inputs=[("x", X)])
    add(op=op, opset=11, name=f"{lower}_opset11_default", inputs=[("x", X)])
    add(op=op, opset=13, name=f"{lower}_infinities", inputs=[("x", np.array([[np.inf, 1, 2], [-np.inf, -np.inf, 0],
                                                                             [-np.inf, -np.inf, -np.inf]], np.float32))])
    if op != "Hardmax":
        add(op=op, opset=13, name=f"{lower}_nan", inputs=[("x", np.array([[np.nan, 1, 2], [3, np.nan, 0]], np.float32))])
    add(op=op, opset=13, name=f"{lower}_ties", inputs=[("x", np.array([[2, 5, 5, 1]], np.float32))])
    add(op=op, opset=13, name=f"{lower}_large", inputs=[("x", np.array([[1e30, 1e30, -1e30], [3e38, 3e38, 3e38]], np.float32))])
    add(op=op, opset=13, name=f"{lower}_empty_rows", inputs=[("x", np.zeros([0, 3], np.float32))])
    add(op=op, opset=13, name=f"{lower}_empty_axis", inputs=[("x", np.zeros([3, 0], np.float32))])
    if op != "Hardmax":
        add(op=op, opset=13, name=f"{lower}_double", inputs=[("x", X.astype(np.float64))])
    add(op=op, opset=13, name=f"{lower}_axis_out_of_range", attrs={"axis": 3}, inputs=[("x", X)], expect="error")
    add(op=op, opset=13, name=f"{lower}_scalar", inputs=[("x", np.float32(1))], expect="error")
    add(op=op, opset=13, name=f"{lower}_int", inputs=[("x", iota([2, 2], np.int32))], expect="error")
add(op="Softmax", opset=13, name="softmax_float16", inputs=[("x", X.astype(np.float16))])
HARDMAX_NAN = np.array([[np.nan, 1, 2], [3, np.nan, 0]], np.float32)
add(op="Hardmax", opset=13, name="hardmax_nan", inputs=[("x", HARDMAX_NAN)], expect="spec",
    expected=[np.eye(3, dtype=np.float32)[np.argmax(HARDMAX_NAN, axis=-1)]],
    reason="the first maximum is taken like numpy's argmax (NaN counts as the maximum, as in the ONNX reference); "
           "onnxruntime outputs a row without any 1")

# --- Normalizations ----------------------------------------------------------------------------------
X4 = uniform(10, [2, 3, 4, 5], -2, 2)
for axis in [-1, -2, 1, 0]:
    shape = X4.shape[axis:] if axis != 0 else X4.shape
    add(op="LayerNormalization", opset=17, name=f"layernormalization_axis_{axis}".replace("-", "m"), attrs={"axis": axis},
        inputs=[("x", X4), ("scale", uniform(11, shape)), ("bias", uniform(12, shape))], outputs=3, rtol=1e-4, atol=1e-5,
        reason="the variance is a sum over up to 120 elements in another order than onnxruntime's")
add(op="LayerNormalization", opset=17, name="layernormalization_scale_broadcast",
    inputs=[("x", X4), ("scale", uniform(11, [5])), ("bias", uniform(12, [1, 5]))])
add(op="LayerNormalization", opset=17, name="layernormalization_no_bias_epsilon", attrs={"epsilon": 0.1},
    inputs=[("x", X4), ("scale", uniform(11, [5]))])
add(op="LayerNormalization", opset=17, name="layernormalization_constant_rows",
    inputs=[("x", np.ones([2, 4], np.float32)), ("scale", np.ones([4], np.float32))], outputs=3)
add(op="LayerNormalization", opset=17, name="layernormalization_double",
    inputs=[("x", X4.astype(np.float64)), ("scale", uniform(11, [5], dtype=np.float64))])
add(op="LayerNormalization", opset=17, name="layernormalization_float16",
    inputs=[("x", X4.astype(np.float16)), ("scale", uniform(11, [5], dtype=np.float16))])
add(op="LayerNormalization", opset=17, name="layernormalization_empty_rows",
    inputs=[("x", np.zeros([0, 4], np.float32)), ("scale", np.ones([4], np.float32))])
add(op="LayerNormalization", opset=17, name="layernormalization_axis_out_of_range", attrs={"axis": 4},
    inputs=[("x", X4), ("scale", uniform(11, [5]))], expect="error")
add(op="LayerNormalization", opset=17, name="layernormalization_scale_wrong_shape",
    inputs=[("x", X4), ("scale", uniform(11, [4]))], expect="error")

add(op="RMSNormalization", opset=23, name="rmsnormalization_last_axis", inputs=[("x", X4), ("scale", uniform(11, [5]))])
add(op="RMSNormalization", opset=23, name="rmsnormalization_two_axes", attrs={"axis": -2, "epsilon": 0.01},
    inputs=[("x", X4), ("scale", uniform(11, [4, 5]))])
add(op="RMSNormalization", opset=23, name="rmsnormalization_zeros", inputs=[("x", np.zeros([2, 3], np.float32)),
                                                                           ("scale", np.ones([3], np.float32))])
add(op="RMSNormalization", opset=23, name="rmsnormalization_scale_wrong_shape",
    inputs=[("x", X4), ("scale", uniform(11, [3]))], expect="error")

C = 3
for training in [0, 1]:
    outputs = 3 if training else 1
    add(op="BatchNormalization", opset=15, name=f"batchnormalization_training{training}", attrs={"training_mode": training},
        inputs=[("x", uniform(13, [2, C, 4, 4])), ("scale", uniform(14, [C])), ("b", uniform(15, [C])),
                ("mean", uniform(16, [C])), ("var", uniform(17, [C], 0.5, 2))], outputs=outputs,
        rtol=1e-4, atol=1e-5, reason="batch statistics are sums over 32 elements in another order")
add(op="BatchNormalization", opset=15, name="batchnormalization_rank2",
    inputs=[("x", uniform(13, [4, C])), ("scale", uniform(14, [C])), ("b", uniform(15, [C])),
            ("mean", uniform(16, [C])), ("var", uniform(17, [C], 0.5, 2))])
add(op="BatchNormalization", opset=15, name="batchnormalization_epsilon_double", attrs={"epsilon": 0.5},
    inputs=[("x", uniform(13, [1, C, 2], dtype=np.float64)), ("scale", uniform(14, [C], dtype=np.float64)),
            ("b", uniform(15, [C], dtype=np.float64)), ("mean", uniform(16, [C], dtype=np.float64)),
            ("var", uniform(17, [C], 0.5, 2, np.float64))])
add(op="BatchNormalization", opset=15, name="batchnormalization_wrong_channel_count",
    inputs=[("x", uniform(13, [2, C, 2])), ("scale", uniform(14, [2])), ("b", uniform(15, [C])),
            ("mean", uniform(16, [C])), ("var", uniform(17, [C], 0.5, 2))], expect="error")
add(op="BatchNormalization", opset=9, name="batchnormalization_opset9",
    inputs=[("x", uniform(13, [2, C, 2])), ("scale", uniform(14, [C])), ("b", uniform(15, [C])),
            ("mean", uniform(16, [C])), ("var", uniform(17, [C], 0.5, 2))])

add(op="InstanceNormalization", opset=6, name="instancenormalization_basic",
    inputs=[("x", uniform(18, [2, C, 5, 2])), ("scale", uniform(19, [C])), ("b", uniform(20, [C]))])
add(op="InstanceNormalization", opset=6, name="instancenormalization_epsilon", attrs={"epsilon": 0.3},
    inputs=[("x", uniform(18, [1, C, 3])), ("scale", uniform(19, [C])), ("b", uniform(20, [C]))])
add(op="InstanceNormalization", opset=6, name="instancenormalization_wrong_scale",
    inputs=[("x", uniform(18, [1, C, 3])), ("scale", uniform(19, [2])), ("b", uniform(20, [C]))], expect="error")
add(op="InstanceNormalization", opset=6, name="instancenormalization_rank2",
    inputs=[("x", uniform(18, [2, C])), ("scale", uniform(19, [C])), ("b", uniform(20, [C]))], expect="error")

for groups in [1, 2, 4]:
    add(op="GroupNormalization", opset=21, name=f"groupnormalization_groups_{groups}", attrs={"num_groups": groups},
        inputs=[("x", uniform(21, [2, 4, 3])), ("scale", uniform(22, [4])), ("bias", uniform(23, [4]))],
        rtol=1e-4, atol=1e-5, reason="sums over the group in another order than onnxruntime's")
add(op="GroupNormalization", opset=21, name="groupnormalization_not_dividing", attrs={"num_groups": 3},
    inputs=[("x", uniform(21, [2, 4, 3])), ("scale", uniform(22, [4])), ("bias", uniform(23, [4]))], expect="error")
add(op="GroupNormalization", opset=21, name="groupnormalization_zero_groups", attrs={"num_groups": 0},
    inputs=[("x", uniform(21, [2, 4, 3])), ("scale", uniform(22, [4])), ("bias", uniform(23, [4]))], expect="error")
add(op="GroupNormalization", opset=21, name="groupnormalization_scale_per_group", attrs={"num_groups": 2},
    inputs=[("x", uniform(21, [2, 4, 3])), ("scale", uniform(22, [2])), ("bias", uniform(23, [2]))], expect="error")
add(op="GroupNormalization", opset=18, name="groupnormalization_opset18_per_group", attrs={"num_groups": 2},
    inputs=[("x", uniform(21, [2, 4, 3])), ("scale", uniform(22, [2])), ("bias", uniform(23, [2]))],
    expect="onnxopt-error", reason="the specification deprecates GroupNormalization-18 (removed from opset 18 on, "
                                   "docs/model-checks.md); onnxruntime still runs it")

for p in [1, 2]:
    for axis in [0, -1]:
        add(op="LpNormalization", opset=1, name=f"lpnormalization_p{p}_axis_{axis}".replace("-", "m"),
            attrs={"p": p, "axis": axis}, inputs=[("x", uniform(24, [3, 4]))])
add(op="LpNormalization", opset=1, name="lpnormalization_zero_row", inputs=[("x", np.zeros([2, 3], np.float32))])
add(op="LpNormalization", opset=1, name="lpnormalization_p3", attrs={"p": 3}, inputs=[("x", uniform(24, [3]))], expect="error")
add(op="LpNormalization", opset=1, name="lpnormalization_axis_out_of_range", attrs={"axis": 2}, inputs=[("x", uniform(24, [3, 4]))],
    expect="error")

# --- Conv, ConvTranspose -------------------------------------------------------------------------------
CONV_REASON = "convolution sums in another order than onnxruntime's"
XC = uniform(25, [1, 2, 5, 6])
WC = uniform(26, [4, 2, 3, 3])
CONVS = [
    ("basic", {}, XC, WC),
    ("pads", {"pads": [1, 2, 0, 1]}, XC, WC),
    ("strides_dilations", {"strides": [2, 1], "dilations": [1, 2]}, XC, WC),
    ("same_upper", {"auto_pad": "SAME_UPPER", "strides": [2, 2]}, XC, WC),
    ("same_lower", {"auto_pad": "SAME_LOWER", "strides": [2, 2]}, XC, WC),
    ("valid", {"auto_pad": "VALID"}, XC, WC),
    ("group", {"group": 2}, XC, uniform(27, [4, 1, 3, 3])),
    ("depthwise", {"group": 2}, XC, uniform(28, [2, 1, 2, 2])),
    ("pointwise", {}, XC, uniform(29, [3, 2, 1, 1])),
    ("1d", {"pads": [1, 1]}, uniform(30, [2, 3, 7]), uniform(31, [2, 3, 3])),
    ("3d", {"strides": [1, 2, 1]}, uniform(32, [1, 1, 3, 4, 5]), uniform(33, [2, 1, 2, 2, 2])),
    ("kernel_shape", {"kernel_shape": [3, 3]}, XC, WC),
    ("empty_batch", {}, np.zeros([0, 2, 5, 6], np.float32), WC),
]
for tag, attrs, x, w in CONVS:
    add(op="Conv", opset=11, name=f"conv_{tag}", attrs=attrs, inputs=[("x", x), ("w", w)], rtol=1e-4, atol=1e-5,
        reason=CONV_REASON)
add(op="Conv", opset=11, name="conv_bias", inputs=[("x", XC), ("w", WC), ("b", uniform(34, [4]))], rtol=1e-4, atol=1e-5,
    reason=CONV_REASON)
add(op="Conv", opset=1, name="conv_opset1", inputs=[("x", XC), ("w", WC)], rtol=1e-4, atol=1e-5, reason=CONV_REASON)
POSITIVE_DILATIONS = "dilations are the spacing of the filter taps, at least 1; onnxruntime reads out of place"
NONNEGATIVE_PADS = "the spec says pads take values greater than or equal to 0; onnxruntime crops the input"
for tag, attrs, reason in [("zero_dilation", {"dilations": [0, 1]}, POSITIVE_DILATIONS),
                           ("negative_dilation", {"dilations": [-1, 1]}, POSITIVE_DILATIONS),
                           ("negative_pads", {"pads": [-1, 0, 0, 0]}, NONNEGATIVE_PADS)]:
    add(op="Conv", opset=11, name=f"conv_{tag}", attrs=attrs, inputs=[("x", XC), ("w", WC)], expect="onnxopt-error",
        reason=reason)
add(op="Conv", opset=11, name="conv_bias_wrong_size", inputs=[("x", XC), ("w", WC), ("b", uniform(34, [3]))],
    expect="onnxopt-error", reason="B has size M (4 here); onnxruntime reads past the 3 values given")
for tag, attrs in [("zero_stride", {"strides": [0, 1]}), ("wrong_kernel_shape", {"kernel_shape": [2, 2]}), ("bad_auto_pad", {"auto_pad": "SAME"}),
                   ("pads_wrong_length", {"pads": [1, 1]}), ("group_not_dividing", {"group": 3})]:
    add(op="Conv", opset=11, name=f"conv_{tag}", attrs=attrs, inputs=[("x", XC), ("w", WC)], expect="error")
add(op="Conv", opset=11, name="conv_kernel_larger_than_input", inputs=[("x", uniform(1, [1, 2, 2, 2])), ("w", WC)], expect="error")
add(op="Conv", opset=11, name="conv_channel_mismatch", inputs=[("x", uniform(1, [1, 3, 5, 5])), ("w", WC)], expect="error")

XT = uniform(35, [1, 2, 3, 4])
WT = uniform(36, [2, 3, 3, 3])
for tag, attrs in [("basic", {}), ("strides", {"strides": [2, 2]}), ("pads", {"pads": [1, 0, 0, 1]}),
                   ("output_padding", {"strides": [2, 2], "output_padding": [1, 1]}),
                   ("output_shape", {"strides": [2, 2], "output_shape": [8, 9]}), ("dilations", {"dilations": [2, 1]}),
                   ("same_upper", {"strides": [2, 2], "auto_pad": "SAME_UPPER"}),
                   ("same_lower", {"strides": [2, 2], "auto_pad": "SAME_LOWER"}), ("valid", {"auto_pad": "VALID"})]:
    add(op="ConvTranspose", opset=11, name=f"convtranspose_{tag}", attrs=attrs, inputs=[("x", XT), ("w", WT)],
        rtol=1e-4, atol=1e-5, reason=CONV_REASON)
add(op="ConvTranspose", opset=11, name="convtranspose_group", attrs={"group": 2},
    inputs=[("x", XT), ("w", uniform(37, [2, 2, 2, 2])), ("b", uniform(38, [4]))], rtol=1e-4, atol=1e-5, reason=CONV_REASON)
add(op="ConvTranspose", opset=11, name="convtranspose_1d", inputs=[("x", uniform(39, [1, 2, 5])), ("w", uniform(40, [2, 1, 3]))],
    rtol=1e-4, atol=1e-5, reason=CONV_REASON)
add(op="ConvTranspose", opset=11, name="convtranspose_zero_stride", attrs={"strides": [0, 1]}, inputs=[("x", XT), ("w", WT)],
    expect="error")
OUTPUT_PADDING = "each output_padding value must be less than its stride or dilation (and is a count, not negative)"
for tag, attrs, reason in [("zero_dilation", {"dilations": [1, 0]}, POSITIVE_DILATIONS),
                           ("negative_output_padding", {"output_padding": [-1, 0]}, OUTPUT_PADDING),
                           ("output_padding_not_below_stride", {"strides": [2, 2], "output_padding": [2, 0]}, OUTPUT_PADDING),
                           ("negative_pads", {"pads": [0, -1, 0, 0]}, NONNEGATIVE_PADS)]:
    add(op="ConvTranspose", opset=11, name=f"convtranspose_{tag}", attrs=attrs, inputs=[("x", XT), ("w", WT)],
        expect="onnxopt-error", reason=reason + "; onnxruntime computes an output")
add(op="ConvTranspose", opset=11, name="convtranspose_channel_mismatch", inputs=[("x", uniform(1, [1, 3, 3, 3])), ("w", WT)],
    expect="error")

# --- Pooling -------------------------------------------------------------------------------------------
XP = uniform(41, [1, 2, 5, 6], -2, 2)
POOLS = [
    ("basic", {"kernel_shape": [2, 2]}),
    ("strides", {"kernel_shape": [3, 3], "strides": [2, 2]}),
    ("pads", {"kernel_shape": [3, 3], "pads": [1, 1, 1, 1]}),
    ("ceil", {"kernel_shape": [2, 2], "strides": [2, 2], "ceil_mode": 1}),
    ("ceil_pads", {"kernel_shape": [3, 3], "strides": [2, 2], "pads": [1, 1, 1, 1], "ceil_mode": 1}),
    ("dilations", {"kernel_shape": [2, 2], "dilations": [2, 2]}),
    ("same_upper", {"kernel_shape": [3, 2], "strides": [2, 2], "auto_pad": "SAME_UPPER"}),
    ("same_lower", {"kernel_shape": [3, 2], "strides": [2, 2], "auto_pad": "SAME_LOWER"}),
    ("valid", {"kernel_shape": [3, 3], "auto_pad": "VALID"}),
]
def average_pool_same_include_pad(x, kernel, strides, auto_pad):
    """AveragePool with count_include_pad=1 and SAME padding, from the spec's formulas: the
    pads of SAME_UPPER/LOWER are zeros that count in every window."""
    pads = []
    for size, k, s in zip(x.shape[2:], kernel, strides):
        out = -(-size // s)
        total = max(0, (out - 1) * s + k - size)
        begin = total // 2 if auto_pad == "SAME_UPPER" else total - total // 2
        pads.append((begin, total - begin))
    xp = np.pad(x.astype(np.float64), [(0, 0), (0, 0)] + pads)
    out_shape = [-(-size // s) for size, s in zip(x.shape[2:], strides)]
    y = np.zeros(list(x.shape[:2]) + out_shape)
    for i in range(out_shape[0]):
        for j in range(out_shape[1]):
            y[:, :, i, j] = xp[:, :, i * strides[0]:i * strides[0] + kernel[0], j * strides[1]:j * strides[1] + kernel[1]].mean(
                axis=(2, 3))
    return y.astype(np.float32)


for tag, attrs in POOLS:
    add(op="MaxPool", opset=12, name=f"maxpool_{tag}", attrs=attrs, inputs=[("x", XP)], outputs=2)
    if "dilations" not in attrs:
        add(op="AveragePool", opset=19, name=f"averagepool_{tag}", attrs=attrs, inputs=[("x", XP)])
        if tag.startswith("same"):
            add(op="AveragePool", opset=19, name=f"averagepool_{tag}_include_pad", attrs={**attrs, "count_include_pad": 1},
                inputs=[("x", XP)], expect="spec",
                expected=[average_pool_same_include_pad(XP, attrs["kernel_shape"], attrs["strides"], attrs["auto_pad"])],
                reason="the pads SAME_UPPER/LOWER add count in the average with count_include_pad=1; onnxruntime leaves "
                       "the end pads out of the count")
        else:
            add(op="AveragePool", opset=19, name=f"averagepool_{tag}_include_pad", attrs={**attrs, "count_include_pad": 1},
                inputs=[("x", XP)])
        add(op="LpPool", opset=18, name=f"lppool_{tag}", attrs=attrs, inputs=[("x", XP)], rtol=1e-4,
            reason="pow and root in double versus float")
add(op="AveragePool", opset=19, name="averagepool_dilations", attrs={"kernel_shape": [2, 2], "dilations": [2, 1]},
    inputs=[("x", XP)])
add(op="MaxPool", opset=12, name="maxpool_storage_order", attrs={"kernel_shape": [2, 2], "storage_order": 1},
    inputs=[("x", XP)], outputs=2)
add(op="MaxPool", opset=12, name="maxpool_1d", attrs={"kernel_shape": [3], "pads": [1, 1]}, inputs=[("x", uniform(42, [2, 1, 7]))],
    outputs=2)
add(op="MaxPool", opset=12, name="maxpool_3d", attrs={"kernel_shape": [2, 2, 2]}, inputs=[("x", uniform(43, [1, 1, 3, 3, 3]))])
add(op="MaxPool", opset=12, name="maxpool_nan", attrs={"kernel_shape": [2]},
    inputs=[("x", np.array([[[np.nan, 1, 2, np.nan, -np.inf]]], np.float32))], expect="spec",
    expected=[np.array([[[np.nan, 2, np.nan, np.nan]]], np.float32)],
    reason="the max of a window holding NaN is NaN (as for Max and ReduceMax, like numpy); onnxruntime skips NaN "
           "and gives -FLT_MAX, not an element of the window, for [NaN, -inf]")
add(op="MaxPool", opset=12, name="maxpool_int8", attrs={"kernel_shape": [2]},
    inputs=[("x", np.array([[[-128, 5, 127, -3]]], np.int8))])
add(op="MaxPool", opset=12, name="maxpool_uint8", attrs={"kernel_shape": [2], "strides": [2]},
    inputs=[("x", np.array([[[0, 5, 255, 3]]], np.uint8))])
add(op="MaxPool", opset=12, name="maxpool_double", attrs={"kernel_shape": [2, 2]}, inputs=[("x", XP.astype(np.float64))])
add(op="MaxPool", opset=8, name="maxpool_opset8", attrs={"kernel_shape": [2, 2]}, inputs=[("x", XP)], outputs=2)
add(op="AveragePool", opset=11, name="averagepool_opset11", attrs={"kernel_shape": [2, 2], "ceil_mode": 1, "strides": [2, 2]},
    inputs=[("x", XP)])
add(op="AveragePool", opset=7, name="averagepool_opset7", attrs={"kernel_shape": [2, 2]}, inputs=[("x", XP)])
add(op="LpPool", opset=11, name="lppool_p1", attrs={"kernel_shape": [2, 2], "p": 1}, inputs=[("x", XP)], rtol=1e-4,
    reason="pow and root in double versus float")
for op in ["MaxPool", "AveragePool", "LpPool"]:
    lower = op.lower()
    opset = {"MaxPool": 12, "AveragePool": 19, "LpPool": 18}[op]
    add(op=op, opset=opset, name=f"{lower}_pads_negative", attrs={"kernel_shape": [2, 2], "pads": [-1, 0, 0, 0]},
        inputs=[("x", XP)], expect="onnxopt-error", reason=NONNEGATIVE_PADS)
    for tag, attrs in [("kernel_zero", {"kernel_shape": [0, 2]}), ("kernel_negative", {"kernel_shape": [-1, 2]}),
                       ("stride_zero", {"kernel_shape": [2, 2], "strides": [0, 1]}),
                       ("missing_kernel", {}), ("kernel_wrong_rank", {"kernel_shape": [2]}),
                       ("kernel_too_large", {"kernel_shape": [7, 2]}),
                       ("pad_not_below_kernel", {"kernel_shape": [2, 2], "pads": [2, 0, 0, 0]})]:
        add(op=op, opset=opset, name=f"{lower}_{tag}", attrs=attrs, inputs=[("x", XP)], expect="error")
    add(op=op, opset=opset, name=f"{lower}_rank2", attrs={"kernel_shape": [2]}, inputs=[("x", uniform(1, [2, 3]))],
        expect="error")

for op in ["GlobalAveragePool", "GlobalMaxPool", "GlobalLpPool"]:
    lower = op.lower()
    add(op=op, opset=2 if op == "GlobalLpPool" else 1, name=f"{lower}_2d", inputs=[("x", XP)])
    add(op=op, opset=2 if op == "GlobalLpPool" else 1, name=f"{lower}_1d", inputs=[("x", uniform(44, [2, 3, 4]))])
    add(op=op, opset=2 if op == "GlobalLpPool" else 1, name=f"{lower}_nan",
        inputs=[("x", np.array([[[np.nan, 1]], [[2, 3]]], np.float32))])
add(op="GlobalLpPool", opset=2, name="globallppool_p3", attrs={"p": 3}, inputs=[("x", XP)], rtol=1e-4,
    reason="pow and root in double versus float")

# --- QuantizeLinear, DequantizeLinear ---------------------------------------------------------------------
XQ = np.array([[-300, -1.5, -0.5, 0, 0.5, 1.5, 2.5, 300]], np.float32)
for zp_type in [np.uint8, np.int8]:
    name = np.dtype(zp_type).name
    add(op="QuantizeLinear", opset=13, name=f"quantizelinear_{name}", inputs=[("x", XQ), ("scale", np.float32(1.0)),
                                                                              ("zero", zp_type(3))])
    # NaN has no quantized value (a float to integer conversion out of range is undefined).
    add(op="QuantizeLinear", opset=13, name=f"quantizelinear_{name}_infinities",
        inputs=[("x", np.array([np.inf, -np.inf], np.float32)), ("scale", np.float32(1.0)), ("zero", zp_type(0))])
add(op="QuantizeLinear", opset=13, name="quantizelinear_default_uint8", inputs=[("x", XQ), ("scale", np.float32(0.5))])
add(op="QuantizeLinear", opset=13, name="quantizelinear_per_axis", attrs={"axis": 1},
    inputs=[("x", uniform(45, [2, 3, 2], -5, 5)), ("scale", np.array([0.1, 0.5, 2], np.float32)),
            ("zero", np.array([0, 10, 250], np.uint8))])
add(op="QuantizeLinear", opset=13, name="quantizelinear_per_axis_wrong_length", attrs={"axis": 1},
    inputs=[("x", uniform(45, [2, 3])), ("scale", np.array([0.1, 0.5], np.float32))], expect="error")
add(op="QuantizeLinear", opset=21, name="quantizelinear_int16", inputs=[("x", XQ * 200), ("scale", np.float32(1.0)),
                                                                        ("zero", np.int16(-7))])
add(op="QuantizeLinear", opset=21, name="quantizelinear_blocked", attrs={"axis": 1, "block_size": 2},
    inputs=[("x", uniform(46, [2, 4], -5, 5)), ("scale", np.array([[0.1, 0.5], [1, 2]], np.float32)),
            ("zero", np.array([[0, 10], [20, 30]], np.uint8))])
add(op="QuantizeLinear", opset=13, name="quantizelinear_scale_zero", inputs=[("x", XQ), ("scale", np.float32(0))],
    expect="onnxopt-error", reason="a zero scale divides by zero (the spec requires a positive scale); onnxruntime "
                                   "saturates the infinities")
add(op="QuantizeLinear", opset=10, name="quantizelinear_opset10", inputs=[("x", XQ), ("scale", np.float32(2.0)),
                                                                          ("zero", np.uint8(128))])
add(op="QuantizeLinear", opset=19, name="quantizelinear_float8", inputs=[("x", XQ), ("scale", np.float32(1.0)),
                                                                         ("zero", ("float8e4m3fn", np.zeros([], np.float32)))])
for zp_type in [np.uint8, np.int8, np.int32]:
    name = np.dtype(zp_type).name
    info = np.iinfo(zp_type)
    add(op="DequantizeLinear", opset=13, name=f"dequantizelinear_{name}",
        inputs=[("x", np.array([info.min, 0, 3, info.max], zp_type)), ("scale", np.float32(0.5)),
                ("zero", zp_type(3) if zp_type != np.int32 else zp_type(0))])
add(op="DequantizeLinear", opset=13, name="dequantizelinear_no_zero_point",
    inputs=[("x", np.array([0, 255], np.uint8)), ("scale", np.float32(0.25))])
add(op="DequantizeLinear", opset=13, name="dequantizelinear_per_axis", attrs={"axis": 0},
    inputs=[("x", np.array([[1, 2], [3, 4]], np.uint8)), ("scale", np.array([0.5, 2], np.float32)),
            ("zero", np.array([1, 0], np.uint8))])
add(op="DequantizeLinear", opset=21, name="dequantizelinear_blocked", attrs={"axis": 1, "block_size": 3},
    inputs=[("x", np.arange(12, dtype=np.int8).reshape(2, 6)), ("scale", np.array([[0.5, 2], [1, 3]], np.float32))])
add(op="DequantizeLinear", opset=19, name="dequantizelinear_float8",
    inputs=[("x", ("float8e4m3fn", np.array([1, -2, 0.5, 448], np.float32))), ("scale", np.float32(2.0))])
add(op="DequantizeLinear", opset=21, name="dequantizelinear_int4",
    inputs=[("x", ("int4", np.array([-8, -1, 0, 7]))), ("scale", np.float32(0.5)), ("zero", ("int4", np.array(1)))])
add(op="DequantizeLinear", opset=13, name="dequantizelinear_zero_point_type_mismatch",
    inputs=[("x", np.array([1], np.uint8)), ("scale", np.float32(1)), ("zero", np.int8(0))], expect="error")
add(op="DequantizeLinear", opset=10, name="dequantizelinear_opset10",
    inputs=[("x", np.array([1, 200], np.uint8)), ("scale", np.float32(1.5)), ("zero", np.uint8(100))])

# --- Resize, Upsample --------------------------------------------------------------------------------------------
XR = uniform(47, [1, 1, 3, 4], 0, 10)
for mode in ["nearest", "linear", "cubic"]:
    for ctm in ["half_pixel", "align_corners", "asymmetric", "pytorch_half_pixel", "half_pixel_symmetric"]:
        add(op="Resize", opset=19, name=f"resize_{mode}_{ctm}_up", attrs={"mode": mode, "coordinate_transformation_mode": ctm},
            inputs=[("x", XR), ("roi", None), ("scales", np.array([1, 1, 2, 1.5], np.float32))], rtol=1e-4, atol=1e-5,
            reason="interpolation weights computed in double here, in float by onnxruntime")
        add(op="Resize", opset=19, name=f"resize_{mode}_{ctm}_sizes_down",
            attrs={"mode": mode, "coordinate_transformation_mode": ctm},
            inputs=[("x", XR), ("roi", None), ("scales", None), ("sizes", i64(1, 1, 2, 3))], rtol=1e-4, atol=1e-5,
            reason="interpolation weights computed in double here, in float by onnxruntime")
for nearest_mode in ["round_prefer_floor", "round_prefer_ceil", "floor", "ceil"]:
    add(op="Resize", opset=19, name=f"resize_nearest_mode_{nearest_mode}", attrs={"mode": "nearest", "nearest_mode": nearest_mode},
        inputs=[("x", XR), ("roi", None), ("scales", np.array([1, 1, 1.7, 2.5], np.float32))])
def linear_crop_and_resize(x, roi_start, roi_end, sizes, extrapolation):
    """Resize of a 2-D image, linear, tf_crop_and_resize, from the spec's formula:
    x_original = start * (in - 1) + o * (end - start) * (in - 1) / (out - 1); outside [0, in-1]
    the output is the extrapolation value."""
    def coords(n_in, n_out, start, end):
        return [start * (n_in - 1) + o * (end - start) * (n_in - 1) / (n_out - 1) for o in range(n_out)]

    def sample(v, c):
        i0 = int(np.floor(c))
        i1 = min(i0 + 1, len(v) - 1)
        return v[i0] * (1 - (c - i0)) + v[i1] * (c - i0)
    img = x.astype(np.float64)
    rows, cols = coords(img.shape[0], sizes[0], roi_start[0], roi_end[0]), coords(img.shape[1], sizes[1], roi_start[1], roi_end[1])
    out = np.full(sizes, extrapolation, np.float64)
    for i, r in enumerate(rows):
        for j, c in enumerate(cols):
            if 0 <= r <= img.shape[0] - 1 and 0 <= c <= img.shape[1] - 1:
                out[i, j] = sample([sample(img[k], c) for k in range(img.shape[0])], r)
    return out.astype(np.float32)


add(op="Resize", opset=19, name="resize_tf_crop_and_resize",
    attrs={"mode": "linear", "coordinate_transformation_mode": "tf_crop_and_resize", "extrapolation_value": -1.0},
    inputs=[("x", XR), ("roi", np.array([0, 0, 0.2, -0.3, 1, 1, 0.9, 1.2], np.float32)), ("scales", None),
            ("sizes", i64(1, 1, 3, 5))], expect="spec", rtol=1e-5, atol=1e-5,
    expected=[linear_crop_and_resize(XR[0, 0], [0.2, -0.3], [0.9, 1.2], [3, 5], -1.0)[None, None]],
    reason="the spec's tf_crop_and_resize coordinates (roi start/end scaled by in - 1); onnxruntime samples "
           "other points")
add(op="Resize", opset=19, name="resize_cubic_exclude_outside", attrs={"mode": "cubic", "exclude_outside": 1,
                                                                       "cubic_coeff_a": -0.5},
    inputs=[("x", XR), ("roi", None), ("scales", np.array([1, 1, 2, 2], np.float32))], rtol=1e-4, atol=1e-5,
    reason="weights in double")
add(op="Resize", opset=19, name="resize_axes", attrs={"axes": [-1], "mode": "linear"},
    inputs=[("x", XR), ("roi", None), ("scales", np.array([0.5], np.float32))], expect="spec",
    expected=[(XR[..., 0::2] + XR[..., 1::2]) / 2], rtol=1e-6, atol=1e-6,
    reason="scales apply to the listed axes only: the last dim 4 becomes 2 (half_pixel samples 2o + 0.5); "
           "onnxruntime keeps the width 4")
add(op="Resize", opset=19, name="resize_keep_aspect_not_larger", attrs={"keep_aspect_ratio_policy": "not_larger"},
    inputs=[("x", XR), ("roi", None), ("scales", None), ("sizes", i64(1, 1, 7, 7))])
add(op="Resize", opset=19, name="resize_keep_aspect_not_smaller", attrs={"keep_aspect_ratio_policy": "not_smaller"},
    inputs=[("x", XR), ("roi", None), ("scales", None), ("sizes", i64(1, 1, 7, 7))])
add(op="Resize", opset=19, name="resize_uint8", attrs={"mode": "linear"},
    inputs=[("x", np.array([[[[0, 255], [100, 50]]]], np.uint8)), ("roi", None), ("scales", np.array([1, 1, 2, 2], np.float32))])
add(op="Resize", opset=19, name="resize_scale_down_to_zero",
    inputs=[("x", XR), ("roi", None), ("scales", np.array([1, 1, 0.1, 1], np.float32))])
for tag, value in [("negative", -2.0), ("nan", np.nan), ("infinite", np.inf), ("huge", 1e30), ("zero", 0.0)]:
    add(op="Resize", opset=19, name=f"resize_scale_{tag}",
        inputs=[("x", XR), ("roi", None), ("scales", np.array([1, 1, value, 1], np.float32))], expect="error")
add(op="Resize", opset=19, name="resize_scales_wrong_length",
    inputs=[("x", XR), ("roi", None), ("scales", np.array([1, 2], np.float32))], expect="error")
add(op="Resize", opset=19, name="resize_sizes_negative",
    inputs=[("x", XR), ("roi", None), ("scales", None), ("sizes", i64(1, 1, -2, 3))], expect="error")
add(op="Resize", opset=19, name="resize_both_scales_and_sizes",
    inputs=[("x", XR), ("roi", None), ("scales", np.array([1, 1, 2, 2], np.float32)), ("sizes", i64(1, 1, 6, 8))],
    expect="error")
add(op="Resize", opset=19, name="resize_neither", inputs=[("x", XR)], expect="error")
add(op="Resize", opset=19, name="resize_unknown_mode", attrs={"mode": "area"},
    inputs=[("x", XR), ("roi", None), ("scales", np.array([1, 1, 2, 2], np.float32))], expect="error")
add(op="Resize", opset=13, name="resize_opset13_empty_roi_scales",
    inputs=[("x", XR), ("roi", np.zeros([0], np.float32)), ("scales", np.array([1, 1, 2, 2], np.float32))])
add(op="Resize", opset=11, name="resize_opset11_sizes",
    inputs=[("x", XR), ("roi", np.zeros([0], np.float32)), ("scales", np.zeros([0], np.float32)), ("sizes", i64(1, 1, 5, 2))])
add(op="Resize", opset=10, name="resize_opset10", inputs=[("x", XR), ("scales", np.array([1, 1, 2, 2], np.float32))])
add(op="Upsample", opset=9, name="upsample_nearest", inputs=[("x", XR), ("scales", np.array([1, 1, 2, 3], np.float32))])
add(op="Upsample", opset=9, name="upsample_linear", attrs={"mode": "linear"},
    inputs=[("x", XR), ("scales", np.array([1, 1, 2, 2], np.float32))])
add(op="Upsample", opset=7, name="upsample_opset7", attrs={"scales": [1.0, 1.0, 2.0, 2.0]}, inputs=[("x", XR)])
add(op="Upsample", opset=9, name="upsample_scale_below_one", inputs=[("x", XR), ("scales", np.array([1, 1, 0.5, 1], np.float32))],
    expect="error")

# --- RotaryEmbedding (opset 23) ---------------------------------------------------------------------------------
B, S, N, H = 2, 3, 2, 4
COS = uniform(48, [B, S, H // 2])
SIN = uniform(49, [B, S, H // 2])
for interleaved in [0, 1]:
    add(op="RotaryEmbedding", opset=23, name=f"rotaryembedding_4d_interleaved{interleaved}", attrs={"interleaved": interleaved},
        inputs=[("x", uniform(50, [B, N, S, H])), ("cos", COS), ("sin", SIN)])
    add(op="RotaryEmbedding", opset=23, name=f"rotaryembedding_3d_interleaved{interleaved}",
        attrs={"interleaved": interleaved, "num_heads": N}, inputs=[("x", uniform(51, [B, S, N * H])), ("cos", COS), ("sin", SIN)])
add(op="RotaryEmbedding", opset=23, name="rotaryembedding_position_ids",
    inputs=[("x", uniform(50, [B, N, S, H])), ("cos", uniform(52, [8, H // 2])), ("sin", uniform(53, [8, H // 2])),
            ("pos", np.array([[0, 5, 7], [1, 1, 2]], np.int64))])
add(op="RotaryEmbedding", opset=23, name="rotaryembedding_partial", attrs={"rotary_embedding_dim": 2, "num_heads": N},
    inputs=[("x", uniform(50, [B, N, S, H])), ("cos", uniform(54, [B, S, 1])), ("sin", uniform(55, [B, S, 1]))])
add(op="RotaryEmbedding", opset=23, name="rotaryembedding_position_out_of_range",
    inputs=[("x", uniform(50, [B, N, S, H])), ("cos", uniform(52, [4, H // 2])), ("sin", uniform(53, [4, H // 2])),
            ("pos", np.array([[0, 5, 7], [1, 1, 2]], np.int64))], expect="onnxopt-error",
    reason="position ids select rows of the caches (4 here); onnxruntime reads past them")
add(op="RotaryEmbedding", opset=23, name="rotaryembedding_3d_without_num_heads",
    inputs=[("x", uniform(51, [B, S, N * H])), ("cos", COS), ("sin", SIN)], expect="error")

# --- Attention (opset 23) -----------------------------------------------------------------------------------------
Q = uniform(56, [1, 2, 3, 4])
K = uniform(57, [1, 2, 5, 4])
V = uniform(58, [1, 2, 5, 3])
ATT_REASON = "softmax and two matrix products in another order than onnxruntime's"
add(op="Attention", opset=23, name="attention_4d", inputs=[("q", Q), ("k", K), ("v", V)], rtol=1e-4, atol=1e-5, reason=ATT_REASON)
add(op="Attention", opset=23, name="attention_causal", attrs={"is_causal": 1}, inputs=[("q", Q), ("k", K), ("v", V)],
    rtol=1e-4, atol=1e-5, reason=ATT_REASON)
add(op="Attention", opset=23, name="attention_scale_softcap", attrs={"scale": 0.3, "softcap": 2.0},
    inputs=[("q", Q), ("k", K), ("v", V)], rtol=1e-4, atol=1e-5, reason=ATT_REASON)
add(op="Attention", opset=23, name="attention_bool_mask",
    inputs=[("q", Q), ("k", K), ("v", V), ("mask", np.array([[True, False, True, True, False]] * 3))],
    rtol=1e-4, atol=1e-5, reason=ATT_REASON)
add(op="Attention", opset=23, name="attention_float_mask",
    inputs=[("q", Q), ("k", K), ("v", V), ("mask", uniform(59, [3, 5]))], rtol=1e-4, atol=1e-5, reason=ATT_REASON)
def attention_3d(q, k, v, q_heads, kv_heads):
    """The reference computation of Attention-23 for 3-D inputs without mask: heads split
    from the hidden dim, each KV head serving q_heads / kv_heads consecutive query heads
    (numpy repeat, as the ONNX reference does)."""
    def heads(t, n):
        return t.astype(np.float64).reshape(t.shape[0], t.shape[1], n, -1).transpose(0, 2, 1, 3)
    qh, kh, vh = heads(q, q_heads), heads(k, kv_heads), heads(v, kv_heads)
    kh, vh = np.repeat(kh, q_heads // kv_heads, axis=1), np.repeat(vh, q_heads // kv_heads, axis=1)
    scores = qh @ kh.transpose(0, 1, 3, 2) / np.sqrt(qh.shape[-1])
    weights = np.exp(scores - scores.max(-1, keepdims=True))
    y = (weights / weights.sum(-1, keepdims=True)) @ vh
    return y.transpose(0, 2, 1, 3).reshape(q.shape[0], q.shape[1], -1).astype(np.float32)


GQA = [uniform(60, [1, 3, 8]), uniform(61, [1, 5, 4]), uniform(62, [1, 5, 6])]
add(op="Attention", opset=23, name="attention_3d_gqa", attrs={"q_num_heads": 4, "kv_num_heads": 2},
    inputs=[("q", GQA[0]), ("k", GQA[1]), ("v", GQA[2])], expect="spec", expected=[attention_3d(*GQA, 4, 2)],
    rtol=1e-5, atol=1e-6, reason="KV head h serves query heads h*g .. h*g+g-1 (g = 4/2, the reference's numpy repeat); "
                                 "onnxruntime pairs query head h with KV head h mod 2")
add(op="Attention", opset=23, name="attention_3d_mha", attrs={"q_num_heads": 2, "kv_num_heads": 2},
    inputs=[("q", GQA[0][..., :6]), ("k", uniform(61, [1, 5, 6])), ("v", GQA[2])], rtol=1e-4, atol=1e-5, reason=ATT_REASON)
def attention_4d_bool_mask(q, k, v, mask):
    """Attention-23 for 4-D inputs with a boolean mask, as the spec and its errata define it:
    masked scores are -inf, and a row with every key masked gives a zero output row."""
    scores = q.astype(np.float64) @ k.astype(np.float64).transpose(0, 1, 3, 2) / np.sqrt(q.shape[-1])
    scores = np.where(mask, scores, -np.inf)
    peak = scores.max(-1, keepdims=True)
    weights = np.where(np.isfinite(peak), np.exp(scores - np.where(np.isfinite(peak), peak, 0)), 0.0)
    total = weights.sum(-1, keepdims=True)
    weights = np.divide(weights, total, out=np.zeros_like(weights), where=total > 0)
    return (weights @ v.astype(np.float64)).astype(np.float32)


FULL_MASK = np.array([[True] * 5, [False] * 5, [True, False, False, False, False]])
add(op="Attention", opset=23, name="attention_fully_masked_row", inputs=[("q", Q), ("k", K), ("v", V), ("mask", FULL_MASK)],
    expect="spec", expected=[attention_4d_bool_mask(Q, K, V, FULL_MASK)], rtol=1e-5, atol=1e-6,
    reason="a query row whose keys are all masked gives a zero output row (the spec's errata for every version); "
           "onnxruntime averages the values")
add(op="Attention", opset=23, name="attention_past_kv", outputs=3,
    inputs=[("q", Q), ("k", K), ("v", V), ("mask", None), ("past_k", uniform(63, [1, 2, 2, 4])),
            ("past_v", uniform(64, [1, 2, 2, 3]))], rtol=1e-4, atol=1e-5, reason=ATT_REASON)
add(op="Attention", opset=23, name="attention_heads_not_multiple", attrs={"q_num_heads": 3, "kv_num_heads": 2},
    inputs=[("q", uniform(60, [1, 3, 6])), ("k", uniform(61, [1, 5, 4])), ("v", uniform(62, [1, 5, 4]))], expect="error")
add(op="Attention", opset=23, name="attention_rank_mismatch", inputs=[("q", Q), ("k", K[0]), ("v", V)], expect="error")

# --- Einsum -------------------------------------------------------------------------------------------------------
EINSUMS = [
    ("matmul", "ij,jk->ik", [[2, 3], [3, 4]]),
    ("transpose", "ij->ji", [[2, 3]]),
    ("trace", "ii->", [[3, 3]]),
    ("diagonal", "ii->i", [[3, 3]]),
    ("sum_all", "ijk->", [[2, 3, 4]]),
    ("implicit_output", "ij,jk", [[2, 3], [3, 4]]),
    ("outer", "i,j->ij", [[2], [3]]),
    ("batch", "bij,bjk->bik", [[2, 2, 3], [2, 3, 2]]),
    ("ellipsis", "...ij,...jk->...ik", [[2, 2, 3], [2, 3, 2]]),
    ("three_operands", "ij,jk,kl->il", [[2, 3], [3, 2], [2, 2]]),
    ("uppercase", "Ab,bC->AC", [[2, 3], [3, 2]]),
    ("spaces", " ij , jk -> ik ", [[2, 3], [3, 4]]),
]
for index, (tag, eq, shapes) in enumerate(EINSUMS):
    add(op="Einsum", opset=12, name=f"einsum_{tag}", attrs={"equation": eq},
        inputs=[(f"x{k}", uniform(70 + index + k, s)) for k, s in enumerate(shapes)], rtol=1e-5, atol=1e-5,
        reason="sums of products in another order")
EINSUM_BROADCAST = [uniform(90, [2, 2, 3]), uniform(91, [3, 2])]
add(op="Einsum", opset=12, name="einsum_ellipsis_of_different_ranks", attrs={"equation": "...ij,...jk->...ik"},
    inputs=[("a", EINSUM_BROADCAST[0]), ("b", EINSUM_BROADCAST[1])], expect="spec",
    expected=[np.einsum("...ij,...jk->...ik", *EINSUM_BROADCAST)], rtol=1e-5, atol=1e-6,
    reason="ellipses broadcast like numpy's; onnxruntime's shape inference wants the same number of dims in each")
EINSUM_EMPTY = [np.zeros([0, 3], np.float32), uniform(92, [3, 2])]
add(op="Einsum", opset=12, name="einsum_empty_dim", attrs={"equation": "ij,jk->ik"},
    inputs=[("a", EINSUM_EMPTY[0]), ("b", EINSUM_EMPTY[1])], expect="spec", expected=[np.zeros([0, 2], np.float32)],
    reason="an empty operand gives an empty result; onnxruntime crashes (SIGSEGV)")
add(op="Einsum", opset=12, name="einsum_int64", attrs={"equation": "ij,jk->ik"},
    inputs=[("a", iota([2, 3], np.int64)), ("b", iota([3, 2], np.int64))])
add(op="Einsum", opset=12, name="einsum_double", attrs={"equation": "ij->i"}, inputs=[("a", uniform(1, [2, 3], dtype=np.float64))])
add(op="Einsum", opset=12, name="einsum_label_size_mismatch", attrs={"equation": "ij,jk->ik"},
    inputs=[("a", uniform(1, [2, 3])), ("b", uniform(2, [4, 2]))], expect="error")
add(op="Einsum", opset=12, name="einsum_wrong_operand_count", attrs={"equation": "ij,jk->ik"},
    inputs=[("a", uniform(1, [2, 3]))], expect="error")
add(op="Einsum", opset=12, name="einsum_rank_mismatch", attrs={"equation": "ijk->i"}, inputs=[("a", uniform(1, [2, 3]))],
    expect="error")
add(op="Einsum", opset=12, name="einsum_unknown_output_label", attrs={"equation": "ij->k"}, inputs=[("a", uniform(1, [2, 3]))],
    expect="error")
add(op="Einsum", opset=12, name="einsum_invalid_character", attrs={"equation": "i1->i"}, inputs=[("a", uniform(1, [2, 3]))],
    expect="error")
add(op="Einsum", opset=12, name="einsum_repeated_output_label", attrs={"equation": "ij->ii"}, inputs=[("a", uniform(1, [2, 2]))],
    expect="error")
add(op="Einsum", opset=12, name="einsum_missing_equation", inputs=[("a", uniform(1, [2, 3]))], expect="error")

# --- RNN, GRU, LSTM -------------------------------------------------------------------------------------------------
SEQ, BATCH, INPUT, HIDDEN = 3, 2, 4, 3
RNN_REASON = "recurrences accumulate float32 rounding differently from onnxruntime"


def recurrent(op, gates, direction="forward", extra=None, attrs=None, seed=80, layout=0):
    dirs = 2 if direction == "bidirectional" else 1
    x = uniform(seed, [BATCH, SEQ, INPUT] if layout else [SEQ, BATCH, INPUT])
    w = uniform(seed + 1, [dirs, gates * HIDDEN, INPUT])
    r = uniform(seed + 2, [dirs, gates * HIDDEN, HIDDEN])
    inputs = [("x", x), ("w", w), ("r", r)] + (extra(dirs) if extra else [])
    return inputs


for op, gates, outputs in [("RNN", 1, 2), ("GRU", 3, 2), ("LSTM", 4, 3)]:
    lower = op.lower()
    opset = 14 if op != "RNN" else 14
    for direction in ["forward", "reverse", "bidirectional"]:
        add(op=op, opset=opset, name=f"{lower}_{direction}", attrs={"hidden_size": HIDDEN, "direction": direction},
            inputs=recurrent(op, gates, direction), outputs=outputs, rtol=1e-4, atol=1e-5, reason=RNN_REASON)

    def with_bias_lengths_state(dirs, gates=gates, op=op):
        extra = [("b", uniform(90, [dirs, 2 * gates * HIDDEN])), ("lens", np.array([3, 1], np.int32)),
                 ("h0", uniform(91, [dirs, BATCH, HIDDEN]))]
        if op == "LSTM":
            extra += [("c0", uniform(92, [dirs, BATCH, HIDDEN])), ("p", uniform(93, [dirs, 3 * HIDDEN]))]
        return extra
    add(op=op, opset=opset, name=f"{lower}_bias_lengths_initial_state", attrs={"hidden_size": HIDDEN, "direction": "bidirectional"},
        inputs=recurrent(op, gates, "bidirectional", with_bias_lengths_state), outputs=outputs, rtol=1e-4, atol=1e-5,
        reason=RNN_REASON)
    add(op=op, opset=opset, name=f"{lower}_clip", attrs={"hidden_size": HIDDEN, "clip": 0.2},
        inputs=recurrent(op, gates), outputs=outputs, rtol=1e-4, atol=1e-5, reason=RNN_REASON)
    add(op=op, opset=opset, name=f"{lower}_hidden_size_mismatch", attrs={"hidden_size": HIDDEN + 1},
        inputs=recurrent(op, gates), outputs=outputs, expect="error" if op != "LSTM" else "onnxopt-error",
        reason="" if op != "LSTM" else "W is [num_directions, gates*hidden_size, input_size]; onnxruntime's LSTM reads past W")
    add(op=op, opset=opset, name=f"{lower}_unknown_direction", attrs={"hidden_size": HIDDEN, "direction": "sideways"},
        inputs=recurrent(op, gates), outputs=outputs, expect="error")
    add(op=op, opset=opset, name=f"{lower}_unknown_activation",
        attrs={"hidden_size": HIDDEN, "activations": ["Foo"] * {1: 1, 3: 2, 4: 3}[gates]},
        inputs=recurrent(op, gates), outputs=outputs, expect="error")
    add(op=op, opset=opset, name=f"{lower}_sequence_length_too_long", attrs={"hidden_size": HIDDEN},
        inputs=recurrent(op, gates, extra=lambda dirs: [("b", None), ("lens", np.array([4, 1], np.int32))]), outputs=outputs,
        expect="error")
add(op="RNN", opset=14, name="rnn_relu_activation", attrs={"hidden_size": HIDDEN, "activations": ["Relu"]},
    inputs=recurrent("RNN", 1), outputs=2, rtol=1e-4, atol=1e-5, reason=RNN_REASON)
add(op="GRU", opset=14, name="gru_linear_before_reset", attrs={"hidden_size": HIDDEN, "linear_before_reset": 1},
    inputs=recurrent("GRU", 3), outputs=2, rtol=1e-4, atol=1e-5, reason=RNN_REASON)
add(op="LSTM", opset=14, name="lstm_input_forget", attrs={"hidden_size": HIDDEN, "input_forget": 1},
    inputs=recurrent("LSTM", 4), outputs=3, rtol=1e-4, atol=1e-5, reason=RNN_REASON)
add(op="LSTM", opset=7, name="lstm_opset7", attrs={"hidden_size": HIDDEN}, inputs=recurrent("LSTM", 4), outputs=3,
    rtol=1e-4, atol=1e-5, reason=RNN_REASON)
