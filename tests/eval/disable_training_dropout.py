#!/usr/bin/python3
"""Copies a model with every training-mode Dropout switched to inference mode.

Dropout with training_mode=true draws a random mask: onnxruntime's generator cannot be
reproduced by onnxopt's evaluator (which refuses to guess), so a model with such nodes
is compared with its Dropouts made deterministic. The training_mode input of each
Dropout (main graph, nested graphs, local functions) is replaced by a new false
constant; everything else is unchanged.

Usage: disable_training_dropout.py IN OUT   prints the number of Dropout nodes changed.
(Debian's /usr/bin/python3 with python3-onnx)
"""
import sys

import onnx
from onnx import helper, TensorProto


def rewrite(nodes, graph_initializers):
    count = 0
    for node in nodes:
        if node.op_type == "Dropout" and node.domain in ("", "ai.onnx") and len(node.input) >= 3 and node.input[2]:
            name = f"disable_training_dropout_false_{count}_{node.name or 'node'}"
            graph_initializers.append(helper.make_tensor(name, TensorProto.BOOL, [], [False]))
            node.input[2] = name
            count += 1
        for attr in node.attribute:
            if attr.type == onnx.AttributeProto.GRAPH:
                count += rewrite(attr.g.node, attr.g.initializer)
            for g in attr.graphs:
                count += rewrite(g.node, g.initializer)
    return count


def main():
    model = onnx.load(sys.argv[1])
    count = rewrite(model.graph.node, model.graph.initializer)
    onnx.save(model, sys.argv[2])
    print(count)


if __name__ == "__main__":
    main()
