#!/usr/bin/python3
"""Generates the graphs on which `onnxopt memory` was once quadratic or worse in a count
(bench/memory_scale.sh times them).

Usage: /usr/bin/python3 bench/make_memory_scale.py OUT_DIR --count N [--count M ...]

Writes, for each N (opset 18, float[4] values):
  calls_N.onnx    a chain of N calls of a local function whose body copies its input
                  (Identity) before a Relu: copy elimination decides each call's copy in
                  that call's instance of the body
  fanout_N.onnx   one value read by N Identity copies, each read by a Neg, the Negs summed
                  in a chain: every copy is a sibling of every other
  writers_N.onnx  N ScatterND nodes, each writing into a ConstantOfShape buffer of its
                  own, summed in a chain: N writers the plan runs in place
  viewchain_N.onnx  a chain of N Reshapes, its end read by N Identity copies, each read
                  by a Neg, the Negs summed in a chain: every trace crosses the N views
"""

import argparse
import os

import onnx
from onnx import TensorProto, helper, numpy_helper
import numpy as np

FLOAT = TensorProto.FLOAT
OPSET = [helper.make_opsetid("", 18)]


def model(nodes, inputs, output, initializers=(), functions=(), opsets=OPSET):
    graph = helper.make_graph(nodes, "g", inputs, [helper.make_tensor_value_info(output, FLOAT, [4])],
                              initializer=list(initializers))
    return helper.make_model(graph, opset_imports=opsets, functions=list(functions), ir_version=8)


def calls(n):
    body = helper.make_function("local", "f", ["p"], ["q"],
                                [helper.make_node("Identity", ["p"], ["t"]), helper.make_node("Relu", ["t"], ["q"])],
                                OPSET)
    nodes, previous = [], "x"
    for i in range(n):
        nodes.append(helper.make_node("f", [previous], [f"y{i}"], domain="local"))
        previous = f"y{i}"
    return model(nodes, [helper.make_tensor_value_info("x", FLOAT, [4])], previous, functions=[body],
                 opsets=OPSET + [helper.make_opsetid("local", 1)])


def fanout(n):
    nodes, total = [helper.make_node("Relu", ["x"], ["a"])], "x"
    for i in range(n):
        nodes.append(helper.make_node("Identity", ["a"], [f"t{i}"]))
        nodes.append(helper.make_node("Neg", [f"t{i}"], [f"n{i}"]))
        nodes.append(helper.make_node("Add", [total, f"n{i}"], [f"s{i}"]))
        total = f"s{i}"
    return model(nodes, [helper.make_tensor_value_info("x", FLOAT, [4])], total)


def viewchain(n):
    nodes, view = [helper.make_node("Relu", ["x"], ["v"])], "v"
    for i in range(n):
        nodes.append(helper.make_node("Reshape", [view, "shape"], [f"v{i}"]))
        view = f"v{i}"
    total = "x"
    for i in range(n):
        nodes.append(helper.make_node("Identity", [view], [f"t{i}"]))
        nodes.append(helper.make_node("Neg", [f"t{i}"], [f"n{i}"]))
        nodes.append(helper.make_node("Add", [total, f"n{i}"], [f"s{i}"]))
        total = f"s{i}"
    shape = numpy_helper.from_array(np.array([4], dtype=np.int64), "shape")
    return model(nodes, [helper.make_tensor_value_info("x", FLOAT, [4])], total, initializers=[shape])


def writers(n):
    nodes, total = [], "x"
    for i in range(n):
        nodes.append(helper.make_node("ConstantOfShape", ["shape"], [f"z{i}"]))
        nodes.append(helper.make_node("ScatterND", [f"z{i}", "idx", "upd"], [f"w{i}"]))
        nodes.append(helper.make_node("Add", [total, f"w{i}"], [f"s{i}"]))
        total = f"s{i}"
    inputs = [helper.make_tensor_value_info("x", FLOAT, [4]),
              helper.make_tensor_value_info("idx", TensorProto.INT64, [1, 1]),
              helper.make_tensor_value_info("upd", FLOAT, [1])]
    shape = numpy_helper.from_array(np.array([4], dtype=np.int64), "shape")
    return model(nodes, inputs, total, initializers=[shape])


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("out_dir")
    parser.add_argument("--count", type=int, action="append", required=True)
    args = parser.parse_args()
    os.makedirs(args.out_dir, exist_ok=True)
    for n in args.count:
        for name, make in (("calls", calls), ("fanout", fanout), ("writers", writers), ("viewchain", viewchain)):
            path = os.path.join(args.out_dir, f"{name}_{n}.onnx")
            onnx.save(make(n), path)
            print(path)


if __name__ == "__main__":
    main()
