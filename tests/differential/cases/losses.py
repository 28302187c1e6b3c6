"""Differential cases of the losses (onnx_extensions/kernels/loss_kernels.cc):
NegativeLogLikelihoodLoss and SoftmaxCrossEntropyLoss, every reduction, weights,
ignore_index (in and out of the class range), N-D inputs, float16/double/bfloat16."""
import numpy as np

from differential import Case

CASES = []


def add(**kwargs):
    CASES.append(Case(**kwargs))


def uniform(seed, shape, lo=-3.0, hi=3.0, dtype=np.float32):
    return np.random.default_rng(seed).uniform(lo, hi, shape).astype(dtype)


def labels(seed, shape, classes, dtype=np.int64):
    return np.random.default_rng(seed).integers(0, classes, shape).astype(dtype)


def with_ignored(values, ignore_index, every=3):
    values = values.copy()
    values.flat[::every] = ignore_index
    return values


# Sums in double rounded once against onnxruntime's float32 sums.
SUM_REASON = "sums in double rounded once, onnxruntime sums in float32"

for op, short in [("NegativeLogLikelihoodLoss", "nll"), ("SoftmaxCrossEntropyLoss", "sce")]:
    prefix = "negativeloglikelihoodloss" if short == "nll" else "softmaxcrossentropyloss"
    outputs = 1 if short == "nll" else 2
    for reduction in ("none", "sum", "mean"):
        add(op=op, opset=13, name=f"{prefix}_nc_{reduction}", attrs={"reduction": reduction}, outputs=outputs,
            inputs=[("x", uniform(1, [5, 4])), ("t", labels(2, [5], 4))], rtol=1e-5, atol=1e-5, reason=SUM_REASON)
        add(op=op, opset=13, name=f"{prefix}_ncd1d2_weight_{reduction}", attrs={"reduction": reduction},
            outputs=outputs, inputs=[("x", uniform(3, [2, 3, 4, 2])), ("t", labels(4, [2, 4, 2], 3)),
                                     ("w", uniform(5, [3], 0.1, 2.0))], rtol=1e-5, atol=1e-5, reason=SUM_REASON)
    add(op=op, opset=13, name=f"{prefix}_negative_ignore_index_mean", attrs={"ignore_index": -1}, outputs=outputs,
        inputs=[("x", uniform(6, [3, 5, 2])), ("t", with_ignored(labels(7, [3, 2], 5), -1))],
        rtol=1e-5, atol=1e-5, reason=SUM_REASON)
    add(op=op, opset=13, name=f"{prefix}_in_range_ignore_index_weight_mean", attrs={"ignore_index": 2},
        outputs=outputs, inputs=[("x", uniform(8, [4, 3])), ("t", np.array([2, 0, 2, 1], np.int64)),
                                 ("w", np.array([0.5, 2.0, 4.0], np.float32))], rtol=1e-5, atol=1e-5, reason=SUM_REASON)
    add(op=op, opset=13, name=f"{prefix}_high_ignore_index_sum", attrs={"ignore_index": 10, "reduction": "sum"},
        outputs=outputs, inputs=[("x", uniform(9, [2, 3, 2, 2])), ("t", with_ignored(labels(10, [2, 2, 2], 3), 10, 2))],
        rtol=1e-5, atol=1e-5, reason=SUM_REASON)
    add(op=op, opset=13, name=f"{prefix}_int32_labels_none", attrs={"reduction": "none"}, outputs=outputs,
        inputs=[("x", uniform(11, [3, 4])), ("t", labels(12, [3], 4, np.int32))])
    add(op=op, opset=13, name=f"{prefix}_ncd1d2d3d4_mean_weight", outputs=outputs,
        inputs=[("x", uniform(13, [2, 3, 2, 1, 2, 2])), ("t", labels(14, [2, 2, 1, 2, 2], 3)),
                ("w", uniform(15, [3], 0.5, 1.5))], rtol=1e-5, atol=1e-5, reason=SUM_REASON)
    add(op=op, opset=13, name=f"{prefix}_double", attrs={"reduction": "sum"}, outputs=outputs,
        inputs=[("x", uniform(16, [4, 3], dtype=np.float64)), ("t", labels(17, [4], 3))])
    add(op=op, opset=13, name=f"{prefix}_float16", attrs={"reduction": "none"}, outputs=outputs,
        inputs=[("x", uniform(18, [3, 4], dtype=np.float16)), ("t", labels(19, [3], 4))])
    add(op=op, opset=13, name=f"{prefix}_label_out_of_range", expect="error", outputs=outputs,
        inputs=[("x", uniform(20, [2, 3])), ("t", np.array([1, 3], np.int64))])
    add(op=op, opset=13, name=f"{prefix}_negative_label", expect="onnxopt-error", outputs=outputs,
        reason="labels are in [0, C) unless equal to ignore_index (spec); onnxruntime runs the function body, "
               "whose GatherElements wraps negative indices",
        inputs=[("x", uniform(21, [2, 3])), ("t", np.array([-1, 0], np.int64))])
    add(op=op, opset=13, name=f"{prefix}_weight_wrong_length", expect="onnxopt-error", outputs=outputs,
        reason="the weights are a 1-D tensor of one weight per class (spec); onnxruntime's function body "
               "gathers from a shorter one as long as the labels stay inside it",
        inputs=[("x", uniform(22, [2, 3])), ("t", np.array([1, 0], np.int64)), ("w", np.ones([2], np.float32))])
    if short == "nll":
        add(op=op, opset=13, name=f"{prefix}_empty_batch_none", attrs={"reduction": "none"},
            inputs=[("x", np.zeros([0, 3], np.float32)), ("t", np.zeros([0], np.int64))])
    else:
        add(op=op, opset=13, name=f"{prefix}_empty_batch_none", attrs={"reduction": "none"}, outputs=outputs,
            expect="spec", expected=[np.zeros([0], np.float32), np.zeros([0, 3], np.float32)],
            reason="onnxruntime's function body does not load: its Reshape gets a target of 0 elements",
            inputs=[("x", np.zeros([0, 3], np.float32)), ("t", np.zeros([0], np.int64))])
    # Every target ignored: the weighted mean is 0 / 0.
    add(op=op, opset=13, name=f"{prefix}_all_ignored_mean", attrs={"ignore_index": 1}, outputs=outputs,
        inputs=[("x", uniform(23, [2, 3])), ("t", np.array([1, 1], np.int64))])



def bfloat16(values):
    """float32 values rounded to bfloat16 (nearest, ties to even), as float32."""
    bits = np.atleast_1d(np.asarray(values, np.float32)).view(np.uint32).astype(np.uint64)
    half, one, shift = np.uint64(0x7FFF), np.uint64(1), np.uint64(16)
    rounded = ((bits + half + ((bits >> shift) & one)) >> shift) << shift
    return rounded.astype(np.uint32).view(np.float32).reshape(np.shape(values))


x_bf16, t_bf16 = bfloat16(uniform(24, [3, 4])), labels(25, [3], 4)
add(op="NegativeLogLikelihoodLoss", opset=22, name="negativeloglikelihoodloss_bfloat16_opset22",
    attrs={"reduction": "sum"}, expect="spec",
    expected=[bfloat16(-x_bf16[np.arange(3), t_bf16].astype(np.float64).sum())],
    reason="onnxruntime's function body has no bfloat16 Neg kernel",
    inputs=[("x", ("bfloat16", x_bf16)), ("t", t_bf16)])
add(op="NegativeLogLikelihoodLoss", opset=12, name="negativeloglikelihoodloss_opset12_mean",
    inputs=[("x", uniform(26, [3, 4])), ("t", labels(27, [3], 4))])
add(op="SoftmaxCrossEntropyLoss", opset=12, name="softmaxcrossentropyloss_opset12_mean", outputs=2,
    inputs=[("x", uniform(28, [3, 4])), ("t", labels(29, [3], 4))], rtol=1e-5, atol=1e-5, reason=SUM_REASON)
# Large scores: the log-softmax must subtract the maximum first.
add(op="SoftmaxCrossEntropyLoss", opset=13, name="softmaxcrossentropyloss_large_scores", outputs=2,
    attrs={"reduction": "none"},
    inputs=[("x", np.array([[1000, -1000, 999], [-1e4, -1e4, -1e4 + 1]], np.float32)), ("t", np.array([2, 0], np.int64))])
add(op="SoftmaxCrossEntropyLoss", opset=13, name="softmaxcrossentropyloss_reduction_unknown",
    expect="onnxopt-error", outputs=2,
    reason="reduction is one of none, sum, mean (spec); onnxruntime's function body treats others as one of them",
    attrs={"reduction": "max"}, inputs=[("x", uniform(30, [2, 3])), ("t", np.array([1, 0], np.int64))])
