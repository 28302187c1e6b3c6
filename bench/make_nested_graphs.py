#!/usr/bin/python3
"""A chain of If nodes that all read one condition, each branch two nodes: the optimizer
runs once per nested graph, so what it costs per graph, beyond the graph's nodes, shows.

Node i computes y_i = If(c) with then: Identity(Relu(y_{i-1})), else: Identity(Neg(y_{i-1})).
Usage: make_nested_graphs.py [--ifs N] OUT.onnx   (default 300 If nodes, 600 nested graphs)
"""
import argparse

import onnx
from onnx import TensorProto, helper


def branch(name, op, source, result):
    body = [helper.make_node(op, [source], [result + "_t"]), helper.make_node("Identity", [result + "_t"], [result])]
    return helper.make_graph(body, name, [], [helper.make_tensor_value_info(result, TensorProto.FLOAT, [4])])


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--ifs", type=int, default=300, help="If nodes (default 300)")
    parser.add_argument("output")
    args = parser.parse_args()

    nodes = []
    previous = "x"
    for i in range(args.ifs):
        nodes.append(helper.make_node("If", ["c"], [f"y{i}"],
                                      then_branch=branch(f"then{i}", "Relu", previous, f"r{i}"),
                                      else_branch=branch(f"else{i}", "Neg", previous, f"n{i}")))
        previous = f"y{i}"
    graph = helper.make_graph(nodes, "nested_graphs",
                              [helper.make_tensor_value_info("x", TensorProto.FLOAT, [4]),
                               helper.make_tensor_value_info("c", TensorProto.BOOL, [])],
                              [helper.make_tensor_value_info(previous, TensorProto.FLOAT, [4])])
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 18)])
    model.ir_version = 8
    onnx.checker.check_model(model)
    onnx.save(model, args.output)


if __name__ == "__main__":
    main()
