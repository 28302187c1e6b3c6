#!/usr/bin/python3
"""Builds small convolution networks the way exporters write them, with random weights.

    /usr/bin/python3 bench/make_convnets.py OUTPUT_DIR [--seed 0]

Writes, each with input x [N, 3, 32, 32] (N symbolic) and output y [N, 10]:
  resnet.onnx      Conv-BatchNormalization-Relu blocks with residual Add, the second
                   convolution of a block as Conv-Mul-Add (converters that split the
                   BatchNormalization into a scale and a shift write it so)
  densenet.onnx    dense blocks: BatchNormalization-Relu-Conv on the Concat of all
                   previous features, transitions with AveragePool
  inception.onnx   parallel 1x1 / 3x3 / 5x5 / pool branches with explicit Pad nodes
                   before the convolutions (TensorFlow converters), joined by Concat
  mobilenet.onnx   depthwise (group = channels) and pointwise convolutions, each followed
                   by BatchNormalization and Clip(0, 6)
  resnet_ir3.onnx  resnet.onnx as an IR version 3 model: every initializer is also
                   listed among the graph inputs, as IR 3 required
Each ends with a classifier head GlobalAveragePool-Flatten-MatMul-Add (torch's Linear in
older exports) or Gemm. Weights are random and non-constant per channel, BatchNormalization
statistics are random with positive variances, so that every folding is exercised.
Needs onnx and numpy (Debian's /usr/bin/python3).
"""
import argparse
import os

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

OPSET = 13


class Net:
    """A graph under construction: unique names, random initializers."""

    def __init__(self, name, rng):
        self.name = name
        self.rng = rng
        self.nodes = []
        self.initializers = []
        self.count = 0

    def fresh(self, prefix):
        self.count += 1
        return f"{prefix}_{self.count}"

    def weight(self, prefix, shape, scale=None):
        fan_in = int(np.prod(shape[1:])) if len(shape) > 1 else 1
        scale = scale if scale is not None else 1.0 / np.sqrt(fan_in)
        name = self.fresh(prefix)
        data = (self.rng.standard_normal(shape) * scale).astype(np.float32)
        self.initializers.append(numpy_helper.from_array(data, name))
        return name

    def constant(self, prefix, array):
        name = self.fresh(prefix)
        self.initializers.append(numpy_helper.from_array(np.asarray(array, dtype=np.float32), name))
        return name

    def node(self, op, inputs, **attrs):
        out = self.fresh(op.lower())
        self.nodes.append(helper.make_node(op, inputs, [out], name=out, **attrs))
        return out

    def conv(self, x, cin, cout, k, stride=1, group=1, bias=True, pad=None):
        pad = k // 2 if pad is None else pad
        w = self.weight("w", [cout, cin // group, k, k])
        inputs = [x, w] + ([self.weight("b", [cout], 0.1)] if bias else [])
        return self.node("Conv", inputs, kernel_shape=[k, k], strides=[stride, stride], pads=[pad] * 4, group=group)

    def batch_norm(self, x, c):
        scale = self.constant("gamma", self.rng.uniform(0.5, 1.5, c))
        shift = self.constant("beta", self.rng.uniform(-0.2, 0.2, c))
        mean = self.constant("mean", self.rng.uniform(-0.2, 0.2, c))
        var = self.constant("var", self.rng.uniform(0.5, 2.0, c))
        return self.node("BatchNormalization", [x, scale, shift, mean, var], epsilon=1e-5)

    def scale_shift(self, x, c):
        """A BatchNormalization split into Mul and Add of [C, 1, 1] constants."""
        scale = self.constant("scale", self.rng.uniform(0.5, 1.5, (c, 1, 1)))
        shift = self.constant("shift", self.rng.uniform(-0.2, 0.2, (c, 1, 1)))
        return self.node("Add", [self.node("Mul", [x, scale]), shift])

    def head(self, x, c, classes=10, gemm=False):
        pooled = self.node("GlobalAveragePool", [x])
        flat = self.node("Flatten", [pooled], axis=1)
        if gemm:
            w = self.weight("fc_w", [classes, c])
            return self.node("Gemm", [flat, w, self.weight("fc_b", [classes], 0.1)], transB=1)
        product = self.node("MatMul", [flat, self.weight("fc_w", [c, classes])])
        return self.node("Add", [product, self.weight("fc_b", [classes], 0.1)])

    def model(self, y):
        graph = helper.make_graph(
            self.nodes, self.name,
            [helper.make_tensor_value_info("x", TensorProto.FLOAT, ["N", 3, 32, 32])],
            [helper.make_tensor_value_info(y, TensorProto.FLOAT, ["N", 10])],
            self.initializers)
        model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", OPSET)],
                                  producer_name="make_convnets.py")
        model.ir_version = 7
        onnx.checker.check_model(model)
        return model


def resnet(rng):
    net = Net("resnet", rng)
    x = net.node("Relu", [net.batch_norm(net.conv("x", 3, 16, 3, bias=False), 16)])
    channels = 16
    for stage, out_channels in enumerate([16, 32, 64]):
        for block in range(2):
            stride = 2 if stage > 0 and block == 0 else 1
            h = net.node("Relu", [net.batch_norm(net.conv(x, channels, out_channels, 3, stride, bias=False),
                                                 out_channels)])
            h = net.scale_shift(net.conv(h, out_channels, out_channels, 3, bias=False), out_channels)
            shortcut = x
            if stride != 1 or channels != out_channels:
                shortcut = net.batch_norm(net.conv(x, channels, out_channels, 1, stride, bias=False), out_channels)
            x = net.node("Relu", [net.node("Add", [h, shortcut])])
            channels = out_channels
    return net.model(net.head(x, channels))


def densenet(rng):
    net = Net("densenet", rng)
    x = net.conv("x", 3, 16, 3, bias=False)
    channels, growth = 16, 8
    for block in range(3):
        features = [x]
        for _ in range(3):
            joined = features[0] if len(features) == 1 else net.node("Concat", features, axis=1)
            h = net.node("Relu", [net.batch_norm(joined, channels)])
            h = net.conv(h, channels, 4 * growth, 1, bias=False)
            h = net.node("Relu", [net.batch_norm(h, 4 * growth)])
            features.append(net.conv(h, 4 * growth, growth, 3, bias=False))
            channels += growth
        x = net.node("Concat", features, axis=1)
        if block < 2:
            x = net.conv(net.node("Relu", [net.batch_norm(x, channels)]), channels, channels // 2, 1, bias=False)
            x = net.node("AveragePool", [x], kernel_shape=[2, 2], strides=[2, 2])
            channels //= 2
    x = net.node("Relu", [net.batch_norm(x, channels)])
    return net.model(net.head(x, channels))


def inception(rng):
    net = Net("inception", rng)
    x = net.node("Relu", [net.batch_norm(net.conv("x", 3, 16, 3, 2, bias=False), 16)])
    channels = 16

    def padded_conv(h, cin, cout, k):
        pads = net.fresh("pads")
        half = k // 2
        net.initializers.append(numpy_helper.from_array(np.array([0, 0, half, half, 0, 0, half, half], np.int64),
                                                        pads))
        h = net.node("Pad", [h, pads], mode="constant")
        return net.node("Relu", [net.batch_norm(net.conv(h, cin, cout, k, bias=False, pad=0), cout)])

    for _ in range(2):
        b1 = padded_conv(x, channels, 8, 1)
        b3 = padded_conv(padded_conv(x, channels, 8, 1), 8, 12, 3)
        b5 = padded_conv(padded_conv(x, channels, 4, 1), 4, 6, 5)
        pool = net.node("MaxPool", [x], kernel_shape=[3, 3], strides=[1, 1], pads=[1, 1, 1, 1])
        bp = padded_conv(pool, channels, 6, 1)
        x = net.node("Concat", [b1, b3, b5, bp], axis=1)
        channels = 8 + 12 + 6 + 6
    x = net.node("MaxPool", [x], kernel_shape=[2, 2], strides=[2, 2])
    return net.model(net.head(x, channels, gemm=True))


def mobilenet(rng):
    net = Net("mobilenet", rng)
    six = net.constant("six", 6.0)
    zero = net.constant("zero", 0.0)

    def conv_bn_clip(h, cin, cout, k, stride=1, group=1):
        h = net.batch_norm(net.conv(h, cin, cout, k, stride, group, bias=False), cout)
        return net.node("Clip", [h, zero, six])

    x = conv_bn_clip("x", 3, 16, 3, 2)
    channels = 16
    for out_channels, stride in [(24, 1), (32, 2), (32, 1), (64, 2)]:
        x = conv_bn_clip(x, channels, channels, 3, stride, group=channels)  # depthwise
        x = conv_bn_clip(x, channels, out_channels, 1)  # pointwise
        channels = out_channels
    return net.model(net.head(x, channels, gemm=True))


def as_ir3(model):
    """The same model as IR version 3 requires it: every initializer is a graph input."""
    legacy = onnx.ModelProto()
    legacy.CopyFrom(model)
    legacy.ir_version = 3
    for init in legacy.graph.initializer:
        legacy.graph.input.append(helper.make_tensor_value_info(init.name, init.data_type, list(init.dims)))
    onnx.checker.check_model(legacy)
    return legacy


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("output_dir")
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args()
    os.makedirs(args.output_dir, exist_ok=True)
    rng = np.random.default_rng(args.seed)
    models = {name: build(rng) for name, build in
              [("resnet", resnet), ("densenet", densenet), ("inception", inception), ("mobilenet", mobilenet)]}
    models["resnet_ir3"] = as_ir3(models["resnet"])
    for name, model in models.items():
        onnx.save(model, os.path.join(args.output_dir, name + ".onnx"))
        print(f"{name}.onnx: {len(model.graph.node)} nodes")


if __name__ == "__main__":
    main()
