"""Differential cases of Det (onnx_extensions/kernels/linalg_kernels.cc): batches, pivoting,
singular matrices, float16/double, empty batches and invalid shapes."""
import numpy as np

from differential import Case

CASES = []


def add(**kwargs):
    CASES.append(Case(**kwargs))


def uniform(seed, shape, dtype=np.float32):
    return np.random.default_rng(seed).uniform(-2, 2, shape).astype(dtype)


# LU with partial pivoting against onnxruntime's (Eigen's) decomposition.
LU_REASON = "another LU pivoting and summation order than onnxruntime's"
add(op="Det", opset=11, name="det_2d", inputs=[("x", np.array([[1, 2], [3, 4]], np.float32))])
add(op="Det", opset=11, name="det_needs_pivoting", inputs=[("x", np.array([[0, 2, 1], [3, 0, 1], [1, 1, 0]], np.float32))])
add(op="Det", opset=11, name="det_batched", inputs=[("x", uniform(1, [2, 3, 4, 4]))], rtol=1e-5, atol=1e-5,
    reason=LU_REASON)
add(op="Det", opset=11, name="det_singular", inputs=[("x", np.array([[1, 2, 3], [2, 4, 6], [0, 1, 1]], np.float32))],
    atol=1e-6, reason="a singular matrix: 0 up to rounding")
x_double = uniform(2, [3, 5, 5], np.float64)
add(op="Det", opset=11, name="det_double", inputs=[("x", x_double)], expect="spec", expected=[np.linalg.det(x_double)],
    rtol=1e-12, atol=1e-12, reason="onnxruntime's Det has a float kernel only; tolerance: LU in another order "
                                   "than numpy's LAPACK")
add(op="Det", opset=11, name="det_float16", inputs=[("x", uniform(3, [2, 3, 3], np.float16))])
add(op="Det", opset=11, name="det_1x1", inputs=[("x", np.array([[[-3.5]]], np.float32))])
add(op="Det", opset=11, name="det_empty_batch", inputs=[("x", np.zeros([0, 3, 3], np.float32))])
add(op="Det", opset=22, name="det_opset22_float", inputs=[("x", uniform(4, [2, 2, 2]))])
add(op="Det", opset=11, name="det_not_square", expect="error", inputs=[("x", np.zeros([2, 3], np.float32))])
add(op="Det", opset=11, name="det_rank1", expect="error", inputs=[("x", np.zeros([3], np.float32))])
add(op="Det", opset=11, name="det_integer", expect="error", inputs=[("x", np.zeros([2, 2], np.int32))])
