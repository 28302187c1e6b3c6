"""Differential cases of the vision and spatial kernels (onnx_extensions/kernels/
vision_kernels.cc, spatial_kernels.cc, fused_kernels.cc, image_kernels.cc): LRN,
MeanVarianceNormalization, NonMaxSuppression, GridSample, AffineGrid, RoiAlign, MaxRoiPool,
MaxUnpool, Col2Im, CenterCropPad, DeformConv, ImageDecoder, com.microsoft FusedConv and
FusedGemm.

onnxruntime-node lacks some of them or some of their types (DeformConv, ImageDecoder, the
opset-22 versions of RoiAlign and MaxRoiPool, double or float16 for most): those cases
are "spec" cases whose expected values come from the numpy definitions below, written
from the spec's text independently of the C++ kernels."""
import struct
import zlib

import numpy as np

from differential import Case, uniform, i64, iota, f32

CASES = []


def add(**kwargs):
    CASES.append(Case(**kwargs))


MISSING = "onnxruntime-node has no CPU kernel for this operator, version or type"


# --- LRN ----------------------------------------------------------------------------------------

def lrn(x, size, alpha=1e-4, beta=0.75, bias=1.0):
    """Y = X / (bias + alpha / size * sum of X^2 over [c - floor((size-1)/2), c + ceil((size-1)/2)]) ^ beta."""
    x64 = x.astype(np.float64)
    channels = x.shape[1]
    y = np.empty_like(x64)
    for c in range(channels):
        lo, hi = max(0, c - (size - 1) // 2), min(channels - 1, c + int(np.ceil((size - 1) / 2)))
        square_sum = (x64[:, lo:hi + 1] ** 2).sum(axis=1)
        y[:, c] = x64[:, c] / (bias + np.float64(np.float32(alpha)) / size * square_sum) ** np.float64(np.float32(beta))
    return y.astype(x.dtype)


LRN_X = uniform(1, [2, 5, 3, 4], -3, 3)
for tag, size in [("size1", 1), ("size3", 3), ("size5", 5), ("size_above_channels", 9)]:
    add(op="LRN", opset=13, name=f"lrn_{tag}", inputs=[("x", LRN_X)], attrs={"size": size})
# onnxruntime only takes odd sizes and 4-D inputs; the spec has neither restriction.
ORT_LRN = "onnxruntime's LRN only accepts an odd size and a 4-D input"
add(op="LRN", opset=13, name="lrn_size2_even", inputs=[("x", LRN_X)], attrs={"size": 2}, expect="spec",
    expected=[lrn(LRN_X, 2)], reason=ORT_LRN)
LRN_RANK3, LRN_RANK5 = uniform(2, [2, 4, 5]), uniform(3, [1, 3, 2, 2, 2])
add(op="LRN", opset=13, name="lrn_rank3", inputs=[("x", LRN_RANK3)], attrs={"size": 3}, expect="spec",
    expected=[lrn(LRN_RANK3, 3)], reason=ORT_LRN)
add(op="LRN", opset=13, name="lrn_rank5", inputs=[("x", LRN_RANK5)], attrs={"size": 5}, expect="spec",
    expected=[lrn(LRN_RANK5, 5)], reason=ORT_LRN)
add(op="LRN", opset=13, name="lrn_attributes", inputs=[("x", LRN_X)],
    attrs={"size": 3, "alpha": 0.5, "beta": 0.3, "bias": 2.0})
add(op="LRN", opset=1, name="lrn_opset1", inputs=[("x", LRN_X)], attrs={"size": 3, "alpha": 0.01})
add(op="LRN", opset=13, name="lrn_empty_batch", inputs=[("x", np.zeros([0, 3, 2, 2], np.float32))], attrs={"size": 3})
add(op="LRN", opset=13, name="lrn_empty_spatial", inputs=[("x", np.zeros([1, 3, 0, 2], np.float32))], attrs={"size": 3})
LRN_INF = f32(1, np.nan, 2, np.inf, -np.inf, 0, 3, 4).reshape(1, 8, 1, 1)
with np.errstate(invalid="ignore"):
    add(op="LRN", opset=13, name="lrn_nan_inf", inputs=[("x", LRN_INF)], attrs={"size": 3}, expect="spec",
        expected=[lrn(LRN_INF, 3)],
        reason="a finite x over an infinite window sum is 0 by the formula; onnxruntime slides its window sum, "
               "subtracting the infinity once it leaves the window (inf - inf = NaN) and gives NaN")
add(op="LRN", opset=13, name="lrn_alpha_beta_zero", inputs=[("x", LRN_X)], attrs={"size": 3, "alpha": 0.0, "beta": 0.0},
    expect="spec", expected=[LRN_X], reason="the spec allows alpha = 0 (then Y = X / bias^beta); onnxruntime requires alpha > 0")
add(op="LRN", opset=13, name="lrn_large_alpha", inputs=[("x", LRN_X)], attrs={"size": 3, "alpha": 1e30, "beta": 2.0})
add(op="LRN", opset=13, name="lrn_size_zero", inputs=[("x", LRN_X)], attrs={"size": 0}, expect="error")
add(op="LRN", opset=13, name="lrn_size_missing", inputs=[("x", LRN_X)], expect="error")
add(op="LRN", opset=13, name="lrn_integer_input", inputs=[("x", iota([1, 3, 2, 2], np.int32))], attrs={"size": 3},
    expect="error")
add(op="LRN", opset=13, name="lrn_float16", inputs=[("x", LRN_X.astype(np.float16))], attrs={"size": 3})
add(op="LRN", opset=13, name="lrn_float64", inputs=[("x", LRN_X.astype(np.float64))], attrs={"size": 3},
    expect="spec", expected=[lrn(LRN_X.astype(np.float64), 3)], reason=MISSING)
# onnxruntime pads the channels by size - 1: a huge size exhausts its memory.
add(op="LRN", opset=13, name="lrn_huge_size", inputs=[("x", LRN_X)], attrs={"size": 1 << 40},
    expect="spec", expected=[lrn(LRN_X, 1 << 40)], reason="onnxruntime allocates C + size - 1 channels and fails")


# --- MeanVarianceNormalization -------------------------------------------------------------------

def mvn(x, axes=(0, 2, 3)):
    x64 = x.astype(np.float64)
    mean = x64.mean(axis=tuple(axes), keepdims=True)
    std = np.sqrt(((x64 - mean) ** 2).mean(axis=tuple(axes), keepdims=True))
    return ((x64 - mean) / (std + 1e-9)).astype(x.dtype)


MVN_X = uniform(4, [2, 3, 4, 5], -2, 5)
add(op="MeanVarianceNormalization", opset=13, name="meanvariancenormalization_default_axes", inputs=[("x", MVN_X)],
    rtol=1e-4, atol=1e-5, reason="onnxruntime computes E[x^2] - E[x]^2 in float32 (the function's formula)")
for tag, axes in [("axis1", [1]), ("all_axes", [0, 1, 2, 3]), ("negative_axes", [-2, -1]), ("batch_axis", [0])]:
    add(op="MeanVarianceNormalization", opset=13, name=f"meanvariancenormalization_{tag}", inputs=[("x", MVN_X)],
        attrs={"axes": axes}, rtol=1e-4, atol=1e-5,
        reason="onnxruntime computes E[x^2] - E[x]^2 in float32 (the function's formula)")
add(op="MeanVarianceNormalization", opset=9, name="meanvariancenormalization_opset9", inputs=[("x", MVN_X)],
    rtol=1e-4, atol=1e-5, reason="onnxruntime computes E[x^2] - E[x]^2 in float32 (the function's formula)")
add(op="MeanVarianceNormalization", opset=13, name="meanvariancenormalization_rank2", inputs=[("x", uniform(5, [3, 6]))],
    attrs={"axes": [1]}, rtol=1e-4, atol=1e-5,
    reason="onnxruntime computes E[x^2] - E[x]^2 in float32 (the function's formula)")
# A constant channel: the variance is 0, the output 0 / 1e-9 = 0 (E[x^2] - E[x]^2 may round
# to a tiny negative in onnxruntime, whose square root is NaN).
CONSTANT = np.full([1, 2, 2, 2], 3.0, np.float32)
add(op="MeanVarianceNormalization", opset=13, name="meanvariancenormalization_constant", inputs=[("x", CONSTANT)],
    expect="spec", expected=[mvn(CONSTANT)], reason="the spec's value is 0; onnxruntime's E[x^2] - E[x]^2 may not be")
add(op="MeanVarianceNormalization", opset=13, name="meanvariancenormalization_axis_out_of_range",
    inputs=[("x", uniform(5, [3, 6]))], expect="onnxopt-error",
    reason="the default axes [0, 2, 3] do not exist in a rank-2 input; onnxruntime's ReduceMean skips them")
for dtype in [np.float64, np.float16]:
    x = MVN_X.astype(dtype)
    add(op="MeanVarianceNormalization", opset=13, name=f"meanvariancenormalization_{np.dtype(dtype).name}",
        inputs=[("x", x)], expect="spec", expected=[mvn(x)], reason=MISSING)


# --- NonMaxSuppression ---------------------------------------------------------------------------

SPEC_BOXES = np.array([[[0, 0, 1, 1], [0, 0.1, 1, 1.1], [0, -0.1, 1, 0.9],
                        [0, 10, 1, 11], [0, 10.1, 1, 11.1], [0, 100, 1, 101]]], np.float32)
SPEC_SCORES = f32(0.9, 0.75, 0.6, 0.95, 0.5, 0.3).reshape(1, 1, 6)


def nms_case(tag, boxes, scores, max_out=None, iou=None, score=None, **kwargs):
    inputs = [("boxes", boxes), ("scores", scores), ("max", max_out), ("iou", iou), ("score", score)]
    while inputs[-1][1] is None:
        inputs.pop()
    add(op="NonMaxSuppression", opset=kwargs.pop("opset", 11), name=f"nonmaxsuppression_{tag}", inputs=inputs, **kwargs)


nms_case("suppress_by_iou", SPEC_BOXES, SPEC_SCORES, i64(3), f32(0.5), f32(0.0))
nms_case("opset10", SPEC_BOXES, SPEC_SCORES, i64(3), f32(0.5), f32(0.0), opset=10)
nms_case("by_iou_and_scores", SPEC_BOXES, SPEC_SCORES, i64(3), f32(0.5), f32(0.4))
nms_case("scalar_inputs", SPEC_BOXES, SPEC_SCORES, np.int64(3), np.float32(0.5), np.float32(0.0))
nms_case("flipped_coordinates", SPEC_BOXES[:, :, [2, 3, 0, 1]], SPEC_SCORES, i64(3), f32(0.5), f32(0.0))
nms_case("limit_output", SPEC_BOXES, SPEC_SCORES, i64(2), f32(0.5), f32(0.0))
nms_case("single_box", SPEC_BOXES[:, :1], SPEC_SCORES[:, :, :1], i64(3), f32(0.5), f32(0.0))
nms_case("identical_boxes", np.tile(np.array([0, 0, 1, 1], np.float32), (1, 10, 1)), np.full([1, 1, 10], 0.9, np.float32),
         i64(3), f32(0.5), f32(0.0))
CENTER_BOXES = np.array([[[0.5, 0.5, 1, 1], [0.5, 0.6, 1, 1], [0.5, 0.4, 1, 1],
                          [0.5, 10.5, 1, 1], [0.5, 10.6, 1, 1], [0.5, 100.5, 1, 1]]], np.float32)
nms_case("center_point_box", CENTER_BOXES, SPEC_SCORES, i64(3), f32(0.5), f32(0.0), attrs={"center_point_box": 1})
nms_case("two_classes", SPEC_BOXES, np.concatenate([SPEC_SCORES, SPEC_SCORES[:, :, ::-1]], axis=1), i64(2), f32(0.5))
nms_case("two_batches", np.concatenate([SPEC_BOXES, SPEC_BOXES]), np.concatenate([SPEC_SCORES, SPEC_SCORES]), i64(2),
         f32(0.5), f32(0.0))
nms_case("no_maximum", SPEC_BOXES, SPEC_SCORES)
nms_case("negative_maximum", SPEC_BOXES, SPEC_SCORES, i64(-5), f32(0.5))
nms_case("iou_zero", SPEC_BOXES, SPEC_SCORES, i64(10), f32(0.0))
nms_case("iou_one", SPEC_BOXES, SPEC_SCORES, i64(10), f32(1.0))
nms_case("omitted_iou", SPEC_BOXES, SPEC_SCORES, i64(10), None, f32(0.55))
nms_case("no_boxes", np.zeros([1, 0, 4], np.float32), np.zeros([1, 1, 0], np.float32), i64(3))
nms_case("no_classes", SPEC_BOXES, np.zeros([1, 0, 6], np.float32), i64(3))
nms_case("degenerate_boxes", np.array([[[0, 0, 0, 0], [0, 0, 0, 0], [1, 1, 1, 3]]], np.float32), f32(0.5, 0.4, 0.3).reshape(1, 1, 3),
         i64(5), f32(0.0))
# IoU of box 1 with box 0 is exactly 0.5: kept (suppression needs strictly greater).
nms_case("iou_equal_to_threshold", np.array([[[0, 0, 1, 1], [0, 0, 1, 0.5]]], np.float32), f32(0.9, 0.8).reshape(1, 1, 2),
         i64(5), f32(0.5))
nms_case("score_equal_to_threshold", np.array([[[0, 0, 1, 1], [2, 2, 3, 3]]], np.float32), f32(0.5, 0.4).reshape(1, 1, 2),
         i64(5), f32(0.5), f32(0.5), expect="spec", expected=[i64(0, 0, 0).reshape(1, 3)],
         reason="the spec removes boxes with a score less than score_threshold; onnxruntime also removes equal scores")
nms_case("nan_scores", SPEC_BOXES, f32(0.9, np.nan, 0.6, np.nan, 0.5, 0.3).reshape(1, 1, 6), i64(10), f32(0.5), f32(0.0))
nms_case("iou_above_one", SPEC_BOXES, SPEC_SCORES, i64(3), f32(1.5), expect="error")
nms_case("center_point_box_two", SPEC_BOXES, SPEC_SCORES, i64(3), attrs={"center_point_box": 2}, expect="error")
nms_case("boxes_rank2", SPEC_BOXES[0], SPEC_SCORES, i64(3), expect="error")
nms_case("boxes_three_coordinates", SPEC_BOXES[:, :, :3], SPEC_SCORES, i64(3), expect="error")
nms_case("spatial_mismatch", SPEC_BOXES, SPEC_SCORES[:, :, :5], i64(3), expect="error")


# --- GridSample ---------------------------------------------------------------------------------

def reflect(x, lo, hi):
    """Reflections by the borders until x is inside: an even number of them leaves x at
    its distance past the border it crossed (the remainder modulo 2 * span is exact)."""
    span = hi - lo
    if span <= 0:
        return lo
    if lo <= x <= hi:
        return x
    rest = (lo - x if x < lo else x - hi) % (2 * span)
    if x < lo:
        return lo + rest if rest <= span else hi - (rest - span)
    return hi - rest if rest <= span else lo + (rest - span)


def grid_sample(x, grid, mode="linear", padding="zeros", align=0):
    """The spec's GridSample over any number of spatial dimensions, computed in float64."""
    spatial = x.shape[2:]
    r = len(spatial)
    lows = [0.0 if align else -0.5 for _ in spatial]
    highs = [d - 1.0 if align else d - 0.5 for d in spatial]

    def pixel(plane, index):
        for d, i in enumerate(index):
            if 0 <= i < spatial[d]:
                continue
            if padding == "zeros" or spatial[d] == 0:
                return 0.0
            index = list(index)
            index[d] = min(max(i, 0), spatial[d] - 1) if padding == "border" else int(reflect(i, lows[d], highs[d]))
        return float(plane[tuple(index)])

    def cubic(t):
        a = -0.75
        near = lambda s: ((a + 2) * s - (a + 3)) * s * s + 1
        far = lambda s: ((a * s - 5 * a) * s + 8 * a) * s - 4 * a
        return [far(t + 1), near(t), near(1 - t), far(2 - t)]

    out = np.zeros(x.shape[:2] + grid.shape[1:-1])
    for n in range(x.shape[0]):
        for o in np.ndindex(*grid.shape[1:-1]):
            coords = []
            for d in range(r):
                g = float(grid[(n,) + o + (r - 1 - d,)])
                c = (g + 1) / 2 * (spatial[d] - 1) if align else ((g + 1) * spatial[d] - 1) / 2
                if mode == "nearest":
                    c = float(np.rint(c))
                if c < lows[d] or c > highs[d]:
                    if padding == "border":
                        c = min(max(c, 0.0), spatial[d] - 1.0)
                    elif padding == "reflection":
                        c = reflect(c, lows[d], highs[d])
                coords.append(c)
            if mode == "nearest":
                taps = [[(int(c), 1.0)] for c in coords]
            elif mode == "linear":
                taps = [[(int(np.floor(c)), 1 - (c - np.floor(c))), (int(np.floor(c)) + 1, c - np.floor(c))] for c in coords]
            else:
                taps = [[(int(np.floor(c)) - 1 + k, w) for k, w in enumerate(cubic(c - np.floor(c)))] for c in coords]
            for c in range(x.shape[1]):
                plane = x[n, c].astype(np.float64)
                value = 0.0
                for combo in np.ndindex(*[len(t) for t in taps]):
                    weight, index = 1.0, []
                    for d, k in enumerate(combo):
                        index.append(taps[d][k][0])
                        weight *= taps[d][k][1]
                    value += weight * pixel(plane, index)
                out[(n, c) + o] = value
    return out


GRID_X = uniform(6, [2, 2, 4, 5], -2, 2)
GRID = uniform(7, [2, 3, 4, 2], -1.3, 1.3)
CUBIC_BORDER = ("the spec clamps a location outside the border to the image before interpolating (the ONNX reference "
                "does too); onnxruntime, as PyTorch, leaves the cubic location unclamped and clamps each of its taps")
for mode16, mode20 in [("bilinear", "linear"), ("nearest", "nearest"), ("bicubic", "cubic")]:
    for padding in ["zeros", "border", "reflection"]:
        for align in [0, 1]:
            tag = f"{mode20}_{padding}_align{align}"
            spec = {}
            if mode20 == "cubic" and padding == "border":
                spec = {"expect": "spec", "reason": CUBIC_BORDER,
                        "expected": [grid_sample(GRID_X, GRID, "cubic", "border", align).astype(np.float32)]}
            add(op="GridSample", opset=16, name=f"gridsample_{tag}", inputs=[("x", GRID_X), ("grid", GRID)],
                attrs={"mode": mode16, "padding_mode": padding, "align_corners": align}, **spec)
            add(op="GridSample", opset=20, name=f"gridsample_opset20_{tag}", inputs=[("x", GRID_X), ("grid", GRID)],
                attrs={"mode": mode20, "padding_mode": padding, "align_corners": align}, **spec)
add(op="GridSample", opset=22, name="gridsample_opset22_default", inputs=[("x", GRID_X), ("grid", GRID)])
# Far outside the image: several reflections, clamping, zeros.
FAR_GRID = f32(5.5, -7.25, -3.1, 2.6, 12.0, 0.2, 0.9, -9.5).reshape(1, 2, 2, 2)
for padding in ["zeros", "border", "reflection"]:
    add(op="GridSample", opset=20, name=f"gridsample_far_{padding}", inputs=[("x", GRID_X[:1]), ("grid", FAR_GRID)],
        attrs={"padding_mode": padding})
HUGE_GRID = f32(1e30, -1e30, -3e9, 0.5, 0.25, 7e20).reshape(1, 1, 3, 2)
add(op="GridSample", opset=20, name="gridsample_huge_coordinates_zeros", inputs=[("x", GRID_X[:1]), ("grid", HUGE_GRID)])
for padding in ["border", "reflection"]:
    add(op="GridSample", opset=20, name=f"gridsample_huge_coordinates_{padding}", inputs=[("x", GRID_X[:1]), ("grid", HUGE_GRID)],
        attrs={"padding_mode": padding}, expect="spec",
        expected=[grid_sample(GRID_X[:1], HUGE_GRID, padding=padding).astype(np.float32)],
        reason=f"{padding} padding brings any location back into the image; onnxruntime gives 0 for locations "
               "beyond its integer range")
# Half-way points: nearest rounds half to even (pixel coordinates 0.5, 1.5, 2.5, 3.5).
HALF_GRID = f32(-0.75, 0, -0.25, 0, 0.25, 0, 0.75, 0).reshape(1, 1, 4, 2)
add(op="GridSample", opset=20, name="gridsample_nearest_half_to_even", inputs=[("x", iota([1, 1, 1, 4]) + 1), ("grid", HALF_GRID)],
    attrs={"mode": "nearest"})
add(op="GridSample", opset=20, name="gridsample_3d_linear", inputs=[("x", uniform(8, [1, 2, 3, 4, 5])),
                                                                    ("grid", uniform(9, [1, 2, 3, 2, 3], -1.2, 1.2))])
add(op="GridSample", opset=20, name="gridsample_3d_nearest_border", inputs=[("x", uniform(8, [1, 2, 3, 4, 5])),
                                                                            ("grid", uniform(9, [1, 2, 3, 2, 3], -1.2, 1.2))],
    attrs={"mode": "nearest", "padding_mode": "border"})
add(op="GridSample", opset=20, name="gridsample_single_pixel_align1", inputs=[("x", f32(3.5).reshape(1, 1, 1, 1)),
                                                                             ("grid", f32(0.3, -0.9).reshape(1, 1, 1, 2))],
    attrs={"align_corners": 1, "padding_mode": "reflection"}, expect="spec", expected=[f32(3.5).reshape(1, 1, 1, 1)],
    reason="one pixel with align_corners=1 leaves an empty reflection range: every location is that pixel; onnxruntime "
           "divides by the empty range (NaN in some runs)")
add(op="GridSample", opset=20, name="gridsample_empty_grid", inputs=[("x", GRID_X), ("grid", np.zeros([2, 0, 3, 2], np.float32))])
add(op="GridSample", opset=20, name="gridsample_empty_channels", inputs=[("x", np.zeros([2, 0, 4, 5], np.float32)), ("grid", GRID)])
add(op="GridSample", opset=20, name="gridsample_grid_batch_mismatch", inputs=[("x", GRID_X), ("grid", GRID[:1])], expect="error")
add(op="GridSample", opset=20, name="gridsample_grid_last_dim", inputs=[("x", GRID_X), ("grid", uniform(7, [2, 3, 4, 3]))],
    expect="error")
add(op="GridSample", opset=20, name="gridsample_bilinear_at_opset20", inputs=[("x", GRID_X), ("grid", GRID)],
    attrs={"mode": "bilinear"}, expect="error")
add(op="GridSample", opset=16, name="gridsample_linear_at_opset16", inputs=[("x", GRID_X), ("grid", GRID)],
    attrs={"mode": "linear"}, expect="error")
add(op="GridSample", opset=20, name="gridsample_unknown_padding", inputs=[("x", GRID_X), ("grid", GRID)],
    attrs={"padding_mode": "wrap"}, expect="error")
add(op="GridSample", opset=20, name="gridsample_float16", inputs=[("x", GRID_X.astype(np.float16)), ("grid", GRID.astype(np.float16))],
    attrs={"mode": "cubic", "padding_mode": "reflection"})
add(op="GridSample", opset=20, name="gridsample_float64", inputs=[("x", GRID_X.astype(np.float64)), ("grid", GRID.astype(np.float64))],
    attrs={"mode": "cubic", "padding_mode": "reflection"})
INT_X = (iota([1, 2, 3, 3]) * 7 - 20).astype(np.int32)
for dtype in [np.int32, np.int64, np.uint8]:
    x = (iota([1, 2, 3, 3]) * 7).astype(dtype)
    add(op="GridSample", opset=20, name=f"gridsample_{np.dtype(dtype).name}", inputs=[("x", x), ("grid", GRID[:1])],
        expect="spec", expected=[np.trunc(grid_sample(x, GRID[:1])).astype(dtype)],
        reason=MISSING + " (integers are computed in floating point and truncated, as the spec says)")
add(op="GridSample", opset=20, name="gridsample_negative_int32", inputs=[("x", INT_X), ("grid", GRID[:1])],
    expect="spec", expected=[np.trunc(grid_sample(INT_X, GRID[:1])).astype(np.int32)], reason=MISSING)
NAN_GRID = f32(np.nan, 0, 0.5, np.inf).reshape(1, 1, 2, 2)
add(op="GridSample", opset=20, name="gridsample_nan_inf_grid", inputs=[("x", GRID_X[:1]), ("grid", NAN_GRID)],
    expect="spec", expected=[np.zeros([1, 2, 1, 2], np.float32)],
    reason="no pixel is read at a NaN or infinite position with zeros padding; onnxruntime converts them to integers")


# --- AffineGrid ---------------------------------------------------------------------------------

def affine_grid(theta, size, align):
    spatial = list(size[2:])

    def positions(n):
        if align:
            return np.array([0.0]) if n == 1 else np.linspace(-1, 1, n)
        return (2 * np.arange(n) + 1) / n - 1

    axes = [positions(n) for n in spatial]
    mesh = np.meshgrid(*axes, indexing="ij")
    points = np.stack([m.ravel() for m in reversed(mesh)] + [np.ones(mesh[0].size)], axis=0)  # (x, y[, z], 1)
    out = np.einsum("nij,jp->npi", theta.astype(np.float64), points)
    return out.reshape([theta.shape[0]] + spatial + [len(spatial)]).astype(theta.dtype)


THETA2 = uniform(10, [2, 2, 3])
THETA3 = uniform(11, [2, 3, 4])
for align in [0, 1]:
    add(op="AffineGrid", opset=20, name=f"affinegrid_2d_align{align}", inputs=[("theta", THETA2), ("size", i64(2, 3, 4, 5))],
        attrs={"align_corners": align})
    add(op="AffineGrid", opset=20, name=f"affinegrid_3d_align{align}", inputs=[("theta", THETA3), ("size", i64(2, 1, 3, 4, 2))],
        attrs={"align_corners": align})
add(op="AffineGrid", opset=20, name="affinegrid_double", inputs=[("theta", THETA2.astype(np.float64)), ("size", i64(2, 3, 4, 5))],
    rtol=1e-6, reason="onnxruntime computes the base grid's positions in float32")
add(op="AffineGrid", opset=20, name="affinegrid_size_one_align0", inputs=[("theta", THETA2), ("size", i64(2, 1, 1, 1))])
add(op="AffineGrid", opset=20, name="affinegrid_size_one_align1", inputs=[("theta", THETA2), ("size", i64(2, 1, 1, 1))],
    attrs={"align_corners": 1}, expect="spec", expected=[affine_grid(THETA2, [2, 1, 1, 1], 1)],
    reason="with one position, -1 and 1 both name the pixel's center: onnxopt uses 0, as torch's affine_grid "
           "(the spec's model) does; onnxruntime uses 1 (and the ONNX reference -1)")
add(op="AffineGrid", opset=20, name="affinegrid_empty", inputs=[("theta", THETA2), ("size", i64(2, 1, 0, 3))])
add(op="AffineGrid", opset=20, name="affinegrid_float16", inputs=[("theta", THETA2.astype(np.float16)), ("size", i64(2, 3, 4, 5))])
add(op="AffineGrid", opset=20, name="affinegrid_size_rank_mismatch", inputs=[("theta", THETA2), ("size", i64(2, 1, 3, 4, 2))],
    expect="onnxopt-error", reason="a 5-value (3-D) size needs theta of shape (N, 3, 4); onnxruntime accepts (N, 2, 3)")
add(op="AffineGrid", opset=20, name="affinegrid_size_length3", inputs=[("theta", THETA2), ("size", i64(2, 1, 3))], expect="error")


# --- RoiAlign -----------------------------------------------------------------------------------

def roi_align(x, rois, batch, out_h=1, out_w=1, ratio=0, scale=1.0, mode="avg", half_pixel=True):
    """Mask R-CNN's RoiAlign: bilinear samples on a regular grid per bin, averaged, or (the
    spec's max pooling) the largest of them."""
    _, channels, height, width = x.shape
    y = np.zeros([len(rois), channels, out_h, out_w])
    shift = 0.5 if half_pixel else 0.0

    def sample(plane, yy, xx):
        if yy < -1 or yy > height or xx < -1 or xx > width:
            return 0.0
        yy, xx = max(yy, 0.0), max(xx, 0.0)
        y0, x0 = int(yy), int(xx)
        if y0 >= height - 1:
            y0 = y1 = height - 1
            yy = float(y0)
        else:
            y1 = y0 + 1
        if x0 >= width - 1:
            x0 = x1 = width - 1
            xx = float(x0)
        else:
            x1 = x0 + 1
        ly, lx = yy - y0, xx - x0
        return ((1 - ly) * (1 - lx) * plane[y0, x0] + (1 - ly) * lx * plane[y0, x1] + ly * (1 - lx) * plane[y1, x0]
                + ly * lx * plane[y1, x1])

    for r, roi in enumerate(rois.astype(np.float64)):
        x1, y1, x2, y2 = roi * np.float64(np.float32(scale)) - shift
        roi_w, roi_h = x2 - x1, y2 - y1
        if not half_pixel:
            roi_w, roi_h = max(roi_w, 1.0), max(roi_h, 1.0)
        bin_h, bin_w = roi_h / out_h, roi_w / out_w
        grid_h = ratio if ratio > 0 else max(int(np.ceil(roi_h / out_h)), 0)
        grid_w = ratio if ratio > 0 else max(int(np.ceil(roi_w / out_w)), 0)
        for c in range(channels):
            plane = x[batch[r], c].astype(np.float64)
            for ph in range(out_h):
                for pw in range(out_w):
                    values = [sample(plane, y1 + ph * bin_h + (iy + 0.5) * bin_h / grid_h,
                                     x1 + pw * bin_w + (ix + 0.5) * bin_w / grid_w)
                              for iy in range(grid_h) for ix in range(grid_w)]
                    if mode == "avg":
                        y[r, c, ph, pw] = sum(values) / max(grid_h * grid_w, 1)
                    else:
                        y[r, c, ph, pw] = max(values) if values else 0.0
    return y.astype(x.dtype)


ROI_X = uniform(12, [2, 3, 6, 7], 0, 4)
ROIS = f32(0, 0, 3, 4,  1.2, 0.5, 5.8, 4.9,  2, 2, 2.5, 2.5,  -2, -1, 9, 8,  4.5, 3.5, 6.6, 5.9).reshape(5, 4)
ROI_BATCH = i64(0, 1, 1, 0, 1)
ROI_INPUTS = [("x", ROI_X), ("rois", ROIS), ("batch", ROI_BATCH)]
for opset, transform in [(10, None), (16, "half_pixel"), (16, "output_half_pixel")]:
    for ratio in [0, 2]:
        attrs = {"output_height": 3, "output_width": 2, "sampling_ratio": ratio}
        if transform:
            attrs["coordinate_transformation_mode"] = transform
        add(op="RoiAlign", opset=opset, name=f"roialign_opset{opset}_{transform or 'none'}_ratio{ratio}", inputs=ROI_INPUTS,
            attrs=attrs)
add(op="RoiAlign", opset=16, name="roialign_default_attributes", inputs=ROI_INPUTS)
add(op="RoiAlign", opset=16, name="roialign_spatial_scale", inputs=ROI_INPUTS,
    attrs={"spatial_scale": 0.5, "output_height": 2, "output_width": 2})
add(op="RoiAlign", opset=16, name="roialign_double", inputs=[("x", ROI_X.astype(np.float64)), ("rois", ROIS.astype(np.float64)),
                                                            ("batch", ROI_BATCH)], attrs={"output_height": 2})
add(op="RoiAlign", opset=16, name="roialign_no_rois", inputs=[("x", ROI_X), ("rois", np.zeros([0, 4], np.float32)),
                                                             ("batch", np.zeros([0], np.int64))])
add(op="RoiAlign", opset=16, name="roialign_zero_output_height", inputs=ROI_INPUTS, attrs={"output_height": 0})
for transform in ["half_pixel", "output_half_pixel"]:
    add(op="RoiAlign", opset=16, name=f"roialign_max_{transform}", inputs=ROI_INPUTS,
        attrs={"mode": "max", "output_height": 2, "output_width": 3, "sampling_ratio": 2,
               "coordinate_transformation_mode": transform},
        expect="spec", expected=[roi_align(ROI_X, ROIS, ROI_BATCH, 2, 3, 2, mode="max", half_pixel=transform == "half_pixel")],
        reason="onnxruntime's max mode takes the largest weighted corner of each sample, not the largest sample "
               "(onnxruntime issue 6146; the ONNX backend test test_roialign_mode_max fails on it)")
add(op="RoiAlign", opset=22, name="roialign_opset22", inputs=ROI_INPUTS, attrs={"output_height": 2, "output_width": 2},
    expect="spec", expected=[roi_align(ROI_X, ROIS, ROI_BATCH, 2, 2)], reason=MISSING)
add(op="RoiAlign", opset=16, name="roialign_float16",
    inputs=[("x", ROI_X.astype(np.float16)), ("rois", ROIS.astype(np.float16)), ("batch", ROI_BATCH)])
add(op="RoiAlign", opset=16, name="roialign_batch_index_out_of_range", inputs=[("x", ROI_X), ("rois", ROIS),
                                                                              ("batch", i64(0, 1, 2, 0, 1))],
    expect="onnxopt-error", reason="batch_indices must index X's batch; onnxruntime reads past its input")
add(op="RoiAlign", opset=16, name="roialign_rois_five_columns", inputs=[("x", ROI_X), ("rois", np.zeros([5, 5], np.float32)),
                                                                       ("batch", ROI_BATCH)], expect="error")
add(op="RoiAlign", opset=16, name="roialign_rois_batch_mismatch", inputs=[("x", ROI_X), ("rois", ROIS), ("batch", i64(0, 1))],
    expect="error")
add(op="RoiAlign", opset=16, name="roialign_bad_mode", inputs=ROI_INPUTS, attrs={"mode": "min"}, expect="error")


# --- MaxRoiPool ---------------------------------------------------------------------------------

def max_roi_pool(x, rois, pooled, scale=1.0):
    _, channels, height, width = x.shape
    ph_n, pw_n = pooled
    y = np.zeros([len(rois), channels, ph_n, pw_n])
    for r, roi in enumerate(rois.astype(np.float64)):
        n = int(roi[0])
        # round() of C: halves away from zero.
        x1, y1, x2, y2 = [int(np.sign(v) * np.floor(abs(v) + 0.5)) for v in roi[1:] * np.float64(np.float32(scale))]
        bin_h, bin_w = max(y2 - y1 + 1, 1) / ph_n, max(x2 - x1 + 1, 1) / pw_n
        for ph in range(ph_n):
            h0 = min(max(int(np.floor(ph * bin_h)) + y1, 0), height)
            h1 = min(max(int(np.ceil((ph + 1) * bin_h)) + y1, 0), height)
            for pw in range(pw_n):
                w0 = min(max(int(np.floor(pw * bin_w)) + x1, 0), width)
                w1 = min(max(int(np.ceil((pw + 1) * bin_w)) + x1, 0), width)
                if h1 > h0 and w1 > w0:
                    y[r, :, ph, pw] = x[n, :, h0:h1, w0:w1].reshape(channels, -1).max(axis=1)
    return y.astype(x.dtype)


POOL_ROIS = f32(0, 0, 0, 3, 4,  1, 1.4, 0.6, 5.5, 4.5,  1, 2, 2, 2, 2,  0, -3, -2, 9, 8,  1, 5, 4, 12, 12).reshape(5, 5)
for pooled in [[1, 1], [2, 3], [4, 4]]:
    add(op="MaxRoiPool", opset=1, name=f"maxroipool_{pooled[0]}x{pooled[1]}", inputs=[("x", ROI_X), ("rois", POOL_ROIS)],
        attrs={"pooled_shape": pooled})
add(op="MaxRoiPool", opset=1, name="maxroipool_spatial_scale", inputs=[("x", ROI_X), ("rois", POOL_ROIS * f32(1, 2, 2, 2, 2))],
    attrs={"pooled_shape": [2, 2], "spatial_scale": 0.5})
add(op="MaxRoiPool", opset=22, name="maxroipool_opset22", inputs=[("x", ROI_X), ("rois", POOL_ROIS)], attrs={"pooled_shape": [2, 3]},
    expect="spec", expected=[max_roi_pool(ROI_X, POOL_ROIS, [2, 3])], reason=MISSING)
add(op="MaxRoiPool", opset=1, name="maxroipool_double", inputs=[("x", ROI_X.astype(np.float64)), ("rois", POOL_ROIS.astype(np.float64))],
    attrs={"pooled_shape": [2, 2]}, expect="spec",
    expected=[max_roi_pool(ROI_X.astype(np.float64), POOL_ROIS.astype(np.float64), [2, 2])], reason=MISSING)
HUGE_ROI = f32(0, -1e9, -1e9, 1e9, 1e9).reshape(1, 5)
add(op="MaxRoiPool", opset=1, name="maxroipool_huge_roi", inputs=[("x", ROI_X), ("rois", HUGE_ROI)], attrs={"pooled_shape": [2, 2]},
    expect="spec", expected=[max_roi_pool(ROI_X, HUGE_ROI, [2, 2])],
    reason="a ROI beyond the integer range of onnxruntime's int coordinates: onnxruntime overflows them")
add(op="MaxRoiPool", opset=1, name="maxroipool_batch_out_of_range",
    inputs=[("x", ROI_X), ("rois", f32(2, 0, 0, 3, 3).reshape(1, 5))], attrs={"pooled_shape": [2, 2]}, expect="error")
add(op="MaxRoiPool", opset=1, name="maxroipool_missing_pooled_shape", inputs=[("x", ROI_X), ("rois", POOL_ROIS)], expect="error")


# --- MaxUnpool ----------------------------------------------------------------------------------

POOLED = uniform(13, [2, 3, 2, 3])
# MaxPool indices of a 2x2 / stride 2 pool on [2, 3, 4, 6]: one position in each window.
ROW, COL = np.meshgrid(np.arange(2), np.arange(3), indexing="ij")
WINDOW = np.random.default_rng(14).integers(0, 2, [2, 3, 2, 3, 2])
UNPOOL_INDICES = np.zeros([2, 3, 2, 3], np.int64)
for n in range(2):
    for c in range(3):
        UNPOOL_INDICES[n, c] = ((n * 3 + c) * 4 + 2 * ROW + WINDOW[n, c, :, :, 0]) * 6 + 2 * COL + WINDOW[n, c, :, :, 1]
add(op="MaxUnpool", opset=11, name="maxunpool_2d", inputs=[("x", POOLED), ("i", UNPOOL_INDICES)],
    attrs={"kernel_shape": [2, 2], "strides": [2, 2]})
add(op="MaxUnpool", opset=9, name="maxunpool_opset9", inputs=[("x", POOLED), ("i", UNPOOL_INDICES)],
    attrs={"kernel_shape": [2, 2], "strides": [2, 2]})
add(op="MaxUnpool", opset=11, name="maxunpool_output_shape_as_inferred",
    inputs=[("x", POOLED), ("i", UNPOOL_INDICES), ("shape", i64(2, 3, 4, 6))], attrs={"kernel_shape": [2, 2], "strides": [2, 2]})
add(op="MaxUnpool", opset=11, name="maxunpool_pads", inputs=[("x", POOLED), ("i", UNPOOL_INDICES % 30)],
    attrs={"kernel_shape": [2, 2], "strides": [2, 2], "pads": [1, 0, 0, 1]})
add(op="MaxUnpool", opset=11, name="maxunpool_1d", inputs=[("x", f32(5, 7).reshape(1, 1, 2)), ("i", i64(1, 3).reshape(1, 1, 2))],
    attrs={"kernel_shape": [2], "strides": [2]})
add(op="MaxUnpool", opset=11, name="maxunpool_empty", inputs=[("x", np.zeros([0, 3, 2, 3], np.float32)),
                                                             ("i", np.zeros([0, 3, 2, 3], np.int64))],
    attrs={"kernel_shape": [2, 2], "strides": [2, 2]})
add(op="MaxUnpool", opset=22, name="maxunpool_opset22", inputs=[("x", POOLED), ("i", UNPOOL_INDICES)],
    attrs={"kernel_shape": [2, 2], "strides": [2, 2]})
EXPECTED_UNPOOL = np.zeros(2 * 3 * 4 * 6)
np.put(EXPECTED_UNPOOL, UNPOOL_INDICES.ravel(), POOLED.astype(np.float64).ravel())
add(op="MaxUnpool", opset=11, name="maxunpool_float16", inputs=[("x", POOLED.astype(np.float16)), ("i", UNPOOL_INDICES)],
    attrs={"kernel_shape": [2, 2], "strides": [2, 2]})
add(op="MaxUnpool", opset=11, name="maxunpool_float64", inputs=[("x", POOLED.astype(np.float64)), ("i", UNPOOL_INDICES)],
    attrs={"kernel_shape": [2, 2], "strides": [2, 2]}, expect="spec",
    expected=[EXPECTED_UNPOOL.reshape(2, 3, 4, 6)], reason=MISSING)
LARGER_UNPOOL = np.zeros([2, 3, 5, 7], np.float32)
LARGER_UNPOOL[:, :, :4, :6] = EXPECTED_UNPOOL.reshape(2, 3, 4, 6)
add(op="MaxUnpool", opset=11, name="maxunpool_larger_output_shape",
    inputs=[("x", POOLED), ("i", UNPOOL_INDICES), ("shape", i64(2, 3, 5, 7))], attrs={"kernel_shape": [2, 2], "strides": [2, 2]},
    expect="spec", expected=[LARGER_UNPOOL],
    reason="the indices address the unpooled [2,3,4,6] shape, placed at the start of the larger output (the ONNX reference "
           "and test_maxunpool_export_with_output_shape); onnxruntime indexes the [2,3,5,7] output directly")
add(op="MaxUnpool", opset=11, name="maxunpool_smaller_output_shape",
    inputs=[("x", POOLED), ("i", UNPOOL_INDICES), ("shape", i64(2, 3, 4, 5))], attrs={"kernel_shape": [2, 2], "strides": [2, 2]},
    expect="error")
add(op="MaxUnpool", opset=11, name="maxunpool_index_out_of_range",
    inputs=[("x", POOLED), ("i", np.where(UNPOOL_INDICES == UNPOOL_INDICES.max(), 10 ** 6, UNPOOL_INDICES))],
    attrs={"kernel_shape": [2, 2], "strides": [2, 2]}, expect="error")
add(op="MaxUnpool", opset=11, name="maxunpool_missing_kernel_shape", inputs=[("x", POOLED), ("i", UNPOOL_INDICES)], expect="error")


# --- Col2Im -------------------------------------------------------------------------------------

def col2im(x, image, block, strides=None, pads=None, dilations=None):
    r = len(image)
    strides, dilations = strides or [1] * r, dilations or [1] * r
    pads = pads or [0] * (2 * r)
    n_batch, rows, length = x.shape
    k = int(np.prod(block))
    channels = rows // k
    counts = [(image[d] + pads[d] + pads[d + r] - (dilations[d] * (block[d] - 1) + 1)) // strides[d] + 1 for d in range(r)]
    y = np.zeros([n_batch, channels] + list(image), np.float64)
    for kk, b in enumerate(np.ndindex(*block)):
        for ll, l in enumerate(np.ndindex(*counts)):
            p = [l[d] * strides[d] - pads[d] + b[d] * dilations[d] for d in range(r)]
            if all(0 <= p[d] < image[d] for d in range(r)):
                for c in range(channels):
                    y[(slice(None), c) + tuple(p)] += x[:, c * k + kk, ll]
    return y.astype(x.dtype)


add(op="Col2Im", opset=18, name="col2im_overlapping", inputs=[("x", uniform(15, [1, 4, 9])), ("image", i64(4, 4)), ("block", i64(2, 2))])
add(op="Col2Im", opset=18, name="col2im_channels_batch", inputs=[("x", uniform(16, [2, 12, 12])), ("image", i64(4, 5)),
                                                                ("block", i64(2, 2))])
add(op="Col2Im", opset=18, name="col2im_strides", inputs=[("x", uniform(17, [1, 6, 4])), ("image", i64(4, 5)), ("block", i64(2, 3))],
    attrs={"strides": [2, 2]})
add(op="Col2Im", opset=18, name="col2im_pads", inputs=[("x", uniform(18, [1, 4, 25])), ("image", i64(4, 4)), ("block", i64(2, 2))],
    attrs={"pads": [1, 1, 1, 1]})
add(op="Col2Im", opset=18, name="col2im_dilations", inputs=[("x", uniform(19, [1, 4, 4])), ("image", i64(4, 4)), ("block", i64(2, 2))],
    attrs={"dilations": [2, 2]})
add(op="Col2Im", opset=18, name="col2im_stride_above_block", inputs=[("x", uniform(19, [1, 4, 4])), ("image", i64(5, 5)),
                                                                    ("block", i64(2, 2))], attrs={"strides": [3, 3]})
add(op="Col2Im", opset=18, name="col2im_3d", inputs=[("x", uniform(20, [1, 8, 8])), ("image", i64(3, 3, 3)), ("block", i64(2, 2, 2))])
add(op="Col2Im", opset=18, name="col2im_block_count_mismatch", inputs=[("x", uniform(15, [1, 4, 8])), ("image", i64(4, 4)),
                                                                      ("block", i64(2, 2))], expect="onnxopt-error",
    reason="L (8) must be the number of blocks the image holds (9); onnxruntime reads the blocks it finds")
add(op="Col2Im", opset=18, name="col2im_channels_not_multiple", inputs=[("x", uniform(15, [1, 5, 9])), ("image", i64(4, 4)),
                                                                       ("block", i64(2, 2))], expect="onnxopt-error",
    reason="dimension 1 (5) must be C * prod(block_shape) (a multiple of 4); onnxruntime drops the remainder")
add(op="Col2Im", opset=18, name="col2im_zero_block", inputs=[("x", uniform(15, [1, 4, 9])), ("image", i64(4, 4)),
                                                            ("block", i64(0, 2))], expect="error")
add(op="Col2Im", opset=18, name="col2im_float16", inputs=[("x", uniform(21, [1, 4, 9], -5, 5).astype(np.float16)),
                                                         ("image", i64(4, 4)), ("block", i64(2, 2))])
for dtype in [np.float64, np.int32, np.int64]:
    x = (uniform(21, [1, 4, 9], -5, 5)).astype(dtype)
    add(op="Col2Im", opset=18, name=f"col2im_{np.dtype(dtype).name}", inputs=[("x", x), ("image", i64(4, 4)), ("block", i64(2, 2))],
        expect="spec", expected=[col2im(x, [4, 4], [2, 2])], reason=MISSING)


# --- CenterCropPad ------------------------------------------------------------------------------

CROP_X = iota([5, 6, 3])
for tag, shape, axes in [("crop_all", [3, 4, 3], None), ("pad_all", [7, 9, 4], None), ("crop_and_pad", [2, 9, 3], None),
                         ("odd_differences", [4, 3, 2], None), ("axes", [3, 10], [0, 1]), ("negative_axes", [1, 8], [-3, -2]),
                         ("same_shape", [5, 6, 3], None), ("to_zero", [0, 6, 3], None)]:
    attrs = {"axes": axes} if axes else {}
    add(op="CenterCropPad", opset=18, name=f"centercroppad_{tag}", inputs=[("x", CROP_X), ("shape", np.array(shape, np.int64))],
        attrs=attrs)
def center_crop_pad(x, shape):
    out = np.zeros(shape, x.dtype)
    source, target = [], []
    for d, (n, m) in enumerate(zip(x.shape, shape)):
        k = min(n, m)
        start_in, start_out = ((n - m) // 2, 0) if m < n else (0, (m - n) // 2)
        source.append(slice(start_in, start_in + k))
        target.append(slice(start_out, start_out + k))
    out[tuple(target)] = x[tuple(source)]
    return out


add(op="CenterCropPad", opset=18, name="centercroppad_int32_shape", inputs=[("x", CROP_X), ("shape", np.array([3, 8, 3], np.int32))],
    expect="spec", expected=[center_crop_pad(CROP_X, [3, 8, 3])],
    reason="int32 shapes are allowed; onnxruntime's function body mixes them with int64 (Max) and fails to load")
for dtype in [np.int32, np.int64, np.uint8, np.float64, np.float16, np.bool_]:
    add(op="CenterCropPad", opset=18, name=f"centercroppad_{np.dtype(dtype).name}",
        inputs=[("x", (iota([4, 5]) % 3).astype(dtype)), ("shape", i64(3, 7))])
add(op="CenterCropPad", opset=18, name="centercroppad_string",
    inputs=[("x", np.array(["a", "b", "c", "d"], dtype=object)), ("shape", i64(6))], expect="spec",
    expected=[np.array(["", "a", "b", "c", "d", ""], dtype=object)],
    reason="onnxruntime's function body pads with Pad, which has no string kernel")
add(op="CenterCropPad", opset=18, name="centercroppad_shape_length", inputs=[("x", CROP_X), ("shape", i64(3, 4))], expect="error")
add(op="CenterCropPad", opset=18, name="centercroppad_duplicate_axes", inputs=[("x", CROP_X), ("shape", i64(3, 4))],
    attrs={"axes": [0, -3]}, expect="error")


# --- DeformConv ---------------------------------------------------------------------------------

def deform_conv(x, w, offset, b=None, mask=None, strides=(1, 1), pads=(0, 0, 0, 0), dilations=(1, 1), group=1, offset_group=1):
    """2-D deformable convolution: each kernel tap moved by its offset (bilinear, zero
    outside X) and scaled by the mask."""
    n_batch, channels, height, width = x.shape
    out_c, _, kh, kw = w.shape
    oh, ow = offset.shape[2:]
    off = offset.astype(np.float64).reshape(n_batch, offset_group, kh, kw, 2, oh, ow)
    msk = (np.ones([n_batch, offset_group, kh, kw, oh, ow]) if mask is None
           else mask.astype(np.float64).reshape(n_batch, offset_group, kh, kw, oh, ow))

    def sample(plane, py, px):
        y0, x0 = int(np.floor(py)), int(np.floor(px))
        value = 0.0
        for yy, wy in [(y0, 1 - (py - y0)), (y0 + 1, py - y0)]:
            for xx, wx in [(x0, 1 - (px - x0)), (x0 + 1, px - x0)]:
                if 0 <= yy < height and 0 <= xx < width:
                    value += wy * wx * plane[yy, xx]
        return value

    y = np.zeros([n_batch, out_c, oh, ow])
    cg, mg = channels // group, out_c // group
    for n in range(n_batch):
        for c in range(channels):
            g, og = c // cg, c // (channels // offset_group)
            plane = x[n, c].astype(np.float64)
            for i in range(kh):
                for j in range(kw):
                    for oy in range(oh):
                        for ox in range(ow):
                            py = oy * strides[0] - pads[0] + i * dilations[0] + off[n, og, i, j, 0, oy, ox]
                            px = ox * strides[1] - pads[1] + j * dilations[1] + off[n, og, i, j, 1, oy, ox]
                            v = sample(plane, py, px) * msk[n, og, i, j, oy, ox]
                            y[n, g * mg:(g + 1) * mg, oy, ox] += v * w[g * mg:(g + 1) * mg, c % cg, i, j]
    if b is not None:
        y += b.reshape(1, -1, 1, 1)
    return y.astype(x.dtype)


DX = uniform(22, [2, 4, 5, 6])
DW = uniform(23, [6, 4, 3, 3])
DW_GROUPS = uniform(23, [6, 2, 3, 3])
DB = uniform(24, [6])


def deform_case(tag, opset=19, dtype=np.float32, with_bias=True, with_mask=False, **attrs):
    strides = attrs.get("strides", [1, 1])
    pads = attrs.get("pads", [0, 0, 0, 0])
    dilations = attrs.get("dilations", [1, 1])
    group = attrs.get("group", 1)
    offset_group = attrs.get("offset_group", 1)
    w = DW_GROUPS if group == 2 else DW
    kh, kw = w.shape[2:]
    oh = (5 + pads[0] + pads[2] - (dilations[0] * (kh - 1) + 1)) // strides[0] + 1
    ow = (6 + pads[1] + pads[3] - (dilations[1] * (kw - 1) + 1)) // strides[1] + 1
    offset = uniform(25, [2, offset_group * kh * kw * 2, oh, ow], -1.5, 1.5)
    inputs = [("x", DX.astype(dtype)), ("w", w.astype(dtype)), ("offset", offset.astype(dtype))]
    b = DB.astype(dtype) if with_bias or with_mask else None
    mask = uniform(26, [2, offset_group * kh * kw, oh, ow], 0, 1).astype(dtype) if with_mask else None
    if b is not None:
        inputs.append(("b", b))
    if mask is not None:
        inputs.append(("mask", mask))
    add(op="DeformConv", opset=opset, name=f"deformconv_{tag}", inputs=inputs, attrs=attrs, expect="spec",
        expected=[deform_conv(inputs[0][1], inputs[1][1], inputs[2][1], b, mask, strides, pads, dilations, group, offset_group)],
        reason=MISSING)


deform_case("basic")
deform_case("no_bias", with_bias=False)
deform_case("mask", with_mask=True)
deform_case("opset22", opset=22, with_mask=True)
deform_case("strides_pads", strides=[2, 2], pads=[1, 2, 1, 0])
deform_case("dilations", dilations=[2, 1])
deform_case("groups", group=2)
deform_case("offset_groups", offset_group=2, with_mask=True)
deform_case("double", dtype=np.float64, with_mask=True)
deform_case("float16", dtype=np.float16)
add(op="DeformConv", opset=19, name="deformconv_zero_offsets_are_conv",
    inputs=[("x", DX), ("w", DW), ("offset", np.zeros([2, 18, 3, 4], np.float32)), ("b", DB)], expect="spec",
    expected=[deform_conv(DX, DW, np.zeros([2, 18, 3, 4], np.float32), DB)], reason=MISSING)
HUGE_OFFSETS = np.where(uniform(37, [2, 18, 3, 4]) > 0, 1e30, -1e30).astype(np.float32)
add(op="DeformConv", opset=19, name="deformconv_huge_offsets",
    inputs=[("x", DX), ("w", DW), ("offset", HUGE_OFFSETS), ("b", DB)], expect="spec",
    expected=[np.broadcast_to(DB.reshape(1, 6, 1, 1), [2, 6, 3, 4]).astype(np.float32)], reason=MISSING + " (every tap lands outside X)")
add(op="DeformConv", opset=19, name="deformconv_offset_shape_mismatch",
    inputs=[("x", DX), ("w", DW), ("offset", np.zeros([2, 16, 3, 4], np.float32))], expect="error")


# --- ImageDecoder -------------------------------------------------------------------------------
# Images built here byte by byte (BMP, PNM), with zlib (PNG) and with a baseline JPEG
# encoder. JPEG is lossy; its pictures are made of flat 8 x 8 blocks (with one chroma
# per 16 x 16 unit for 4:2:0), whose decode is exactly computable: each block keeps its DC
# coefficient only, which the decoder's inverse DCT maps back to a whole level, then
# YCbCr goes to RGB with JFIF's coefficients in libjpeg's 16-bit fixed point.

PICTURE = np.random.default_rng(27).integers(0, 256, [5, 7, 3]).astype(np.uint8)


def blocks(colors, size=8):
    """A picture of flat size x size blocks: colors[i][j] is block (i, j)'s RGB."""
    colors = np.asarray(colors, np.uint8)
    return np.repeat(np.repeat(colors, size, axis=0), size, axis=1)


# Four colors for 4:4:4; for 4:2:0, one color plus four gray offsets (same Cb and Cr).
FLAT_444 = blocks([[[200, 30, 90], [15, 160, 240]], [[250, 250, 10], [64, 64, 64]]])
FLAT_420 = blocks([[[200 + g, 100 + g, 50 + g] for g in row] for row in [[-40, -10], [0, 30]]])


def ycbcr(rgb):
    f = rgb.astype(np.float64)
    return [0.299 * f[..., 0] + 0.587 * f[..., 1] + 0.114 * f[..., 2],
            -0.168736 * f[..., 0] - 0.331264 * f[..., 1] + 0.5 * f[..., 2] + 128,
            0.5 * f[..., 0] - 0.418688 * f[..., 1] - 0.081312 * f[..., 2] + 128]


def flat_block_level(value):
    """A flat block's level after the encoder's DCT (DC = 8 (v - 128), rounded) and the
    decoder's inverse DCT (DC / 8 rounded half up, plus 128)."""
    dc = np.rint(8 * (value - 128))
    assert np.all(np.abs(np.abs(8 * (value - 128) - np.trunc(8 * (value - 128))) - 0.5) > 1e-6), "a rounding tie"
    return (dc.astype(np.int64) * 4 + 16 >> 5) + 128


def jpeg_decoded(rgb, subsample=False):
    y, cb, cr = [flat_block_level(c) for c in ycbcr(rgb)]
    if subsample:  # one chroma value per 16 x 16 unit, replicated by the upsampling
        cb, cr = [np.repeat(np.repeat(c[::16, ::16], 16, axis=0), 16, axis=1) for c in (cb, cr)]
    cb, cr = cb - 128, cr - 128
    r = y + (91881 * cr + 32768 >> 16)
    g = y + (-22554 * cb - 46802 * cr + 32768 >> 16)
    b = y + (116130 * cb + 32768 >> 16)
    return np.clip(np.stack([r, g, b], axis=-1), 0, 255).astype(np.uint8)


def luma(rgb):
    r, g, b = [rgb[..., k].astype(np.int64) for k in range(3)]
    return ((19595 * r + 38470 * g + 7471 * b + 32768) >> 16).astype(np.uint8)[..., None]


def bmp24(rgb):
    height, width, _ = rgb.shape
    stride = (width * 3 + 3) // 4 * 4
    rows = b"".join(rgb[y, :, ::-1].tobytes() + b"\0" * (stride - width * 3) for y in reversed(range(height)))
    header = struct.pack("<2sIHHI", b"BM", 54 + len(rows), 0, 0, 54)
    info = struct.pack("<IiiHHIIiiII", 40, width, height, 1, 24, 0, len(rows), 2835, 2835, 0, 0)
    return header + info + rows


def bmp8(indices, palette):
    height, width = indices.shape
    stride = (width + 3) // 4 * 4
    rows = b"".join(indices[y].astype(np.uint8).tobytes() + b"\0" * (stride - width) for y in range(height))
    table = b"".join(bytes([b, g, r, 0]) for r, g, b in palette)
    offset = 54 + len(table)
    header = struct.pack("<2sIHHI", b"BM", offset + len(rows), 0, 0, offset)
    info = struct.pack("<IiiHHIIiiII", 40, width, -height, 1, 8, 0, len(rows), 0, 0, len(palette), 0)
    return header + info + table + rows


def png(pixels, color_type, bit_depth=8, palette=None):
    height, width = pixels.shape[:2]
    raw = pixels.astype(">u2").tobytes() if bit_depth == 16 else pixels.astype(np.uint8).tobytes()
    row = len(raw) // height
    filtered = b"".join(b"\0" + raw[y * row:(y + 1) * row] for y in range(height))

    def chunk(kind, data):
        return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data))

    body = chunk(b"IHDR", struct.pack(">IIBBBBB", width, height, bit_depth, color_type, 0, 0, 0))
    if palette is not None:
        body += chunk(b"PLTE", bytes(np.asarray(palette, np.uint8).ravel()))
    return b"\x89PNG\r\n\x1a\n" + body + chunk(b"IDAT", zlib.compress(filtered)) + chunk(b"IEND", b"")


def jpeg(rgb, subsample=False):
    """Baseline JPEG, quality 100 (every quantizer 1), YCbCr 4:4:4 or 4:2:0, one Huffman
    table pair listing every symbol with fixed-length codes (4 bits for DC, 8 for AC)."""
    height, width, _ = rgb.shape
    f = rgb.astype(np.float64)
    ycc = [0.299 * f[..., 0] + 0.587 * f[..., 1] + 0.114 * f[..., 2],
           -0.168736 * f[..., 0] - 0.331264 * f[..., 1] + 0.5 * f[..., 2] + 128,
           0.5 * f[..., 0] - 0.418688 * f[..., 1] - 0.081312 * f[..., 2] + 128]
    if subsample:
        ycc[1:] = [c.reshape(height // 2, 2, width // 2, 2).mean(axis=(1, 3)) for c in ycc[1:]]
    dct = np.array([[np.sqrt((1 if u == 0 else 2) / 8) * np.cos((2 * x + 1) * u * np.pi / 16) for x in range(8)] for u in range(8)])
    zigzag = sorted(((u, v) for u in range(8) for v in range(8)),
                    key=lambda p: (p[0] + p[1], p[1] if (p[0] + p[1]) % 2 == 0 else p[0]))
    ac_symbols = [0x00, 0xF0] + [(run << 4) | size for run in range(16) for size in range(1, 11)]
    bits, previous = [], [0, 0, 0]

    def put(value, length):
        bits.extend((value >> (length - 1 - k)) & 1 for k in range(length))

    def category(v):
        return 0 if v == 0 else int(abs(v)).bit_length()

    def amplitude(v, size):
        put(v if v >= 0 else v + (1 << size) - 1, size)

    def block(component, by, bx):
        pixels = component[by * 8:by * 8 + 8, bx * 8:bx * 8 + 8] - 128
        coefficients = np.rint(dct @ pixels @ dct.T).astype(int)
        return [coefficients[u, v] for u, v in zigzag]

    def encode(values, index):
        diff = values[0] - previous[index]
        previous[index] = values[0]
        size = category(diff)
        put(size, 4)
        amplitude(diff, size)
        run = 0
        for v in values[1:]:
            if v == 0:
                run += 1
                continue
            while run > 15:
                put(ac_symbols.index(0xF0), 8)
                run -= 16
            size = category(v)
            put(ac_symbols.index((run << 4) | size), 8)
            amplitude(v, size)
            run = 0
        if run:
            put(ac_symbols.index(0x00), 8)

    mcu = 16 if subsample else 8
    for my in range(height // mcu):
        for mx in range(width // mcu):
            if subsample:
                for by, bx in [(0, 0), (0, 1), (1, 0), (1, 1)]:
                    encode(block(ycc[0], 2 * my + by, 2 * mx + bx), 0)
                encode(block(ycc[1], my, mx), 1)
                encode(block(ycc[2], my, mx), 2)
            else:
                for k in range(3):
                    encode(block(ycc[k], my, mx), k)
    bits.extend([1] * (-len(bits) % 8))
    data = bytes(int("".join(map(str, bits[i:i + 8])), 2) for i in range(0, len(bits), 8)).replace(b"\xff", b"\xff\x00")

    def segment(marker, payload):
        return bytes([0xFF, marker]) + struct.pack(">H", len(payload) + 2) + payload

    luma_sampling = 0x22 if subsample else 0x11
    components = bytes([1, luma_sampling, 0, 2, 0x11, 0, 3, 0x11, 0])
    dc_table = bytes([0x00] + [0, 0, 0, 12] + [0] * 12) + bytes(range(12))
    ac_table = bytes([0x10] + [0] * 7 + [len(ac_symbols)] + [0] * 8) + bytes(ac_symbols)
    return (b"\xff\xd8" + segment(0xDB, bytes([0]) + bytes([1] * 64)) +
            segment(0xC0, struct.pack(">BHHB", 8, height, width, 3) + components) +
            segment(0xC4, dc_table + ac_table) +
            segment(0xDA, bytes([3, 1, 0x00, 2, 0x00, 3, 0x00, 0, 63, 0])) + data + b"\xff\xd9")


def stream(data):
    return np.frombuffer(bytes(data), np.uint8).copy()


def image_case(tag, data, expected, pixel_format="RGB", reason=MISSING):
    add(op="ImageDecoder", opset=20, name=f"imagedecoder_{tag}", inputs=[("x", stream(data))],
        attrs={"pixel_format": pixel_format}, expect="spec", expected=[expected], reason=reason)


EMPTY_RGB = np.zeros([0, 0, 3], np.uint8)
image_case("bmp24_rgb", bmp24(PICTURE), PICTURE)
image_case("bmp24_bgr", bmp24(PICTURE), PICTURE[..., ::-1].copy(), "BGR")
image_case("bmp24_grayscale", bmp24(PICTURE), luma(PICTURE), "Grayscale")
PALETTE = np.random.default_rng(28).integers(0, 256, [16, 3]).astype(np.uint8)
INDICES = np.random.default_rng(29).integers(0, 16, [4, 6])
image_case("bmp8_palette_top_down", bmp8(INDICES, PALETTE), PALETTE[INDICES])
image_case("pnm_p6", b"P6\n# comment\n7 5\n255\n" + PICTURE.tobytes(), PICTURE)
image_case("pnm_p3_maxval_100", b"P3 7 5 100\n" + " ".join(map(str, (PICTURE.astype(int) * 100 // 255).ravel())).encode(),
           np.rint((PICTURE.astype(int) * 100 // 255) * 255 / 100).astype(np.uint8))
image_case("pnm_p5_16bit", b"P5 7 5 65535\n" + (PICTURE[..., 0].astype(">u2") * 257).tobytes(),
           np.repeat(PICTURE[..., :1], 3, axis=2))
image_case("pnm_p4_bitmap", b"P4 9 2\n" + bytes([0b10110000, 0b10000000, 0b01001111, 0b00000000]),
           np.repeat(np.where(np.array([[1, 0, 1, 1, 0, 0, 0, 0, 1], [0, 1, 0, 0, 1, 1, 1, 1, 0]]) == 1, 0, 255)
                     .astype(np.uint8)[..., None], 3, axis=2))
image_case("png_rgb", png(PICTURE, 2), PICTURE)
image_case("png_rgba_alpha_dropped", png(np.concatenate([PICTURE, PICTURE[..., :1]], axis=2), 6), PICTURE)
image_case("png_gray_grayscale", png(PICTURE[..., 0], 0), PICTURE[..., :1], "Grayscale")
image_case("png_gray_rgb", png(PICTURE[..., 0], 0), np.repeat(PICTURE[..., :1], 3, axis=2))
image_case("png_palette", png(INDICES, 3, palette=PALETTE), PALETTE[INDICES])
image_case("png_16bit_high_byte", png(PICTURE.astype(np.uint16) * 256 + 17, 2, 16), PICTURE)
image_case("jpeg_444", jpeg(FLAT_444), jpeg_decoded(FLAT_444))
image_case("jpeg_444_bgr", jpeg(FLAT_444), jpeg_decoded(FLAT_444)[..., ::-1].copy(), "BGR")
image_case("jpeg_420", jpeg(FLAT_420, subsample=True), jpeg_decoded(FLAT_420, subsample=True))
image_case("jpeg_grayscale", jpeg(FLAT_444), luma(jpeg_decoded(FLAT_444)), "Grayscale")
image_case("corrupt_png", png(PICTURE, 2)[:60], EMPTY_RGB, reason=MISSING + "; the spec returns an empty matrix")
image_case("corrupt_jpeg", jpeg(FLAT_444)[:-20], EMPTY_RGB, reason=MISSING + "; the spec returns an empty matrix")
image_case("corrupt_bmp", bmp24(PICTURE)[:80], EMPTY_RGB, reason=MISSING + "; the spec returns an empty matrix")
image_case("unknown_format", b"GIF89a\x01\x00\x01\x00", np.zeros([0, 0, 1], np.uint8), "Grayscale",
           reason=MISSING + "; the spec returns an empty matrix for an invalid format")
add(op="ImageDecoder", opset=20, name="imagedecoder_tiff_unsupported", inputs=[("x", stream(b"II*\0\x08\0\0\0"))],
    expect="error")
add(op="ImageDecoder", opset=20, name="imagedecoder_webp_unsupported", inputs=[("x", stream(b"RIFF\x10\0\0\0WEBPVP8 "))],
    expect="error")
add(op="ImageDecoder", opset=20, name="imagedecoder_bad_pixel_format", inputs=[("x", stream(bmp24(PICTURE)))],
    attrs={"pixel_format": "RGBA"}, expect="error")


# --- com.microsoft FusedConv / FusedGemm --------------------------------------------------------

MS = {"domain": "com.microsoft", "opset": 1}
CONV_X = uniform(30, [2, 4, 5, 6], -2, 2)
CONV_W = uniform(31, [6, 4, 3, 3])
CONV_B = uniform(32, [6])
CONV_REASON = "float32 sums in another order than onnxruntime's MLAS convolution"
for activation, params in [(None, None), ("Relu", None), ("Tanh", None), ("Sigmoid", None), ("LeakyRelu", [0.2]),
                           ("Clip", [-0.5, 0.7]), ("Clip", [1.0, -1.0]), ("HardSigmoid", [0.3, 0.4])]:
    attrs = {"pads": [1, 1, 1, 1]}
    tag = "identity" if activation is None else activation.lower()
    if activation:
        attrs["activation"] = activation
    if params:
        attrs["activation_params"] = params
        if activation == "Clip" and params[0] > params[1]:
            tag = "clip_min_above_max"
    add(name=f"fusedconv_{tag}", op="FusedConv", **MS, inputs=[("x", CONV_X), ("w", CONV_W), ("b", CONV_B)], attrs=attrs,
        rtol=1e-4, atol=1e-5, reason=CONV_REASON)
CONV_Z = uniform(33, [2, 6, 5, 6], -2, 2)
add(name="fusedconv_sum_before_activation", op="FusedConv", **MS, inputs=[("x", CONV_X), ("w", CONV_W), ("b", CONV_B), ("z", CONV_Z)],
    attrs={"pads": [1, 1, 1, 1], "activation": "Relu"}, rtol=1e-4, atol=1e-5, reason=CONV_REASON)
add(name="fusedconv_sum_without_bias", op="FusedConv", **MS, inputs=[("x", CONV_X), ("w", CONV_W), ("b", None), ("z", CONV_Z)],
    attrs={"pads": [1, 1, 1, 1], "activation": "Sigmoid"}, rtol=1e-4, atol=1e-5, reason=CONV_REASON)
add(name="fusedconv_strides_group_dilations", op="FusedConv", **MS,
    inputs=[("x", CONV_X), ("w", uniform(34, [6, 2, 2, 2])), ("b", CONV_B)],
    attrs={"strides": [2, 1], "dilations": [1, 2], "group": 2, "activation": "LeakyRelu", "activation_params": [0.01]},
    rtol=1e-4, atol=1e-5, reason=CONV_REASON)
add(name="fusedconv_auto_pad", op="FusedConv", **MS, inputs=[("x", CONV_X), ("w", CONV_W)],
    attrs={"auto_pad": "SAME_UPPER", "activation": "Tanh"}, rtol=1e-4, atol=1e-5, reason=CONV_REASON)
add(name="fusedconv_1d", op="FusedConv", **MS, inputs=[("x", uniform(35, [1, 3, 9])), ("w", uniform(36, [2, 3, 4]))],
    attrs={"activation": "Relu"}, rtol=1e-4, atol=1e-5, reason=CONV_REASON)
add(name="fusedconv_silu", op="FusedConv", **MS, inputs=[("x", CONV_X[:1, :, :3, :3]), ("w", np.ones([1, 4, 1, 1], np.float32))],
    attrs={"activation": "Silu"}, expect="spec",
    expected=[(lambda v: v / (1 + np.exp(-v)))(CONV_X[:1, :, :3, :3].astype(np.float64).sum(axis=1, keepdims=True))
              .astype(np.float32)],
    reason="onnxruntime accepts Silu from version 1.24 (MLAS); onnxruntime-node 1.23 refuses it")
add(name="fusedconv_double", op="FusedConv", **MS,
    inputs=[("x", CONV_X.astype(np.float64)), ("w", CONV_W.astype(np.float64)), ("b", CONV_B.astype(np.float64))],
    attrs={"pads": [1, 1, 1, 1], "activation": "Relu"}, expect="spec",
    expected=[np.maximum(deform_conv(CONV_X.astype(np.float64), CONV_W.astype(np.float64), np.zeros([2, 18, 5, 6]),
                                     CONV_B.astype(np.float64), pads=(1, 1, 1, 1)), 0)],
    reason=MISSING + " (FusedConv is float only on CPU); the schema allows double")
add(name="fusedconv_unknown_activation", op="FusedConv", **MS, inputs=[("x", CONV_X), ("w", CONV_W)],
    attrs={"activation": "Gelu"}, expect="error")
add(name="fusedconv_params_count", op="FusedConv", **MS, inputs=[("x", CONV_X), ("w", CONV_W)],
    attrs={"activation": "LeakyRelu"}, expect="error")
add(name="fusedconv_z_shape", op="FusedConv", **MS, inputs=[("x", CONV_X), ("w", CONV_W), ("b", CONV_B), ("z", CONV_Z[:, :, :3])],
    attrs={"pads": [1, 1, 1, 1]}, expect="error")

GEMM_A = uniform(40, [3, 5], -2, 2)
GEMM_B = uniform(41, [5, 4], -2, 2)
GEMM_C = uniform(42, [4])
GEMM_REASON = "float32 sums in another order than onnxruntime's MLAS GEMM"
for activation, params in [("Relu", {}), ("Tanh", {}), ("Sigmoid", {}), ("Softsign", {}), ("Softplus", {}),
                           ("LeakyRelu", {"activation_alpha": 0.1}), ("Elu", {"activation_alpha": 0.7}),
                           ("Celu", {"activation_alpha": 1.3}), ("ThresholdedRelu", {"activation_alpha": 0.4}),
                           ("HardSigmoid", {"activation_alpha": 0.3, "activation_beta": 0.6}),
                           ("Selu", {"activation_alpha": 1.6, "activation_gamma": 1.05}),
                           ("ScaledTanh", {"activation_alpha": 2.0, "activation_beta": 0.5}),
                           ("ParametricSoftplus", {"activation_alpha": 1.5, "activation_beta": 0.8})]:
    add(name=f"fusedgemm_{activation.lower()}", op="FusedGemm", **MS, inputs=[("a", GEMM_A), ("b", GEMM_B), ("c", GEMM_C)],
        attrs={"activation": activation, **params}, rtol=1e-4, atol=1e-5, reason=GEMM_REASON)
add(name="fusedgemm_transposed_scaled", op="FusedGemm", **MS,
    inputs=[("a", GEMM_A.T.copy()), ("b", GEMM_B.T.copy()), ("c", uniform(43, [3, 1]))],
    attrs={"activation": "LeakyRelu", "activation_alpha": 0.2, "transA": 1, "transB": 1, "alpha": 0.5, "beta": 2.0},
    rtol=1e-4, atol=1e-5, reason=GEMM_REASON)
add(name="fusedgemm_no_c", op="FusedGemm", **MS, inputs=[("a", GEMM_A), ("b", GEMM_B)], attrs={"activation": "Relu"},
    rtol=1e-4, atol=1e-5, reason=GEMM_REASON)
add(name="fusedgemm_empty", op="FusedGemm", **MS, inputs=[("a", np.zeros([0, 5], np.float32)), ("b", GEMM_B)],
    attrs={"activation": "Relu"})
add(name="fusedgemm_missing_activation", op="FusedGemm", **MS, inputs=[("a", GEMM_A), ("b", GEMM_B)], expect="error")
add(name="fusedgemm_missing_alpha", op="FusedGemm", **MS, inputs=[("a", GEMM_A), ("b", GEMM_B)],
    attrs={"activation": "LeakyRelu"}, expect="error")
add(name="fusedgemm_inner_mismatch", op="FusedGemm", **MS, inputs=[("a", GEMM_A), ("b", GEMM_B[:4])],
    attrs={"activation": "Relu"}, expect="error")


# --- bfloat16 ------------------------------------------------------------------------------------
# onnxruntime-node has no bfloat16 kernel for these operators; the expected values use the
# inputs rounded to bfloat16 (as the model stores them), computed in float64.

def bf16(values):
    """float32 values rounded to the nearest bfloat16 (ties to even), as float32."""
    bits = np.ascontiguousarray(values, np.float32).view(np.uint32).astype(np.uint64)
    rounded = ((bits + 0x7FFF + ((bits >> 16) & 1)) >> 16 << 16).astype(np.uint32)
    return rounded.view(np.float32).reshape(np.shape(values))


BF16 = MISSING + " (bfloat16, added in opset 22 or allowed by the type constraints)"
LRN_B = bf16(LRN_X)
add(op="LRN", opset=13, name="lrn_bfloat16", inputs=[("x", ("bfloat16", LRN_B))], attrs={"size": 3}, expect="spec",
    expected=[lrn(LRN_B, 3)], reason=BF16)
ROI_XB, ROIS_B = bf16(ROI_X), bf16(ROIS)
add(op="RoiAlign", opset=22, name="roialign_bfloat16", inputs=[("x", ("bfloat16", ROI_XB)), ("rois", ("bfloat16", ROIS_B)),
                                                             ("batch", ROI_BATCH)],
    attrs={"output_height": 2, "output_width": 2}, expect="spec", expected=[roi_align(ROI_XB, ROIS_B, ROI_BATCH, 2, 2)], reason=BF16)
POOL_ROIS_B = bf16(POOL_ROIS)
add(op="MaxRoiPool", opset=22, name="maxroipool_bfloat16", inputs=[("x", ("bfloat16", ROI_XB)), ("rois", ("bfloat16", POOL_ROIS_B))],
    attrs={"pooled_shape": [2, 3]}, expect="spec", expected=[max_roi_pool(ROI_XB, POOL_ROIS_B, [2, 3])], reason=BF16)
GRID_XB, GRID_B = bf16(GRID_X), bf16(GRID)
add(op="GridSample", opset=22, name="gridsample_bfloat16", inputs=[("x", ("bfloat16", GRID_XB)), ("grid", ("bfloat16", GRID_B))],
    expect="spec", expected=[grid_sample(GRID_XB, GRID_B).astype(np.float32)], reason=BF16)
THETA2_B = bf16(THETA2)
add(op="AffineGrid", opset=20, name="affinegrid_bfloat16", inputs=[("theta", ("bfloat16", THETA2_B)), ("size", i64(2, 3, 4, 5))],
    expect="spec", expected=[affine_grid(THETA2_B, [2, 3, 4, 5], 0)], reason=BF16)
POOLED_B = bf16(POOLED)
UNPOOLED_B = np.zeros(2 * 3 * 4 * 6, np.float32)
np.put(UNPOOLED_B, UNPOOL_INDICES.ravel(), POOLED_B.ravel())
add(op="MaxUnpool", opset=22, name="maxunpool_bfloat16", inputs=[("x", ("bfloat16", POOLED_B)), ("i", UNPOOL_INDICES)],
    attrs={"kernel_shape": [2, 2], "strides": [2, 2]}, expect="spec", expected=[UNPOOLED_B.reshape(2, 3, 4, 6)], reason=BF16)
COL_B = bf16(uniform(21, [1, 4, 9], -5, 5))
add(op="Col2Im", opset=18, name="col2im_bfloat16", inputs=[("x", ("bfloat16", COL_B)), ("image", i64(4, 4)), ("block", i64(2, 2))],
    expect="spec", expected=[col2im(COL_B, [4, 4], [2, 2])], reason=BF16)
CROP_B = bf16(uniform(38, [4, 5]))
add(op="CenterCropPad", opset=18, name="centercroppad_bfloat16", inputs=[("x", ("bfloat16", CROP_B)), ("shape", i64(3, 7))],
    expect="spec", expected=[center_crop_pad(CROP_B, [3, 7])], reason=BF16)
DX_B, DW_B, DOFF_B = bf16(DX), bf16(DW), bf16(uniform(25, [2, 18, 3, 4], -1.5, 1.5))
add(op="DeformConv", opset=22, name="deformconv_bfloat16",
    inputs=[("x", ("bfloat16", DX_B)), ("w", ("bfloat16", DW_B)), ("offset", ("bfloat16", DOFF_B))],
    expect="spec", expected=[deform_conv(DX_B, DW_B, DOFF_B)], rtol=3e-2, atol=5e-2,
    reason=BF16 + "; sums of 36 products rounded to bfloat16's 8 bits")
MVN_B = bf16(MVN_X)
add(op="MeanVarianceNormalization", opset=13, name="meanvariancenormalization_bfloat16", inputs=[("x", ("bfloat16", MVN_B))],
    expect="spec", expected=[mvn(MVN_B)], reason=BF16)
GRID_INT8 = (iota([1, 2, 3, 3]) - 9).astype(np.int8)
add(op="GridSample", opset=20, name="gridsample_bool", inputs=[("x", GRID_INT8 % 3 == 0), ("grid", GRID[:1])],
    attrs={"mode": "nearest"}, expect="spec", expected=[grid_sample((GRID_INT8 % 3 == 0).astype(np.float64), GRID[:1], "nearest") != 0],
    reason=MISSING + " (bool is computed in floating point and converted back: nonzero is true)")
add(op="GridSample", opset=20, name="gridsample_int8", inputs=[("x", GRID_INT8), ("grid", GRID[:1])],
    expect="spec", expected=[np.trunc(grid_sample(GRID_INT8, GRID[:1])).astype(np.int8)], reason=MISSING)


# --- Empty inputs ---------------------------------------------------------------------------------
add(op="MeanVarianceNormalization", opset=13, name="meanvariancenormalization_empty", inputs=[("x", np.zeros([0, 3, 2, 2], np.float32))])
add(op="MaxRoiPool", opset=1, name="maxroipool_no_rois", inputs=[("x", ROI_X), ("rois", np.zeros([0, 5], np.float32))],
    attrs={"pooled_shape": [2, 2]})
add(op="Col2Im", opset=18, name="col2im_empty_batch", inputs=[("x", np.zeros([0, 4, 9], np.float32)), ("image", i64(4, 4)),
                                                             ("block", i64(2, 2))])
add(op="DeformConv", opset=19, name="deformconv_empty_batch",
    inputs=[("x", np.zeros([0, 4, 5, 6], np.float32)), ("w", DW), ("offset", np.zeros([0, 18, 3, 4], np.float32))],
    expect="spec", expected=[np.zeros([0, 6, 3, 4], np.float32)], reason=MISSING)
add(name="fusedconv_empty_batch", op="FusedConv", **MS, inputs=[("x", np.zeros([0, 4, 5, 6], np.float32)), ("w", CONV_W)],
    attrs={"activation": "Relu"})
image_case("empty_stream", b"", EMPTY_RGB, reason=MISSING + "; the spec returns an empty matrix")
