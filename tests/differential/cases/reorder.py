"""Differential cases of ReverseSequence and Unique (onnx_extensions/kernels/reorder_kernels.cc):
both axis orders, every element type, empty inputs, sorted and unsorted Unique with and
without axis (all four outputs), NaN and signed zeros, and invalid attributes."""
import numpy as np

from differential import Case, i64

CASES = []


def add(**kwargs):
    CASES.append(Case(**kwargs))


def iota(shape, dtype=np.float32):
    return np.arange(int(np.prod(shape))).astype(dtype).reshape(shape)


# --- ReverseSequence -------------------------------------------------------------------------------


def reverse_sequence(x, lens, time_axis=0, batch_axis=1):
    """The spec's definition: per batch b, the first lens[b] steps reversed, the rest copied."""
    y = x.copy()
    for b, n in enumerate(lens):
        index = [slice(None)] * x.ndim
        index[batch_axis] = b
        index[time_axis] = slice(0, n)
        source = list(index)
        source[time_axis] = slice(n - 1, None, -1) if n > 0 else slice(0, 0)
        y[tuple(index)] = x[tuple(source)]
    return y


ZERO_LENGTH_REASON = "onnxruntime leaves the batches of length 0 unwritten (uninitialized memory) instead of copying them"
add(op="ReverseSequence", opset=10, name="reversesequence_spec_time_major", attrs={"time_axis": 0, "batch_axis": 1},
    inputs=[("x", iota([4, 4])), ("lens", i64(4, 3, 2, 1))])
add(op="ReverseSequence", opset=10, name="reversesequence_spec_batch_major", attrs={"time_axis": 1, "batch_axis": 0},
    inputs=[("x", iota([4, 4])), ("lens", i64(1, 2, 3, 4))])
add(op="ReverseSequence", opset=10, name="reversesequence_trailing_dims_int64",
    inputs=[("x", iota([5, 3, 2, 2], np.int64)), ("lens", i64(5, 1, 3))])
add(op="ReverseSequence", opset=10, name="reversesequence_trailing_dims_zero_length", expect="spec",
    reason=ZERO_LENGTH_REASON, expected=[reverse_sequence(iota([5, 3, 2, 2], np.int64), [5, 0, 3])],
    inputs=[("x", iota([5, 3, 2, 2], np.int64)), ("lens", i64(5, 0, 3))])
add(op="ReverseSequence", opset=10, name="reversesequence_strings", attrs={"time_axis": 1, "batch_axis": 0},
    inputs=[("x", np.array([["a", "b", "c"], ["d", "e", "f"]], dtype=object)), ("lens", i64(3, 2))])
for dtype in (np.bool_, np.uint8, np.int8, np.float16, np.float64, np.int32):
    add(op="ReverseSequence", opset=10, name=f"reversesequence_{np.dtype(dtype).name}",
        inputs=[("x", (iota([3, 2, 3]) % 7).astype(dtype)), ("lens", i64(2, 3))])
add(op="ReverseSequence", opset=10, name="reversesequence_zero_lengths", expect="spec", reason=ZERO_LENGTH_REASON,
    expected=[iota([3, 2])], inputs=[("x", iota([3, 2])), ("lens", i64(0, 0))])
add(op="ReverseSequence", opset=10, name="reversesequence_empty_trailing_dim",
    inputs=[("x", np.zeros([3, 2, 0], np.float32)), ("lens", i64(3, 1))])
add(op="ReverseSequence", opset=10, name="reversesequence_length_above_time", expect="error",
    inputs=[("x", iota([3, 2])), ("lens", i64(4, 1))])
add(op="ReverseSequence", opset=10, name="reversesequence_negative_length", expect="error",
    inputs=[("x", iota([3, 2])), ("lens", i64(-1, 1))])
add(op="ReverseSequence", opset=10, name="reversesequence_lens_wrong_size", expect="error",
    inputs=[("x", iota([3, 2])), ("lens", i64(1, 1, 1))])
add(op="ReverseSequence", opset=10, name="reversesequence_same_axes", expect="error",
    attrs={"time_axis": 1, "batch_axis": 1}, inputs=[("x", iota([3, 2])), ("lens", i64(1, 1))])
add(op="ReverseSequence", opset=10, name="reversesequence_rank1", expect="error",
    inputs=[("x", iota([3])), ("lens", i64(1, 1, 1))])

# --- Unique -------------------------------------------------------------------------------------------
for sorted_ in (0, 1):
    add(op="Unique", opset=11, name=f"unique_spec_flat_sorted{sorted_}", attrs={"sorted": sorted_}, outputs=4,
        inputs=[("x", np.array([2, 1, 1, 3, 4, 3], np.float32))])
    add(op="Unique", opset=11, name=f"unique_axis0_rows_sorted{sorted_}", attrs={"sorted": sorted_, "axis": 0},
        outputs=4, inputs=[("x", np.array([[1, 0, 0], [1, 0, 0], [2, 3, 4], [0, 9, 9]], np.int64))])
    add(op="Unique", opset=11, name=f"unique_negative_axis_3d_sorted{sorted_}", attrs={"sorted": sorted_, "axis": -2},
        outputs=4, inputs=[("x", np.array([[[1, 1], [0, 1], [2, 1], [0, 1]], [[1, 1], [0, 1], [2, 1], [0, 1]]],
                                          np.float32))])


def numpy_unique(x, axis=None):
    """Sorted unique values (or slices), first indices, inverse indices, counts (int64)."""
    y, first, inverse, counts = np.unique(x, return_index=True, return_inverse=True, return_counts=True, axis=axis)
    return [y, first.astype(np.int64), inverse.reshape(-1).astype(np.int64), counts.astype(np.int64)]


UNIQUE_TYPES_REASON = "onnxruntime's Unique has kernels for float, double, int8, int64 and string only"
x_int32 = np.array([[1, 3], [2, 3]], np.int32)
add(op="Unique", opset=11, name="unique_2d_without_axis_int32", outputs=4, inputs=[("x", x_int32)], expect="spec",
    expected=numpy_unique(x_int32), reason=UNIQUE_TYPES_REASON)
add(op="Unique", opset=11, name="unique_2d_without_axis", outputs=4, inputs=[("x", x_int32.astype(np.int64))])
add(op="Unique", opset=11, name="unique_random_int8_axis1", attrs={"axis": 1}, outputs=4,
    inputs=[("x", np.random.default_rng(1).integers(-2, 2, [3, 12, 2]).astype(np.int8))])
add(op="Unique", opset=11, name="unique_only_y_output", outputs=1, inputs=[("x", np.array([5, 5, 1], np.int64))])
add(op="Unique", opset=11, name="unique_strings_unsorted", attrs={"sorted": 0}, outputs=4,
    inputs=[("x", np.array(["b", "a", "b", "c", "a"], dtype=object))])
add(op="Unique", opset=11, name="unique_strings_sorted", outputs=4,
    inputs=[("x", np.array(["b", "a", "b", "c", "a"], dtype=object))])
add(op="Unique", opset=11, name="unique_double", outputs=4, inputs=[("x", np.array([0.5, -1.5, 0.5, 1e300], np.float64))])
add(op="Unique", opset=11, name="unique_empty", outputs=4, inputs=[("x", np.zeros([0], np.float32))])
add(op="Unique", opset=11, name="unique_single_element", outputs=4, inputs=[("x", np.array([[7]], np.uint8))],
    expect="spec", expected=numpy_unique(np.array([[7]], np.uint8)), reason=UNIQUE_TYPES_REASON)
# NumPy groups the NaNs into one value after the numbers; -0 and +0 are one value.
nan_x = np.array([np.nan, 1, np.nan, -0.0, 0.0], np.float32)
add(op="Unique", opset=11, name="unique_nan_and_signed_zeros", outputs=4, expect="spec",
    inputs=[("x", nan_x)],
    expected=[np.array([-0.0, 1, np.nan], np.float32), i64(3, 1, 0), i64(2, 1, 2, 0, 0), i64(2, 1, 2)],
    reason="NaN compares unequal to everything: onnxruntime keeps each NaN as its own value; the spec points "
           "to numpy.unique, which groups them")
add(op="Unique", opset=11, name="unique_axis_out_of_range", expect="error", attrs={"axis": 2}, outputs=4,
    inputs=[("x", iota([2, 2]))])
