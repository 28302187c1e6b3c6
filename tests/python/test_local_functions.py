"""A Python pattern that replaces a subgraph by a call of a model-local function:
graph.get_or_add_function, the records, exact replay, removal of unused functions."""

import os
import subprocess

import pytest
from onnx import helper

import onnxopt
from conftest import make_model, ops, tensor

EXE = os.environ.get("ONNXOPT_EXE", os.path.join(os.path.dirname(__file__), "..", "..", "build", "onnxopt"))


def neg_abs_function(opset, intermediate="A"):
    """intermediate.NegAbs (X) => (Y) { A = Abs(X)  Y = Neg(A) }"""
    return helper.make_function(
        "intermediate", "NegAbs", ["X"], ["Y"],
        [helper.make_node("Abs", ["X"], [intermediate]), helper.make_node("Neg", [intermediate], ["Y"])],
        [helper.make_opsetid("", opset)])


class NegAbsFunctionPattern(onnxopt.PatternOptimization):
    """Neg(Abs(x)) => intermediate.NegAbs(x); with unique_body_names, each apply builds another body."""

    def __init__(self, unique_body_names=False):
        super().__init__()
        self.unique_body_names = unique_body_names

    def fast_op_type(self):
        return {"Neg"}

    def match(self, graph, node):
        abs_node = graph.node_before(node.input[0])
        if abs_node is None or abs_node.op_type != "Abs":
            return self.no_match(node, "the input is not produced by Abs")
        if not graph.has_one_use(abs_node.output[0]):
            return self.no_match(node, "the Abs has other readers")
        return self.result([abs_node, node])

    def apply(self, graph, nodes):
        abs_node, neg = nodes
        intermediate = graph.unique_name("A") if self.unique_body_names else "A"
        function = graph.get_or_add_function(neg_abs_function(graph.opset(""), intermediate))
        return [helper.make_node(function.name, [abs_node.input[0]], list(neg.output), domain=function.domain)]


def two_neg_abs():
    return make_model(
        [
            helper.make_node("Abs", ["a"], ["a1"]),
            helper.make_node("Neg", ["a1"], ["y"]),
            helper.make_node("Abs", ["b"], ["b1"]),
            helper.make_node("Neg", ["b1"], ["z"]),
        ],
        [tensor("a"), tensor("b")],
        [tensor("y"), tensor("z")],
    )


def optimize(model, patterns):
    builder = onnxopt.GraphBuilder(model)
    graph = onnxopt.GraphGraph(builder, patterns=patterns, registered="none")
    rewrites, report = graph.optimize(report=True)
    del graph
    return builder.to_model(), rewrites, report


def test_python_pattern_adds_a_function_once():
    model = two_neg_abs()
    optimized, rewrites, _ = optimize(model, [NegAbsFunctionPattern()])
    assert ops(optimized) == ["NegAbs", "NegAbs"]
    assert [n.domain for n in optimized.graph.node] == ["intermediate", "intermediate"]
    assert len(optimized.functions) == 1
    assert optimized.functions[0] == neg_abs_function(18)
    assert [(o.domain, o.version) for o in optimized.opset_import] == [("", 18), ("intermediate", 1)]
    added = [r.added_functions for r in rewrites if r.name == "NegAbsFunctionPattern"]
    assert [len(functions) for functions in added] == [1, 0]
    assert added[0][0].name == "NegAbs"



def test_the_rewritten_model_computes_the_same(tmp_path):
    model = two_neg_abs()
    optimized, _, _ = optimize(model, [NegAbsFunctionPattern()])
    (tmp_path / "a.onnx").write_bytes(model.SerializeToString())
    (tmp_path / "b.onnx").write_bytes(optimized.SerializeToString())
    result = subprocess.run([EXE, "verify", str(tmp_path / "a.onnx"), str(tmp_path / "b.onnx"), "--atol", "0",
                             "--rtol", "0"], capture_output=True, text=True, timeout=120)
    assert result.returncode == 0, result.stdout + result.stderr
    assert "ok       y" in result.stdout and "ok       z" in result.stdout


def test_replay_adds_the_functions_again_byte_for_byte():
    model = two_neg_abs()
    optimized, rewrites, _ = optimize(model, [NegAbsFunctionPattern()])
    assert onnxopt.replay(model, rewrites).SerializeToString() == optimized.SerializeToString()
    again = onnxopt.replay(model, onnxopt.parse_rewrites(onnxopt.serialize_rewrites(rewrites)))
    assert again.SerializeToString() == optimized.SerializeToString()


def test_find_function_sees_what_apply_added():
    seen = []

    class Probe(NegAbsFunctionPattern):
        def apply(self, graph, nodes):
            seen.append(graph.find_function("intermediate", "NegAbs"))
            return super().apply(graph, nodes)

    optimize(two_neg_abs(), [Probe()])
    assert seen[0] is None
    assert seen[1] == neg_abs_function(18)


def test_another_body_under_the_same_name_raises():
    with pytest.raises(onnxopt.BuilderError, match="local function 'intermediate.NegAbs' with another content"):
        optimize(two_neg_abs(), [NegAbsFunctionPattern(unique_body_names=True)])


def test_unused_function_is_removed_and_reported():
    class CallToRelu(onnxopt.PatternOptimization):
        def __init__(self):
            super().__init__(priority=2)

        def fast_op_type(self):
            return {"NegAbs"}

        def match(self, graph, node):
            return self.result([node])

        def apply(self, graph, nodes):
            return [helper.make_node("Relu", list(nodes[0].input), list(nodes[0].output))]

    model = two_neg_abs()
    optimized, rewrites, report = optimize(model, [NegAbsFunctionPattern(), CallToRelu()])
    assert ops(optimized) == ["Relu", "Relu"]
    assert len(optimized.functions) == 0
    removal = [r for r in rewrites if r.name == "RemoveUnusedFunctions"]
    assert len(removal) == 1 and removal[0].removed_functions == [0]
    stats = {s.name: s for s in report.cleanup}["RemoveUnusedFunctions"]
    assert stats.removed_functions == 1
    assert onnxopt.replay(model, rewrites).SerializeToString() == optimized.SerializeToString()
