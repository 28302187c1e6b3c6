"""Invalid models are refused by the Python API as by the command line (docs/model-checks.md):
onnxopt.ModelError naming the node and the rule, at load (GraphBuilder) or when shapes are
inferred (optimize, replay, GraphBuilder.infer_shapes)."""

import pytest
from onnx import TensorProto, helper

import onnxopt
from conftest import make_model, tensor


def gather_model(indices_type):
    return make_model([helper.make_node("Gather", ["x", "i"], ["y"])],
                      [tensor("x", (3, 4)), tensor("i", (2,), indices_type)], [tensor("y", (2, 4))])


def if_without_else():
    then_graph = helper.make_graph([helper.make_node("Relu", ["x"], ["r"])], "then", [], [tensor("r")])
    return make_model([helper.make_node("If", ["c"], ["y"], then_branch=then_graph)],
                      [tensor("c", (), TensorProto.BOOL), tensor("x")], [tensor("y")])


def test_a_node_breaking_its_signature_is_refused_at_load():
    with pytest.raises(onnxopt.ModelError, match=r"node #0 \(If\) in graph 'g': attribute 'else_branch' of If-16 "
                                                 r"is required; found none"):
        onnxopt.GraphBuilder(if_without_else())


@pytest.mark.parametrize("call", [
    lambda model: onnxopt.optimize(model),
    lambda model: onnxopt.optimize(model, patterns="none", fold_constants_first=False),
    lambda model: onnxopt.replay(model, []),
    lambda model: onnxopt.GraphBuilder(model).infer_shapes(),
])
def test_a_type_outside_the_constraints_is_refused_when_shapes_are_inferred(call):
    with pytest.raises(onnxopt.ModelError, match=r"node #0 \(Gather\): input 1 'indices' of Gather-13 has type Tind: "
                                                 r"tensor\(int32\), tensor\(int64\); found tensor\(float\)"):
        call(gather_model(TensorProto.FLOAT))


def test_the_valid_neighbour_is_optimized():
    optimized = onnxopt.optimize(gather_model(TensorProto.INT64))
    assert [node.op_type for node in optimized.graph.node] == ["Gather"]
