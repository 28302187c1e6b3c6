#!/usr/bin/python3
"""Writes small seed models for the load fuzzer: the structures cleanup has to handle
(Identity chains around graph outputs, duplicate nodes and initializers, dead code,
Constant nodes in every form, If/Loop bodies reading outer values, local functions), so
that mutations start close to the interesting code instead of from large real models.

usage: make_seeds.py OUTPUT_DIR
"""
import os
import sys

import numpy as np
from onnx import TensorProto, helper, numpy_helper


def tensor(name, values, dtype=np.float32):
    return numpy_helper.from_array(np.array(values, dtype=dtype), name)


def model(nodes, inputs, outputs, inits=(), functions=()):
    graph = helper.make_graph(nodes, "seed", inputs, outputs, list(inits))
    result = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 18), helper.make_opsetid("local", 1)],
                               functions=list(functions))
    result.ir_version = 8
    return result


def vi(name, shape=(2,), dtype=TensorProto.FLOAT):
    return helper.make_tensor_value_info(name, dtype, list(shape))


def seeds():
    x, y = vi("x"), vi("y")
    yield "identity_chain", model([
        helper.make_node("Relu", ["x"], ["a"]),
        helper.make_node("Identity", ["a"], ["b"]),
        helper.make_node("Identity", ["b"], ["y"]),
        helper.make_node("Identity", ["x"], ["z"]),
    ], [x], [y, vi("z")])
    yield "duplicates", model([
        helper.make_node("Add", ["x", "w1"], ["a"]),
        helper.make_node("Add", ["x", "w2"], ["b"]),
        helper.make_node("Mul", ["a", "a"], ["c"]),
        helper.make_node("Mul", ["b", "b"], ["d"]),
        helper.make_node("Sub", ["c", "d"], ["y"]),
        helper.make_node("Neg", ["c"], ["dead"]),
        helper.make_node("RandomNormalLike", ["x"], ["r1"]),
        helper.make_node("RandomNormalLike", ["x"], ["r2"]),
    ], [x], [y, vi("r1"), vi("r2")], [tensor("w1", [1, 2]), tensor("w2", [1, 2]), tensor("unused", [3])])
    yield "constants", model([
        helper.make_node("Constant", [], ["c1"], value=tensor("t", [1, 2])),
        helper.make_node("Constant", [], ["c2"], value_floats=[1.0, 2.0]),
        helper.make_node("Constant", [], ["c3"], value_int=3),
        helper.make_node("Constant", [], ["c4"], value_ints=[2]),
        helper.make_node("Constant", [], ["c5"], value_strings=["a", "b"]),
        helper.make_node("Constant", [], ["c6"], sparse_value=helper.make_sparse_tensor(
            tensor("v", [5.0]), tensor("i", [1], np.int64), [2])),
        helper.make_node("Add", ["c1", "c2"], ["s"]),
        helper.make_node("Add", ["s", "c6"], ["y"]),
    ], [], [y])
    then_branch = helper.make_graph([helper.make_node("Identity", ["a"], ["t_out"])], "then", [], [vi("t_out")])
    else_branch = helper.make_graph([helper.make_node("Neg", ["a"], ["e_out"])], "else", [], [vi("e_out")])
    yield "if_reads_outer", model([
        helper.make_node("Identity", ["x"], ["a"]),
        helper.make_node("ReduceSum", ["x"], ["s"], keepdims=0),
        helper.make_node("Greater", ["s", "zero"], ["cond"]),
        helper.make_node("If", ["cond"], ["y"], then_branch=then_branch, else_branch=else_branch),
    ], [x], [y], [tensor("zero", 0.0)])
    body = helper.make_graph([
        helper.make_node("Identity", ["cond_in"], ["cond_out"]),
        helper.make_node("Add", ["acc_in", "x"], ["sum"]),
        helper.make_node("Identity", ["sum"], ["acc_out"]),
    ], "body", [vi("i", (), TensorProto.INT64), vi("cond_in", (), TensorProto.BOOL), vi("acc_in")],
        [vi("cond_out", (), TensorProto.BOOL), vi("acc_out")])
    yield "loop", model([
        helper.make_node("Loop", ["n", "", "x"], ["y"], body=body),
    ], [x], [y], [tensor("n", 3, np.int64)])
    function = helper.make_function("local", "Twice", ["u"], ["v"], [
        helper.make_node("Add", ["u", "u"], ["w"]),
        helper.make_node("Identity", ["w"], ["v"]),
    ], [helper.make_opsetid("", 18)])
    yield "function", model([helper.make_node("Twice", ["x"], ["y"], domain="local")], [x], [y],
                            functions=[function])


def main(out_dir):
    os.makedirs(out_dir, exist_ok=True)
    for name, seed in seeds():
        with open(os.path.join(out_dir, name + ".onnx"), "wb") as f:
            f.write(seed.SerializeToString())


if __name__ == "__main__":
    main(sys.argv[1])
