#!/usr/bin/python3
"""Channels-last models in the style of TensorFlow/Keras/TFLite converters, for the
transpose optimizer's benchmark and its onnxruntime comparison test.

Usage: transpose_models.py KIND OUT.onnx [--size N] [--seed 0] [--qdq]

Converters keep the data NHWC and wrap every layout-sensitive operator (Conv,
BatchNormalization, MaxPool, AveragePool, Resize) in Transpose<[0,3,1,2]> before and
Transpose<[0,2,3,1]> after; layout-agnostic operators (Relu, Add, Mul, Concat, Pad,
ReduceMean, Softmax) run on NHWC data between them.

KIND:
  resnet     stem Conv, N residual blocks (Conv, BatchNormalization, Relu, Conv,
             BatchNormalization, residual Add, Relu), ReduceMean over H and W, MatMul,
             Softmax head (N = --size, default 3)
  unet       Conv, MaxPool, Conv, Resize (nearest, x2), Concat with the skip on the
             channel axis, Pad (NHWC pads), Conv, ReduceMean keepdims, Softmax on channels
  inception  branches of 1x1, 3x3 and depthwise 3x3 Conv concatenated on channels,
             AveragePool, per-channel scale Mul (a rank-1 constant), Sigmoid, ReduceMax,
             Softmax
  chain      --size ops in blocks of five: Transpose, MaxPool (1x1), Transpose, Relu,
             Mul by a per-channel constant (the Transposes of consecutive blocks cancel)
  ladder     --size ops in blocks of six: Transpose, MaxPool (1x1), Transpose, Relu,
             Add of a per-channel bias, residual Add with the block's input
Opset 13, static shapes, batch 1. Prints the node count.

--qdq quantizes the model the way onnxruntime's quantizer (QDQ format) and TFLite
converters write it: every activation goes through QuantizeLinear -> DequantizeLinear
(uint8, one scale per tensor), and each Conv kernel is int8, quantized per output channel
and stored OHWI (TFLite's layout) behind DequantizeLinear -> Transpose to OIHW; a depthwise
kernel is stored HWC1 (TensorFlow's, a multiplier of 1) behind DequantizeLinear -> Reshape
to HW1C -> Transpose to C1HW, as tf2onnx converts it.
"""
import argparse
import os

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

TO_NCHW = [0, 3, 1, 2]
TO_NHWC = [0, 2, 3, 1]


class Builder:
    def __init__(self, seed):
        self.nodes, self.inits, self.count = [], [], 0
        self.rng = np.random.default_rng(seed)

    def name(self, prefix):
        self.count += 1
        return f"{prefix}_{self.count}"

    def const(self, array, prefix="w"):
        name = self.name(prefix)
        self.inits.append(numpy_helper.from_array(np.asarray(array), name))
        return name

    def op(self, op_type, inputs, **attrs):
        out = self.name(op_type.lower())
        self.nodes.append(helper.make_node(op_type, inputs, [out], name=self.name("n"), **attrs))
        return out

    def nchw(self, op_type, x, extra_inputs=(), **attrs):
        """A layout-sensitive op the converter way: NHWC -> NCHW -> op -> NHWC."""
        a = self.op("Transpose", [x], perm=TO_NCHW)
        y = self.op(op_type, [a, *extra_inputs], **attrs)
        return self.op("Transpose", [y], perm=TO_NHWC)

    def conv(self, x, cin, cout, k=3):
        w = self.const(self.rng.normal(0, 0.2, (cout, cin, k, k)).astype(np.float32))
        b = self.const(self.rng.normal(0, 0.1, (cout,)).astype(np.float32))
        p = k // 2
        return self.nchw("Conv", x, [w, b], pads=[p, p, p, p])

    def depthwise(self, x, c, k=3):
        w = self.const(self.rng.normal(0, 0.3, (c, 1, k, k)).astype(np.float32))
        p = k // 2
        return self.nchw("Conv", x, [w], pads=[p, p, p, p], group=c)

    def batchnorm(self, x, c):
        params = [self.const(self.rng.uniform(0.5, 1.5, (c,)).astype(np.float32)),
                  self.const(self.rng.normal(0, 0.1, (c,)).astype(np.float32)),
                  self.const(self.rng.normal(0, 0.1, (c,)).astype(np.float32)),
                  self.const(self.rng.uniform(0.5, 1.5, (c,)).astype(np.float32))]
        return self.nchw("BatchNormalization", x, params)

    def head(self, x, c, classes=10):
        pooled = self.op("ReduceMean", [x], axes=[1, 2], keepdims=0)
        w = self.const(self.rng.normal(0, 0.3, (c, classes)).astype(np.float32))
        return self.op("Softmax", [self.op("MatMul", [pooled, w])], axis=-1)


class QuantizedBuilder(Builder):
    """Builder with --qdq: activations through QuantizeLinear -> DequantizeLinear, Conv
    kernels int8 per output channel in OHWI behind DequantizeLinear -> Transpose."""

    # Outputs not quantized: the head's (quantizers leave it in float) and the quantizing
    # nodes' own.
    NOT_QUANTIZED = {"Softmax", "MatMul", "ReduceMean", "ReduceMax", "QuantizeLinear", "DequantizeLinear"}

    def op(self, op_type, inputs, **attrs):
        out = super().op(op_type, inputs, **attrs)
        if op_type in self.NOT_QUANTIZED:
            return out
        scale = self.const(np.array(0.05, dtype=np.float32), "scale")
        zero_point = self.const(np.array(128, dtype=np.uint8), "zero_point")
        return self.op("DequantizeLinear", [self.op("QuantizeLinear", [out, scale, zero_point]), scale, zero_point])

    def quantized_weight(self, w, axis):
        """DequantizeLinear of `w` in int8, one symmetric scale per index of `axis`."""
        others = tuple(d for d in range(w.ndim) if d != axis)
        scales = (np.abs(w).max(axis=others) / 127).astype(np.float32)
        quantized = np.round(w / np.expand_dims(scales, others)).astype(np.int8)
        return self.op("DequantizeLinear", [self.const(quantized, "wq"), self.const(scales, "w_scale"),
                                            self.const(np.zeros(w.shape[axis], np.int8), "w_zero_point")], axis=axis)

    def conv(self, x, cin, cout, k=3):
        ohwi = self.quantized_weight(self.rng.normal(0, 0.2, (cout, k, k, cin)).astype(np.float32), axis=0)
        oihw = super().op("Transpose", [ohwi], perm=TO_NCHW)
        b = self.const(self.rng.normal(0, 0.1, (cout,)).astype(np.float32))
        p = k // 2
        return self.nchw("Conv", x, [oihw, b], pads=[p, p, p, p])

    def depthwise(self, x, c, k=3):
        hwc1 = self.quantized_weight(self.rng.normal(0, 0.3, (k, k, c, 1)).astype(np.float32), axis=2)
        hw1c = super().op("Reshape", [hwc1, self.const(np.array([k, k, 1, c], dtype=np.int64), "shape")])
        c1hw = super().op("Transpose", [hw1c], perm=[3, 2, 0, 1])
        p = k // 2
        return self.nchw("Conv", x, [c1hw], pads=[p, p, p, p], group=c)


def resnet(b, blocks):
    c = 8
    h = b.op("Relu", [b.conv("x", 3, c)])
    for _ in range(blocks):
        y = b.op("Relu", [b.batchnorm(b.conv(h, c, c), c)])
        y = b.batchnorm(b.conv(y, c, c), c)
        h = b.op("Relu", [b.op("Add", [y, h])])
    return b.head(h, c), [1, 16, 16, 3]


def unet(b, _):
    c = 8
    skip = b.op("Relu", [b.conv("x", 3, c)])
    down = b.nchw("MaxPool", skip, kernel_shape=[2, 2], strides=[2, 2])
    down = b.op("Relu", [b.conv(down, c, c)])
    scales = b.const(np.array([1, 1, 2, 2], dtype=np.float32), "scales")
    up = b.nchw("Resize", down, ["", scales], mode="nearest")
    cat = b.op("Concat", [up, skip], axis=3)
    padded = b.op("Pad", [cat, b.const(np.array([0, 1, 1, 0, 0, 1, 1, 0], dtype=np.int64), "pads")])
    y = b.op("Relu", [b.conv(padded, 2 * c, c)])
    pooled = b.op("ReduceMean", [y], axes=[1, 2], keepdims=1)
    return b.op("Softmax", [pooled], axis=-1), [1, 16, 16, 3]


def inception(b, _):
    c = 8
    stem = b.op("Relu", [b.conv("x", 3, c)])
    branches = [b.op("Relu", [b.conv(stem, c, c, k)]) for k in (1, 3, 1)]
    branches.append(b.op("Relu", [b.depthwise(stem, c)]))
    cat = b.op("Concat", branches, axis=-1)
    pooled = b.nchw("AveragePool", cat, kernel_shape=[3, 3], pads=[1, 1, 1, 1])
    scale = b.const(b.rng.uniform(0.5, 1.5, (4 * c,)).astype(np.float32), "scale")
    gated = b.op("Sigmoid", [b.op("Mul", [pooled, scale])])
    y = b.op("ReduceMax", [gated], axes=[1, 2], keepdims=0)
    return b.op("Softmax", [y], axis=1), [1, 16, 16, 3]


def chain(b, size):
    c = 8
    h = "x"
    scale = b.const(np.linspace(0.5, 1.5, c).astype(np.float32), "scale")
    for _ in range(max(1, size // 5)):
        h = b.nchw("MaxPool", h, kernel_shape=[1, 1])
        h = b.op("Mul", [b.op("Relu", [h]), scale])
    return h, [1, 4, 4, c]


def ladder(b, size):
    c = 8
    h = "x"
    bias = b.const(np.linspace(-0.5, 0.5, c).astype(np.float32), "bias")
    for _ in range(max(1, size // 6)):
        y = b.op("Relu", [b.nchw("MaxPool", h, kernel_shape=[1, 1])])
        h = b.op("Add", [b.op("Add", [y, bias]), h])
    return h, [1, 4, 4, c]


KINDS = {"resnet": resnet, "unet": unet, "inception": inception, "chain": chain, "ladder": ladder}


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("kind", choices=sorted(KINDS))
    parser.add_argument("out")
    parser.add_argument("--size", type=int, default=3)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--qdq", action="store_true", help="quantize it (QDQ format, see above)")
    args = parser.parse_args()
    b = (QuantizedBuilder if args.qdq else Builder)(args.seed)
    output, input_shape = KINDS[args.kind](b, args.size)
    graph = helper.make_graph(b.nodes, args.kind,
                              [helper.make_tensor_value_info("x", TensorProto.FLOAT, input_shape)],
                              [helper.make_tensor_value_info(output, TensorProto.FLOAT, None)], b.inits)
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 13)], ir_version=8)
    # The output's shape, as onnx infers it (the checker wants one).
    model.graph.output[0].type.tensor_type.ClearField("shape")
    inferred = onnx.shape_inference.infer_shapes(model)
    model.graph.output[0].CopyFrom(inferred.graph.output[0])
    onnx.checker.check_model(model)
    os.makedirs(os.path.dirname(os.path.abspath(args.out)), exist_ok=True)
    onnx.save(model, args.out)
    print(len(b.nodes))


if __name__ == "__main__":
    main()
