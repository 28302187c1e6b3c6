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


def matmul_model():
    """y = a @ b with a, b constants of 20 x 20 floats: 8 000 multiply-adds to fold."""
    rng = np.random.default_rng(0)
    a = numpy_helper.from_array(rng.standard_normal((20, 20)).astype(np.float32), "a")
    b = numpy_helper.from_array(rng.standard_normal((20, 20)).astype(np.float32), "b")
    graph = helper.make_graph([helper.make_node("MatMul", ["a", "b"], ["y"])], "g", [],
                              [helper.make_tensor_value_info("y", TensorProto.FLOAT, [20, 20])], [a, b])
    return helper.make_model(graph, opset_imports=[helper.make_opsetid("", 18)])


def dequantize_model():
    """y = DequantizeLinear(q, 0.5) + x with q an int8 constant."""
    q = numpy_helper.from_array(np.array([-3, 0, 5, 127], dtype=np.int8), "q")
    scale = numpy_helper.from_array(np.array(0.5, dtype=np.float32), "scale")
    graph = helper.make_graph([helper.make_node("DequantizeLinear", ["q", "scale"], ["w"]),
                               helper.make_node("Add", ["x", "w"], ["y"])], "g",
                              [helper.make_tensor_value_info("x", TensorProto.FLOAT, [4])],
                              [helper.make_tensor_value_info("y", TensorProto.FLOAT, [4])], [q, scale])
    return helper.make_model(graph, opset_imports=[helper.make_opsetid("", 18)])


def op_types(model):
    return [node.op_type for node in model.graph.node]


def test_fold_size_limit_keeps_larger_outputs():
    assert op_types(onnxopt.optimize(add_model(), fold_size_limit=3999)) == ["Add"]  # the sum is 4000 bytes
    assert op_types(onnxopt.optimize(add_model(), fold_size_limit=4000)) == []


def test_fold_work_limit_keeps_costlier_nodes():
    assert op_types(onnxopt.optimize(matmul_model(), fold_work_limit=7999)) == ["MatMul"]
    folded = onnxopt.optimize(matmul_model(), fold_work_limit=8000)
    assert op_types(folded) == []
    expected = numpy_helper.to_array(matmul_model().graph.initializer[0]) @ numpy_helper.to_array(
        matmul_model().graph.initializer[1])
    np.testing.assert_allclose(numpy_helper.to_array(folded.graph.initializer[0]), expected, rtol=1e-5, atol=1e-5)


def test_dequantize_linear_is_folded_only_when_asked():
    assert op_types(onnxopt.optimize(dequantize_model())) == ["DequantizeLinear", "Add"]
    folded = onnxopt.optimize(dequantize_model(), fold_dequantize=True)
    assert op_types(folded) == ["Add"]
    weights = {t.name: numpy_helper.to_array(t) for t in folded.graph.initializer}
    np.testing.assert_array_equal(weights[folded.graph.node[0].input[1]], [-1.5, 0.0, 2.5, 63.5])
    simplified, ok = onnxopt.simplify(dequantize_model(), fold_dequantize=True)
    assert ok and op_types(simplified) == ["Add"]
    builder = onnxopt.GraphBuilder(dequantize_model())
    onnxopt.GraphGraph(builder, fold_constants_first=True, fold_dequantize=True).optimize()
    assert op_types(builder.to_model()) == ["Add"]


def test_fold_options_are_checked():
    for arguments, message in ((dict(fold_size_limit=-1), "fold_size_limit expects None or an integer >= 0"),
                               (dict(fold_work_limit=True), "fold_work_limit expects None or an integer >= 0"),
                               (dict(fold_work_limit=1.5), "fold_work_limit expects None or an integer >= 0"),
                               (dict(fold_dequantize="yes"), "fold_dequantize expects True or False")):
        try:
            onnxopt.optimize(add_model(), **arguments)
        except ValueError as error:
            assert message in str(error), error
        else:
            raise AssertionError(f"{arguments} accepted")
