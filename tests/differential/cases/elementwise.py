"""Differential cases of the element-wise kernels (onnx_extensions/kernels/elementwise_kernels.cc):
math, activations, comparison, logic, bitwise, Where, Cast, CastLike, Identity, Dropout."""
import math

import numpy as np

from differential import Case

CASES = []


def add(**kwargs):
    CASES.append(Case(**kwargs))


def uniform(seed, shape, lo=-3.0, hi=3.0, dtype=np.float32):
    return np.random.default_rng(seed).uniform(lo, hi, shape).astype(dtype)


def integers(seed, shape, lo, hi, dtype):
    return np.random.default_rng(seed).integers(lo, hi, shape).astype(dtype)


F32_MAX = np.finfo(np.float32).max
# Zeros of both signs, halves (rounding ties), tiny and huge values, infinities, NaN.
SPECIALS = np.array([0.0, -0.0, 1.0, -1.0, 0.5, -0.5, 1.5, 2.5, -2.5, 1e-30, -1e-30, 1e30, -1e30,
                     F32_MAX, -F32_MAX, np.inf, -np.inf, np.nan], np.float32)
EMPTY = np.zeros([0, 3], np.float32)

# --- Unary float functions ----------------------------------------------------------------
# name -> (input range for the random case, opset, special values allowed)
UNARY = {
    "Reciprocal": ((-3, 3), 13), "Sqrt": ((0, 9), 13), "Exp": ((-10, 10), 13), "Log": ((0.01, 100), 13),
    "Floor": ((-5, 5), 13), "Ceil": ((-5, 5), 13), "Round": ((-5, 5), 11), "Erf": ((-3, 3), 13),
    "Sin": ((-6, 6), 7), "Cos": ((-6, 6), 7), "Tan": ((-1.5, 1.5), 7), "Asin": ((-1, 1), 7),
    "Acos": ((-1, 1), 7), "Atan": ((-10, 10), 7), "Sinh": ((-5, 5), 9), "Cosh": ((-5, 5), 9),
    "Asinh": ((-10, 10), 9), "Acosh": ((1, 10), 9), "Atanh": ((-0.99, 0.99), 9), "Tanh": ((-5, 5), 13),
    "Sigmoid": ((-10, 10), 13), "Softplus": ((-10, 10), 1), "Softsign": ((-10, 10), 1), "Mish": ((-10, 10), 18),
    "HardSwish": ((-6, 6), 14), "Neg": ((-5, 5), 13), "Abs": ((-5, 5), 13), "Sign": ((-5, 5), 13),
    "Relu": ((-5, 5), 14),
}
# onnxruntime's CPU provider computes these in double too (the others only in float).
DOUBLE_IN_ONNXRUNTIME = {"Reciprocal", "Sqrt", "Exp", "Log", "Floor", "Ceil", "Round", "Sin", "Tanh", "Sigmoid", "Neg",
                         "Abs", "Sign", "Relu", "Mish"}
for index, (op, ((lo, hi), opset)) in enumerate(UNARY.items()):
    lower = op.lower()
    add(op=op, opset=opset, name=f"{lower}_float_random", inputs=[("x", uniform(index, [3, 4], lo, hi))])
    if op != "Erf":
        add(op=op, opset=opset, name=f"{lower}_float_specials", inputs=[("x", SPECIALS)])
    if op in DOUBLE_IN_ONNXRUNTIME:
        add(op=op, opset=opset, name=f"{lower}_double_random", inputs=[("x", uniform(index, [5], lo, hi, np.float64))])
    add(op=op, opset=opset, name=f"{lower}_empty", inputs=[("x", EMPTY)])
    add(op=op, opset=opset, name=f"{lower}_scalar", inputs=[("x", np.float32((lo + hi) / 2 + 0.25))])

add(op="Erf", opset=13, name="erf_float_specials", inputs=[("x", SPECIALS)], expect="spec",
    expected=[np.array([math.erf(v) if not np.isnan(v) else np.nan for v in SPECIALS.astype(np.float64)], np.float32)],
    reason="erf(NaN) is NaN; onnxruntime's MLAS erf returns 1")

# Integer forms of the ops that accept them.
for op, opset, dtypes in [("Neg", 13, [np.int8, np.int32, np.int64]), ("Abs", 13, [np.int8, np.int32, np.int64, np.uint8]),
                          ("Sign", 13, [np.int8, np.int32, np.int64, np.uint8]), ("Relu", 14, [np.int8, np.int32])]:
    for dtype in dtypes:
        info = np.iinfo(dtype)
        values = np.array([info.min, info.min + 1, -1, 0, 1, info.max], dtype) if info.min < 0 else \
            np.array([0, 1, 2, info.max], dtype)
        add(op=op, opset=opset, name=f"{op.lower()}_{np.dtype(dtype).name}_limits", inputs=[("x", values)])

for op, opset in [("Relu", 6), ("Abs", 6), ("Neg", 6), ("Sqrt", 6), ("Exp", 6), ("Sigmoid", 6), ("Tanh", 6)]:
    add(op=op, opset=opset, name=f"{op.lower()}_opset6", inputs=[("x", uniform(7, [2, 3], 0.1, 3))])

# float16 where onnxruntime has a float16 CPU kernel.
for op, opset in [("Relu", 14), ("Abs", 13), ("Neg", 13), ("Sqrt", 13), ("Exp", 13), ("Log", 13), ("Sigmoid", 13),
                  ("Tanh", 13), ("Erf", 13), ("Round", 11), ("Floor", 13), ("Ceil", 13), ("Reciprocal", 13)]:
    add(op=op, opset=opset, name=f"{op.lower()}_float16", inputs=[("x", uniform(11, [2, 5], 0.1, 3, np.float16))])

# --- Unary with attributes ---------------------------------------------------------------
ATTRIBUTED = [
    ("LeakyRelu", 16, {"alpha": 0.3}), ("LeakyRelu", 16, {}), ("Elu", 6, {"alpha": 0.5}), ("Elu", 6, {}),
    ("Selu", 6, {"alpha": 2.0, "gamma": 3.0}), ("Selu", 6, {}), ("Celu", 12, {"alpha": 2.0}), ("Celu", 12, {}),
    ("HardSigmoid", 6, {"alpha": 0.5, "beta": 0.6}), ("HardSigmoid", 6, {}), ("ThresholdedRelu", 10, {"alpha": 0.5}),
    ("ThresholdedRelu", 10, {}), ("Shrink", 9, {"bias": 1.5, "lambd": 1.0}), ("Shrink", 9, {}),
    ("Gelu", 20, {}), ("Gelu", 20, {"approximate": "tanh"}),
]
for index, (op, opset, attrs) in enumerate(ATTRIBUTED):
    tag = "default" if not attrs else "attrs"
    lower = op.lower()
    add(op=op, opset=opset, name=f"{lower}_{tag}_random", attrs=attrs, inputs=[("x", uniform(20 + index, [3, 4]))])
    add(op=op, opset=opset, name=f"{lower}_{tag}_specials", attrs=attrs, inputs=[("x", SPECIALS)])
add(op="Shrink", opset=9, name="shrink_int8", attrs={"bias": 2.0, "lambd": 3.0},
    inputs=[("x", np.array([-128, -10, -3, 0, 3, 4, 127], np.int8))])
add(op="Shrink", opset=9, name="shrink_lambd_on_boundary", attrs={"bias": 0.5, "lambd": 1.0},
    inputs=[("x", np.array([-1, -1.0000001, 1, 1.0000001], np.float32))])
add(op="Gelu", opset=20, name="gelu_unknown_approximate", attrs={"approximate": "fast"},
    inputs=[("x", uniform(1, [3]))], expect="error")

# --- Predicates ---------------------------------------------------------------------------
add(op="IsNaN", opset=13, name="isnan_specials", inputs=[("x", SPECIALS)])
add(op="IsNaN", opset=20, name="isnan_float16", inputs=[("x", np.array([np.nan, 1, np.inf], np.float16))])
add(op="IsNaN", opset=13, name="isnan_double", inputs=[("x", SPECIALS.astype(np.float64))])
add(op="IsNaN", opset=13, name="isnan_empty", inputs=[("x", EMPTY)])
for attrs, tag in [({}, "both"), ({"detect_negative": 0}, "positive_only"), ({"detect_positive": 0}, "negative_only"),
                   ({"detect_negative": 0, "detect_positive": 0}, "none")]:
    add(op="IsInf", opset=10, name=f"isinf_{tag}", attrs=attrs, inputs=[("x", SPECIALS)])
add(op="IsInf", opset=10, name="isinf_double", inputs=[("x", SPECIALS.astype(np.float64))])

# --- Binary arithmetic --------------------------------------------------------------------
BROADCASTS = [
    ("same", [3, 4], [3, 4]), ("scalar_right", [3, 4], []), ("scalar_left", [], [3, 4]),
    ("row", [3, 4], [4]), ("column", [3, 1], [1, 4]), ("rank_up", [2, 1, 3], [4, 1]),
    ("empty", [0, 4], [4]), ("empty_both", [2, 0], [1, 0]), ("zero_with_one", [3, 1], [1, 0]),
]
for op, opset in [("Add", 14), ("Sub", 14), ("Mul", 14), ("Div", 14)]:
    lower = op.lower()
    for tag, a, b in BROADCASTS:
        add(op=op, opset=opset, name=f"{lower}_broadcast_{tag}", inputs=[("a", uniform(1, a)), ("b", uniform(2, b, 0.5, 3))])
    add(op=op, opset=opset, name=f"{lower}_incompatible", inputs=[("a", uniform(1, [3, 4])), ("b", uniform(2, [3]))],
        expect="error")
    add(op=op, opset=opset, name=f"{lower}_mixed_types", inputs=[("a", uniform(1, [3])), ("b", uniform(2, [3], dtype=np.float64))],
        expect="error")
    add(op=op, opset=opset, name=f"{lower}_specials", inputs=[("a", SPECIALS), ("b", SPECIALS[::-1].copy())])
    add(op=op, opset=opset, name=f"{lower}_double", inputs=[("a", uniform(3, [2, 3], dtype=np.float64)),
                                                            ("b", uniform(4, [3], 0.5, 2, np.float64))])
    add(op=op, opset=opset, name=f"{lower}_float16", inputs=[("a", uniform(3, [2, 3], dtype=np.float16)),
                                                             ("b", uniform(4, [3], 0.5, 2, np.float16))])
    for dtype in [np.int32, np.int64]:
        info = np.iinfo(dtype)
        a = np.array([info.max, info.min, 7, -7, 100, -100], dtype)
        b = np.array([2, 3, 2, 2, -3, 7], dtype)
        add(op=op, opset=opset, name=f"{lower}_{np.dtype(dtype).name}_wrap_and_truncate", inputs=[("a", a), ("b", b)])
    for dtype in [np.int8, np.uint8, np.uint32, np.uint64, np.int16, np.uint16]:
        add(op=op, opset=opset, name=f"{lower}_{np.dtype(dtype).name}",
            inputs=[("a", integers(5, [6], 1, 100, dtype)), ("b", integers(6, [6], 1, 9, dtype))])
add(op="Add", opset=7, name="add_opset7_broadcast", inputs=[("a", uniform(1, [2, 3])), ("b", uniform(2, [3]))])
add(op="Div", opset=14, name="div_by_signed_zero", inputs=[("a", np.array([1, -1, 0, np.nan], np.float32)),
                                                            ("b", np.array([0.0, 0.0, -0.0, 0.0], np.float32))])

# Pow: base and exponent types differ since opset 12.
add(op="Pow", opset=15, name="pow_float_random", inputs=[("x", uniform(1, [3, 4], 0.1, 3)), ("y", uniform(2, [4], -2, 2))])
add(op="Pow", opset=15, name="pow_negative_base_integer_exponent",
    inputs=[("x", np.array([-2, -2, -0.5, -3], np.float32)), ("y", np.array([2, 3, -1, 0.5], np.float32))])
add(op="Pow", opset=15, name="pow_specials", inputs=[("x", SPECIALS), ("y", np.float32(0))])
add(op="Pow", opset=15, name="pow_specials_exponent", inputs=[("x", np.float32(2)), ("y", SPECIALS)])
add(op="Pow", opset=15, name="pow_int64_exponent", inputs=[("x", uniform(3, [4], 0.5, 2)),
                                                           ("y", np.array([0, 1, 2, 3], np.int64))])
add(op="Pow", opset=15, name="pow_int64_base", inputs=[("x", np.array([2, -3, 5, 0], np.int64)),
                                                       ("y", np.array([3, 3, 0, 2], np.int64))])
add(op="Pow", opset=15, name="pow_int32_base_float_exponent", inputs=[("x", np.array([2, 3, 4, 9], np.int32)),
                                                                      ("y", np.array([2, 0.5, 1.5, 0.5], np.float32))])
add(op="Pow", opset=15, name="pow_double", inputs=[("x", uniform(4, [3], 0.1, 2, np.float64)),
                                                   ("y", uniform(5, [3], -2, 2, np.float64))])
add(op="Pow", opset=15, name="pow_broadcast_empty", inputs=[("x", np.zeros([0, 2], np.float32)), ("y", uniform(6, [2]))])
add(op="Pow", opset=7, name="pow_opset7", inputs=[("x", uniform(7, [2, 2], 0.5, 2)), ("y", uniform(8, [2], -1, 1))])

# Mod: fmod=1 for floats (the sign of the dividend), fmod=0 for integers (the divisor's sign).
add(op="Mod", opset=13, name="mod_int_sign_of_divisor",
    inputs=[("a", np.array([-4, 7, 5, 4, -7, 8, -9], np.int32)), ("b", np.array([2, -3, 8, -2, 3, 5, -4], np.int32))])
add(op="Mod", opset=13, name="mod_int64_fmod", attrs={"fmod": 1},
    inputs=[("a", np.array([-4, 7, 5, 4, -7, 8], np.int64)), ("b", np.array([2, -3, 8, -2, 3, 5], np.int64))])
add(op="Mod", opset=13, name="mod_float_fmod", attrs={"fmod": 1},
    inputs=[("a", np.array([-4.3, 7.2, 5.0, 4.3, -7.2, 8.5], np.float32)), ("b", np.array([2.1, -3.4, 8, -2.1, 3.4, 5], np.float32))])
add(op="Mod", opset=13, name="mod_float_specials", attrs={"fmod": 1},
    inputs=[("a", np.array([np.inf, -1, 1, np.nan, 0], np.float32)), ("b", np.array([2, np.inf, 0, 1, -3], np.float32))])
add(op="Mod", opset=13, name="mod_float_without_fmod", inputs=[("a", uniform(1, [3])), ("b", uniform(2, [3], 1, 2))],
    expect="error")
add(op="Mod", opset=13, name="mod_uint8", inputs=[("a", np.array([200, 7, 255], np.uint8)), ("b", np.array([7, 255, 16], np.uint8))])
add(op="Mod", opset=13, name="mod_int8_broadcast", inputs=[("a", np.array([[-128, 127, -5]], np.int8)),
                                                           ("b", np.array([[3], [-3]], np.int8))])

# Variadic Max / Min / Sum / Mean.
for op, opset in [("Max", 13), ("Min", 13), ("Sum", 13), ("Mean", 13)]:
    lower = op.lower()
    add(op=op, opset=opset, name=f"{lower}_one_input", inputs=[("a", uniform(1, [2, 3]))])
    add(op=op, opset=opset, name=f"{lower}_three_broadcast",
        inputs=[("a", uniform(1, [2, 1, 3])), ("b", uniform(2, [4, 1])), ("c", uniform(3, []))])
    add(op=op, opset=opset, name=f"{lower}_nan", inputs=[("a", SPECIALS), ("b", SPECIALS[::-1].copy())])
    add(op=op, opset=opset, name=f"{lower}_empty", inputs=[("a", EMPTY), ("b", uniform(4, [3]))])
    add(op=op, opset=opset, name=f"{lower}_mixed_types", inputs=[("a", uniform(1, [3])), ("b", np.ones(3, np.float64))],
        expect="error")
    if op != "Mean":
        add(op=op, opset=opset, name=f"{lower}_double", inputs=[("a", uniform(5, [3], dtype=np.float64)),
                                                                ("b", uniform(6, [3], dtype=np.float64))])
    add(op=op, opset=opset, name=f"{lower}_float16", inputs=[("a", uniform(5, [3], dtype=np.float16)),
                                                             ("b", uniform(6, [3], dtype=np.float16))])
    add(op=op, opset=6 if op in ("Sum", "Mean") else 6, name=f"{lower}_opset6_same_shapes",
        inputs=[("a", uniform(7, [3])), ("b", uniform(8, [3]))])
for op in ("Max", "Min"):
    for dtype in [np.int32, np.int64, np.uint32, np.uint64]:
        info = np.iinfo(dtype)
        add(op=op, opset=13, name=f"{op.lower()}_{np.dtype(dtype).name}",
            inputs=[("a", np.array([info.min, 0, info.max, 5], dtype)), ("b", np.array([1, info.max, info.min, 5], dtype))])
add(op="Max", opset=13, name="max_signed_zeros", inputs=[("a", np.array([0.0, -0.0], np.float32)),
                                                         ("b", np.array([-0.0, 0.0], np.float32))])

# PRelu: the slope broadcasts to x (unidirectionally).
add(op="PRelu", opset=16, name="prelu_per_channel", inputs=[("x", uniform(1, [2, 3, 2])), ("slope", uniform(2, [3, 1]))])
add(op="PRelu", opset=16, name="prelu_scalar_slope", inputs=[("x", SPECIALS), ("slope", np.float32(0.25))], expect="spec",
    expected=[np.where(SPECIALS < 0, np.float32(0.25) * SPECIALS, SPECIALS).astype(np.float32)],
    reason="PRelu is slope * x for x < 0 and x otherwise: +inf stays +inf; onnxruntime gives NaN")
add(op="PRelu", opset=16, name="prelu_slope_larger_than_x", inputs=[("x", uniform(4, [3])), ("slope", uniform(5, [2, 3]))],
    expect="onnxopt-error", reason="the slope is unidirectionally broadcastable to X (the output has X's shape); "
                                   "onnxruntime broadcasts both ways and returns a [2, 3] output")
add(op="PRelu", opset=16, name="prelu_int32", inputs=[("x", np.array([-5, 3, -1], np.int32)), ("slope", np.array([2], np.int32))])
add(op="PRelu", opset=16, name="prelu_empty", inputs=[("x", EMPTY), ("slope", uniform(3, [3]))])
add(op="PRelu", opset=9, name="prelu_opset9", inputs=[("x", uniform(4, [2, 3])), ("slope", uniform(5, [3]))])

# Clip: attributes before opset 11, optional scalar inputs since.
add(op="Clip", opset=13, name="clip_min_greater_than_max",
    inputs=[("x", np.array([-2, 0.5, 3, np.inf, -np.inf], np.float32)), ("min", np.float32(1)), ("max", np.float32(0))])
add(op="Clip", opset=13, name="clip_int32_min_greater_than_max",
    inputs=[("x", np.array([-2, 0, 3, 9], np.int32)), ("min", np.int32(5)), ("max", np.int32(1))])
add(op="Clip", opset=13, name="clip_nan", inputs=[("x", SPECIALS), ("min", np.float32(-1)), ("max", np.float32(1))])
add(op="Clip", opset=13, name="clip_only_max", inputs=[("x", SPECIALS), ("min", None), ("max", np.float32(0.5))])
add(op="Clip", opset=13, name="clip_only_min", inputs=[("x", SPECIALS), ("min", np.float32(-0.5))])
add(op="Clip", opset=13, name="clip_no_bounds", inputs=[("x", SPECIALS)])
add(op="Clip", opset=13, name="clip_nan_bound", inputs=[("x", uniform(1, [4])), ("min", np.float32(np.nan)), ("max", np.float32(1))])
add(op="Clip", opset=13, name="clip_bounds_of_shape_one", inputs=[("x", uniform(2, [4])), ("min", np.array([-0.5], np.float32)),
                                                                  ("max", np.array([0.5], np.float32))])
add(op="Clip", opset=13, name="clip_bound_not_scalar", inputs=[("x", uniform(2, [4])), ("min", np.array([-0.5, 0], np.float32))],
    expect="error")
add(op="Clip", opset=13, name="clip_bound_other_type", inputs=[("x", uniform(2, [4])), ("min", np.float64(-0.5))],
    expect="error")
add(op="Clip", opset=13, name="clip_bound_empty", inputs=[("x", uniform(2, [4])), ("min", np.zeros([0], np.float32))],
    expect="error")
add(op="Clip", opset=13, name="clip_empty_input", inputs=[("x", EMPTY), ("min", np.float32(0))])
for dtype in [np.int8, np.uint8, np.int64, np.uint64, np.int32, np.uint32]:
    info = np.iinfo(dtype)
    add(op="Clip", opset=13, name=f"clip_{np.dtype(dtype).name}",
        inputs=[("x", np.array([info.min, 0, 10, info.max], dtype)), ("min", dtype(1)), ("max", dtype(20))])
add(op="Clip", opset=13, name="clip_double", inputs=[("x", uniform(3, [5], dtype=np.float64)),
                                                     ("min", np.float64(-1)), ("max", np.float64(1))])
add(op="Clip", opset=13, name="clip_float16", inputs=[("x", uniform(3, [5], dtype=np.float16)),
                                                      ("min", np.float16(-1)), ("max", np.float16(1))])
add(op="Clip", opset=6, name="clip_opset6_attributes", attrs={"min": -0.5, "max": 0.5}, inputs=[("x", SPECIALS)])
add(op="Clip", opset=6, name="clip_opset6_defaults", inputs=[("x", SPECIALS)])
add(op="Clip", opset=6, name="clip_opset6_min_greater_than_max", attrs={"min": 1.0, "max": 0.0}, inputs=[("x", SPECIALS)],
    expect="spec", expected=[np.where(np.isnan(SPECIALS), np.nan, np.float32(0)).astype(np.float32)],
    reason="Clip is Min(max, Max(input, min)) (the rule the spec states since opset 13 holds for the attribute form "
           "too): everything is max, NaN stays NaN; onnxruntime refuses min > max at load")
add(op="Clip", opset=11, name="clip_opset11", inputs=[("x", uniform(4, [3])), ("min", np.float32(0))])

# --- Comparison and logic ----------------------------------------------------------------
for op in ["Equal", "Less", "LessOrEqual", "Greater", "GreaterOrEqual"]:
    lower = op.lower()
    opset = 19 if op == "Equal" else (16 if op in ("LessOrEqual", "GreaterOrEqual") else 13)
    add(op=op, opset=opset, name=f"{lower}_specials", inputs=[("a", SPECIALS), ("b", SPECIALS[::-1].copy())])
    add(op=op, opset=opset, name=f"{lower}_broadcast", inputs=[("a", integers(1, [2, 1, 3], 0, 3, np.int32)),
                                                               ("b", integers(2, [4, 1], 0, 3, np.int32))])
    add(op=op, opset=opset, name=f"{lower}_int64_limits",
        inputs=[("a", np.array([np.iinfo(np.int64).min, -1, 0, np.iinfo(np.int64).max], np.int64)),
                ("b", np.array([np.iinfo(np.int64).min + 1, -1, 1, np.iinfo(np.int64).max - 1], np.int64))])
    add(op=op, opset=opset, name=f"{lower}_empty", inputs=[("a", EMPTY), ("b", np.float32(0))])
    add(op=op, opset=opset, name=f"{lower}_mixed_types", inputs=[("a", uniform(1, [2])), ("b", np.zeros(2, np.float64))],
        expect="error")
    add(op=op, opset=opset, name=f"{lower}_double", inputs=[("a", uniform(3, [4], dtype=np.float64)),
                                                            ("b", uniform(4, [4], dtype=np.float64))])
    for dtype in [np.uint8, np.int8, np.uint64, np.int16, np.uint16, np.uint32]:
        add(op=op, opset=opset, name=f"{lower}_{np.dtype(dtype).name}",
            inputs=[("a", integers(5, [5], 0, 4, dtype)), ("b", integers(6, [5], 0, 4, dtype))])
add(op="Equal", opset=19, name="equal_bool", inputs=[("a", np.array([True, False, True])), ("b", np.array([True, True, False]))])
add(op="Equal", opset=19, name="equal_string", inputs=[("a", np.array(["a", "", "é", "x"], dtype=object)),
                                                       ("b", np.array(["a", "", "e", "y"], dtype=object))])
add(op="Equal", opset=19, name="equal_string_broadcast", inputs=[("a", np.array([["a"], ["b"]], dtype=object)),
                                                                 ("b", np.array(["a", "b", "c"], dtype=object))])
add(op="Equal", opset=11, name="equal_opset11_float", inputs=[("a", uniform(1, [3])), ("b", uniform(1, [3]))])
add(op="Less", opset=7, name="less_opset7", inputs=[("a", uniform(1, [3])), ("b", uniform(2, [3]))])
add(op="Greater", opset=9, name="greater_opset9_int", inputs=[("a", np.array([1, 2], np.int32)), ("b", np.array([2, 1], np.int32))])

BOOLS_A = np.array([[True, False, True, False]])
BOOLS_B = np.array([[True], [False]])
for op, opset in [("And", 7), ("Or", 7), ("Xor", 7)]:
    add(op=op, opset=opset, name=f"{op.lower()}_broadcast", inputs=[("a", BOOLS_A), ("b", BOOLS_B)])
    add(op=op, opset=opset, name=f"{op.lower()}_empty", inputs=[("a", np.zeros([0], bool)), ("b", np.array([True]))])
    add(op=op, opset=opset, name=f"{op.lower()}_not_bool", inputs=[("a", np.ones(2, np.int32)), ("b", np.ones(2, np.int32))],
        expect="error")
add(op="Not", opset=1, name="not_bool", inputs=[("x", BOOLS_A)])
add(op="Not", opset=1, name="not_empty", inputs=[("x", np.zeros([2, 0], bool))])
add(op="Not", opset=1, name="not_float", inputs=[("x", uniform(1, [2]))], expect="error")

# --- Bitwise -----------------------------------------------------------------------------
for op in ["BitwiseAnd", "BitwiseOr", "BitwiseXor"]:
    for dtype in [np.int8, np.uint8, np.int16, np.uint16, np.int32, np.uint32, np.int64, np.uint64]:
        info = np.iinfo(dtype)
        add(op=op, opset=18, name=f"{op.lower()}_{np.dtype(dtype).name}",
            inputs=[("a", np.array([info.min, info.max, 0, 5, 12], dtype)), ("b", np.array([info.max, info.max, 7, 3, 10], dtype))])
    add(op=op, opset=18, name=f"{op.lower()}_broadcast", inputs=[("a", integers(1, [2, 3], 0, 100, np.int32)),
                                                                 ("b", np.int32(6))])
    add(op=op, opset=18, name=f"{op.lower()}_float", inputs=[("a", uniform(1, [2])), ("b", uniform(2, [2]))], expect="error")
for dtype in [np.int8, np.uint8, np.int16, np.uint16, np.int32, np.uint32, np.int64, np.uint64]:
    info = np.iinfo(dtype)
    add(op="BitwiseNot", opset=18, name=f"bitwisenot_{np.dtype(dtype).name}",
        inputs=[("x", np.array([info.min, info.max, 0, 5], dtype))])
add(op="BitwiseNot", opset=18, name="bitwisenot_empty", inputs=[("x", np.zeros([0, 2], np.int32))])

for direction in ["LEFT", "RIGHT"]:
    for dtype in [np.uint8, np.uint32, np.uint64]:
        bits = np.iinfo(dtype).bits
        add(op="BitShift", opset=11, name=f"bitshift_{direction.lower()}_{np.dtype(dtype).name}", attrs={"direction": direction},
            inputs=[("x", np.array([1, 255, 3, np.iinfo(dtype).max, 7], dtype)),
                    ("y", np.array([0, 1, bits - 1, 4, 2], dtype))])
    add(op="BitShift", opset=11, name=f"bitshift_{direction.lower()}_broadcast", attrs={"direction": direction},
        inputs=[("x", np.array([[16], [255]], np.uint8)), ("y", np.array([1, 2, 3], np.uint8))])
add(op="BitShift", opset=11, name="bitshift_bad_direction", attrs={"direction": "UP"},
    inputs=[("x", np.array([1], np.uint8)), ("y", np.array([1], np.uint8))], expect="error")
add(op="BitShift", opset=11, name="bitshift_missing_direction",
    inputs=[("x", np.array([1], np.uint8)), ("y", np.array([1], np.uint8))], expect="error")
add(op="BitShift", opset=11, name="bitshift_signed", attrs={"direction": "LEFT"},
    inputs=[("x", np.array([1], np.int32)), ("y", np.array([1], np.int32))], expect="error")

# --- Where -------------------------------------------------------------------------------
add(op="Where", opset=16, name="where_broadcast_three",
    inputs=[("c", np.array([[True], [False]])), ("a", uniform(1, [1, 3])), ("b", uniform(2, [2, 1, 1]))])
add(op="Where", opset=16, name="where_strings", inputs=[("c", np.array([True, False])),
                                                        ("a", np.array(["x", "y"], dtype=object)),
                                                        ("b", np.array(["p", "q"], dtype=object))])
add(op="Where", opset=16, name="where_int64", inputs=[("c", np.array([True, False, True])),
                                                      ("a", np.array([1, 2, 3], np.int64)), ("b", np.int64(-1))])
add(op="Where", opset=16, name="where_empty", inputs=[("c", np.zeros([0], bool)), ("a", uniform(1, [1])),
                                                      ("b", uniform(2, [1]))])
add(op="Where", opset=16, name="where_nan", inputs=[("c", np.array([True, False])), ("a", np.array([np.nan, 1], np.float32)),
                                                    ("b", np.array([2, np.nan], np.float32))])
add(op="Where", opset=9, name="where_opset9_uint8", inputs=[("c", np.array([True, False])), ("a", np.array([1, 2], np.uint8)),
                                                            ("b", np.array([3, 4], np.uint8))])
add(op="Where", opset=16, name="where_condition_not_bool", inputs=[("c", np.array([1, 0], np.int32)), ("a", uniform(1, [2])),
                                                                   ("b", uniform(2, [2]))], expect="error")
add(op="Where", opset=16, name="where_mixed_types", inputs=[("c", np.array([True])), ("a", uniform(1, [2])),
                                                            ("b", np.ones(2, np.float64))], expect="error")
add(op="Where", opset=16, name="where_incompatible", inputs=[("c", np.array([True, False, True])), ("a", uniform(1, [2])),
                                                             ("b", uniform(2, [2]))], expect="error")

# --- Cast and CastLike -------------------------------------------------------------------
F = 1  # TensorProto.FLOAT and friends, by number
TYPES = {"float": 1, "uint8": 2, "int8": 3, "uint16": 4, "int16": 5, "int32": 6, "int64": 7, "string": 8, "bool": 9,
         "float16": 10, "double": 11, "uint32": 12, "uint64": 13, "bfloat16": 16}
FLOAT_SOURCE = np.array([0.0, -0.0, 1.5, -1.5, 2.5, -2.7, 100.9, -100.9, 1e-8, 65504, 70000, 1e10], np.float32)
for target in ["uint8", "int8", "uint16", "int16", "int32", "int64", "bool", "float16", "double", "uint32", "uint64",
               "bfloat16"]:
    add(op="Cast", opset=19, name=f"cast_float_to_{target}", attrs={"to": TYPES[target]},
        inputs=[("x", FLOAT_SOURCE if target in ("float16", "double", "bool", "bfloat16") else
                 np.abs(FLOAT_SOURCE[:9]) if target.startswith("uint") else FLOAT_SOURCE[:9])])
add(op="Cast", opset=19, name="cast_specials_to_float16", attrs={"to": TYPES["float16"]}, inputs=[("x", SPECIALS)])
add(op="Cast", opset=19, name="cast_specials_to_double", attrs={"to": TYPES["double"]}, inputs=[("x", SPECIALS)])
add(op="Cast", opset=19, name="cast_specials_to_bfloat16", attrs={"to": TYPES["bfloat16"]}, inputs=[("x", SPECIALS)])
add(op="Cast", opset=13, name="cast_opset13_to_bfloat16_rounds", attrs={"to": TYPES["bfloat16"]},
    inputs=[("x", np.array([1.00390625, 1.01171875, 3.0078125, -1.00390625, 1.0000001], np.float32))])
add(op="Cast", opset=19, name="cast_bfloat16_to_float", attrs={"to": F},
    inputs=[("x", ("bfloat16", np.array([1.5, -2.25, 1e30, np.inf, np.nan, 0.1], np.float32)))])
add(op="Cast", opset=19, name="cast_float16_to_float", attrs={"to": F},
    inputs=[("x", np.array([1.5, -2.25, 65504, np.inf, np.nan, 6e-8], np.float16))])
add(op="Cast", opset=19, name="cast_double_to_float_overflow", attrs={"to": F},
    inputs=[("x", np.array([1e300, -1e300, 1e-300, 3.4028235677973366e38, np.nan], np.float64))])
for source in ["int8", "uint8", "int16", "uint16", "int32", "uint32", "int64", "uint64"]:
    dtype = np.dtype(source)
    info = np.iinfo(dtype)
    values = np.array([info.min, info.max, 0, 1, 100], dtype)
    for target in ["float", "double", "int32", "int64", "uint8", "int8", "bool", "float16", "uint64"]:
        if target == source:
            continue
        add(op="Cast", opset=19, name=f"cast_{source}_to_{target}", attrs={"to": TYPES[target]}, inputs=[("x", values)])
for target in ["float", "int32", "int64", "double", "uint8", "float16"]:
    add(op="Cast", opset=19, name=f"cast_bool_to_{target}", attrs={"to": TYPES[target]},
        inputs=[("x", np.array([True, False, True]))])
for target in ["float", "double", "int32", "int64", "uint8", "int8"]:
    add(op="Cast", opset=19, name=f"cast_string_to_{target}", attrs={"to": TYPES[target]},
        inputs=[("x", np.array(["1", "-2", "3.0", "  4", "1e2"] if target in ("float", "double") else
                               ["1", "-2", "3", "127", "0"] if not target.startswith("u") else ["1", "2", "3", "127", "0"],
                               dtype=object))])
add(op="Cast", opset=19, name="cast_string_to_float_specials", attrs={"to": F},
    inputs=[("x", np.array(["inf", "-INF", "NaN", "1e40", "-0"], dtype=object))])
for source, values in [("float", np.array([1.5, -2.0, 0.1, 1e20, 123456789], np.float32)),
                       ("double", np.array([1.5, -2.0, 0.1, 1e20], np.float64)),
                       ("int32", np.array([-5, 0, 2147483647], np.int32)), ("int64", np.array([-5, 0, 2**62], np.int64)),
                       ("bool", np.array([True, False])), ("uint8", np.array([0, 255], np.uint8))]:
    add(op="Cast", opset=19, name=f"cast_{source}_to_string", attrs={"to": TYPES["string"]}, inputs=[("x", values)])
add(op="Cast", opset=19, name="cast_specials_to_string", attrs={"to": TYPES["string"]},
    inputs=[("x", np.array([np.inf, -np.inf, np.nan, -0.0], np.float32))])
add(op="Cast", opset=19, name="cast_same_type", attrs={"to": F}, inputs=[("x", SPECIALS)])
add(op="Cast", opset=19, name="cast_empty", attrs={"to": TYPES["int64"]}, inputs=[("x", EMPTY)])
add(op="Cast", opset=19, name="cast_missing_to", inputs=[("x", SPECIALS)], expect="error")
add(op="Cast", opset=19, name="cast_unknown_to", attrs={"to": 99}, inputs=[("x", SPECIALS)], expect="error")
add(op="Cast", opset=19, name="cast_string_not_a_number", attrs={"to": F},
    inputs=[("x", np.array(["abc"], dtype=object))], expect="error")
add(op="Cast", opset=6, name="cast_opset6", attrs={"to": TYPES["int32"]}, inputs=[("x", FLOAT_SOURCE[:9])])
for fmt, values in [("float8e4m3fn", np.array([0.0, 1.0, -1.75, 448, 500, 1e-3, np.nan, 0.3], np.float32)),
                    ("float8e4m3fnuz", np.array([0.0, 1.0, -1.75, 240, 300, 1e-3, np.nan], np.float32)),
                    ("float8e5m2", np.array([0.0, 1.0, -1.75, 57344, 1e6, 1e-6, np.inf, np.nan], np.float32)),
                    ("float8e5m2fnuz", np.array([0.0, 1.0, -1.75, 57344, 1e6, 1e-6, np.nan], np.float32))]:
    number = {"float8e4m3fn": 17, "float8e4m3fnuz": 18, "float8e5m2": 19, "float8e5m2fnuz": 20}[fmt]
    add(op="Cast", opset=19, name=f"cast_float_to_{fmt}", attrs={"to": number}, inputs=[("x", values)])
    add(op="Cast", opset=19, name=f"cast_float_to_{fmt}_no_saturation", attrs={"to": number, "saturate": 0},
        inputs=[("x", values)])
    add(op="Cast", opset=19, name=f"cast_{fmt}_to_float", attrs={"to": F}, inputs=[("x", (fmt, values[:6]))])
INT4_REASON = ("int4.md: round to the nearest integer, ties to even, then keep the low 4 bits; onnxruntime rounds "
               "halves away from zero")
add(op="Cast", opset=21, name="cast_float_to_int4", attrs={"to": 22},
    inputs=[("x", np.array([-9, -8, -1.5, 0, 2.5, 7, 8, 0.5], np.float32))], expect="spec",
    expected=[np.array([7, -8, -2, 0, 2, 7, -8, 0], np.int8)], reason=INT4_REASON)
add(op="Cast", opset=21, name="cast_float_to_uint4", attrs={"to": 21},
    inputs=[("x", np.array([-1, 0, 2.5, 3.5, 15, 16], np.float32))], expect="spec",
    expected=[np.array([15, 0, 2, 4, 15, 0], np.uint8)], reason=INT4_REASON)
add(op="Cast", opset=21, name="cast_float_to_int4_exact", attrs={"to": 22},
    inputs=[("x", np.array([-9, -8, -1.6, 0, 2.7, 7, 8], np.float32))])
add(op="Cast", opset=21, name="cast_int4_to_float", attrs={"to": F}, inputs=[("x", ("int4", np.array([-8, -1, 0, 7, 3])))])
add(op="Cast", opset=21, name="cast_uint4_to_int32", attrs={"to": 6}, inputs=[("x", ("uint4", np.array([0, 1, 15, 8])))])

add(op="CastLike", opset=19, name="castlike_float_to_int32",
    inputs=[("x", FLOAT_SOURCE[:9]), ("like", np.zeros([0], np.int32))])
add(op="CastLike", opset=19, name="castlike_int64_to_double",
    inputs=[("x", np.array([2**53 + 1, -3], np.int64)), ("like", np.float64(0))])
add(op="CastLike", opset=19, name="castlike_float_to_string",
    inputs=[("x", np.array([1.5, -0.25], np.float32)), ("like", np.array(["a"], dtype=object))])
add(op="CastLike", opset=15, name="castlike_opset15_to_float16",
    inputs=[("x", np.array([1.0, 65520, 1e-8], np.float32)), ("like", np.zeros(1, np.float16))])

# --- Identity, Dropout ---------------------------------------------------------------------
add(op="Identity", opset=16, name="identity_float", inputs=[("x", SPECIALS)])
add(op="Identity", opset=16, name="identity_string", inputs=[("x", np.array(["a", "b"], dtype=object))])
add(op="Identity", opset=16, name="identity_empty", inputs=[("x", np.zeros([0, 0, 2], np.int64))])
add(op="Identity", opset=16, name="identity_sequence", inputs=[("x", [uniform(1, [2]), uniform(2, [3])])])
add(op="Identity", opset=19, name="identity_bfloat16", inputs=[("x", ("bfloat16", np.array([1.5, -2], np.float32)))])

add(op="Dropout", opset=13, name="dropout_inference", inputs=[("x", uniform(1, [3, 4]))], outputs=2)
add(op="Dropout", opset=13, name="dropout_inference_ratio_input", inputs=[("x", uniform(1, [3, 4])), ("ratio", np.float32(0.7))],
    outputs=2)
add(op="Dropout", opset=13, name="dropout_training_false",
    inputs=[("x", uniform(1, [3, 4])), ("ratio", np.float32(0.5)), ("training_mode", np.array(False))], outputs=2)
add(op="Dropout", opset=13, name="dropout_training_ratio_zero",
    inputs=[("x", uniform(1, [3, 4])), ("ratio", np.float32(0)), ("training_mode", np.array(True))], outputs=2)
add(op="Dropout", opset=13, name="dropout_training_random_shape",
    inputs=[("x", uniform(1, [30, 40])), ("ratio", np.float32(0.5)), ("training_mode", np.array(True))],
    attrs={"seed": 3}, outputs=2, expect="shape",
    check=lambda outputs: _check_dropout(outputs))
add(op="Dropout", opset=13, name="dropout_training_ratio_one",
    inputs=[("x", uniform(1, [3])), ("ratio", np.float32(1.0)), ("training_mode", np.array(True))], outputs=2,
    expect="error")
add(op="Dropout", opset=12, name="dropout_opset12_one_output", inputs=[("x", uniform(2, [5]))])
# Dropout-10 leaves the inference-mode mask unspecified (onnxruntime gives all False, the
# later opsets' output = data * mask implies all True): only the output is compared.
add(op="Dropout", opset=10, name="dropout_opset10", attrs={"ratio": 0.2}, inputs=[("x", uniform(3, [5]))])
add(op="Dropout", opset=7, name="dropout_opset7", inputs=[("x", uniform(4, [5]))])
add(op="Dropout", opset=13, name="dropout_double", inputs=[("x", uniform(5, [4], dtype=np.float64))], outputs=2)
add(op="Dropout", opset=13, name="dropout_ratio_not_scalar",
    inputs=[("x", uniform(1, [3])), ("ratio", np.array([0.1, 0.2], np.float32))], expect="error")


def _check_dropout(outputs):
    y, mask = outputs
    kept = mask.mean()
    assert 0.35 < kept < 0.65, f"{kept:.2f} of the elements kept, expected about 0.5"
