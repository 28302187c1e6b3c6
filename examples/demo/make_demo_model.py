#!/usr/bin/python3
"""Writes the demo model: a small LLaMA-style decoder layer in the style of PyTorch's
exporter (dynamic batch and sequence, Identity nodes, repeated subexpressions, duplicate
weights), so that the cleanup passes have work to do. Deterministic (fixed seed).

usage: make_demo_model.py OUTPUT.onnx
"""
import sys

import numpy as np
from onnx import TensorProto, helper, numpy_helper, save

HIDDEN, HEADS, FFN = 64, 4, 128
HEAD_DIM = HIDDEN // HEADS


def main(path):
    rng = np.random.default_rng(0)
    nodes, inits = [], []

    def weight(name, shape):
        inits.append(numpy_helper.from_array((rng.standard_normal(shape) * 0.05).astype(np.float32), name))
        return name

    def const(name, values, dtype=np.int64):
        inits.append(numpy_helper.from_array(np.array(values, dtype=dtype), name))
        return name

    def node(op, inputs, name, **attrs):
        nodes.append(helper.make_node(op, inputs, [name], name=f"{op}_{name}", **attrs))
        return name

    def rms_norm(x, scale, tag):
        # Written out as exporters do: Pow, ReduceMean, Add, Sqrt, Reciprocal, Mul.
        sq = node("Pow", [x, const(f"two_{tag}", 2.0, np.float32)], f"{tag}_sq")
        mean = node("ReduceMean", [sq, const(f"axes_{tag}", [-1])], f"{tag}_mean", keepdims=1)
        eps = node("Add", [mean, const(f"eps_{tag}", 1e-6, np.float32)], f"{tag}_eps")
        root = node("Sqrt", [eps], f"{tag}_sqrt")
        inv = node("Reciprocal", [root], f"{tag}_inv")
        normed = node("Mul", [x, inv], f"{tag}_normed")
        return node("Mul", [normed, scale], f"{tag}_out")

    x = node("Identity", ["hidden_states"], "x")
    # The same weight stored twice (exporters do this with tied parameters).
    values = rng.standard_normal((HIDDEN,)).astype(np.float32)
    inits.append(numpy_helper.from_array(values, "ln1_scale"))
    inits.append(numpy_helper.from_array(values.copy(), "ln2_scale"))
    h = rms_norm(x, "ln1_scale", "ln1")

    # Shape arithmetic computed twice, as exporters emit it for each projection.
    shape = node("Shape", [h], "shape")
    batch = node("Gather", [shape, const("zero", 0)], "batch", axis=0)
    seq = node("Gather", [shape, const("one", 1)], "seq", axis=0)
    shape_again = node("Shape", [h], "shape_again")
    batch_again = node("Gather", [shape_again, const("zero_again", 0)], "batch_again", axis=0)
    seq_again = node("Gather", [shape_again, const("one_again", 1)], "seq_again", axis=0)

    def heads(name, b, s):
        proj = node("MatMul", [h, weight(f"w_{name}", (HIDDEN, HIDDEN))], f"{name}_proj")
        ub = node("Unsqueeze", [b, const(f"ax0_{name}", [0])], f"{name}_ub")
        us = node("Unsqueeze", [s, const(f"ax0b_{name}", [0])], f"{name}_us")
        target = node("Concat", [ub, us, const(f"hd_{name}", [HEADS, HEAD_DIM])], f"{name}_shape", axis=0)
        reshaped = node("Reshape", [proj, target], f"{name}_4d")
        return node("Transpose", [reshaped], f"{name}_heads", perm=[0, 2, 1, 3])

    q = heads("q", batch, seq)
    k = heads("k", batch_again, seq_again)
    v = heads("v", batch, seq)
    kt = node("Transpose", [k], "kt", perm=[0, 1, 3, 2])
    scores = node("MatMul", [q, kt], "scores")
    scaled = node("Div", [scores, const("scale", float(np.sqrt(HEAD_DIM)), np.float32)], "scaled")
    scaled_id = node("Identity", [scaled], "scaled_id")
    probs = node("Softmax", [scaled_id], "probs", axis=-1)
    ctx = node("MatMul", [probs, v], "ctx")
    ctx_t = node("Transpose", [ctx], "ctx_t", perm=[0, 2, 1, 3])
    flat_shape = node("Concat", [node("Unsqueeze", [batch, const("ax0_f", [0])], "fb"),
                                 node("Unsqueeze", [seq, const("ax0_g", [0])], "fs"),
                                 const("hidden", [HIDDEN])], "flat_shape", axis=0)
    attn = node("Reshape", [ctx_t, flat_shape], "attn")
    out = node("MatMul", [attn, weight("w_o", (HIDDEN, HIDDEN))], "attn_out")
    res1 = node("Add", [x, out], "res1")

    h2 = rms_norm(res1, "ln2_scale", "ln2")
    gate = node("MatMul", [h2, weight("w_gate", (HIDDEN, FFN))], "gate")
    up = node("MatMul", [h2, weight("w_up", (HIDDEN, FFN))], "up")
    act = node("Mul", [gate, node("Sigmoid", [gate], "gate_sig")], "silu")
    mlp = node("MatMul", [node("Mul", [act, up], "gated"), weight("w_down", (FFN, HIDDEN))], "mlp")
    res2 = node("Add", [res1, mlp], "res2")
    node("Identity", [res2], "last_hidden_state")
    # A dead branch left behind by the exporter.
    node("Relu", [node("Neg", [res1], "dead_neg")], "dead_relu")

    graph = helper.make_graph(
        nodes, "tiny_llama_layer",
        [helper.make_tensor_value_info("hidden_states", TensorProto.FLOAT, ["batch", "seq", HIDDEN])],
        [helper.make_tensor_value_info("last_hidden_state", TensorProto.FLOAT, ["batch", "seq", HIDDEN])],
        inits)
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 18)], producer_name="onnxopt-demo")
    model.ir_version = 8
    save(model, path)


if __name__ == "__main__":
    main(sys.argv[1])
