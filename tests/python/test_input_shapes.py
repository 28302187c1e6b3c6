"""Fixing input shapes from Python (optimize, simplify, GraphBuilder), as the command line's
--overwrite-input-shape and --dim."""

import numpy as np
import pytest
from onnx import TensorProto, helper, numpy_helper

import onnxopt

from conftest import make_model, tensor


def shape_model():
    """y = float(Shape(x)) with x float[batch, 4]: a constant once batch is known."""
    return make_model([helper.make_node("Shape", ["x"], ["s"]), helper.make_node("Cast", ["s"], ["y"], to=1)],
                      [tensor("x", ("batch", 4))], [tensor("y", (2,))])


def op_types(model):
    return [node.op_type for node in model.graph.node]


def input_dims(model):
    return [d.dim_value if d.HasField("dim_value") else d.dim_param
            for d in model.graph.input[0].type.tensor_type.shape.dim]


def folded_value(model):
    (value,) = [numpy_helper.to_array(t) for t in model.graph.initializer if t.name == "y"] or [
        numpy_helper.to_array(n.attribute[0].t) for n in model.graph.node if n.op_type == "Constant"]
    return value


def test_without_settings_the_shape_stays_computed():
    optimized = onnxopt.optimize(shape_model())
    assert op_types(optimized) == ["Shape", "Cast"]
    assert input_dims(optimized) == ["batch", 4]


@pytest.mark.parametrize("settings", [dict(input_shapes={"x": [3, 4]}), dict(dims={"batch": 3}),
                                      dict(input_shapes={"x": (3, 4)}, dims={"batch": 3})])
def test_fixed_shapes_let_the_shape_fold(settings):
    optimized = onnxopt.optimize(shape_model(), **settings)
    assert op_types(optimized) in ([], ["Constant"])
    np.testing.assert_array_equal(folded_value(optimized), [3.0, 4.0])
    assert input_dims(optimized) == [3, 4]


def test_check_compares_with_the_specialised_model():
    # Against the model as given, random inputs of another batch would differ from the folded [3, 4].
    optimized = onnxopt.optimize(shape_model(), input_shapes={"x": [3, 4]}, check=2)
    np.testing.assert_array_equal(folded_value(optimized), [3.0, 4.0])


def test_simplify_takes_onnxsims_overwrite_input_shapes():
    simplified, ok = onnxopt.simplify(shape_model(), overwrite_input_shapes={"x": [5, 4]})
    assert ok
    np.testing.assert_array_equal(folded_value(simplified), [5.0, 4.0])
    with pytest.raises(TypeError, match="input_shapes or overwrite_input_shapes, not both"):
        onnxopt.simplify(shape_model(), overwrite_input_shapes={"x": [5, 4]}, input_shapes={"x": [5, 4]})


def test_graph_builder_takes_them():
    builder = onnxopt.GraphBuilder(shape_model(), dims={"batch": 7})
    assert input_dims(builder.to_model()) == [7, 4]


@pytest.mark.parametrize("settings, message", [
    (dict(input_shapes={"nope": [1]}), "nope"),
    (dict(input_shapes={"x": [3, 4, 5]}), "x"),
    (dict(input_shapes={"x": [3, 5]}), "x"),
    (dict(dims={"nope": 2}), "nope"),
])
def test_settings_that_contradict_the_model_raise_model_error(settings, message):
    with pytest.raises(onnxopt.ModelError, match=message):
        onnxopt.optimize(shape_model(), **settings)


@pytest.mark.parametrize("settings, message", [
    (dict(input_shapes={"x": "3,4"}), "input_shapes expects"),
    (dict(input_shapes=[("x", [3, 4])]), "input_shapes expects"),
    (dict(input_shapes={"x": [3.0, 4]}), "input_shapes expects"),
    (dict(dims={"batch": 2.5}), "dims expects"),
    (dict(dims={"batch": True}), "dims expects"),
])
def test_malformed_settings_raise_value_error(settings, message):
    with pytest.raises(ValueError, match=message):
        onnxopt.optimize(shape_model(), **settings)
