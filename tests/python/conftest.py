"""Shared helpers: small models built with onnx.helper, and the NegNeg pattern of the spec."""

import os
import sys

import onnx
from onnx import TensorProto, helper

import onnxopt


def tensor(name, shape=(2, 3), elem_type=TensorProto.FLOAT):
    return helper.make_tensor_value_info(name, elem_type, list(shape))


def make_model(nodes, inputs, outputs, initializers=(), opset=18):
    graph = helper.make_graph(nodes, "g", inputs, outputs, initializer=list(initializers))
    return helper.make_model(graph, opset_imports=[helper.make_opsetid("", opset)])


def neg_model():
    """y = Neg(Relu(Neg(Neg(x)))): one Neg(Neg) pair, two rejected Negs."""
    return make_model(
        [
            helper.make_node("Neg", ["x"], ["n1"], name="neg1"),
            helper.make_node("Neg", ["n1"], ["n2"], name="neg2"),
            helper.make_node("Relu", ["n2"], ["r"], name="relu"),
            helper.make_node("Neg", ["r"], ["y"], name="neg3"),
        ],
        [tensor("x")],
        [tensor("y")],
    )


def if_model():
    """y = If(c, then: Neg(Neg(x)) + outer, else: Neg(Neg(Neg(Neg(x))))), plus Neg(Neg(x)) outside."""
    then_graph = helper.make_graph(
        [helper.make_node("Neg", ["x"], ["t1"]), helper.make_node("Neg", ["t1"], ["t2"])],
        "then", [], [tensor("t2")])
    else_graph = helper.make_graph(
        [helper.make_node("Neg", ["x"], ["e1"]), helper.make_node("Neg", ["e1"], ["e2"]),
         helper.make_node("Neg", ["e2"], ["e3"]), helper.make_node("Neg", ["e3"], ["e4"])],
        "else", [], [tensor("e4")])
    return make_model(
        [
            helper.make_node("If", ["c"], ["i"], then_branch=then_graph, else_branch=else_graph),
            helper.make_node("Neg", ["x"], ["m1"]),
            helper.make_node("Neg", ["m1"], ["m2"]),
            helper.make_node("Add", ["i", "m2"], ["y"]),
        ],
        [tensor("c", (), TensorProto.BOOL), tensor("x")],
        [tensor("y")],
    )


def ops(model_or_graph):
    graph = model_or_graph.graph if isinstance(model_or_graph, onnx.ModelProto) else model_or_graph
    return [node.op_type for node in graph.node]


class NegNegPattern(onnxopt.PatternOptimization):
    def __init__(self, priority=1, name="NegNeg"):
        super().__init__(priority=priority, name=name)

    def fast_op_type(self):
        return {"Neg"}

    def match(self, graph, node):
        previous = graph.node_before(node.input[0])
        if previous is None or previous.op_type != "Neg":
            return self.no_match(node, "the input is not produced by Neg")
        return self.result([previous, node], insert_at=node)

    def apply(self, graph, nodes):
        previous, node = nodes
        return [helper.make_node("Identity", [previous.input[0]], list(node.output))]


sys.modules.setdefault("onnxopt_test_helpers", sys.modules[__name__])
