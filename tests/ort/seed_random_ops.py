#!/usr/bin/python3
"""Makes a model's random operators deterministic: every Dropout, RandomNormal,
RandomUniform, RandomNormalLike, RandomUniformLike, Multinomial and Bernoulli node
(main graph, nested graphs, local functions) without a `seed` attribute gets seed=0.

onnxruntime draws an unseeded random operator's seed from the clock, so two sessions of
the same model disagree (e.g. Dropout with training_mode=true). With a seed attribute,
every node has its own generator and two sessions of equivalent graphs agree.

Usage: seed_random_ops.py IN OUT    prints the number of nodes seeded; OUT is written
even when nothing changed.  (Debian's /usr/bin/python3 with python3-onnx)
"""
import sys

import onnx

RANDOM_OPS = {"Dropout", "RandomNormal", "RandomUniform", "RandomNormalLike",
              "RandomUniformLike", "Multinomial", "Bernoulli"}


def seed_nodes(nodes):
    count = 0
    for node in nodes:
        if node.op_type in RANDOM_OPS and node.domain in ("", "ai.onnx"):
            if not any(a.name == "seed" for a in node.attribute):
                node.attribute.append(onnx.helper.make_attribute("seed", 0.0 if node.op_type != "Dropout" else 0))
                count += 1
        for attr in node.attribute:
            if attr.type == onnx.AttributeProto.GRAPH:
                count += seed_nodes(attr.g.node)
            elif attr.type == onnx.AttributeProto.GRAPHS:
                for g in attr.graphs:
                    count += seed_nodes(g.node)
    return count


def main():
    m = onnx.load(sys.argv[1], load_external_data=False)
    count = seed_nodes(m.graph.node)
    for f in m.functions:
        count += seed_nodes(f.node)
    onnx.save(m, sys.argv[2])
    print(count)


if __name__ == "__main__":
    main()
