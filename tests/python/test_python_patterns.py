"""Python-defined patterns: rewrite, rejections in the report, replay, subgraphs, exceptions,
lifetime, stale views."""

import gc
import weakref

import pytest
from onnx import TensorProto, helper

import onnxopt
from conftest import NegNegPattern, if_model, make_model, neg_model, ops, tensor


def run(model, patterns, report=True, registered="none"):
    builder = onnxopt.GraphBuilder(model)
    graph = onnxopt.GraphGraph(builder, patterns=patterns, registered=registered)
    rewrites, stats = graph.optimize(report=report)
    return builder.to_model(), rewrites, stats


def test_python_only_rewrite():
    optimized, rewrites, _ = run(neg_model(), [NegNegPattern()])
    assert ops(optimized) == ["Relu", "Neg"]
    assert optimized.graph.node[0].input[0] == "x"
    assert optimized.graph.output[0].name == "y"
    assert "NegNeg" in [r.name for r in rewrites]


def test_spec_example_with_builtin_and_python_patterns():
    builder = onnxopt.GraphBuilder(neg_model())
    optimizer = onnxopt.GraphGraph(builder, patterns=[onnxopt.CastCastPattern(), NegNegPattern()])
    rewrites, report = optimizer.optimize(report=True)
    assert ops(builder.to_model()) == ["Relu", "Neg"]
    assert isinstance(report, onnxopt.OptimizationReport)


def test_positive_and_rejected_matches_in_report():
    _, _, report = run(neg_model(), [NegNegPattern()])
    stats = {p.name: p for p in report.patterns}["NegNeg"]
    assert stats.matched == 1 and stats.applied == 1
    assert stats.match_calls >= 3
    rejections = [n for n in report.no_matches if n.pattern == "NegNeg"]
    assert rejections, report.to_string()
    assert rejections[0].reason == "the input is not produced by Neg"
    assert sum(n.count for n in rejections) == stats.match_calls - stats.matched
    assert "the input is not produced by Neg" in report.to_string()
    assert "the input is not produced by Neg" in report.to_json()


def test_match_returning_none_is_a_rejection():
    class Never(onnxopt.PatternOptimization):
        def match(self, graph, node):
            return None

        def apply(self, graph, nodes):
            raise AssertionError("not called")

    optimized, _, report = run(neg_model(), [Never()])
    assert ops(optimized) == ops(neg_model())
    assert {p.name: p for p in report.patterns}["Never"].match_calls == 4  # empty fast_op_type: every node


def test_exact_replay():
    model = neg_model()
    optimized, rewrites, _ = run(model, [NegNegPattern()], registered="default")
    assert onnxopt.replay(model, rewrites).SerializeToString() == optimized.SerializeToString()
    # Through the rewrite-file format: the records no longer need the Python pattern.
    data = onnxopt.serialize_rewrites(rewrites)
    again = onnxopt.replay(model, onnxopt.parse_rewrites(data))
    assert again.SerializeToString() == optimized.SerializeToString()


def test_recursive_subgraphs():
    optimized, rewrites, report = run(if_model(), [NegNegPattern()])
    main = optimized.graph
    assert ops(main) == ["If", "Add"]
    if_node = main.node[0]
    branches = {a.name: a.g for a in if_node.attribute}
    assert ops(branches["then_branch"]) in ([], ["Identity"])
    assert ops(branches["else_branch"]) in ([], ["Identity"])
    paths = {tuple(r.graph_path) for r in rewrites if r.name == "NegNeg"}
    assert len(paths) == 3, paths  # main graph and both branches
    assert onnxopt.replay(if_model(), rewrites).SerializeToString() == optimized.SerializeToString()


class Boom(Exception):
    pass


class Raising(onnxopt.PatternOptimization):
    def __init__(self, where):
        super().__init__(name="Raising")
        self.where = where
        self.error = Boom(where)

    def fast_op_type(self):
        if self.where == "fast_op_type":
            raise self.error
        return {"Neg"}

    def match(self, graph, node):
        if self.where == "match":
            raise self.error
        return self.result([node])

    def apply(self, graph, nodes):
        raise self.error


@pytest.mark.parametrize("where", ["fast_op_type", "match", "apply"])
def test_callback_exception_propagates_unchanged(where):
    pattern = Raising(where)
    builder = onnxopt.GraphBuilder(neg_model())
    graph = onnxopt.GraphGraph(builder, patterns=[pattern], registered="none")
    with pytest.raises(Boom) as info:
        graph.optimize()
    assert info.value is pattern.error


def test_callback_exception_in_subgraph_propagates():
    pattern = Raising("match")
    builder = onnxopt.GraphBuilder(if_model())
    with pytest.raises(Boom):
        onnxopt.GraphGraph(builder, patterns=[pattern], registered="none").optimize()


def test_builder_error_is_a_runtime_error():
    class Foreign(onnxopt.PatternOptimization):
        def fast_op_type(self):
            return {"Relu"}

        def match(self, graph, node):
            return self.result([])  # a match without nodes breaks the contract

        def apply(self, graph, nodes):
            return []

    with pytest.raises(onnxopt.BuilderError, match="without nodes") as info:
        run(neg_model(), [Foreign()])
    assert isinstance(info.value, RuntimeError)


def test_wrong_return_types_raise_type_error():
    class BadMatch(onnxopt.PatternOptimization):
        def match(self, graph, node):
            return True

        def apply(self, graph, nodes):
            return []

    with pytest.raises(TypeError, match="must return"):
        run(neg_model(), [BadMatch()])


def test_patterns_live_for_the_whole_optimization_after_gc():
    pattern = NegNegPattern()
    alive = weakref.ref(pattern)
    builder = onnxopt.GraphBuilder(if_model())
    graph = onnxopt.GraphGraph(builder, patterns=[pattern], registered="none")
    del pattern
    gc.collect()
    assert alive() is not None  # held by the optimizer
    rewrites, _ = graph.optimize()
    assert len([r for r in rewrites if r.name == "NegNeg"]) == 4  # main + both branches
    del graph
    gc.collect()
    assert alive() is not None  # the records still point to it
    del rewrites
    gc.collect()
    assert alive() is None


def test_pattern_created_inline_survives():
    builder = onnxopt.GraphBuilder(if_model())
    graph = onnxopt.GraphGraph(builder, patterns=[NegNegPattern()], registered="none")
    gc.collect()
    graph.optimize()
    assert ops(builder.to_model()) == ["If", "Add"]


def test_views_expire_after_the_callback():
    kept = []

    class Keeper(NegNegPattern):
        def match(self, graph, node):
            kept.append((graph, node))
            return super().match(graph, node)

    run(neg_model(), [Keeper()])
    graph, node = kept[0]
    assert not node.valid
    with pytest.raises(onnxopt.StaleViewError):
        node.op_type
    with pytest.raises(onnxopt.StaleViewError):
        graph.node_before("x")


def test_graph_queries():
    model = make_model(
        [
            helper.make_node("Shape", ["x"], ["s"]),
            helper.make_node("Cast", ["x"], ["c"], to=TensorProto.FLOAT16),
            helper.make_node("Add", ["x", "one"], ["a"]),
            helper.make_node("Mul", ["a", "a"], ["y"]),
        ],
        [tensor("x", ("batch", 3))],
        [tensor("y", ("batch", 3)), tensor("c", ("batch", 3), TensorProto.FLOAT16),
         tensor("s", (2,), TensorProto.INT64)],
        initializers=[helper.make_tensor("one", TensorProto.FLOAT, [1], [1.0])],
    )
    seen = {}

    class Probe(onnxopt.PatternOptimization):
        def fast_op_type(self):
            return {"Add"}

        def match(self, graph, node):
            seen["predecessors"] = graph.predecessors(node)
            seen["successors"] = [n.op_type for n in graph.successors(node)]
            seen["next"] = [n.op_type for n in graph.next_nodes("x")]
            seen["before"] = graph.node_before("a").op_type
            seen["position"] = graph.position(node)
            seen["output"] = (graph.is_output("y"), graph.is_output("a"))
            seen["used"] = (graph.is_used("a"), graph.is_used_more_than_once("a"), graph.is_used_more_than_once("one"))
            seen["one use"] = (graph.has_one_use("a"), graph.has_one_use("one"), graph.has_one_use("x"))
            seen["subgraph"] = graph.is_used_by_subgraph("x")
            shape = graph.get_shape("a")
            seen["shape"] = (graph.has_shape("a"), shape.elem_type, shape.dims, shape.rank)
            seen["type"] = (graph.has_type("c"), graph.get_type("c"))
            seen["constant"] = (graph.is_constant("one"), graph.is_constant("x"), graph.is_constant_scalar("one", 1.0))
            seen["value"] = graph.get_computed_constant("one").tolist()
            seen["tensor"] = graph.get_computed_constant("one", as_tensor=True).data_type
            seen["missing"] = graph.get_computed_constant("x")
            seen["attribute"] = graph.node_before("c").attribute
            seen["repr"] = repr(node)
            seen["proto"] = node.to_proto()
            seen["opset"] = graph.opset()
            return self.no_match(node, "probe")

        def apply(self, graph, nodes):
            return []

    run(model, [Probe()], registered="none")
    assert seen["predecessors"] == []
    assert seen["successors"] == ["Mul"]
    assert seen["next"] == ["Shape", "Cast", "Add"]
    assert seen["before"] == "Add"
    assert seen["position"] == 2
    assert seen["output"] == (True, False)
    assert seen["used"] == (True, False, False)  # Mul(a, a): one reader
    assert seen["one use"] == (False, True, False)  # Mul(a, a): two uses; x: three readers
    assert seen["subgraph"] is False
    assert seen["shape"] == (True, TensorProto.FLOAT, ["batch", 3], 2)
    assert seen["type"] == (True, TensorProto.FLOAT16)
    assert seen["constant"] == (True, False, True)
    assert seen["value"] == [1.0]
    assert seen["tensor"] == TensorProto.FLOAT
    assert seen["missing"] is None
    assert seen["attribute"] == {"to": TensorProto.FLOAT16}
    assert "Add" in seen["repr"]
    assert seen["proto"].op_type == "Add" and list(seen["proto"].input) == ["x", "one"]
    assert seen["opset"] == 18


def test_apply_can_add_initializers_and_keep_nodes():
    import numpy as np

    class NegToMul(onnxopt.PatternOptimization):
        """Neg(x) -> Mul(x, -1), keeping the Relu (returned again)."""

        def fast_op_type(self):
            return {"Neg"}

        def match(self, graph, node):
            previous = graph.node_before(node.input[0])
            if previous is None or previous.op_type != "Relu":
                return self.no_match(node, "not after Relu")
            return self.result([previous, node])

        def apply(self, graph, nodes):
            relu, neg = nodes
            minus = graph.make_initializer("minus_one", np.array([-1.0], dtype=np.float32))
            return [relu, helper.make_node("Mul", [neg.input[0], minus], list(neg.output))]

    optimized, rewrites, _ = run(neg_model(), [NegToMul()])
    assert ops(optimized) == ["Neg", "Neg", "Relu", "Mul"]
    assert [i.name for i in optimized.graph.initializer] == ["minus_one"]
    assert onnxopt.replay(neg_model(), rewrites).SerializeToString() == optimized.SerializeToString()


def test_default_name_is_the_class_name():
    class MyPattern(onnxopt.PatternOptimization):
        pass

    assert MyPattern().name == "MyPattern"
    assert MyPattern(priority=3).priority == 3
    with pytest.raises(NotImplementedError):
        run(neg_model(), [MyPattern()])


def test_a_replacement_node_the_opset_does_not_define_is_refused():
    class NegNegToRelu(onnxopt.PatternOptimization):
        """A defective rewrite: Relu has no attribute 'alpha'."""

        def fast_op_type(self):
            return {"Neg"}

        def match(self, graph, node):
            previous = graph.node_before(node.input[0])
            if previous is None or previous.op_type != "Neg":
                return self.no_match(node, "the input is not produced by Neg")
            return self.result([previous, node])

        def apply(self, graph, nodes):
            previous, node = nodes
            return [helper.make_node("Relu", [previous.input[0]], list(node.output), alpha=0.5)]

    optimized, rewrites, report = run(neg_model(), [NegNegToRelu()])
    assert ops(optimized) == ops(neg_model())
    assert not rewrites
    assert {p.name: p for p in report.patterns}["NegNegToRelu"].refused == 1
    assert len(report.refused_rewrites) == 1
    assert report.refused_rewrites[0].startswith("NegNegToRelu: Relu (output 'n2'): ")
    assert "alpha" in report.refused_rewrites[0]
    assert "rewrites refused" in report.to_string()
