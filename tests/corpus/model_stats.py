#!/usr/bin/python3
"""Prints one line of statistics about an ONNX model:
  nodes=N (main graph and nested graphs) function_nodes=M functions=F initializers=I
  inputs=X outputs=Y op_histogram=Identity:3,Cast:2,...   (the 8 most frequent op types)
Usage: model_stats.py MODEL   (Debian's /usr/bin/python3 with python3-onnx; external
data is not loaded)
"""
import collections
import sys

import onnx


def walk(graph, hist):
    count = 0
    for node in graph.node:
        count += 1
        hist[node.op_type] += 1
        for attr in node.attribute:
            if attr.type == onnx.AttributeProto.GRAPH:
                count += walk(attr.g, hist)
            elif attr.type == onnx.AttributeProto.GRAPHS:
                for g in attr.graphs:
                    count += walk(g, hist)
    return count


def main():
    m = onnx.load(sys.argv[1], load_external_data=False)
    hist = collections.Counter()
    nodes = walk(m.graph, hist)
    fnodes = sum(len(f.node) for f in m.functions)
    top = ",".join(f"{k}:{v}" for k, v in hist.most_common(8))
    print(f"nodes={nodes} function_nodes={fnodes} functions={len(m.functions)} "
          f"initializers={len(m.graph.initializer)} inputs={len(m.graph.input)} "
          f"outputs={len(m.graph.output)} op_histogram={top}")


if __name__ == "__main__":
    main()
