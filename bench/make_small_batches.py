#!/usr/bin/python3
"""A large graph whose optimization changes a few nodes per round: the case where the
cleanup after a batch looks only around it (onnx_core/optimizer/batch_cleanup.h).

A chain of --chain Sigmoid nodes no pattern touches, beside a chain of 2**--rounds
Reshape nodes (to [8, 4] and back to [4, 8]) that ReshapeReshapePattern fuses pairwise,
halving it in each round. Usage: make_small_batches.py [--chain N] [--rounds R] OUT.onnx
"""
import argparse

import onnx
from onnx import TensorProto, helper


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--chain", type=int, default=100000, help="untouched Sigmoid nodes (default 100000)")
    parser.add_argument("--rounds", type=int, default=6, help="log2 of the Transpose chain's length (default 6)")
    parser.add_argument("output")
    args = parser.parse_args()

    nodes = []
    previous = "x"
    for i in range(args.chain):
        nodes.append(helper.make_node("Sigmoid", [previous], [f"s{i}"]))
        previous = f"s{i}"
    untouched = previous
    previous = "t_in"
    shapes = [helper.make_tensor("shape_84", TensorProto.INT64, [2], [8, 4]),
              helper.make_tensor("shape_48", TensorProto.INT64, [2], [4, 8])]
    for i in range(2 ** args.rounds):
        nodes.append(helper.make_node("Reshape", [previous, shapes[i % 2].name], [f"r{i}"]))
        previous = f"r{i}"
    graph = helper.make_graph(
        nodes, "small_batches",
        [helper.make_tensor_value_info("x", TensorProto.FLOAT, [4, 8]),
         helper.make_tensor_value_info("t_in", TensorProto.FLOAT, [4, 8])],
        [helper.make_tensor_value_info(untouched, TensorProto.FLOAT, [4, 8]),
         helper.make_tensor_value_info(previous, TensorProto.FLOAT, [4, 8])],
        initializer=shapes)
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 18)])
    model.ir_version = 8
    onnx.save(model, args.output)


if __name__ == "__main__":
    main()
