"""Registration (global, builder, constructor; merged by name, the most local wins), selection
of registered C++ patterns, and mixed C++/Python ordering by priority."""

import pytest
from onnx import TensorProto, helper

import onnxopt
from conftest import NegNegPattern, make_model, neg_model, ops, tensor


class NegNegTo(NegNegPattern):
    """Neg(Neg(x)) -> <op>(x): the op tells which registration won."""

    def __init__(self, op, name="Shared", priority=1):
        super().__init__(priority=priority, name=name)
        self.op = op

    def apply(self, graph, nodes):
        previous, node = nodes
        return [helper.make_node(self.op, [previous.input[0]], list(node.output))]


def cast_model():
    return make_model(
        [helper.make_node("Cast", ["x"], ["c1"], to=TensorProto.DOUBLE),
         helper.make_node("Cast", ["c1"], ["c2"], to=TensorProto.FLOAT),
         helper.make_node("Neg", ["c2"], ["n1"]), helper.make_node("Neg", ["n1"], ["y"])],
        [tensor("x")], [tensor("y")])


def test_builtin_patterns_are_registered_at_import():
    assert "CastCastPattern" in onnxopt.registered_pattern_names()
    assert ("CastCastPattern", "canonicalization", "exact") in onnxopt.registered_patterns()


def test_default_selection_leaves_approximate_patterns_out():
    numerics = {name: kind for name, _, kind in onnxopt.registered_patterns()}
    assert numerics["CastOpCastPattern"] == "approximate"
    assert "CastOpCastPattern" not in onnxopt.resolve_selection("default")
    assert "CastOpCastPattern" in onnxopt.resolve_selection("all")
    assert "CastOpCastPattern" in onnxopt.resolve_selection("default,+CastOpCastPattern")
    opt_in = set(onnxopt.opt_in_pattern_names())
    assert opt_in == {"CopyElimination"}
    assert set(onnxopt.resolve_selection("default")) == {
        name for name, kind in numerics.items() if kind != "approximate" and name not in opt_in}


def test_python_patterns_declare_their_numerics():
    class ApproximateNegNeg(NegNegPattern):
        numerics = "approximate"

    class MisdeclaredNegNeg(NegNegPattern):
        numerics = "close enough"

    onnxopt.register_pattern(ApproximateNegNeg(name="ApproximateNegNeg"))
    assert ("ApproximateNegNeg", "python", "approximate") in onnxopt.registered_patterns()
    assert "ApproximateNegNeg" not in onnxopt.resolve_selection("default")
    with pytest.raises(ValueError, match="numerics must be"):
        onnxopt.register_pattern(MisdeclaredNegNeg(name="MisdeclaredNegNeg"))


def test_selection_of_registered_cpp_patterns():
    assert [p.name for p in onnxopt.standard_patterns(["CastCastPattern"])] == ["CastCastPattern"]
    assert "CastCastPattern" not in onnxopt.resolve_selection("default,-CastCastPattern")
    assert onnxopt.resolve_selection("none,+CastCastPattern") == ["CastCastPattern"]
    # Registered, but not selected: the Casts stay.
    builder = onnxopt.GraphBuilder(cast_model())
    graph = onnxopt.GraphGraph(builder, registered="none")
    assert graph.pattern_names == []
    graph.optimize()
    assert ops(builder.to_model()).count("Cast") == 2
    # Selected by name.
    builder = onnxopt.GraphBuilder(cast_model())
    graph = onnxopt.GraphGraph(builder, registered="CastCastPattern")
    assert graph.pattern_names == ["CastCastPattern"]
    graph.optimize()
    assert ops(builder.to_model()) == ["Neg", "Neg"]
    # Or resolved before construction and given explicitly, mixed with a Python pattern.
    builder = onnxopt.GraphBuilder(cast_model())
    patterns = onnxopt.standard_patterns("CastCastPattern") + [NegNegPattern()]
    onnxopt.GraphGraph(builder, patterns=patterns, registered="none").optimize()
    assert ops(builder.to_model()) == ["Identity"]  # y = Identity(x): an output cannot be renamed to an input
    # onnxopt.optimize with a list uses exactly those patterns.
    assert ops(onnxopt.optimize(cast_model(), patterns=["CastCastPattern"])) == ["Neg", "Neg"]
    assert ops(onnxopt.optimize(cast_model(), patterns="none")).count("Cast") == 2


def test_mixed_cpp_and_python_patterns_ordered_by_priority():
    late = NegNegTo("Abs", name="Late", priority=2)
    early = NegNegTo("Sqrt", name="Early", priority=0)
    builder = onnxopt.GraphBuilder(cast_model())
    graph = onnxopt.GraphGraph(builder, patterns=[late, onnxopt.CastCastPattern(), early], registered="none")
    assert graph.patterns == [("CastCastPattern", 0), ("Early", 0), ("Late", 2)]
    _, report = graph.optimize(report=True)
    # Both Python patterns match the same Neg pair; the lower priority one is tried first.
    assert ops(builder.to_model()) == ["Sqrt"]
    applied = {p.name: p.applied for p in report.patterns}
    assert applied["Early"] == 1 and applied["CastCastPattern"] == 1
    assert applied.get("Late", 0) == 0


def test_most_local_registration_wins():
    onnxopt.register_pattern(NegNegTo("Abs"))  # global "Shared"
    assert "Shared" in onnxopt.registered_pattern_names()

    def optimized(builder, **kwargs):
        onnxopt.GraphGraph(builder, registered="none,+Shared", **kwargs).optimize()
        return ops(builder.to_model())

    assert optimized(onnxopt.GraphBuilder(neg_model())) == ["Abs", "Relu", "Neg"]
    builder = onnxopt.GraphBuilder(neg_model())
    builder.register_pattern(NegNegTo("Sqrt"))  # this builder only
    assert optimized(builder) == ["Sqrt", "Relu", "Neg"]
    builder = onnxopt.GraphBuilder(neg_model())
    builder.register_pattern(NegNegTo("Sqrt"))
    assert optimized(builder, patterns=[NegNegTo("Exp")]) == ["Exp", "Relu", "Neg"]
    # Another builder still sees the global one.
    assert optimized(onnxopt.GraphBuilder(neg_model())) == ["Abs", "Relu", "Neg"]
    # Replacing globally.
    onnxopt.replace_pattern(NegNegTo("Log"))
    assert optimized(onnxopt.GraphBuilder(neg_model())) == ["Log", "Relu", "Neg"]
    # Registering another pattern under a taken name is an error.
    try:
        onnxopt.register_pattern(NegNegTo("Abs"))
    except onnxopt.BuilderError as e:
        assert "Shared" in str(e)
    else:
        raise AssertionError("expected BuilderError")


def test_globally_registered_python_pattern_in_default_selection_and_subgraphs():
    onnxopt.register_pattern(NegNegTo("Identity", name="GlobalNegNeg"))
    from conftest import if_model
    optimized = onnxopt.optimize(if_model(), patterns="none,+GlobalNegNeg")
    assert ops(optimized) == ["If", "Add"]
    assert "GlobalNegNeg" in onnxopt.resolve_selection("default")


def test_pattern_classes_are_instantiated():
    builder = onnxopt.GraphBuilder(neg_model())
    graph = onnxopt.GraphGraph(builder, patterns=[NegNegPattern, "CastCastPattern"], registered="none")
    assert sorted(graph.pattern_names) == ["CastCastPattern", "NegNeg"]


def test_interpreter_shutdown_with_live_python_patterns():
    """Patterns held by the global registry, a builder registry, a live optimizer and records
    at exit: the process ends cleanly (no Python object released after finalization)."""
    import os
    import subprocess
    import sys
    import textwrap

    script = textwrap.dedent("""
        import onnxopt
        from conftest import NegNegPattern, neg_model
        onnxopt.register_pattern(NegNegPattern(name="AtExitGlobal"))
        builder = onnxopt.GraphBuilder(neg_model())
        builder.register_pattern(NegNegPattern(name="AtExitBuilder"))
        graph = onnxopt.GraphGraph(builder, patterns=[NegNegPattern(name="AtExitLocal")])
        rewrites, report = graph.optimize(report=True)
        kept = (builder, graph, rewrites, report)
        print("done")
    """)
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join(p for p in [os.path.dirname(__file__), env.get("PYTHONPATH", "")] if p)
    result = subprocess.run([sys.executable, "-c", script], env=env, capture_output=True, text=True, timeout=120)
    assert result.returncode == 0, result.stderr
    assert result.stdout.strip() == "done"


def test_optimize_from_another_thread():
    import threading

    outcome = {}

    def work():
        builder = onnxopt.GraphBuilder(neg_model())
        onnxopt.GraphGraph(builder, patterns=[NegNegPattern()], registered="none").optimize()
        outcome["ops"] = ops(builder.to_model())

    threads = [threading.Thread(target=work) for _ in range(2)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert outcome["ops"] == ["Relu", "Neg"]
