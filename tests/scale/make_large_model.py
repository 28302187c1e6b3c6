#!/usr/bin/python3
"""Writes a model with more than 4 GiB of float32 weights stored as external data,
streaming the weights to disk chunk by chunk (never more than one chunk in memory).

Usage: make_large_model.py OUT_DIR TOTAL_GIB [NUM_WEIGHTS]
Writes OUT_DIR/large.onnx and OUT_DIR/large.onnx.data and prints a JSON summary.

Graph (x is a float scalar input, W0..W{n-1} initializers of shape [rows, 1024]):
  Wi -> Identity -> ReduceSum(keepdims=0) -> si        for every weight
  W0 -> Identity -> ReduceSum -> s0_dup                a duplicate of s0's nodes
  y = Sum(x, s0, s0_dup, s1, ..., s{n-1})
  W1 -> Neg -> dead                                    unused: removed by cleanup
The last weight holds the same bytes as W0 (a duplicate initializer pair). Cleanup must
remove the Identity nodes, the duplicate nodes, the dead node and one of the duplicate
initializers.
"""
import json
import os
import sys

import numpy as np
import onnx
from onnx import TensorProto, helper

COLS = 1024
CHUNK_ROWS = 4096  # 16 MiB per chunk


def weight_chunk(index, row_start, rows):
    # Deterministic content, different for every weight index.
    base = np.arange(row_start * COLS, (row_start + rows) * COLS, dtype=np.int64)
    return ((base % 1021).astype(np.float32) * np.float32(1e-3) + np.float32(index))


def main():
    out_dir = sys.argv[1]
    total_gib = float(sys.argv[2])
    count = int(sys.argv[3]) if len(sys.argv) > 3 else 20
    total_bytes = int(total_gib * (1 << 30))
    rows = max(1, total_bytes // count // (4 * COLS))
    tensor_bytes = rows * COLS * 4
    model_path = os.path.join(out_dir, "large.onnx")
    data_name = "large.onnx.data"
    data_path = os.path.join(out_dir, data_name)

    initializers = []
    offset = 0
    with open(data_path, "wb") as data:
        for i in range(count):
            source = 0 if i == count - 1 else i  # the last weight duplicates W0
            for start in range(0, rows, CHUNK_ROWS):
                n = min(CHUNK_ROWS, rows - start)
                data.write(weight_chunk(source, start, n).tobytes())
            t = TensorProto()
            t.name = f"W{i}"
            t.data_type = TensorProto.FLOAT
            t.dims.extend([rows, COLS])
            t.data_location = TensorProto.EXTERNAL
            for key, value in (("location", data_name), ("offset", str(offset)), ("length", str(tensor_bytes))):
                entry = t.external_data.add()
                entry.key = key
                entry.value = value
            initializers.append(t)
            offset += tensor_bytes

    nodes = []
    sums = ["x"]
    for i in range(count):
        nodes.append(helper.make_node("Identity", [f"W{i}"], [f"id{i}"], name=f"identity{i}"))
        nodes.append(helper.make_node("ReduceSum", [f"id{i}"], [f"s{i}"], name=f"reduce{i}", keepdims=0))
        sums.append(f"s{i}")
    nodes.append(helper.make_node("Identity", ["W0"], ["id0_dup"], name="identity0_dup"))
    nodes.append(helper.make_node("ReduceSum", ["id0_dup"], ["s0_dup"], name="reduce0_dup", keepdims=0))
    sums.append("s0_dup")
    nodes.append(helper.make_node("Neg", ["W1"], ["dead"], name="dead_neg"))
    nodes.append(helper.make_node("Sum", sums, ["y"], name="sum"))
    graph = helper.make_graph(
        nodes, "scale",
        [helper.make_tensor_value_info("x", TensorProto.FLOAT, [])],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, [])],
        initializers)
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 18)])
    model.ir_version = 8
    with open(model_path, "wb") as f:
        f.write(model.SerializeToString())
    print(json.dumps({"model": model_path, "data": data_path, "weights": count,
                      "tensor_bytes": tensor_bytes, "weight_bytes": offset,
                      "nodes": len(nodes)}))


if __name__ == "__main__":
    main()
