#!/usr/bin/python3
"""Generates clone-then-update graphs for `onnxopt memory` and the in-place evaluator.

Usage: /usr/bin/python3 bench/make_copy_graphs.py OUT_DIR [--layers N] [--seq S]

Writes (opset 18 unless said otherwise):
  kv_cache_scatternd.onnx     N layers of a KV-cache update: past_k/past_v (graph inputs)
                              cloned (Identity), one row written by ScatterND at position
                              `pos`, then read by a MatMul/Softmax/MatMul attention
  kv_cache_tensorscatter.onnx the same with TensorScatter (opset 24; onnxruntime may not
                              run it)
  clone_index_put.onnx        exporter pattern of `x.clone(); x[idx] = v`: ConstantOfShape
                              or Relu output -> Identity -> ScatterND / ScatterElements,
                              with a reader of the original that forces an ordering
  view_chain.onnx             chains of views (Reshape/Unsqueeze/Squeeze) with Identity
                              copies between them (standard operators only, so that
                              onnxruntime runs it)

Graphs are built with onnx.helper (no onnx.checker on opset 24: onnx 1.12 stops at 17).
"""

import argparse
import os

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

FLOAT = TensorProto.FLOAT
INT64 = TensorProto.INT64


def const(name, array):
    return numpy_helper.from_array(np.asarray(array), name)


def save(model, out_dir, name):
    path = os.path.join(out_dir, name)
    onnx.save(model, path)
    print(path)


def kv_cache(layers, seq, heads, dim, writer):
    """Each layer: k_i = clone(past_k_i); k_i[:, :, pos] = new; attention reads k_i, v_i."""
    nodes, inputs, outputs, inits = [], [], [], []
    inputs.append(helper.make_tensor_value_info("q", FLOAT, [1, heads, 1, dim]))
    inputs.append(helper.make_tensor_value_info("pos", INT64, [1]))
    inits.append(const("one_row_shape", np.array([1, heads, 1, dim], dtype=np.int64)))
    inits.append(const("axis0", np.array([0], dtype=np.int64)))
    hidden = "q"
    for i in range(layers):
        for kind in ("k", "v"):
            past, new, clone, present = f"past_{kind}{i}", f"new_{kind}{i}", f"clone_{kind}{i}", f"present_{kind}{i}"
            inputs.append(helper.make_tensor_value_info(past, FLOAT, [1, heads, seq, dim]))
            nodes.append(helper.make_node("Relu", [hidden], [new]))
            nodes.append(helper.make_node("Identity", [past], [clone]))
            if writer == "ScatterND":
                # Indices [[0, h, pos]] for every head h: one row per head.
                idx = f"idx_{kind}{i}"
                nodes.append(helper.make_node("Unsqueeze", ["pos", "axis0"], [idx + "_p"]))
                nodes.append(helper.make_node("Expand", [idx + "_p", "heads_1"], [idx + "_e"]))
                nodes.append(helper.make_node("Concat", ["zeros_h", "head_ids", idx + "_e"], [idx + "_c"], axis=1))
                nodes.append(helper.make_node("Reshape", [idx + "_c", "idx_shape"], [idx]))
                nodes.append(helper.make_node("Reshape", [new, "upd_shape"], [new + "_r"]))
                nodes.append(helper.make_node("ScatterND", [clone, idx, new + "_r"], [present]))
            else:
                nodes.append(helper.make_node("TensorScatter", [clone, new, "pos"], [present], axis=2))
            outputs.append(helper.make_tensor_value_info(present, FLOAT, [1, heads, seq, dim]))
        kt = f"kt{i}"
        nodes.append(helper.make_node("Transpose", [f"present_k{i}"], [kt], perm=[0, 1, 3, 2]))
        nodes.append(helper.make_node("MatMul", [hidden, kt], [f"s{i}"]))
        nodes.append(helper.make_node("Softmax", [f"s{i}"], [f"p{i}"], axis=-1))
        nodes.append(helper.make_node("MatMul", [f"p{i}", f"present_v{i}"], [f"h{i}"]))
        hidden = f"h{i}"
    outputs.insert(0, helper.make_tensor_value_info(hidden, FLOAT, [1, heads, 1, dim]))
    if writer == "ScatterND":
        inits.append(const("heads_1", np.array([heads, 1], dtype=np.int64)))
        inits.append(const("zeros_h", np.zeros((heads, 1), dtype=np.int64)))
        inits.append(const("head_ids", np.arange(heads, dtype=np.int64).reshape(heads, 1)))
        inits.append(const("idx_shape", np.array([1, heads, 3], dtype=np.int64)))
        inits.append(const("upd_shape", np.array([1, heads, dim], dtype=np.int64)))
    graph = helper.make_graph(nodes, "kv_cache", inputs, outputs, inits)
    opset = 18 if writer == "ScatterND" else 24
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", opset)])
    model.ir_version = 8 if opset == 18 else 10
    return model


def clone_index_put(n, width):
    nodes, inits = [], []
    inputs = [helper.make_tensor_value_info("x", FLOAT, [width]), helper.make_tensor_value_info("v", FLOAT, [1])]
    inits.append(const("shape", np.array([width], dtype=np.int64)))
    inits.append(const("idx", np.array([[1]], dtype=np.int64)))
    inits.append(const("eidx", np.array([2], dtype=np.int64)))
    outputs = []
    current = "x"
    for i in range(n):
        base, clone, upd, reader = f"base{i}", f"clone{i}", f"upd{i}", f"read{i}"
        if i % 2 == 0:
            nodes.append(helper.make_node("ConstantOfShape", ["shape"], [base + "_z"]))
            nodes.append(helper.make_node("Add", [base + "_z", current], [base]))
        else:
            nodes.append(helper.make_node("Relu", [current], [base]))
        nodes.append(helper.make_node("Identity", [base], [clone]))
        if i % 3 == 2:
            nodes.append(helper.make_node("ScatterElements", [clone, "eidx", "v"], [upd], axis=0))
        else:
            nodes.append(helper.make_node("ScatterND", [clone, "idx", "v"], [upd]))
        # A reader of the original after the update: the pass must order it first.
        nodes.append(helper.make_node("Neg", [base], [reader]))
        nodes.append(helper.make_node("Add", [upd, reader], [f"sum{i}"]))
        current = f"sum{i}"
    outputs.append(helper.make_tensor_value_info(current, FLOAT, [width]))
    graph = helper.make_graph(nodes, "clone_index_put", inputs, outputs, inits)
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 18)])
    model.ir_version = 8
    return model


def view_chain(n, rows, cols):
    nodes, inits = [], []
    inputs = [helper.make_tensor_value_info("x", FLOAT, [rows, cols])]
    inits.append(const("flat", np.array([rows * cols], dtype=np.int64)))
    inits.append(const("square", np.array([rows, cols], dtype=np.int64)))
    inits.append(const("axis0", np.array([0], dtype=np.int64)))
    current = "x"
    for i in range(n):
        nodes.append(helper.make_node("Relu", [current], [f"a{i}"]))
        nodes.append(helper.make_node("Reshape", [f"a{i}", "flat"], [f"f{i}"]))
        nodes.append(helper.make_node("Identity", [f"f{i}"], [f"c{i}"]))
        nodes.append(helper.make_node("Unsqueeze", [f"c{i}", "axis0"], [f"u{i}"]))
        nodes.append(helper.make_node("Identity", [f"u{i}"], [f"t{i}"]))
        nodes.append(helper.make_node("Squeeze", [f"t{i}", "axis0"], [f"q{i}"]))
        nodes.append(helper.make_node("Reshape", [f"q{i}", "square"], [f"r{i}"]))
        nodes.append(helper.make_node("Sigmoid", [f"r{i}"], [f"s{i}"]))
        current = f"s{i}"
    outputs = [helper.make_tensor_value_info(current, FLOAT, [rows, cols])]
    graph = helper.make_graph(nodes, "view_chain", inputs, outputs, inits)
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 18)])
    model.ir_version = 8
    return model


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("out_dir")
    parser.add_argument("--layers", type=int, default=4)
    parser.add_argument("--seq", type=int, default=256)
    args = parser.parse_args()
    os.makedirs(args.out_dir, exist_ok=True)
    save(kv_cache(args.layers, args.seq, 4, 64, "ScatterND"), args.out_dir, "kv_cache_scatternd.onnx")
    save(kv_cache(args.layers, args.seq, 4, 64, "TensorScatter"), args.out_dir, "kv_cache_tensorscatter.onnx")
    save(clone_index_put(8, 1024), args.out_dir, "clone_index_put.onnx")
    save(view_chain(6, 64, 64), args.out_dir, "view_chain.onnx")


if __name__ == "__main__":
    main()
