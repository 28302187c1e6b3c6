"""Differential cases of the tensor kernels (onnx_extensions/kernels/tensor_kernels.cc):
shape manipulation, indexing, scatter/gather, generators, TopK, ArgMax/ArgMin, reductions."""
import numpy as np

from differential import Case, i64, iota

CASES = []


def add(**kwargs):
    CASES.append(Case(**kwargs))


def uniform(seed, shape, lo=-3.0, hi=3.0, dtype=np.float32):
    return np.random.default_rng(seed).uniform(lo, hi, shape).astype(dtype)


INT64_MIN, INT64_MAX = np.iinfo(np.int64).min, np.iinfo(np.int64).max
X234 = iota([2, 3, 4])

# --- Shape, Size ---------------------------------------------------------------------------
add(op="Shape", opset=15, name="shape_full", inputs=[("x", X234)])
for start, end in [(1, None), (-1, None), (0, -1), (-10, 10), (2, 1), (3, 3), (None, -5)]:
    attrs = {k: v for k, v in (("start", start), ("end", end)) if v is not None}
    add(op="Shape", opset=15, name=f"shape_start_{start}_end_{end}".replace("-", "m").lower(), attrs=attrs,
        inputs=[("x", X234)])
add(op="Shape", opset=15, name="shape_scalar", inputs=[("x", np.float32(1))])
add(op="Shape", opset=13, name="shape_empty", inputs=[("x", np.zeros([0, 2], np.float32))])
add(op="Shape", opset=15, name="shape_string", inputs=[("x", np.array([["a"]], dtype=object))])
add(op="Size", opset=13, name="size_empty", inputs=[("x", np.zeros([3, 0], np.float32))])
add(op="Size", opset=13, name="size_scalar", inputs=[("x", np.int8(1))])
add(op="Size", opset=19, name="size_float", inputs=[("x", X234)])

# --- Reshape, Flatten, Squeeze, Unsqueeze ---------------------------------------------------
for tag, shape, attrs in [("zero_copies", i64(0, -1), {}), ("infer", i64(-1), {}), ("same", i64(2, 3, 4), {}),
                          ("scalar_to_vector", None, {}), ("allowzero_keeps_zero", i64(0, 4), {"allowzero": 1})]:
    data = X234 if tag not in ("scalar_to_vector", "allowzero_keeps_zero") else \
        (np.float32(5) if tag == "scalar_to_vector" else np.zeros([0, 4], np.float32))
    if tag == "scalar_to_vector":
        shape = i64(1)
    add(op="Reshape", opset=14, name=f"reshape_{tag}", attrs=attrs, inputs=[("x", data), ("shape", shape)])
add(op="Reshape", opset=14, name="reshape_empty_infer", inputs=[("x", np.zeros([0, 4], np.float32)), ("shape", i64(0, -1))],
    expect="error")
add(op="Reshape", opset=14, name="reshape_to_scalar", inputs=[("x", np.ones([1, 1], np.float32)), ("shape", np.zeros([0], np.int64))])
add(op="Reshape", opset=14, name="reshape_two_minus_ones", inputs=[("x", X234), ("shape", i64(-1, -1))], expect="error")
add(op="Reshape", opset=14, name="reshape_wrong_count", inputs=[("x", X234), ("shape", i64(5, 5))], expect="error")
add(op="Reshape", opset=14, name="reshape_negative_dim", inputs=[("x", X234), ("shape", i64(-2, 12))], expect="error")
add(op="Reshape", opset=14, name="reshape_infer_with_zero", inputs=[("x", X234), ("shape", i64(0, 0, 0, -1))])
add(op="Reshape", opset=14, name="reshape_zero_beyond_rank", inputs=[("x", iota([24])), ("shape", i64(4, 0))], expect="error")
add(op="Reshape", opset=14, name="reshape_float_shape", inputs=[("x", X234), ("shape", np.array([24], np.float32))],
    expect="error")
add(op="Reshape", opset=14, name="reshape_allowzero_with_minus_one", attrs={"allowzero": 1},
    inputs=[("x", np.zeros([0, 4], np.float32)), ("shape", i64(0, -1))], expect="error")
add(op="Reshape", opset=5, name="reshape_opset5", inputs=[("x", X234), ("shape", i64(4, -1))])
for axis in [0, 1, 3, -1, -3]:
    add(op="Flatten", opset=13, name=f"flatten_axis_{axis}".replace("-", "m"), attrs={"axis": axis}, inputs=[("x", X234)])
add(op="Flatten", opset=13, name="flatten_axis_out_of_range", attrs={"axis": 4}, inputs=[("x", X234)], expect="error")
add(op="Flatten", opset=13, name="flatten_empty", attrs={"axis": 1}, inputs=[("x", np.zeros([2, 0, 3], np.float32))])
add(op="Flatten", opset=9, name="flatten_opset9", inputs=[("x", X234)])

add(op="Squeeze", opset=13, name="squeeze_all_ones", inputs=[("x", iota([1, 3, 1]))])
add(op="Squeeze", opset=13, name="squeeze_axes_negative", inputs=[("x", iota([1, 3, 1])), ("axes", i64(-1))])
add(op="Squeeze", opset=13, name="squeeze_not_one", inputs=[("x", iota([1, 3, 1])), ("axes", i64(1))], expect="error")
add(op="Squeeze", opset=13, name="squeeze_axis_out_of_range", inputs=[("x", iota([1, 3, 1])), ("axes", i64(3))],
    expect="error")
add(op="Squeeze", opset=13, name="squeeze_duplicate_axes", inputs=[("x", iota([1, 3, 1])), ("axes", i64(0, -3))])
add(op="Squeeze", opset=13, name="squeeze_to_scalar", inputs=[("x", iota([1, 1]))])
add(op="Squeeze", opset=13, name="squeeze_empty_dim_kept", inputs=[("x", np.zeros([1, 0], np.float32))])
add(op="Squeeze", opset=11, name="squeeze_opset11_attribute", attrs={"axes": [0, -1]}, inputs=[("x", iota([1, 3, 1]))])
add(op="Squeeze", opset=13, name="squeeze_axes_empty_tensor", inputs=[("x", iota([1, 3, 1])), ("axes", np.zeros([0], np.int64))])
add(op="Unsqueeze", opset=13, name="unsqueeze_several", inputs=[("x", iota([3, 4])), ("axes", i64(0, 3, -1))])
add(op="Unsqueeze", opset=13, name="unsqueeze_scalar", inputs=[("x", np.float32(2)), ("axes", i64(0))])
add(op="Unsqueeze", opset=13, name="unsqueeze_unsorted", inputs=[("x", iota([3])), ("axes", i64(2, 0))])
add(op="Unsqueeze", opset=13, name="unsqueeze_out_of_range", inputs=[("x", iota([3])), ("axes", i64(2))], expect="error")
add(op="Unsqueeze", opset=13, name="unsqueeze_duplicate", inputs=[("x", iota([3])), ("axes", i64(0, 0))], expect="error")
add(op="Unsqueeze", opset=13, name="unsqueeze_empty", inputs=[("x", np.zeros([0], np.float32)), ("axes", i64(1))])
add(op="Unsqueeze", opset=11, name="unsqueeze_opset11", attrs={"axes": [-1, 0]}, inputs=[("x", iota([2, 3]))])

# --- Transpose, Expand, Tile, Concat ---------------------------------------------------------
for perm in [[2, 0, 1], [0, 1, 2], [1, 0, 2], None]:
    attrs = {"perm": perm} if perm is not None else {}
    tag = "default" if perm is None else "_".join(map(str, perm))
    add(op="Transpose", opset=13, name=f"transpose_{tag}", attrs=attrs, inputs=[("x", X234)])
add(op="Transpose", opset=13, name="transpose_empty", attrs={"perm": [1, 0]}, inputs=[("x", np.zeros([0, 3], np.float32))])
add(op="Transpose", opset=13, name="transpose_scalar", inputs=[("x", np.float32(1))])
add(op="Transpose", opset=13, name="transpose_strings", attrs={"perm": [1, 0]}, inputs=[("x", np.array([["a", "b"]], dtype=object))])
add(op="Transpose", opset=13, name="transpose_not_a_permutation", attrs={"perm": [0, 0, 1]}, inputs=[("x", X234)],
    expect="error")
add(op="Transpose", opset=13, name="transpose_perm_too_short", attrs={"perm": [1, 0]}, inputs=[("x", X234)], expect="error")
add(op="Transpose", opset=13, name="transpose_perm_out_of_range", attrs={"perm": [0, 1, 3]}, inputs=[("x", X234)],
    expect="error")
add(op="Transpose", opset=13, name="transpose_perm_negative", attrs={"perm": [-1, 0, 1]}, inputs=[("x", X234)],
    expect="error")

add(op="Expand", opset=13, name="expand_broadcast", inputs=[("x", iota([3, 1])), ("shape", i64(2, 1, 4))])
add(op="Expand", opset=13, name="expand_shape_smaller_rank", inputs=[("x", iota([2, 3])), ("shape", i64(3))])
add(op="Expand", opset=13, name="expand_ones", inputs=[("x", iota([2, 3])), ("shape", i64(1, 1))])
add(op="Expand", opset=13, name="expand_to_zero", inputs=[("x", iota([1, 3])), ("shape", i64(0, 1))])
add(op="Expand", opset=13, name="expand_scalar_empty_shape", inputs=[("x", np.float32(7)), ("shape", np.zeros([0], np.int64))])
add(op="Expand", opset=13, name="expand_incompatible", inputs=[("x", iota([2, 3])), ("shape", i64(4))], expect="error")
add(op="Expand", opset=13, name="expand_negative_dim", inputs=[("x", iota([1])), ("shape", i64(-1))], expect="error")
add(op="Expand", opset=8, name="expand_opset8_string", inputs=[("x", np.array(["a"], dtype=object)), ("shape", i64(3))])

add(op="Tile", opset=13, name="tile_basic", inputs=[("x", iota([2, 3])), ("repeats", i64(2, 3))])
add(op="Tile", opset=13, name="tile_zero_repeat", inputs=[("x", iota([2, 3])), ("repeats", i64(0, 2))])
add(op="Tile", opset=13, name="tile_empty_input", inputs=[("x", np.zeros([0, 2], np.float32)), ("repeats", i64(3, 2))])
add(op="Tile", opset=13, name="tile_wrong_length", inputs=[("x", iota([2, 3])), ("repeats", i64(2))], expect="error")
add(op="Tile", opset=13, name="tile_negative", inputs=[("x", iota([2, 3])), ("repeats", i64(-1, 1))], expect="error")
add(op="Tile", opset=13, name="tile_int64", inputs=[("x", iota([3], np.int64)), ("repeats", i64(2))])
add(op="Tile", opset=6, name="tile_opset6", inputs=[("x", iota([2])), ("repeats", i64(3))])

add(op="Concat", opset=13, name="concat_axis_negative", attrs={"axis": -1}, inputs=[("a", iota([2, 2])), ("b", iota([2, 3]))])
add(op="Concat", opset=13, name="concat_with_empty", attrs={"axis": 0},
    inputs=[("a", np.zeros([0, 3], np.float32)), ("b", iota([2, 3])), ("c", np.zeros([0, 3], np.float32))])
add(op="Concat", opset=13, name="concat_all_empty", attrs={"axis": 1},
    inputs=[("a", np.zeros([2, 0], np.float32)), ("b", np.zeros([2, 0], np.float32))])
add(op="Concat", opset=13, name="concat_one_input", attrs={"axis": 0}, inputs=[("a", iota([2, 3]))])
add(op="Concat", opset=13, name="concat_strings", attrs={"axis": 0},
    inputs=[("a", np.array(["a"], dtype=object)), ("b", np.array(["b", "c"], dtype=object))])
add(op="Concat", opset=13, name="concat_axis_out_of_range", attrs={"axis": 2}, inputs=[("a", iota([2, 2])), ("b", iota([2, 2]))],
    expect="error")
add(op="Concat", opset=13, name="concat_missing_axis", inputs=[("a", iota([2, 2])), ("b", iota([2, 2]))], expect="error")
add(op="Concat", opset=13, name="concat_shape_mismatch", attrs={"axis": 0}, inputs=[("a", iota([2, 2])), ("b", iota([2, 3]))],
    expect="error")
add(op="Concat", opset=13, name="concat_rank_mismatch", attrs={"axis": 0}, inputs=[("a", iota([2, 2])), ("b", iota([2]))],
    expect="error")
add(op="Concat", opset=13, name="concat_type_mismatch", attrs={"axis": 0},
    inputs=[("a", iota([2])), ("b", iota([2], np.float64))], expect="error")
add(op="Concat", opset=13, name="concat_scalars", attrs={"axis": 0}, inputs=[("a", np.float32(1)), ("b", np.float32(2))],
    expect="error")
add(op="Concat", opset=4, name="concat_opset4", attrs={"axis": 1}, inputs=[("a", iota([1, 2])), ("b", iota([1, 1]))])

# --- Split ---------------------------------------------------------------------------------
add(op="Split", opset=18, name="split_num_outputs_uneven", attrs={"axis": 0, "num_outputs": 3},
    inputs=[("x", iota([7]))], outputs=3)
add(op="Split", opset=18, name="split_num_outputs_even", attrs={"axis": 1, "num_outputs": 2},
    inputs=[("x", iota([2, 4]))], outputs=2)
add(op="Split", opset=18, name="split_num_outputs_zero", attrs={"axis": 0, "num_outputs": 0},
    inputs=[("x", np.zeros([4], np.float32))], outputs=2, expect="error")
add(op="Split", opset=18, name="split_num_outputs_negative", attrs={"axis": 0, "num_outputs": -2},
    inputs=[("x", np.zeros([4], np.float32))], outputs=2, expect="error")
add(op="Split", opset=18, name="split_num_outputs_differs_from_outputs", attrs={"axis": 0, "num_outputs": 3},
    inputs=[("x", iota([6]))], outputs=2, expect="onnxopt-error",
    reason="num_outputs is the number of outputs; onnxruntime computes 3 parts and drops the last")
add(op="Split", opset=18, name="split_num_outputs_more_than_dim", attrs={"axis": 0, "num_outputs": 4},
    inputs=[("x", iota([2]))], outputs=4, expect="error")
add(op="Split", opset=18, name="split_sizes_input", attrs={"axis": -1},
    inputs=[("x", iota([2, 5])), ("split", i64(1, 0, 4))], outputs=3)
add(op="Split", opset=18, name="split_sizes_wrong_sum", attrs={"axis": 0},
    inputs=[("x", iota([5])), ("split", i64(1, 2))], outputs=2, expect="error")
add(op="Split", opset=18, name="split_sizes_negative", attrs={"axis": 0},
    inputs=[("x", iota([5])), ("split", i64(6, -1))], outputs=2, expect="error")
add(op="Split", opset=18, name="split_sizes_count_differs", attrs={"axis": 0},
    inputs=[("x", iota([5])), ("split", i64(2, 3))], outputs=3, expect="error")
add(op="Split", opset=18, name="split_both_sizes_and_num_outputs", attrs={"axis": 0, "num_outputs": 2},
    inputs=[("x", iota([5])), ("split", i64(2, 3))], outputs=2, expect="error")
add(op="Split", opset=18, name="split_neither", attrs={"axis": 0}, inputs=[("x", iota([4]))], outputs=2, expect="error")
add(op="Split", opset=13, name="split_opset13_even", attrs={"axis": 0}, inputs=[("x", iota([6]))], outputs=3)
add(op="Split", opset=13, name="split_opset13_uneven", attrs={"axis": 0}, inputs=[("x", iota([5]))], outputs=2,
    expect="error")
add(op="Split", opset=13, name="split_axis_out_of_range", attrs={"axis": 1}, inputs=[("x", iota([6]))], outputs=2,
    expect="error")
add(op="Split", opset=11, name="split_opset11_attribute", attrs={"axis": 0, "split": [1, 3]}, inputs=[("x", iota([4]))],
    outputs=2)
add(op="Split", opset=13, name="split_empty_axis", attrs={"axis": 0}, inputs=[("x", np.zeros([0, 2], np.float32))], outputs=2)
add(op="Split", opset=13, name="split_strings", attrs={"axis": 0}, inputs=[("x", np.array(["a", "b"], dtype=object))],
    outputs=2)
add(op="Split", opset=18, name="split_scalar_input", attrs={"axis": 0, "num_outputs": 1}, inputs=[("x", np.float32(1))],
    expect="error")

# --- Slice ---------------------------------------------------------------------------------
X10 = iota([10])
SLICES = [
    ("step_int64_min", [9], [INT64_MIN], [0], [INT64_MIN]),
    ("step_int64_max", [0], [INT64_MAX], [0], [INT64_MAX]),
    ("step_int64_max_from_middle", [3], [10], [0], [INT64_MAX]),
    ("step_int64_min_from_end", [INT64_MAX], [INT64_MIN], [0], [INT64_MIN]),
    ("reverse_all", [-1], [INT64_MIN], [0], [-1]),
    ("reverse_step_2", [INT64_MAX], [INT64_MIN], [0], [-2]),
    ("reverse_step_3_bounds", [8], [1], [0], [-3]),
    ("ends_beyond", [2], [1000], [0], [1]),
    ("starts_beyond", [20], [30], [0], [1]),
    ("starts_after_ends", [7], [3], [0], [1]),
    ("negative_starts", [-3], [-1], [0], [1]),
    ("negative_beyond", [-100], [-50], [0], [1]),
    ("step_bigger_than_dim", [0], [10], [0], [20]),
    ("reverse_step_bigger_than_dim", [9], [-11], [0], [-20]),
    ("int64_extremes_starts_ends", [INT64_MIN], [INT64_MAX], [0], [3]),
    ("reverse_int64_extremes", [INT64_MAX], [INT64_MIN], [0], [-4]),
]
for tag, starts, ends, axes, steps in SLICES:
    add(op="Slice", opset=13, name=f"slice_{tag}",
        inputs=[("x", X10), ("starts", i64(*starts)), ("ends", i64(*ends)), ("axes", i64(*axes)), ("steps", i64(*steps))])
add(op="Slice", opset=13, name="slice_two_axes_negative", inputs=[("x", X234), ("starts", i64(1, -1)), ("ends", i64(3, -4)),
                                                                  ("axes", i64(-2, 2)), ("steps", i64(1, -1))])
add(op="Slice", opset=13, name="slice_without_axes_steps", inputs=[("x", X234), ("starts", i64(1)), ("ends", i64(2))])
add(op="Slice", opset=13, name="slice_int32_indices", inputs=[("x", X234), ("starts", np.array([0, 1], np.int32)),
                                                              ("ends", np.array([1, 3], np.int32))])
add(op="Slice", opset=13, name="slice_empty_input", inputs=[("x", np.zeros([0, 3], np.float32)), ("starts", i64(0)),
                                                            ("ends", i64(5)), ("axes", i64(0))])
add(op="Slice", opset=13, name="slice_zero_step", inputs=[("x", X10), ("starts", i64(0)), ("ends", i64(5)), ("axes", i64(0)),
                                                          ("steps", i64(0))], expect="error")
add(op="Slice", opset=13, name="slice_duplicate_axes", inputs=[("x", X234), ("starts", i64(0, 0)), ("ends", i64(1, 1)),
                                                               ("axes", i64(0, -3))], expect="error")
add(op="Slice", opset=13, name="slice_axis_out_of_range", inputs=[("x", X234), ("starts", i64(0)), ("ends", i64(1)),
                                                                  ("axes", i64(3))], expect="error")
add(op="Slice", opset=13, name="slice_lengths_differ", inputs=[("x", X234), ("starts", i64(0, 1)), ("ends", i64(1))],
    expect="error")
add(op="Slice", opset=13, name="slice_float_starts", inputs=[("x", X234), ("starts", np.array([0], np.float32)),
                                                             ("ends", i64(1))], expect="error")
add(op="Slice", opset=13, name="slice_strings", inputs=[("x", np.array(["a", "b", "c"], dtype=object)), ("starts", i64(-1)),
                                                        ("ends", i64(INT64_MIN)), ("axes", i64(0)), ("steps", i64(-1))])
add(op="Slice", opset=1, name="slice_opset1_attributes", attrs={"starts": [1, 0], "ends": [1000, -1], "axes": [0, 2]},
    inputs=[("x", X234)])
add(op="Slice", opset=1, name="slice_opset1_without_axes", attrs={"starts": [1], "ends": [2]}, inputs=[("x", X234)])
add(op="Slice", opset=10, name="slice_opset10", inputs=[("x", X234), ("starts", i64(2)), ("ends", i64(0)), ("axes", i64(1)),
                                                        ("steps", i64(-1))])

# --- Pad -----------------------------------------------------------------------------------
X34 = iota([3, 4])
for mode in ["constant", "reflect", "edge", "wrap"]:
    opset = 19
    add(op="Pad", opset=opset, name=f"pad_{mode}", attrs={"mode": mode}, inputs=[("x", X34), ("pads", i64(1, 2, 2, 1))])
    add(op="Pad", opset=opset, name=f"pad_{mode}_negative", attrs={"mode": mode}, inputs=[("x", X34), ("pads", i64(-1, 1, 0, -2))])
    add(op="Pad", opset=opset, name=f"pad_{mode}_axes", attrs={"mode": mode},
        inputs=[("x", X234), ("pads", i64(1, 1)), ("value", None), ("axes", i64(-1))])
    if mode != "wrap":
        add(op="Pad", opset=opset, name=f"pad_{mode}_large", attrs={"mode": mode},
            inputs=[("x", X34), ("pads", i64(0, 3, 0, 3))] if mode != "reflect" else [("x", X34), ("pads", i64(0, 3, 0, 3))])
add(op="Pad", opset=19, name="pad_wrap_larger_than_dim", attrs={"mode": "wrap"}, inputs=[("x", X34), ("pads", i64(0, 5, 0, 6))],
    expect="spec", expected=[np.pad(X34, ((0, 0), (5, 6)), mode="wrap")],
    reason="wrap pads as if the data were a torus, however many times around; onnxruntime reads other rows")
add(op="Pad", opset=19, name="pad_constant_value", inputs=[("x", X34), ("pads", i64(1, 1, 1, 1)), ("value", np.float32(-7))])
add(op="Pad", opset=19, name="pad_constant_int64", inputs=[("x", iota([3], np.int64)), ("pads", i64(2, 1)),
                                                           ("value", np.int64(INT64_MIN))])
add(op="Pad", opset=19, name="pad_empty_input_constant", inputs=[("x", np.zeros([0, 2], np.float32)), ("pads", i64(1, 0, 1, 0))])
add(op="Pad", opset=19, name="pad_empty_input_edge", attrs={"mode": "edge"},
    inputs=[("x", np.zeros([0, 2], np.float32)), ("pads", i64(1, 0, 1, 0))], expect="error")
add(op="Pad", opset=19, name="pad_reflect_too_large", attrs={"mode": "reflect"},
    inputs=[("x", X34), ("pads", i64(0, 4, 0, 4))], expect="spec", expected=[np.pad(X34, ((0, 0), (4, 4)), mode="reflect")],
    reason="reflect mirrors again past the edges (numpy's pad); onnxruntime reads other rows")
add(op="Pad", opset=19, name="pad_negative_below_zero", inputs=[("x", X34), ("pads", i64(-2, 0, -2, 0))], expect="error")
add(op="Pad", opset=19, name="pad_wrong_length", inputs=[("x", X34), ("pads", i64(1, 1))], expect="error")
add(op="Pad", opset=19, name="pad_unknown_mode", attrs={"mode": "mirror"}, inputs=[("x", X34), ("pads", i64(1, 1, 1, 1))],
    expect="error")
add(op="Pad", opset=19, name="pad_value_other_type", inputs=[("x", X34), ("pads", i64(1, 1, 1, 1)), ("value", np.float64(1))],
    expect="error")
add(op="Pad", opset=19, name="pad_duplicate_axes", inputs=[("x", X34), ("pads", i64(1, 1, 1, 1)), ("value", None),
                                                           ("axes", i64(0, -2))], expect="error")
add(op="Pad", opset=11, name="pad_opset11", inputs=[("x", X34), ("pads", i64(0, 1, 0, 1)), ("value", np.float32(3))])
add(op="Pad", opset=2, name="pad_opset2_attributes", attrs={"pads": [1, 0, 0, 1], "value": 2.5}, inputs=[("x", X34)])
add(op="Pad", opset=2, name="pad_opset2_reflect", attrs={"pads": [1, 0, 0, 1], "mode": "reflect"}, inputs=[("x", X34)])

# --- Gather, GatherElements, GatherND --------------------------------------------------------
add(op="Gather", opset=13, name="gather_negative_indices", attrs={"axis": 1},
    inputs=[("x", X234), ("i", i64(-1, 0, -3))])
add(op="Gather", opset=13, name="gather_scalar_index", attrs={"axis": 0}, inputs=[("x", X234), ("i", np.int64(1))])
add(op="Gather", opset=13, name="gather_matrix_indices", attrs={"axis": -1}, inputs=[("x", X234), ("i", np.array([[0, 3], [1, 2]], np.int32))])
add(op="Gather", opset=13, name="gather_empty_indices", attrs={"axis": 0}, inputs=[("x", X234), ("i", np.zeros([0], np.int64))])
add(op="Gather", opset=13, name="gather_from_empty_axis_with_no_index", attrs={"axis": 1},
    inputs=[("x", np.zeros([2, 0], np.float32)), ("i", np.zeros([0], np.int64))])
add(op="Gather", opset=13, name="gather_out_of_range", attrs={"axis": 0}, inputs=[("x", X234), ("i", i64(2))], expect="error")
add(op="Gather", opset=13, name="gather_negative_out_of_range", attrs={"axis": 0}, inputs=[("x", X234), ("i", i64(-3))],
    expect="error")
add(op="Gather", opset=13, name="gather_axis_out_of_range", attrs={"axis": 3}, inputs=[("x", X234), ("i", i64(0))],
    expect="error")
add(op="Gather", opset=13, name="gather_float_indices", inputs=[("x", X234), ("i", np.array([0.0], np.float32))],
    expect="error")
add(op="Gather", opset=13, name="gather_scalar_data", inputs=[("x", np.float32(1)), ("i", i64(0))], expect="error")
add(op="Gather", opset=13, name="gather_strings", inputs=[("x", np.array(["a", "b", "c"], dtype=object)), ("i", i64(2, 0))])
add(op="Gather", opset=1, name="gather_opset1", attrs={"axis": 1}, inputs=[("x", X234), ("i", np.array([2, 0], np.int32))])

add(op="GatherElements", opset=13, name="gatherelements_axis1", attrs={"axis": 1},
    inputs=[("x", iota([3, 3])), ("i", np.array([[0, -1], [2, 1], [1, 1]], np.int64))])
add(op="GatherElements", opset=13, name="gatherelements_smaller_indices", attrs={"axis": 0},
    inputs=[("x", iota([3, 4])), ("i", np.array([[2, 0]], np.int32))])
add(op="GatherElements", opset=13, name="gatherelements_empty", attrs={"axis": 0},
    inputs=[("x", iota([3, 4])), ("i", np.zeros([0, 4], np.int64))])
add(op="GatherElements", opset=13, name="gatherelements_out_of_range", attrs={"axis": 1},
    inputs=[("x", iota([3, 3])), ("i", np.array([[3]], np.int64))], expect="error")
add(op="GatherElements", opset=13, name="gatherelements_rank_mismatch", attrs={"axis": 0},
    inputs=[("x", iota([3, 3])), ("i", np.array([0], np.int64))], expect="error")
add(op="GatherElements", opset=13, name="gatherelements_indices_larger_than_data", attrs={"axis": 0},
    inputs=[("x", iota([2, 2])), ("i", np.zeros([2, 3], np.int64))], expect="error")

add(op="GatherND", opset=13, name="gathernd_full_index", inputs=[("x", iota([2, 2])), ("i", np.array([[0, 0], [1, 1]], np.int64))])
add(op="GatherND", opset=13, name="gathernd_slices", inputs=[("x", X234), ("i", np.array([[1], [-2]], np.int64))])
add(op="GatherND", opset=13, name="gathernd_batch_dims", attrs={"batch_dims": 1},
    inputs=[("x", X234), ("i", np.array([[[1]], [[2]]], np.int64))])
add(op="GatherND", opset=13, name="gathernd_batch_dims_two", attrs={"batch_dims": 2},
    inputs=[("x", X234), ("i", np.array([[[1], [3], [0]], [[2], [2], [-1]]], np.int64))])
add(op="GatherND", opset=13, name="gathernd_empty_last_dim", inputs=[("x", iota([2, 3])), ("i", np.zeros([4, 0], np.int64))])
add(op="GatherND", opset=13, name="gathernd_out_of_range", inputs=[("x", iota([2, 2])), ("i", np.array([[2, 0]], np.int64))],
    expect="error")
add(op="GatherND", opset=13, name="gathernd_index_too_long", inputs=[("x", iota([2, 2])), ("i", np.array([[0, 0, 0]], np.int64))],
    expect="error")
add(op="GatherND", opset=13, name="gathernd_batch_dims_too_large", attrs={"batch_dims": 2},
    inputs=[("x", iota([2, 2])), ("i", np.array([[0]], np.int64))], expect="error")
add(op="GatherND", opset=13, name="gathernd_batch_mismatch", attrs={"batch_dims": 1},
    inputs=[("x", iota([2, 3])), ("i", np.array([[0], [1], [2]], np.int64))], expect="onnxopt-error",
    reason="the first batch_dims dims of data and indices must be equal; onnxruntime reads past the batch")
add(op="GatherND", opset=13, name="gathernd_scalar_indices", inputs=[("x", iota([2, 2])), ("i", np.int64(0))], expect="error")
add(op="GatherND", opset=11, name="gathernd_opset11", inputs=[("x", iota([2, 2])), ("i", np.array([[1, 0]], np.int64))])

# --- ScatterND, ScatterElements ----------------------------------------------------------------
for reduction in ["none", "add", "mul", "max", "min"]:
    opset = 18
    attrs = {} if reduction == "none" else {"reduction": reduction}
    add(op="ScatterND", opset=opset, name=f"scatternd_{reduction}", attrs=attrs,
        inputs=[("x", iota([4, 3])), ("i", np.array([[1], [3]], np.int64)), ("u", -iota([2, 3]) - 1)])
    add(op="ScatterElements", opset=opset, name=f"scatterelements_{reduction}", attrs={**attrs, "axis": 1},
        inputs=[("x", iota([3, 3])), ("i", np.array([[1, 0], [2, -1], [0, 0]], np.int64)), ("u", iota([3, 2]) + 10)])
    if reduction != "none":
        add(op="ScatterND", opset=opset, name=f"scatternd_{reduction}_duplicates", attrs=attrs,
            inputs=[("x", iota([4]) + 1), ("i", np.array([[1], [1], [2]], np.int64)), ("u", np.array([5, 6, 7], np.float32))])
        add(op="ScatterElements", opset=opset, name=f"scatterelements_{reduction}_duplicates", attrs={**attrs, "axis": 0},
            inputs=[("x", iota([4]) + 1), ("i", np.array([1, 1, 2], np.int64)), ("u", np.array([5, 6, 7], np.float32))])
# float16 data accumulates update after update in float16 (rounded at every step, like
# numpy's add.at on a float16 array, the ONNX reference).
ADDS = np.random.default_rng(31).uniform(0, 0.2, [40]).astype(np.float16)
SCATTERED = np.array([1, 2], np.float16)
np.add.at(SCATTERED, np.zeros([40], np.int64), ADDS)
FLOAT16_ADD = "updates add in float16 one after the other; onnxruntime's CPU provider has no float16 add reduction"
add(op="ScatterElements", opset=18, name="scatterelements_add_float16_rounds_each_step", attrs={"axis": 0, "reduction": "add"},
    inputs=[("x", np.array([1, 2], np.float16)), ("i", np.zeros([40], np.int64)), ("u", ADDS)], expect="spec",
    expected=[SCATTERED], rtol=0, atol=0, reason=FLOAT16_ADD)
add(op="ScatterND", opset=18, name="scatternd_add_float16_rounds_each_step", attrs={"reduction": "add"},
    inputs=[("x", np.array([1, 2], np.float16)), ("i", np.zeros([40, 1], np.int64)), ("u", ADDS)], expect="spec",
    expected=[SCATTERED], rtol=0, atol=0, reason=FLOAT16_ADD)
add(op="ScatterND", opset=18, name="scatternd_unknown_reduction", attrs={"reduction": "sum"},
    inputs=[("x", iota([4])), ("i", np.array([[1]], np.int64)), ("u", np.array([5], np.float32))], expect="onnxopt-error",
    reason="reduction is one of none, add, mul, max, min; onnxruntime treats another value as none")
add(op="ScatterND", opset=18, name="scatternd_negative_index",
    inputs=[("x", iota([4])), ("i", np.array([[-1]], np.int64)), ("u", np.array([5], np.float32))])
add(op="ScatterND", opset=18, name="scatternd_out_of_range",
    inputs=[("x", iota([4])), ("i", np.array([[4]], np.int64)), ("u", np.array([5], np.float32))], expect="error")
add(op="ScatterND", opset=18, name="scatternd_updates_wrong_shape",
    inputs=[("x", iota([4, 3])), ("i", np.array([[1]], np.int64)), ("u", iota([2]))], expect="error")
add(op="ScatterND", opset=18, name="scatternd_updates_same_size_other_shape",
    inputs=[("x", iota([4, 3])), ("i", np.array([[1], [2]], np.int64)), ("u", iota([3, 2]))], expect="error")
add(op="ScatterND", opset=18, name="scatternd_empty_indices",
    inputs=[("x", iota([4])), ("i", np.zeros([0, 1], np.int64)), ("u", np.zeros([0], np.float32))])
add(op="ScatterND", opset=18, name="scatternd_int64_data",
    inputs=[("x", iota([4], np.int64)), ("i", np.array([[0]], np.int64)), ("u", i64(INT64_MAX))])
add(op="ScatterND", opset=11, name="scatternd_opset11", inputs=[("x", iota([4])), ("i", np.array([[2]], np.int64)),
                                                                ("u", np.array([9], np.float32))])
add(op="ScatterElements", opset=18, name="scatterelements_out_of_range", attrs={"axis": 0},
    inputs=[("x", iota([3])), ("i", i64(3)), ("u", np.array([1], np.float32))], expect="error")
add(op="ScatterElements", opset=18, name="scatterelements_shape_mismatch", attrs={"axis": 0},
    inputs=[("x", iota([3])), ("i", i64(0, 1)), ("u", np.array([1], np.float32))], expect="error")
add(op="ScatterElements", opset=18, name="scatterelements_unknown_reduction", attrs={"axis": 0, "reduction": "avg"},
    inputs=[("x", iota([3])), ("i", i64(0)), ("u", np.array([1], np.float32))], expect="onnxopt-error",
    reason="reduction is one of none, add, mul, max, min; onnxruntime treats another value as none")
add(op="ScatterElements", opset=18, name="scatterelements_updates_type_mismatch", attrs={"axis": 0},
    inputs=[("x", iota([3])), ("i", i64(0)), ("u", np.array([1], np.float64))], expect="error")
add(op="ScatterElements", opset=18, name="scatterelements_empty", attrs={"axis": 0},
    inputs=[("x", iota([3])), ("i", np.zeros([0], np.int64)), ("u", np.zeros([0], np.float32))])
add(op="ScatterElements", opset=11, name="scatterelements_opset11", attrs={"axis": -1},
    inputs=[("x", iota([2, 3])), ("i", np.array([[2], [0]], np.int32)), ("u", np.array([[7], [8]], np.float32))])
add(op="Scatter", opset=9, name="scatter_opset9", attrs={"axis": 1},
    inputs=[("x", iota([2, 3])), ("i", np.array([[2], [0]], np.int64)), ("u", np.array([[7], [8]], np.float32))])

# --- Compress ------------------------------------------------------------------------------
add(op="Compress", opset=11, name="compress_axis", attrs={"axis": 1},
    inputs=[("x", X234), ("c", np.array([True, False, True]))])
add(op="Compress", opset=11, name="compress_flat", inputs=[("x", X234), ("c", np.array([False, True, True, False, True]))])
add(op="Compress", opset=11, name="compress_shorter_condition", attrs={"axis": -1},
    inputs=[("x", X234), ("c", np.array([False, True]))])
add(op="Compress", opset=11, name="compress_none_selected", attrs={"axis": 0}, inputs=[("x", X234), ("c", np.array([False, False]))])
add(op="Compress", opset=11, name="compress_empty_condition", attrs={"axis": 0}, inputs=[("x", X234), ("c", np.zeros([0], bool))])
add(op="Compress", opset=11, name="compress_condition_too_long", attrs={"axis": 0},
    inputs=[("x", X234), ("c", np.array([True, False, True]))])
add(op="Compress", opset=11, name="compress_axis_out_of_range", attrs={"axis": 3},
    inputs=[("x", X234), ("c", np.array([True]))], expect="error")
add(op="Compress", opset=11, name="compress_condition_not_bool", attrs={"axis": 0},
    inputs=[("x", X234), ("c", np.array([1, 0], np.int64))], expect="error")
add(op="Compress", opset=9, name="compress_opset9", attrs={"axis": 0}, inputs=[("x", iota([3, 2])), ("c", np.array([False, True]))])

# --- Range ---------------------------------------------------------------------------------
for tag, start, limit, delta in [("float", 0.5, 3.0, 0.75), ("float_negative_delta", 3.0, -1.0, -0.5),
                                 ("float_empty", 3.0, 1.0, 1.0), ("float_tiny_steps", 0.0, 1.0, 0.1),
                                 ("double", 1.0, 2.0, 0.3)]:
    dtype = np.float64 if tag == "double" else np.float32
    add(op="Range", opset=11, name=f"range_{tag}", inputs=[("start", dtype(start)), ("limit", dtype(limit)), ("delta", dtype(delta))])
for dtype in [np.int16, np.int32, np.int64]:
    add(op="Range", opset=11, name=f"range_{np.dtype(dtype).name}",
        inputs=[("start", dtype(-5)), ("limit", dtype(7)), ("delta", dtype(3))])
    add(op="Range", opset=11, name=f"range_{np.dtype(dtype).name}_negative",
        inputs=[("start", dtype(5)), ("limit", dtype(-7)), ("delta", dtype(-4))])
add(op="Range", opset=11, name="range_int64_extremes",
    inputs=[("start", np.int64(INT64_MAX - 2)), ("limit", np.int64(INT64_MAX)), ("delta", np.int64(1))])
RANGE_OVERFLOW = "count ceil((limit - start) / delta) = 3 computed without overflow; onnxruntime's limit - start overflows"
add(op="Range", opset=11, name="range_int64_huge_delta",
    inputs=[("start", np.int64(INT64_MIN)), ("limit", np.int64(INT64_MAX)), ("delta", np.int64(INT64_MAX))],
    expect="spec", expected=[i64(INT64_MIN, -1, INT64_MAX - 1)], reason=RANGE_OVERFLOW)
add(op="Range", opset=11, name="range_int32_overflowing_span",
    inputs=[("start", np.int32(-2147483648)), ("limit", np.int32(2147483647)), ("delta", np.int32(2147483647))],
    expect="spec", expected=[np.array([-2147483648, -1, 2147483646], np.int32)], reason=RANGE_OVERFLOW)
add(op="Range", opset=11, name="range_shape_one_inputs",
    inputs=[("start", np.array([1], np.int64)), ("limit", np.array([4], np.int64)), ("delta", np.array([1], np.int64))],
    expect="error")
add(op="Range", opset=11, name="range_zero_delta", inputs=[("start", np.int64(0)), ("limit", np.int64(5)), ("delta", np.int64(0))],
    expect="error")
add(op="Range", opset=11, name="range_empty_start",
    inputs=[("start", np.zeros([0], np.float32)), ("limit", np.float32(5)), ("delta", np.float32(1))], expect="error")
add(op="Range", opset=11, name="range_mixed_types",
    inputs=[("start", np.int64(0)), ("limit", np.float32(5)), ("delta", np.int64(1))], expect="error")
add(op="Range", opset=11, name="range_not_scalar",
    inputs=[("start", i64(0, 1)), ("limit", np.int64(5)), ("delta", np.int64(1))], expect="error")
RANGE_COUNT = "the count is max(ceil((limit - start) / delta), 0): "
add(op="Range", opset=11, name="range_nan_limit",
    inputs=[("start", np.float32(0)), ("limit", np.float32(np.nan)), ("delta", np.float32(1))], expect="onnxopt-error",
    reason=RANGE_COUNT + "NaN gives no count; onnxruntime returns an empty tensor")
add(op="Range", opset=11, name="range_infinite_limit",
    inputs=[("start", np.float32(0)), ("limit", np.float32(np.inf)), ("delta", np.float32(1))], expect="onnxopt-error",
    reason=RANGE_COUNT + "an infinite count cannot be allocated; onnxruntime returns an empty tensor")
add(op="Range", opset=11, name="range_huge_count",
    inputs=[("start", np.int64(0)), ("limit", np.int64(INT64_MAX)), ("delta", np.int64(1))], expect="onnxopt-error",
    reason=RANGE_COUNT + "2^63-1 elements exceed any tensor; onnxruntime returns an empty tensor")

# --- ConstantOfShape, EyeLike, Trilu ------------------------------------------------------
from onnx import helper, TensorProto  # noqa: E402

add(op="ConstantOfShape", opset=20, name="constantofshape_default", inputs=[("shape", i64(2, 3))])
add(op="ConstantOfShape", opset=20, name="constantofshape_int32_value",
    attrs={"value": helper.make_tensor("v", TensorProto.INT32, [1], [7])}, inputs=[("shape", i64(2))])
add(op="ConstantOfShape", opset=20, name="constantofshape_zero_dim", inputs=[("shape", i64(0, 3))])
add(op="ConstantOfShape", opset=20, name="constantofshape_scalar", inputs=[("shape", np.zeros([0], np.int64))])
add(op="ConstantOfShape", opset=20, name="constantofshape_bool_value",
    attrs={"value": helper.make_tensor("v", TensorProto.BOOL, [1], [True])}, inputs=[("shape", i64(3))])
add(op="ConstantOfShape", opset=20, name="constantofshape_negative", inputs=[("shape", i64(-1))], expect="error")
add(op="ConstantOfShape", opset=20, name="constantofshape_value_two_elements",
    attrs={"value": helper.make_tensor("v", TensorProto.FLOAT, [2], [1, 2])}, inputs=[("shape", i64(2))], expect="error")
add(op="ConstantOfShape", opset=9, name="constantofshape_opset9", inputs=[("shape", i64(1, 2))])

for k in [0, 1, -1, 5, -5]:
    add(op="EyeLike", opset=9, name=f"eyelike_k_{k}".replace("-", "m"), attrs={"k": k}, inputs=[("x", iota([3, 4]))])
add(op="EyeLike", opset=9, name="eyelike_dtype_int64", attrs={"dtype": 7}, inputs=[("x", iota([2, 2]))])
add(op="EyeLike", opset=9, name="eyelike_int32_input", inputs=[("x", iota([2, 3], np.int32))])
add(op="EyeLike", opset=9, name="eyelike_empty", inputs=[("x", np.zeros([0, 3], np.float32))])
add(op="EyeLike", opset=9, name="eyelike_not_2d", inputs=[("x", iota([3]))], expect="error")

for upper in [0, 1]:
    for k in [0, 2, -1, 100, -100]:
        add(op="Trilu", opset=14, name=f"trilu_upper{upper}_k_{k}".replace("-", "m"), attrs={"upper": upper},
            inputs=[("x", iota([2, 3, 4])), ("k", np.int64(k))])
add(op="Trilu", opset=14, name="trilu_no_k", inputs=[("x", iota([3, 3]))])
add(op="Trilu", opset=14, name="trilu_empty", inputs=[("x", np.zeros([0, 3], np.float32))])
add(op="Trilu", opset=14, name="trilu_int64_k_extreme", inputs=[("x", iota([3, 3])), ("k", np.int64(INT64_MIN))],
    expect="spec", expected=[iota([3, 3])],
    reason="upper keeps j - i >= k: with k = INT64_MIN every element; onnxruntime crashes (SIGSEGV)")
add(op="Trilu", opset=14, name="trilu_lower_int64_k_max", attrs={"upper": 0},
    inputs=[("x", iota([3, 3])), ("k", np.int64(INT64_MAX))])
add(op="Trilu", opset=14, name="trilu_k_not_scalar", inputs=[("x", iota([3, 3])), ("k", i64(1, 2))], expect="error")
add(op="Trilu", opset=14, name="trilu_rank_1", inputs=[("x", iota([3]))], expect="error")

# --- CumSum, OneHot, NonZero, DepthToSpace, SpaceToDepth ----------------------------------
for exclusive in [0, 1]:
    for reverse in [0, 1]:
        add(op="CumSum", opset=14, name=f"cumsum_exclusive{exclusive}_reverse{reverse}",
            attrs={"exclusive": exclusive, "reverse": reverse}, inputs=[("x", X234), ("axis", np.int64(-2))])
add(op="CumSum", opset=14, name="cumsum_int32_axis", inputs=[("x", iota([5], np.int32)), ("axis", np.int32(0))])
add(op="CumSum", opset=14, name="cumsum_axis_shape_one", inputs=[("x", iota([2, 3])), ("axis", i64(1))])
add(op="CumSum", opset=14, name="cumsum_empty", inputs=[("x", np.zeros([0, 3], np.float32)), ("axis", np.int64(0))])
add(op="CumSum", opset=14, name="cumsum_nan", inputs=[("x", np.array([1, np.nan, 2, np.inf, -np.inf], np.float32)),
                                                      ("axis", np.int64(0))])
add(op="CumSum", opset=14, name="cumsum_double", inputs=[("x", uniform(1, [4], dtype=np.float64)), ("axis", np.int64(0))])
add(op="CumSum", opset=14, name="cumsum_int64_wrap", inputs=[("x", i64(INT64_MAX, 1)), ("axis", np.int64(0))])
add(op="CumSum", opset=14, name="cumsum_axis_out_of_range", inputs=[("x", X234), ("axis", np.int64(3))], expect="error")
add(op="CumSum", opset=14, name="cumsum_axis_not_scalar", inputs=[("x", X234), ("axis", i64(0, 1))], expect="onnxopt-error",
    reason="axis is a 0-D tensor; onnxruntime reads the first of two values")
add(op="CumSum", opset=11, name="cumsum_opset11", inputs=[("x", iota([4])), ("axis", np.int64(0))])

ON_OFF = np.array([0, 5], np.float32)
add(op="OneHot", opset=11, name="onehot_negative_indices", inputs=[("i", i64(0, -1, 2, 9, -4)), ("depth", np.int64(3)),
                                                                   ("values", ON_OFF)])
add(op="OneHot", opset=11, name="onehot_axis_0", attrs={"axis": 0}, inputs=[("i", np.array([[0, 2]], np.int64)),
                                                                            ("depth", np.float32(3)), ("values", ON_OFF)])
add(op="OneHot", opset=11, name="onehot_int32_indices", inputs=[("i", np.array([1, 0], np.int32)), ("depth", np.int32(2)),
                                                                ("values", ON_OFF)])
add(op="OneHot", opset=11, name="onehot_depth_shape_one", inputs=[("i", i64(1)), ("depth", i64(3)), ("values", ON_OFF)])
add(op="OneHot", opset=11, name="onehot_scalar_indices", inputs=[("i", np.int64(1)), ("depth", np.int64(3)), ("values", ON_OFF)],
    expect="error")
add(op="OneHot", opset=11, name="onehot_zero_depth", inputs=[("i", i64(0)), ("depth", np.int64(0)), ("values", ON_OFF)],
    expect="error")
add(op="OneHot", opset=11, name="onehot_negative_depth", inputs=[("i", i64(0)), ("depth", np.int64(-2)), ("values", ON_OFF)],
    expect="error")
add(op="OneHot", opset=11, name="onehot_values_wrong_size", inputs=[("i", i64(0)), ("depth", np.int64(2)),
                                                                    ("values", np.ones(3, np.float32))], expect="error")
add(op="OneHot", opset=11, name="onehot_depth_not_scalar", inputs=[("i", i64(0)), ("depth", i64(2, 2)), ("values", ON_OFF)],
    expect="error")
add(op="OneHot", opset=11, name="onehot_axis_out_of_range", attrs={"axis": 2}, inputs=[("i", i64(0)), ("depth", np.int64(2)),
                                                                                       ("values", ON_OFF)], expect="error")
add(op="OneHot", opset=9, name="onehot_opset9", inputs=[("i", i64(1, 0)), ("depth", np.float32(2)), ("values", ON_OFF)])

add(op="NonZero", opset=13, name="nonzero_float", inputs=[("x", np.array([[0, 1.5, -0.0], [np.nan, 0, 2]], np.float32))])
add(op="NonZero", opset=13, name="nonzero_bool", inputs=[("x", np.array([True, False, True]))])
add(op="NonZero", opset=13, name="nonzero_int64", inputs=[("x", np.array([[0, 3], [4, 0]], np.int64))])
add(op="NonZero", opset=13, name="nonzero_scalar", inputs=[("x", np.float32(3))])
add(op="NonZero", opset=13, name="nonzero_scalar_zero", inputs=[("x", np.int32(0))])
add(op="NonZero", opset=13, name="nonzero_empty", inputs=[("x", np.zeros([2, 0], np.float32))])
add(op="NonZero", opset=9, name="nonzero_opset9_uint8", inputs=[("x", np.array([0, 7, 0, 1], np.uint8))])

X4D = iota([1, 8, 2, 3])
add(op="DepthToSpace", opset=13, name="depthtospace_dcr", attrs={"blocksize": 2}, inputs=[("x", X4D)])
add(op="DepthToSpace", opset=13, name="depthtospace_crd", attrs={"blocksize": 2, "mode": "CRD"}, inputs=[("x", X4D)])
add(op="DepthToSpace", opset=13, name="depthtospace_unknown_mode", attrs={"blocksize": 2, "mode": "XYZ"}, inputs=[("x", X4D)],
    expect="error")
add(op="DepthToSpace", opset=13, name="depthtospace_not_divisible", attrs={"blocksize": 3}, inputs=[("x", X4D)],
    expect="error")
add(op="DepthToSpace", opset=13, name="depthtospace_zero_blocksize", attrs={"blocksize": 0}, inputs=[("x", X4D)],
    expect="error")
add(op="DepthToSpace", opset=13, name="depthtospace_missing_blocksize", inputs=[("x", X4D)], expect="error")
add(op="DepthToSpace", opset=13, name="depthtospace_not_4d", attrs={"blocksize": 2}, inputs=[("x", iota([8, 2, 3]))],
    expect="error")
add(op="DepthToSpace", opset=11, name="depthtospace_opset11_double", attrs={"blocksize": 2},
    inputs=[("x", iota([1, 4, 1, 1], np.float64))])
add(op="SpaceToDepth", opset=13, name="spacetodepth_basic", attrs={"blocksize": 2}, inputs=[("x", iota([1, 2, 4, 6]))])
add(op="SpaceToDepth", opset=13, name="spacetodepth_not_divisible", attrs={"blocksize": 4}, inputs=[("x", iota([1, 2, 4, 6]))],
    expect="error")
add(op="SpaceToDepth", opset=13, name="spacetodepth_zero_blocksize", attrs={"blocksize": 0}, inputs=[("x", iota([1, 2, 4, 6]))],
    expect="error")
add(op="SpaceToDepth", opset=13, name="spacetodepth_empty_batch", attrs={"blocksize": 2},
    inputs=[("x", np.zeros([0, 2, 4, 4], np.float32))])

# --- TopK, ArgMax, ArgMin ----------------------------------------------------------------------
TIES = np.array([[3, 1, 3, 2, 1], [np.nan, 0, 5, np.inf, -np.inf]], np.float32)
INFINITIES = np.array([[0, 5, np.inf, -np.inf, -0.0]], np.float32)
for largest in [1, 0]:
    for sorted_ in [1]:
        add(op="TopK", opset=11, name=f"topk_largest{largest}", attrs={"largest": largest, "sorted": sorted_},
            inputs=[("x", TIES[:1]), ("k", i64(3))], outputs=2)
# NaN sorts as the largest value (onnxruntime agrees when sorting the smallest first; its
# largest-first order puts NaN between finite values, an order the spec does not define).
add(op="TopK", opset=11, name="topk_infinities", inputs=[("x", INFINITIES), ("k", i64(5))], outputs=2)
add(op="TopK", opset=11, name="topk_smallest_nan_and_infinities", attrs={"largest": 0}, inputs=[("x", TIES[1:]), ("k", i64(5))],
    outputs=2)
add(op="TopK", opset=11, name="topk_axis_0", attrs={"axis": 0}, inputs=[("x", uniform(1, [4, 3])), ("k", i64(2))], outputs=2)
add(op="TopK", opset=11, name="topk_k_zero", inputs=[("x", uniform(1, [4, 3])), ("k", i64(0))], outputs=2)
add(op="TopK", opset=11, name="topk_k_equals_dim", inputs=[("x", uniform(2, [2, 3])), ("k", i64(3))], outputs=2)
add(op="TopK", opset=11, name="topk_int64", inputs=[("x", i64(5, INT64_MIN, INT64_MAX, 0)), ("k", i64(2))], outputs=2)
add(op="TopK", opset=11, name="topk_int32_ties", attrs={"largest": 0}, inputs=[("x", np.array([2, 1, 1, 2], np.int32)),
                                                                               ("k", i64(3))], outputs=2)
add(op="TopK", opset=11, name="topk_double", inputs=[("x", uniform(3, [6], dtype=np.float64)), ("k", i64(4))], outputs=2)
add(op="TopK", opset=11, name="topk_k_too_large", inputs=[("x", uniform(1, [4])), ("k", i64(5))], outputs=2, expect="error")
add(op="TopK", opset=11, name="topk_k_negative", inputs=[("x", uniform(1, [4])), ("k", i64(-1))], outputs=2, expect="error")
add(op="TopK", opset=11, name="topk_k_empty", inputs=[("x", uniform(1, [4])), ("k", np.zeros([0], np.int64))], outputs=2,
    expect="error")
add(op="TopK", opset=11, name="topk_k_two_values", inputs=[("x", uniform(1, [4])), ("k", i64(1, 2))], outputs=2,
    expect="error")
add(op="TopK", opset=11, name="topk_axis_out_of_range", attrs={"axis": 1}, inputs=[("x", uniform(1, [4])), ("k", i64(1))],
    outputs=2, expect="error")
add(op="TopK", opset=11, name="topk_scalar_input", inputs=[("x", np.float32(1)), ("k", i64(1))], outputs=2, expect="error")
add(op="TopK", opset=11, name="topk_empty_rows", inputs=[("x", np.zeros([0, 4], np.float32)), ("k", i64(2))], outputs=2,
    expect="spec", expected=[np.zeros([0, 2], np.float32), np.zeros([0, 2], np.int64)],
    reason="an empty input has empty outputs of shape [0, k]; onnxruntime crashes (SIGFPE)")
add(op="TopK", opset=1, name="topk_opset1", attrs={"k": 2}, inputs=[("x", uniform(4, [5]))], outputs=2)
add(op="TopK", opset=10, name="topk_opset10", inputs=[("x", uniform(5, [5])), ("k", i64(2))], outputs=2)

ARG_DATA = np.array([[1, 3, 3, -1], [np.nan, 2, np.nan, 0], [-np.inf, -np.inf, 0, 0]], np.float32)
for op in ["ArgMax", "ArgMin"]:
    lower = op.lower()
    for axis in [0, 1, -1]:
        for keepdims in [0, 1]:
            for last in [0, 1]:
                add(op=op, opset=13, name=f"{lower}_axis{axis}_keep{keepdims}_last{last}".replace("-", "m"),
                    attrs={"axis": axis, "keepdims": keepdims, "select_last_index": last},
                    inputs=[("x", ARG_DATA if axis != 0 else ARG_DATA[[0, 2]])])
    add(op=op, opset=13, name=f"{lower}_nan", inputs=[("x", ARG_DATA[1])])
    add(op=op, opset=13, name=f"{lower}_int32", attrs={"axis": 0}, inputs=[("x", np.array([3, -1, 7, 7], np.int32))])
    add(op=op, opset=13, name=f"{lower}_int64_extremes", inputs=[("x", i64(INT64_MIN, INT64_MAX, 0))])
    add(op=op, opset=13, name=f"{lower}_empty_axis", attrs={"axis": 1}, inputs=[("x", np.zeros([2, 0], np.float32))],
        expect="error")
    add(op=op, opset=13, name=f"{lower}_empty_other_axis", attrs={"axis": 1}, inputs=[("x", np.zeros([0, 3], np.float32))])
    add(op=op, opset=13, name=f"{lower}_axis_out_of_range", attrs={"axis": 2}, inputs=[("x", iota([2, 2]))], expect="error")
    add(op=op, opset=11, name=f"{lower}_opset11", attrs={"axis": 1}, inputs=[("x", iota([2, 3]))])
    add(op=op, opset=13, name=f"{lower}_double", inputs=[("x", uniform(4, [5], dtype=np.float64))])

# --- Reductions ----------------------------------------------------------------------------------
REDUCE_NAN = np.array([[1, np.nan, 2], [np.inf, 1, -1]], np.float32)
# The element-wise steps of each reduction, which noop_with_empty_axes keeps.
NOOP_RESULTS = {"ReduceSum": lambda v: v, "ReduceMean": lambda v: v, "ReduceMax": lambda v: v, "ReduceMin": lambda v: v,
                "ReduceProd": lambda v: v, "ReduceL1": np.abs, "ReduceL2": lambda v: np.sqrt(v * v),
                "ReduceLogSum": np.log, "ReduceLogSumExp": lambda v: np.log(np.exp(v)), "ReduceSumSquare": lambda v: v * v}
REDUCE = ["ReduceSum", "ReduceMean", "ReduceMax", "ReduceMin", "ReduceProd", "ReduceL1", "ReduceL2", "ReduceLogSum",
          "ReduceLogSumExp", "ReduceSumSquare"]
POSITIVE = uniform(3, [2, 3, 4], 0.1, 2)
for op in REDUCE:
    lower = op.lower()
    opset = 18
    data = POSITIVE if op in ("ReduceLogSum",) else uniform(4, [2, 3, 4])
    add(op=op, opset=opset, name=f"{lower}_axes", inputs=[("x", data), ("axes", i64(0, -1))])
    add(op=op, opset=opset, name=f"{lower}_no_keepdims", attrs={"keepdims": 0}, inputs=[("x", data), ("axes", i64(1))])
    add(op=op, opset=opset, name=f"{lower}_all", inputs=[("x", data)])
    add(op=op, opset=opset, name=f"{lower}_all_no_keepdims", attrs={"keepdims": 0}, inputs=[("x", data)])
    noop = NOOP_RESULTS[op](data.astype(np.float64)).astype(np.float32)
    add(op=op, opset=opset, name=f"{lower}_noop_empty_axes", attrs={"noop_with_empty_axes": 1},
        inputs=[("x", data), ("axes", np.zeros([0], np.int64))], **(
            {} if np.array_equal(noop, data) else
            {"expect": "spec", "expected": [noop], "rtol": 1e-6, "atol": 1e-6,
             "reason": "noop_with_empty_axes skips the reduction, not the element-wise steps (the spec: "
                       "ReduceLogSum gives the log of the input, ReduceSumSquare its square); onnxruntime returns "
                       "the input"}))
    if op != "ReduceMean":  # the mean of nothing is undefined
        add(op=op, opset=opset, name=f"{lower}_empty_reduced", inputs=[("x", np.zeros([2, 0, 3], np.float32)),
                                                                     ("axes", i64(1))])
    add(op=op, opset=opset, name=f"{lower}_empty_kept", inputs=[("x", np.zeros([2, 0, 3], np.float32)), ("axes", i64(2))])
    if op in ("ReduceMax", "ReduceMin"):
        add(op=op, opset=opset, name=f"{lower}_nan", inputs=[("x", REDUCE_NAN), ("axes", i64(1))], expect="spec",
            expected=[(np.max if op == "ReduceMax" else np.min)(REDUCE_NAN, axis=1, keepdims=True)],
            reason="the reductions behave like numpy's: a NaN makes the max/min NaN; onnxruntime skips NaN")
    else:
        add(op=op, opset=opset, name=f"{lower}_nan", inputs=[("x", REDUCE_NAN), ("axes", i64(1))])
    add(op=op, opset=opset, name=f"{lower}_int32", inputs=[("x", np.array([[1, 2, 3], [4, 5, 6]], np.int32)), ("axes", i64(1))])
    add(op=op, opset=opset, name=f"{lower}_double", inputs=[("x", POSITIVE.astype(np.float64)), ("axes", i64(2))])
    add(op=op, opset=opset, name=f"{lower}_scalar", inputs=[("x", np.float32(2))])
    add(op=op, opset=opset, name=f"{lower}_axis_out_of_range", inputs=[("x", data), ("axes", i64(3))], expect="error")
    add(op=op, opset=opset, name=f"{lower}_duplicate_axes", inputs=[("x", data), ("axes", i64(1, -2))])
    add(op=op, opset=13 if op != "ReduceSum" else 11, name=f"{lower}_attribute_axes", attrs={"axes": [1]},
        inputs=[("x", data)])
add(op="ReduceSum", opset=13, name="reducesum_opset13_axes_input", inputs=[("x", X234), ("axes", i64(-1))])
add(op="ReduceMax", opset=18, name="reducemax_int64_extremes", inputs=[("x", i64(INT64_MIN, INT64_MAX)), ("axes", i64(0))])
add(op="ReduceMin", opset=18, name="reducemin_uint8", inputs=[("x", np.array([3, 255, 0], np.uint8))])
add(op="ReduceMax", opset=20, name="reducemax_bool", inputs=[("x", np.array([[True, False], [False, False]])), ("axes", i64(1))])
add(op="ReduceProd", opset=18, name="reduceprod_int64_wrap", inputs=[("x", i64(INT64_MAX, 2))])
add(op="ReduceSum", opset=18, name="reducesum_axes_float", inputs=[("x", X234), ("axes", np.array([1.0], np.float32))],
    expect="error")
