"""IR < 4 models list their initializers among the graph inputs: optimize() treats them as
constants (as onnxruntime does) unless keep_initializer_inputs=True (issue 17)."""

import numpy as np
from onnx import TensorProto, helper, numpy_helper

import onnxopt


def ir3_conv_batch_norm():
    """y = BatchNormalization(Conv(x, w)) with every initializer also a graph input (IR 3)."""
    weights = {
        "w": np.arange(1, 5, dtype=np.float32).reshape(2, 2, 1, 1),
        "scale": np.array([1.0, 2.0], np.float32),
        "bias": np.array([0.5, 0.0], np.float32),
        "mean": np.array([0.0, 1.0], np.float32),
        "var": np.array([4.0, 1.0], np.float32),
    }
    graph = helper.make_graph(
        [helper.make_node("Conv", ["x", "w"], ["c"], kernel_shape=[1, 1]),
         helper.make_node("BatchNormalization", ["c", "scale", "bias", "mean", "var"], ["y"])],
        "g",
        [helper.make_tensor_value_info("x", TensorProto.FLOAT, [1, 2, 4, 4])]
        + [helper.make_tensor_value_info(name, TensorProto.FLOAT, list(value.shape)) for name, value in weights.items()],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, [1, 2, 4, 4])],
        [numpy_helper.from_array(value, name) for name, value in weights.items()])
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 9)])
    model.ir_version = 3
    return model


def test_initializer_inputs_of_an_ir3_model_are_constants():
    optimized = onnxopt.optimize(ir3_conv_batch_norm())
    assert [node.op_type for node in optimized.graph.node] == ["Conv"]
    assert [value.name for value in optimized.graph.input] == ["x"]
    assert optimized.ir_version == 4


def test_keep_initializer_inputs_leaves_them_overridable():
    optimized = onnxopt.optimize(ir3_conv_batch_norm(), keep_initializer_inputs=True)
    assert [node.op_type for node in optimized.graph.node] == ["Conv", "BatchNormalization"]
    assert len(optimized.graph.input) == 6
    assert optimized.ir_version == 3
