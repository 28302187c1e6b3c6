"""Differential cases of the quantized kernels (onnx_extensions/kernels/quantized_kernels.cc):
ConvInteger, QLinearConv, QLinearMatMul (opsets 10 and 21), DynamicQuantizeLinear, and the
com.microsoft products MatMulNBits, DynamicQuantizeMatMul, MatMulIntegerToFloat."""
import numpy as np

from differential import Case, FLOAT8E4M3FN, float8_table, uniform, f32

CASES = []
MS = {"com.microsoft": 1}


def add(**kwargs):
    CASES.append(Case(**kwargs))


def ints(seed, shape, lo, hi, dtype):
    return np.random.default_rng(seed).integers(lo, hi + 1, shape).astype(dtype)


# --- ConvInteger -----------------------------------------------------------------------------


def conv2d(x, w, pads=(0, 0, 0, 0), strides=(1, 1), dilations=(1, 1), group=1):
    """The spec's convolution of integer tensors (already shifted by their zero points,
    padded with zeros), in int64."""
    x, w = x.astype(np.int64), w.astype(np.int64)
    M, cg, kh, kw = w.shape
    xp = np.pad(x, ((0, 0), (0, 0), (pads[0], pads[2]), (pads[1], pads[3])))
    eh, ew = (kh - 1) * dilations[0] + 1, (kw - 1) * dilations[1] + 1
    oh = (xp.shape[2] - eh) // strides[0] + 1
    ow = (xp.shape[3] - ew) // strides[1] + 1
    y = np.zeros([x.shape[0], M, oh, ow], np.int64)
    for m in range(M):
        g = m // (M // group)
        for i in range(oh):
            for j in range(ow):
                patch = xp[:, g * cg:(g + 1) * cg, i * strides[0]:i * strides[0] + eh:dilations[0],
                           j * strides[1]:j * strides[1] + ew:dilations[1]]
                y[:, m, i, j] = (patch * w[m]).sum(axis=(1, 2, 3))
    return y


def per_channel(values, count):
    return np.asarray(values).astype(np.int64).reshape([count, 1, 1, 1])


CONV_INTEGER_REASON = "onnxruntime's ConvInteger supports only uint8 x and w with per-tensor zero points"
x33 = np.arange(2, 11, dtype=np.uint8).reshape(1, 1, 3, 3)
wz = np.array([0, 1], np.uint8)
add(op="ConvInteger", opset=10, name="convinteger_spec_with_padding", attrs={"pads": [1, 1, 1, 1]},
    expect="spec", reason=CONV_INTEGER_REASON,
    expected=[conv2d(x33.astype(np.int64) - 1, np.ones([2, 1, 2, 2], np.int64) - per_channel(wz, 2),
                     pads=(1, 1, 1, 1)).astype(np.int32)],
    inputs=[("x", x33), ("w", np.ones([2, 1, 2, 2], np.uint8)), ("x_zero_point", np.uint8(1)),
            ("w_zero_point", wz)])
add(op="ConvInteger", opset=10, name="convinteger_no_zero_points",
    inputs=[("x", x33), ("w", np.ones([1, 1, 2, 2], np.uint8))])
xi, wi, wzi = ints(1, [2, 4, 6, 5], -128, 127, np.int8), ints(2, [6, 2, 3, 2], -128, 127, np.int8), ints(3, [6], -5, 5, np.int8)
add(op="ConvInteger", opset=10, name="convinteger_int8_groups_strides_dilations",
    attrs={"group": 2, "strides": [2, 1], "dilations": [1, 2], "pads": [1, 0, 2, 1]},
    expect="spec", reason=CONV_INTEGER_REASON,
    expected=[conv2d(xi.astype(np.int64) + 3, wi - per_channel(wzi, 6), pads=(1, 0, 2, 1), strides=(2, 1),
                     dilations=(1, 2), group=2).astype(np.int32)],
    inputs=[("x", xi), ("w", wi), ("x_zero_point", np.int8(-3)), ("w_zero_point", wzi)])
xu, wu = ints(4, [1, 3, 5, 5], 0, 255, np.uint8), ints(5, [4, 3, 2, 2], -128, 127, np.int8)
add(op="ConvInteger", opset=10, name="convinteger_uint8_x_int8_w_auto_pad_same_upper",
    attrs={"auto_pad": "SAME_UPPER", "strides": [2, 2]}, expect="spec", reason=CONV_INTEGER_REASON,
    # Output ceil(5 / 2) = 3: one padding row and column, at the end.
    expected=[conv2d(xu.astype(np.int64) - 128, wu, pads=(0, 0, 1, 1), strides=(2, 2)).astype(np.int32)],
    inputs=[("x", xu), ("w", wu), ("x_zero_point", np.uint8(128))])
add(op="ConvInteger", opset=10, name="convinteger_1d",
    inputs=[("x", ints(6, [1, 2, 9], 0, 255, np.uint8)), ("w", ints(7, [3, 2, 4], 0, 255, np.uint8)),
            ("x_zero_point", np.uint8(200)), ("w_zero_point", np.uint8(100))])
add(op="ConvInteger", opset=10, name="convinteger_extreme_values",
    inputs=[("x", np.full([1, 16, 3, 3], 255, np.uint8)), ("w", np.full([2, 16, 3, 3], 255, np.uint8)),
            ("x_zero_point", np.uint8(0)), ("w_zero_point", np.uint8(0))])
add(op="ConvInteger", opset=10, name="convinteger_empty_batch",
    inputs=[("x", np.zeros([0, 1, 3, 3], np.uint8)), ("w", np.ones([1, 1, 2, 2], np.uint8))])
add(op="ConvInteger", opset=10, name="convinteger_float_input", expect="error",
    inputs=[("x", np.zeros([1, 1, 3, 3], np.float32)), ("w", np.ones([1, 1, 2, 2], np.uint8))])
add(op="ConvInteger", opset=10, name="convinteger_w_zero_point_wrong_length", expect="error",
    inputs=[("x", x33), ("w", np.ones([2, 1, 2, 2], np.uint8)), ("x_zero_point", np.uint8(1)),
            ("w_zero_point", np.array([0, 1, 2], np.uint8))])

# --- QLinearConv -----------------------------------------------------------------------------
spec_x = np.array([[255, 174, 162, 25, 203, 168, 58], [15, 59, 237, 95, 129, 0, 64],
                   [56, 242, 153, 221, 168, 12, 166], [232, 178, 186, 195, 237, 162, 237],
                   [188, 39, 124, 77, 80, 102, 43], [127, 230, 21, 83, 41, 40, 134],
                   [255, 154, 92, 141, 42, 148, 247]], np.uint8).reshape(1, 1, 7, 7)
add(op="QLinearConv", opset=10, name="qlinearconv_spec_example",
    inputs=[("x", spec_x), ("x_scale", np.float32(0.00369204697)), ("x_zero_point", np.uint8(132)),
            ("w", np.zeros([1, 1, 1, 1], np.uint8)), ("w_scale", f32(0.00172794575)),
            ("w_zero_point", np.array([255], np.uint8)), ("y_scale", np.float32(0.00162681262)),
            ("y_zero_point", np.uint8(123))])
# onnxruntime's uint8 x int8 integer GEMM on x86 CPUs without AVX-VNNI (AVX2 and plain
# AVX-512) adds each pair of uint8*int8 products into an int16 with saturation
# (vpmaddubsw), so large activations against large weights lose their sum; the spec sums in
# int32. On a CPU with VNNI onnxruntime agrees with the spec (a note says so).
U8S8_SATURATION_REASON = ("onnxruntime's uint8 x int8 GEMM saturates pairs of products to int16 on x86 CPUs "
                          "without AVX-VNNI; the spec accumulates in int32")
xq, wq = ints(10, [2, 3, 5, 6], 0, 255, np.uint8), ints(11, [4, 3, 3, 3], -128, 127, np.int8)
wq_scale, bq = f32(0.01, 0.002, 0.005, 0.03), ints(12, [4], -2000, 2000, np.int32)
accq = conv2d(xq.astype(np.int64) - 120, wq, pads=(1, 1, 1, 1), strides=(1, 2)) + bq.reshape([1, 4, 1, 1])
add(op="QLinearConv", opset=10, name="qlinearconv_per_channel_bias_pads",
    attrs={"pads": [1, 1, 1, 1], "strides": [1, 2]}, expect="spec", reason=U8S8_SATURATION_REASON,
    expected=[np.clip(np.rint(accq.astype(np.float32) * ((np.float32(0.02) * wq_scale) / np.float32(0.25))
                              .reshape([1, 4, 1, 1])) + 100, 0, 255).astype(np.uint8)],
    inputs=[("x", xq), ("x_scale", np.float32(0.02)),
            ("x_zero_point", np.uint8(120)), ("w", wq),
            ("w_scale", wq_scale), ("w_zero_point", np.zeros([4], np.int8)),
            ("y_scale", np.float32(0.25)), ("y_zero_point", np.uint8(100)),
            ("B", bq)])
add(op="QLinearConv", opset=10, name="qlinearconv_int8_output_groups",
    attrs={"group": 3},
    inputs=[("x", ints(13, [1, 3, 4, 4], -128, 127, np.int8)), ("x_scale", np.float32(0.05)),
            ("x_zero_point", np.int8(-10)), ("w", ints(14, [3, 1, 2, 2], -128, 127, np.int8)),
            ("w_scale", np.float32(0.01)), ("w_zero_point", np.int8(0)),
            ("y_scale", np.float32(0.1)), ("y_zero_point", np.int8(5))])
add(op="QLinearConv", opset=10, name="qlinearconv_saturates",
    inputs=[("x", np.array([[[[0, 255]]]], np.uint8)), ("x_scale", np.float32(1)), ("x_zero_point", np.uint8(128)),
            ("w", np.array([[[[127]]]], np.int8)), ("w_scale", np.float32(1)), ("w_zero_point", np.int8(0)),
            ("y_scale", np.float32(0.001)), ("y_zero_point", np.uint8(128))])
# Accumulators 1, 3, 5, 7 times 0.5: ties, rounded to the even integer.
add(op="QLinearConv", opset=10, name="qlinearconv_rounds_half_to_even",
    inputs=[("x", np.array([[[[1, 3, 5, 7]]]], np.uint8)), ("x_scale", np.float32(0.5)),
            ("x_zero_point", np.uint8(0)), ("w", np.array([[[[1]]]], np.uint8)), ("w_scale", np.float32(1)),
            ("w_zero_point", np.uint8(0)), ("y_scale", np.float32(1)), ("y_zero_point", np.uint8(10))])
add(op="QLinearConv", opset=10, name="qlinearconv_bias_wrong_length", expect="onnxopt-error",
    reason="B has one value per output channel (spec: 'has size of M'); onnxruntime reads the first M values",
    inputs=[("x", x33), ("x_scale", np.float32(1)), ("x_zero_point", np.uint8(0)),
            ("w", np.ones([1, 1, 2, 2], np.uint8)), ("w_scale", np.float32(1)), ("w_zero_point", np.uint8(0)),
            ("y_scale", np.float32(1)), ("y_zero_point", np.uint8(0)), ("B", np.zeros([2], np.int32))])

# --- QLinearMatMul ---------------------------------------------------------------------------
a_spec = np.array([[208, 236, 0, 238], [3, 214, 255, 29]], np.uint8)
b_spec = np.array([[152, 51, 244], [60, 26, 255], [0, 127, 246], [127, 254, 247]], np.uint8)


def qlinearmatmul_inputs(a, a_scale, a_zp, b, b_scale, b_zp, y_scale, y_zp):
    return [("a", a), ("a_scale", a_scale), ("a_zero_point", a_zp), ("b", b), ("b_scale", b_scale),
            ("b_zero_point", b_zp), ("y_scale", y_scale), ("y_zero_point", y_zp)]


for opset in (10, 21):
    add(op="QLinearMatMul", opset=opset, name=f"qlinearmatmul_spec_2d_opset{opset}",
        inputs=qlinearmatmul_inputs(a_spec, np.float32(0.0066), np.uint8(113), b_spec, np.float32(0.00705),
                                    np.uint8(114), np.float32(0.0107), np.uint8(118)))
add(op="QLinearMatMul", opset=10, name="qlinearmatmul_int8_batch_broadcast",
    inputs=qlinearmatmul_inputs(ints(20, [2, 1, 3, 5], -128, 127, np.int8), np.float32(0.03), np.int8(-4),
                                ints(21, [4, 5, 2], -128, 127, np.int8), np.float32(0.02), np.int8(3),
                                np.float32(0.5), np.int8(-7)))
a_mixed, b_mixed = ints(22, [3, 8], 0, 255, np.uint8), ints(23, [8, 4], -128, 127, np.int8)
acc_mixed = (a_mixed.astype(np.int64) - 128) @ b_mixed.astype(np.int64)
add(op="QLinearMatMul", opset=10, name="qlinearmatmul_uint8_int8_to_int8", expect="spec",
    reason="onnxruntime's QLinearMatMul requires y of a's type",
    expected=[np.clip(np.rint(acc_mixed.astype(np.float32) * ((np.float32(0.01) * np.float32(0.02)) / np.float32(0.05)))
                      + 1, -128, 127).astype(np.int8)],
    inputs=qlinearmatmul_inputs(a_mixed, np.float32(0.01), np.uint8(128), b_mixed, np.float32(0.02), np.int8(0),
                                np.float32(0.05), np.int8(1)))
add(op="QLinearMatMul", opset=10, name="qlinearmatmul_per_column_b",
    inputs=qlinearmatmul_inputs(ints(24, [3, 4], 0, 255, np.uint8), np.float32(0.02), np.uint8(100),
                                ints(25, [4, 3], -128, 127, np.int8), f32(0.01, 0.03, 0.002), np.zeros([3], np.int8),
                                np.float32(0.4), np.uint8(128)))
# Accumulators 9 and 3, / y_scale 2: 4.5 and 1.5 round to 4 and 2.
add(op="QLinearMatMul", opset=10, name="qlinearmatmul_rounds_half_to_even",
    inputs=qlinearmatmul_inputs(np.array([[1, 3, 5], [1, 2, 0]], np.uint8), np.float32(1), np.uint8(0),
                                np.ones([3, 1], np.uint8), np.float32(1), np.uint8(0), np.float32(2), np.uint8(0)))
add(op="QLinearMatMul", opset=10, name="qlinearmatmul_empty_rows",
    inputs=qlinearmatmul_inputs(np.zeros([0, 3], np.uint8), np.float32(1), np.uint8(0), np.ones([3, 2], np.uint8),
                                np.float32(1), np.uint8(0), np.float32(1), np.uint8(0)))
add(op="QLinearMatMul", opset=10, name="qlinearmatmul_inner_dims_differ", expect="error",
    inputs=qlinearmatmul_inputs(np.zeros([2, 3], np.uint8), np.float32(1), np.uint8(0), np.ones([4, 2], np.uint8),
                                np.float32(1), np.uint8(0), np.float32(1), np.uint8(0)))
add(op="QLinearMatMul", opset=10, name="qlinearmatmul_zero_point_type_differs", expect="error",
    inputs=qlinearmatmul_inputs(np.zeros([2, 3], np.uint8), np.float32(1), np.int8(0), np.ones([3, 2], np.uint8),
                                np.float32(1), np.uint8(0), np.float32(1), np.uint8(0)))
ZERO_SCALE_REASON = ("the output is x / y_scale: a zero or non-finite scale has no quotient; onnxruntime computes "
                     "with infinities and NaN and saturates")
for tag, a_scale, y_scale in [("zero_y_scale", 1.0, 0.0), ("nan_a_scale", np.nan, 1.0)]:
    add(op="QLinearMatMul", opset=10, name=f"qlinearmatmul_{tag}", expect="onnxopt-error", reason=ZERO_SCALE_REASON,
        inputs=qlinearmatmul_inputs(np.ones([1, 2], np.uint8), np.float32(a_scale), np.uint8(0), np.ones([2, 1], np.uint8),
                                    np.float32(1), np.uint8(0), np.float32(y_scale), np.uint8(0)))
add(op="QLinearMatMul", opset=21, name="qlinearmatmul_float16_scales",
    inputs=qlinearmatmul_inputs(ints(26, [2, 4], 0, 255, np.uint8), np.float16(0.02), np.uint8(120),
                                ints(27, [4, 3], 0, 255, np.uint8), np.float16(0.01), np.uint8(130),
                                np.float16(0.05), np.uint8(125)))

# Per row of a: (a - zp_row) x (b - zp) * a_scale_row * b_scale / y_scale, rounded half to
# even, saturated (computed here with the float32 operations of the kernel's order).
a_rows = ints(28, [2, 3], 0, 255, np.uint8)
b_rows = ints(29, [3, 2], 0, 255, np.uint8)
a_scale_rows, a_zp_rows = f32(0.01, 0.04), np.array([100, 150], np.uint8)
acc_rows = (a_rows.astype(np.int64) - a_zp_rows[:, None].astype(np.int64)) @ (b_rows.astype(np.int64) - 128)
multiplier_rows = (a_scale_rows * np.float32(0.02)) / np.float32(0.5)
y_rows = np.clip(np.rint(acc_rows.astype(np.float32) * multiplier_rows[:, None]) + 128, 0, 255).astype(np.uint8)
add(op="QLinearMatMul", opset=21, name="qlinearmatmul_per_row_a", expect="spec", expected=[y_rows],
    reason="onnxruntime requires a per-tensor a_scale; the spec allows one per row of a",
    inputs=qlinearmatmul_inputs(a_rows, a_scale_rows, a_zp_rows, b_rows, np.float32(0.02), np.uint8(128),
                                np.float32(0.5), np.uint8(128)))


def to_float8(values):
    """Nearest float8e4m3fn value of each element (ties to the even code), saturated."""
    table = float8_table(FLOAT8E4M3FN)
    codes = np.where(np.isfinite(table))[0]
    out = []
    for v in np.asarray(values, np.float64).ravel():
        distance = np.abs(table[codes] - v)
        best = codes[distance == distance.min()]
        even = best[best % 2 == 0]
        out.append(table[even[0] if even.size else best[0]])
    return np.array(out, np.float32).reshape(np.shape(values))


# float8 inputs with a uint8 output (the types are independent). A float8 output is checked
# by the C++ tests: `onnxopt run` cannot save float8 tensors yet (Tensor::ToDoubleVector).
a8 = to_float8(uniform(30, [2, 4], -4, 4))
b8 = to_float8(uniform(31, [4, 3], -2, 2))
for tag, y_scale in [("", 0.05), ("_saturates", 0.001)]:
    real = (a8 @ b8) * np.float32(1.0 * 0.5 / y_scale)
    add(op="QLinearMatMul", opset=21, name=f"qlinearmatmul_float8e4m3fn_inputs{tag}", expect="spec",
        expected=[np.clip(np.rint(real) + 128, 0, 255).astype(np.uint8)],
        reason="onnxruntime's CPU QLinearMatMul has no float8 kernel",
        inputs=qlinearmatmul_inputs(("float8e4m3fn", a8), np.float32(1), ("float8e4m3fn", np.zeros([], np.float32)),
                                    ("float8e4m3fn", b8), np.float32(0.5), ("float8e4m3fn", np.zeros([], np.float32)),
                                    np.float32(y_scale), np.uint8(128)))

# --- DynamicQuantizeLinear -----------------------------------------------------------------------
for tag, x in [("spec_mixed", f32(0, 2, -3, -2.5, 1.34, 0.5)),
               ("spec_max_adjusted", f32(-1.0, -2.1, -1.3, -2.5, -3.34, -4.0)),
               ("spec_min_adjusted", f32(1, 2.1, 1.3, 2.5, 3.34, 4.0, 1.5, 2.6, 3.9, 4.0, 3.0, 2.345).reshape(3, 4)),
               ("random_3d", uniform(40, [2, 3, 7], -5, 3)),
               ("all_zeros", np.zeros([4], np.float32)),
               ("empty", np.zeros([0, 3], np.float32)),
               ("tiny_range", f32(1e-30, -1e-30, 0)),
               ("huge_range", f32(3e38, -3e38, 1)),
               ("nan", f32(np.nan, 1, -2)),
               ("positive_infinity", f32(np.inf, 1, -2)),
               ("negative_infinity", f32(-np.inf, 1, 3))]:
    add(op="DynamicQuantizeLinear", opset=11, name=f"dynamicquantizelinear_{tag}", inputs=[("x", x)], outputs=3)
add(op="DynamicQuantizeLinear", opset=11, name="dynamicquantizelinear_double_input", expect="error",
    inputs=[("x", np.zeros([2], np.float64))], outputs=3)

# --- com.microsoft MatMulNBits ---------------------------------------------------------------------


def pack_codes(codes, bits):
    """Codes [N, k_blocks, block_size] packed low bits first into [N, k_blocks, blob]."""
    n, blocks, block = codes.shape
    bit_values = ((codes[..., None].astype(np.uint16) >> np.arange(bits)) & 1).reshape(n, blocks, block * bits)
    return np.packbits(bit_values.astype(np.uint8), axis=-1, bitorder="little")


def nbits_case(name, bits, K, N, block_size, a, zero_points=None, bias=None, seed=50, a_type=np.float32, **extra):
    blocks = -(-K // block_size)
    codes = ints(seed, [N, blocks, block_size], 0, 2 ** bits - 1, np.uint8)
    scales = uniform(seed + 1, [N, blocks], 0.01, 0.1, a_type)
    inputs = [("A", a.astype(a_type)), ("B", pack_codes(codes, bits)), ("scales", scales)]
    if zero_points is not None or bias is not None:
        inputs.append(("zero_points", zero_points))
    if bias is not None:
        inputs += [("g_idx", None), ("bias", bias.astype(a_type))]
    add(op="MatMulNBits", domain="com.microsoft", opset=1, name=name, inputs=inputs,
        attrs={"K": K, "N": N, "bits": bits, "block_size": block_size}, **extra)


NBITS_REASON = "float32 sums in another order than onnxruntime's blocked n-bit GEMM"
nbits_case("matmulnbits_4bit_default_zero_point", 4, 32, 8, 16, uniform(52, [2, 32]),
           rtol=1e-4, atol=1e-5, reason=NBITS_REASON)
nbits_case("matmulnbits_4bit_packed_zero_points_bias", 4, 64, 5, 32, uniform(53, [3, 64]),
           zero_points=ints(54, [5, 1], 0, 255, np.uint8), bias=uniform(55, [5]),
           rtol=1e-4, atol=1e-5, reason=NBITS_REASON)
nbits_case("matmulnbits_4bit_partial_last_block", 4, 40, 3, 16, uniform(56, [2, 40]),
           zero_points=ints(57, [3, 2], 0, 255, np.uint8), rtol=1e-4, atol=1e-5, reason=NBITS_REASON)
nbits_case("matmulnbits_4bit_batched_a", 4, 32, 4, 32, uniform(58, [2, 3, 32]),
           rtol=1e-4, atol=1e-5, reason=NBITS_REASON)
nbits_case("matmulnbits_8bit", 8, 48, 4, 16, uniform(59, [2, 48]), zero_points=ints(60, [4, 3], 0, 255, np.uint8),
           rtol=1e-4, atol=1e-5, reason=NBITS_REASON)


def dequantized_2bit_product():
    """MatMulNBits' formula in numpy for the 2-bit case: codes (seed 61) minus the default
    zero point 2, times the block scales, then A x W^T."""
    codes = ints(61, [3, 2, 32], 0, 3, np.uint8).astype(np.float32)
    scales = uniform(62, [3, 2], 0.01, 0.1)
    w = ((codes - 2) * scales[:, :, None]).reshape(3, 64)
    return uniform(60, [2, 64]) @ w.T


nbits_case("matmulnbits_2bit", 2, 64, 3, 32, uniform(60, [2, 64]), seed=61, expect="spec",
           expected=[dequantized_2bit_product()], rtol=1e-5, atol=1e-6,
           reason="onnxruntime 1.23's CPU kernel supports 4 and 8 bits only (the schema allows 2 to 8); "
                  "tolerance: float32 sums in another order than numpy's")
nbits_case("matmulnbits_float_zero_points", 4, 32, 3, 16, uniform(62, [2, 32]),
           zero_points=uniform(63, [3, 2], 6, 9), rtol=1e-4, atol=1e-5, reason=NBITS_REASON)
nbits_case("matmulnbits_float16", 4, 32, 6, 16, uniform(64, [2, 32]), a_type=np.float16,
           zero_points=ints(65, [6, 1], 0, 255, np.uint8))
nbits_case("matmulnbits_block_size_8", 4, 32, 2, 8, uniform(66, [1, 32]), expect="error")
# g_idx (deprecated) gives each k the block whose scale and zero point dequantize it.
a_half = np.concatenate([np.ones([1, 16], np.float32), np.zeros([1, 16], np.float32)], axis=1)
swap = np.array([1] * 16 + [0] * 16, np.int32)
add(op="MatMulNBits", domain="com.microsoft", opset=1, name="matmulnbits_g_idx",
    attrs={"K": 32, "N": 1, "bits": 4, "block_size": 16},
    inputs=[("A", a_half), ("B", np.full([1, 2, 8], 0x99, np.uint8)), ("scales", f32(1, 2).reshape(1, 2)),
            ("zero_points", None), ("g_idx", swap)])
# Codes 8, zero points 9 (block 0) and 7 (block 1), scales 1 and 2: k < 16 takes block 1.
add(op="MatMulNBits", domain="com.microsoft", opset=1, name="matmulnbits_g_idx_packed_zero_points", expect="spec",
    expected=[np.array([[16 * (8 - 7) * 2.0]], np.float32)],
    reason="with g_idx, onnxruntime ignores packed zero points (its result is that of zero point 8)",
    attrs={"K": 32, "N": 1, "bits": 4, "block_size": 16},
    inputs=[("A", a_half), ("B", np.full([1, 2, 8], 0x88, np.uint8)), ("scales", f32(1, 2).reshape(1, 2)),
            ("zero_points", np.array([[0x79]], np.uint8)), ("g_idx", swap)])
add(op="MatMulNBits", domain="com.microsoft", opset=1, name="matmulnbits_n_zero",
    attrs={"K": 16, "N": 0, "bits": 4, "block_size": 16},
    inputs=[("A", uniform(69, [2, 16])), ("B", np.zeros([0, 1, 8], np.uint8)), ("scales", np.zeros([0, 1], np.float32))])
add(op="MatMulNBits", domain="com.microsoft", opset=1, name="matmulnbits_a_1d_flat_scales",
    attrs={"K": 16, "N": 2, "bits": 4, "block_size": 16},
    inputs=[("A", uniform(70, [16])), ("B", np.full([2, 1, 8], 0x98, np.uint8)), ("scales", f32(1, 2))])
add(op="MatMulNBits", domain="com.microsoft", opset=1, name="matmulnbits_b_shape_mismatch",
    expect="onnxopt-error",
    reason="B must be (N, ceil(K / block_size), block_size * bits / 8) = [4,2,8] (ContribOperators.md); "
           "onnxruntime does not check the shape and reads past B's data",
    attrs={"K": 32, "N": 4, "bits": 4, "block_size": 16},
    inputs=[("A", uniform(67, [1, 32])), ("B", np.zeros([4, 1, 8], np.uint8)), ("scales", np.ones([4, 2], np.float32))])
add(op="MatMulNBits", domain="com.microsoft", opset=1, name="matmulnbits_k_differs_from_a", expect="error",
    attrs={"K": 32, "N": 2, "bits": 4, "block_size": 16},
    inputs=[("A", uniform(68, [1, 16])), ("B", np.zeros([2, 2, 8], np.uint8)), ("scales", np.ones([2, 2], np.float32))])

# --- com.microsoft DynamicQuantizeMatMul and MatMulIntegerToFloat ---------------------------------------
QGEMM_REASON = "float32 scaling of integer sums in another order than onnxruntime's (scale products, FMA)"
add(op="DynamicQuantizeMatMul", domain="com.microsoft", opset=1, name="dynamicquantizematmul_int8_b_bias",
    inputs=[("A", uniform(70, [3, 4], -2, 3)), ("B", ints(71, [4, 5], -128, 127, np.int8)),
            ("b_scale", np.float32(0.02)), ("b_zero_point", np.int8(0)), ("bias", uniform(72, [5]))],
    rtol=1e-5, atol=1e-5, reason=QGEMM_REASON)
add(op="DynamicQuantizeMatMul", domain="com.microsoft", opset=1, name="dynamicquantizematmul_uint8_b_zero_point",
    inputs=[("A", uniform(73, [2, 3, 6], -1, 1)), ("B", ints(74, [6, 2], 0, 255, np.uint8)),
            ("b_scale", np.float32(0.01)), ("b_zero_point", np.uint8(128))],
    rtol=1e-5, atol=1e-5, reason=QGEMM_REASON)
add(op="DynamicQuantizeMatMul", domain="com.microsoft", opset=1, name="dynamicquantizematmul_per_column_b",
    inputs=[("A", uniform(75, [2, 4], 0, 4)), ("B", ints(76, [4, 3], -128, 127, np.int8)),
            ("b_scale", f32(0.01, 0.02, 0.05)), ("b_zero_point", np.zeros([3], np.int8))],
    rtol=1e-5, atol=1e-5, reason=QGEMM_REASON)
add(op="DynamicQuantizeMatMul", domain="com.microsoft", opset=1, name="dynamicquantizematmul_zero_a",
    inputs=[("A", np.zeros([2, 3], np.float32)), ("B", ints(77, [3, 2], -128, 127, np.int8)),
            ("b_scale", np.float32(0.1))])
a_itf, b_itf, bias_itf = ints(80, [3, 4], 0, 255, np.uint8), ints(81, [4, 2], -128, 127, np.int8), uniform(82, [2])
acc_itf = (a_itf.astype(np.int64) - 120) @ (b_itf.astype(np.int64) - 2)
add(op="MatMulIntegerToFloat", domain="com.microsoft", opset=1, name="matmulintegertofloat_zero_points_bias",
    expect="spec", expected=[acc_itf.astype(np.float32) * (np.float32(0.01) * np.float32(0.02)) + bias_itf],
    inputs=[("A", a_itf), ("B", b_itf),
            ("a_scale", np.float32(0.01)), ("b_scale", np.float32(0.02)), ("a_zero_point", np.uint8(120)),
            ("b_zero_point", np.int8(2)), ("bias", bias_itf)],
    rtol=1e-5, atol=1e-5, reason=U8S8_SATURATION_REASON + "; " + QGEMM_REASON)
add(op="MatMulIntegerToFloat", domain="com.microsoft", opset=1, name="matmulintegertofloat_per_column_b",
    inputs=[("A", ints(83, [2, 2, 3], 0, 255, np.uint8)), ("B", ints(84, [3, 4], 0, 255, np.uint8)),
            ("a_scale", np.float32(0.05)), ("b_scale", f32(0.01, 0.02, 0.03, 0.04)),
            ("a_zero_point", np.uint8(3)), ("b_zero_point", np.array([128, 127, 126, 125], np.uint8))],
    rtol=1e-5, atol=1e-5, reason=QGEMM_REASON)
add(op="MatMulIntegerToFloat", domain="com.microsoft", opset=1, name="matmulintegertofloat_no_zero_points",
    inputs=[("A", ints(85, [2, 5], 0, 255, np.uint8)), ("B", ints(86, [5, 3], 0, 255, np.uint8)),
            ("a_scale", np.float32(0.5)), ("b_scale", np.float32(0.25))])
