#!/usr/bin/env python3
"""Single-op MatMul / Conv models for bench/kernels_vs_ort.sh (issue 4, "Done when" 4).

Usage: make_kernel_models.py OUT_DIR [--repeat R] [--only NAME,...]

For every case NAME writes
  OUT_DIR/NAME.onnx          one node:      X -> op(X, W) -> Y
  OUT_DIR/NAME_xK.onnx       K = R+1 nodes: the same node K times, every copy reading
                             the graph input X and the shared initializer W and writing
                             its own graph output (Y, Y_1, ..., Y_R)
and prints one line per case: NAME FLOPS_PER_NODE K (tab separated).

The K-node model has exactly the shapes of the 1-node model (no chaining, so no shape
needs to be changed), and since every output is a graph output no node is dead. The
difference of the two run times, divided by R, is the time of one node without the
model loading, input drawing and process start that `onnxopt run` also includes.
float32, opset 18, weights uniform in [-a, a) with a = sqrt(3 / fan_in) (unit variance
of the outputs: no overflow, no denormals).
"""
import argparse
import math
import os
import sys

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

# name, op, X shape, W shape, attributes, default repeat (R)
CASES = [
    ("matmul_512x1024x1024", "MatMul", [512, 1024], [1024, 1024], {}, 20),
    ("matmul_llama_1x128x4096x4096", "MatMul", [1, 128, 4096], [4096, 4096], {}, 6),
    ("matmul_batched_8x128x64x128", "MatMul", [8, 128, 64], [8, 64, 128], {}, 200),
    ("conv_1x64x56x56_k3_64", "Conv", [1, 64, 56, 56], [64, 64, 3, 3],
     {"pads": [1, 1, 1, 1], "kernel_shape": [3, 3]}, 40),
    ("conv_1x256x14x14_k3_256", "Conv", [1, 256, 14, 14], [256, 256, 3, 3],
     {"pads": [1, 1, 1, 1], "kernel_shape": [3, 3]}, 40),
    ("conv_dw_1x32x112x112_k3_g32", "Conv", [1, 32, 112, 112], [32, 1, 3, 3],
     {"pads": [1, 1, 1, 1], "kernel_shape": [3, 3], "group": 32}, 40),
]


def out_shape_and_flops(op, xs, ws, attrs):
    if op == "MatMul":
        m, k = xs[-2], xs[-1]
        k2, n = ws[-2], ws[-1]
        assert k == k2
        batch = xs[:-2] if len(xs) >= len(ws) else ws[:-2]
        ys = list(batch) + [m, n]
        return ys, 2 * math.prod(batch) * m * k * n
    # Conv, stride 1, dilation 1
    n, c, h, w = xs
    co, cig, kh, kw = ws
    p = attrs["pads"]
    ho, wo = h + p[0] + p[2] - kh + 1, w + p[1] + p[3] - kw + 1
    return [n, co, ho, wo], 2 * n * co * ho * wo * cig * kh * kw


def make(name, op, xs, ws, attrs, copies, rng):
    ys, _ = out_shape_and_flops(op, xs, ws, attrs)
    fan_in = ws[-2] if op == "MatMul" else math.prod(ws[1:])
    a = math.sqrt(3.0 / fan_in)
    w = rng.uniform(-a, a, size=ws).astype(np.float32)
    nodes, outputs = [], []
    for i in range(copies):
        y = "Y" if i == 0 else f"Y_{i}"
        nodes.append(helper.make_node(op, ["X", "W"], [y], name=f"{op.lower()}_{i}", **attrs))
        outputs.append(helper.make_tensor_value_info(y, TensorProto.FLOAT, ys))
    graph = helper.make_graph(
        nodes, name, [helper.make_tensor_value_info("X", TensorProto.FLOAT, xs)], outputs,
        initializer=[numpy_helper.from_array(w, "W")])
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 18)],
                              producer_name="onnxopt-bench")
    model.ir_version = 8
    onnx.checker.check_model(model)
    return model


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("out_dir")
    ap.add_argument("--repeat", type=int, default=0,
                    help="extra copies R in the K-node model (default: per case)")
    ap.add_argument("--only", default="", help="comma-separated case names")
    args = ap.parse_args()
    os.makedirs(args.out_dir, exist_ok=True)
    only = set(filter(None, args.only.split(",")))
    rng = np.random.default_rng(0)
    for name, op, xs, ws, attrs, rep in CASES:
        if only and name not in only:
            continue
        r = args.repeat or rep
        _, flops = out_shape_and_flops(op, xs, ws, attrs)
        onnx.save(make(name, op, xs, ws, attrs, 1, rng), os.path.join(args.out_dir, name + ".onnx"))
        onnx.save(make(name, op, xs, ws, attrs, r + 1, rng),
                  os.path.join(args.out_dir, f"{name}_x{r + 1}.onnx"))
        print(f"{name}\t{flops}\t{r + 1}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
