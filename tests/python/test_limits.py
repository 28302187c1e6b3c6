"""The limit on tensor sizes from Python: its default, and that it binds constant folding."""

import os

import numpy as np
from onnx import TensorProto, helper, numpy_helper

import onnxopt


def add_model():
    """y = a + a with a a constant of 1000 floats (4000 bytes)."""
    a = numpy_helper.from_array(np.ones(1000, dtype=np.float32), "a")
    graph = helper.make_graph([helper.make_node("Add", ["a", "a"], ["y"])], "g", [],
                              [helper.make_tensor_value_info("y", TensorProto.FLOAT, [1000])], [a])
    return helper.make_model(graph, opset_imports=[helper.make_opsetid("", 18)])


def test_default_is_a_quarter_of_the_physical_memory():
    assert onnxopt.max_tensor_bytes() == os.sysconf("SC_PHYS_PAGES") * os.sysconf("SC_PAGE_SIZE") // 4


def test_the_limit_binds_constant_folding():
    try:
        onnxopt.set_max_tensor_bytes(100)
        assert onnxopt.max_tensor_bytes() == 100
        kept = onnxopt.optimize(add_model())
        assert [node.op_type for node in kept.graph.node] == ["Add"]
    finally:
        onnxopt.set_max_tensor_bytes(0)
    folded = onnxopt.optimize(add_model())
    assert [node.op_type for node in folded.graph.node] == []
