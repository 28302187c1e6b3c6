"""The Python surface of issue 20: built-in pattern classes with their documentation, the
Python line of a no_match, do_not_remove, optimize(check=N), simplify, the type stubs."""

import ast
import inspect
import json
import os

import onnx
import pytest
from onnx import TensorProto, helper

import onnxopt
from onnxopt import _onnxpycore, _onnxpypatterns
from onnxopt_test_helpers import NegNegPattern, make_model, neg_model, ops, tensor

CAST_PATTERN_DOC = (
    "Cast<to=T>(x: T) => Identity(x): a cast to the type the tensor already has.\n"
    "Before:  y = Cast<to=T>(x)          (x of element type T)\n"
    "After:   y = Identity(x)            (doc string kept)\n"
    "Not valid when the element type of x is unknown (it may be a real conversion), nor\n"
    "when it differs from T.")


# --- Built-in pattern classes ------------------------------------------------------------------

def test_every_built_in_pattern_is_a_class_documented_by_the_registry():
    names = _onnxpypatterns.names()
    assert len(names) > 100
    for name in names:
        cls = getattr(onnxopt, name)
        assert isinstance(cls, type), name
        assert issubclass(cls, onnxopt.PatternOptimizationBase), name
        instance = cls()
        assert isinstance(instance, cls) and type(instance) is cls, name
        assert instance.name == name
        assert cls.__doc__ == onnxopt.pattern_doc(name) == _onnxpypatterns.doc(name), name
        assert cls.__doc__, f"{name} has no documentation"


def test_the_docstring_is_the_comment_above_the_cpp_class():
    assert onnxopt.CastPattern.__doc__ == CAST_PATTERN_DOC
    assert onnxopt.TransposeOptimizer.__doc__.startswith("TransposeOptimizer: pushes Transposes")
    assert isinstance(onnxopt.CastPattern(), onnxopt.CastPattern)
    assert not isinstance(onnxopt.CastPattern(), onnxopt.CastCastPattern)


def test_registry_instances_are_instances_of_their_class():
    for pattern in onnxopt.standard_patterns(["CastPattern", "TransposeOptimizer", "CopyElimination"]):
        assert type(pattern) is getattr(onnxopt, pattern.name)


def test_a_built_in_class_optimizes_like_its_name():
    model = make_model([helper.make_node("Cast", ["x"], ["y"], to=TensorProto.FLOAT)], [tensor("x")], [tensor("y")])
    assert ops(onnxopt.optimize(model, patterns=[onnxopt.CastPattern])) == ["Identity"]
    assert ops(onnxopt.optimize(model, patterns=[onnxopt.CastCastPattern()])) == ["Cast"]


def test_unknown_attribute_is_an_attribute_error():
    with pytest.raises(AttributeError):
        onnxopt.NoSuchPattern  # noqa: B018


class DocumentedNeg(NegNegPattern):
    """Neg(Neg(x)) => x, registered from Python."""

    def __init__(self):
        super().__init__(name="DocumentedNeg")


class UndocumentedNeg(NegNegPattern):
    def __init__(self):
        super().__init__(name="UndocumentedNeg")


def test_a_python_patterns_docstring_documents_it_in_the_registry():
    onnxopt.replace_pattern(DocumentedNeg())
    onnxopt.replace_pattern(UndocumentedNeg())
    assert onnxopt.pattern_doc("DocumentedNeg") == "Neg(Neg(x)) => x, registered from Python."
    # Not the docstring of a base class.
    assert onnxopt.pattern_doc("UndocumentedNeg") == ""
    with pytest.raises(KeyError, match="no pattern is registered as 'NotRegisteredAnywhere'"):
        onnxopt.pattern_doc("NotRegisteredAnywhere")


# --- no_match reports the Python line -----------------------------------------------------------

class RejectingPattern(onnxopt.PatternOptimization):
    def fast_op_type(self):
        return {"Neg", "Relu"}

    def match(self, graph, node):
        if node.op_type == "Relu":
            return self.no_match(node, "a Relu")  # REJECT_RELU
        return self.no_match(node, "a Neg")  # REJECT_NEG

    def apply(self, graph, nodes):
        raise AssertionError("never matched")


def line_of(marker):
    source, first = inspect.getsourcelines(RejectingPattern)
    return first + next(i for i, line in enumerate(source) if marker in line)


def test_no_match_reports_the_python_file_and_line():
    _, report = onnxopt.optimize(neg_model(), patterns=[RejectingPattern()], report=True)
    rejections = {(r.reason, r.file, r.line, r.count) for r in report.no_matches if r.pattern == "RejectingPattern"}
    assert rejections == {("a Relu", __file__, line_of("REJECT_RELU"), 1),
                          ("a Neg", __file__, line_of("REJECT_NEG"), 3)}
    assert f"{os.path.basename(__file__)}:{line_of('REJECT_NEG')}" in report.to_string()


def test_the_report_counts_the_nodes_each_phase_visited():
    _, report = onnxopt.optimize(neg_model(), patterns=[RejectingPattern()], report=True)
    visited = report.nodes_visited
    # Every Match call visits one node (Python patterns included).
    assert visited.matching == sum(p.match_calls for p in report.patterns) >= 4
    assert visited.indexing >= report.nodes_before and visited.cleanup >= report.nodes_before
    assert visited.total() == sum(getattr(visited, phase) for phase in (
        "indexing", "matching", "rewriting", "shape_inference", "constant_folding", "cleanup", "graph_passes"))
    assert json.loads(report.to_json())["nodes_visited"]["total"] == visited.total()


def test_a_match_result_shows_the_python_line():
    builder = onnxopt.GraphBuilder(neg_model())
    graph = onnxopt.GraphGraph(builder, patterns=[], registered="none")
    node = graph.nodes()[0]
    result = RejectingPattern().match(graph, node)
    assert not result and result.reason == "a Neg"
    assert f"{__file__}:{line_of('REJECT_NEG')}" in repr(result)


# --- do_not_remove --------------------------------------------------------------------------

def test_do_not_remove_protects_the_nodes_the_callable_names():
    assert ops(onnxopt.optimize(neg_model(), patterns=[NegNegPattern()])) == ["Relu", "Neg"]
    seen = []

    def keep_neg2(node):
        seen.append((node.name, node.op_type))
        return node.name == "neg2"

    kept = onnxopt.optimize(neg_model(), patterns=[NegNegPattern()], do_not_remove=keep_neg2)
    assert ops(kept) == ["Neg", "Neg", "Relu", "Neg"]
    assert ("neg2", "Neg") in seen
    # A predicate that protects nothing changes nothing.
    assert ops(onnxopt.optimize(neg_model(), patterns=[NegNegPattern()], do_not_remove=lambda node: False)) == \
        ["Relu", "Neg"]


def test_do_not_remove_keeps_the_name_marker():
    model = neg_model()
    model.graph.node[1].name = "neg2_DONOTREMOVE_"
    assert ops(onnxopt.optimize(model, patterns=[NegNegPattern()], do_not_remove=lambda node: False)) == \
        ["Neg", "Neg", "Relu", "Neg"]


def test_an_exception_of_do_not_remove_propagates_naming_the_node():
    def broken(node):
        raise ZeroDivisionError("no predicate today")

    with pytest.raises(RuntimeError, match=r"do_not_remove raised on node 'neg\d' \(Neg\)") as caught:
        onnxopt.optimize(neg_model(), patterns=[NegNegPattern()], do_not_remove=broken)
    assert isinstance(caught.value.__cause__, ZeroDivisionError)
    with pytest.raises(TypeError, match="do_not_remove must be a callable"):
        onnxopt.optimize(neg_model(), patterns=[NegNegPattern()], do_not_remove=3)


def test_keep_protects_the_nodes_its_globs_name():
    def optimized(**protect):
        builder = onnxopt.GraphBuilder(neg_model())
        onnxopt.GraphGraph(builder, patterns=[NegNegPattern()], registered="none", **protect).optimize()
        return [n.op_type for n in onnx.load_from_string(builder.to_model_bytes()).graph.node]

    assert optimized(keep=["relu", "neg3"]) == ["Relu", "Neg"]
    assert optimized(keep=["neg[2-9]"]) == ["Neg", "Neg", "Relu", "Neg"]
    # With do_not_remove, a node either protects stays.
    assert optimized(keep=["none*"], do_not_remove=lambda node: node.name == "neg1") == ["Neg", "Neg", "Relu", "Neg"]
    assert optimized(keep=["neg1"], do_not_remove=lambda node: False) == ["Neg", "Neg", "Relu", "Neg"]


def test_the_json_report_carries_the_input_shapes():
    _, report = onnxopt.optimize(neg_model(), patterns=[NegNegPattern()], report=True)
    written = json.loads(report.to_json())
    assert (written["input_shapes"], written["dims"]) == ({}, {})
    written = json.loads(report.to_json({"x": [2, 3]}, {"batch": 2}))
    assert (written["input_shapes"], written["dims"]) == ({"x": [2, 3]}, {"batch": 2})


# --- check and simplify -------------------------------------------------------------------------

class ReluIsIdentity(onnxopt.PatternOptimization):
    """Relu(x) => x: wrong for negative x, so that check catches it."""

    def fast_op_type(self):
        return {"Relu"}

    def match(self, graph, node):
        return self.result([node])

    def apply(self, graph, nodes):
        return [helper.make_node("Identity", [nodes[0].input[0]], list(nodes[0].output))]


def test_check_passes_for_a_correct_optimization():
    optimized = onnxopt.optimize(neg_model(), patterns=[NegNegPattern()], check=3)
    assert ops(optimized) == ["Relu", "Neg"]


def test_check_raises_check_error_with_the_comparison():
    with pytest.raises(onnxopt.CheckError) as caught:
        onnxopt.optimize(neg_model(), patterns=[ReluIsIdentity()], check=3)
    message = str(caught.value)
    assert "MISMATCH y max_abs_diff=" in message
    assert "NOT EQUIVALENT (seed 0" in message
    assert message.endswith("check: the optimized model's outputs differ from the original's on input set 1 of 3 "
                            "(seed 0)")
    assert isinstance(caught.value, onnxopt.Error)


def test_check_tolerances_are_used():
    # Inputs are uniform in [-1, 1): Relu and Identity differ by less than 1.
    optimized = onnxopt.optimize(neg_model(), patterns=[ReluIsIdentity()], check=2, check_atol=1.0)
    assert ops(optimized) == ["Neg", "Neg", "Neg"]
    with pytest.raises(onnxopt.CheckError):
        onnxopt.optimize(neg_model(), patterns=[ReluIsIdentity()], check=2, check_atol=0.001, check_rtol=0.0)


class ReshapeTargetWithAMinusOne(onnxopt.PatternOptimization):
    """Reshape(x, s) => Reshape(x, [0, -1, 5]): right for x [N, 15] and s = [N, 3, 5] while N > 0;
    with N = 0 the -1 beside the 0 cannot be inferred, and the Reshape fails."""

    def fast_op_type(self):
        return {"Reshape"}

    def match(self, graph, node):
        return self.result([node]) if node.input[1] == "s" else self.no_match(node, "the target is rewritten")

    def apply(self, graph, nodes):
        target = helper.make_tensor("target", TensorProto.INT64, [3], [0, -1, 5])
        return [helper.make_node("Constant", [], ["c"], value=target),
                helper.make_node("Reshape", [nodes[0].input[0], "c"], list(nodes[0].output))]


def test_check_compares_with_each_symbolic_dimension_zero():
    model = make_model(
        [helper.make_node("Shape", ["x"], ["n"], start=0, end=1),
         helper.make_node("Constant", [], ["k"], value=helper.make_tensor("k", TensorProto.INT64, [2], [3, 5])),
         helper.make_node("Concat", ["n", "k"], ["s"], axis=0), helper.make_node("Reshape", ["x", "s"], ["y"])],
        [tensor("x", ("N", 15))], [tensor("y", ("N", 3, 5))])
    with pytest.raises(onnxopt.CheckError) as caught:
        onnxopt.optimize(model, patterns=[ReshapeTargetWithAMinusOne()], check=2)
    assert str(caught.value).endswith("check: the optimized model fails to run with N = 0, where the original runs "
                                      "(empty-dimension set, seed 0)")


def float16_rounding_amplifier():
    """Y = MatMul(X * 1.7 * 0.33, W) in float16 over 1 024 terms, W fixed in [-1, 1)."""
    import numpy as np
    from onnx import numpy_helper
    weights = np.random.default_rng(0).uniform(-1, 1, (1024, 8)).astype(np.float16)
    return make_model(
        [helper.make_node("Mul", ["X", "a"], ["m1"]), helper.make_node("Mul", ["m1", "b"], ["m"]),
         helper.make_node("MatMul", ["m", "W"], ["Y"])],
        [helper.make_tensor_value_info("X", TensorProto.FLOAT16, [4, 1024])],
        [helper.make_tensor_value_info("Y", TensorProto.FLOAT16, [4, 8])],
        [numpy_helper.from_array(weights, "W"), numpy_helper.from_array(np.array(1.7, np.float16), "a"),
         numpy_helper.from_array(np.array(0.33, np.float16), "b")])


def test_check_passes_rounding_that_the_model_amplifies():
    # SwitchOrderBinaryPattern (rounding) reassociates the products: beyond float16's
    # tolerances on some input sets, as accurate against a float64 evaluation.
    model = float16_rounding_amplifier()
    optimized = onnxopt.optimize(model, patterns="none,+SwitchOrderBinaryPattern", check=8)
    assert ops(optimized) == ["Mul", "MatMul"]
    original, rewritten = model.SerializeToString(), optimized.SerializeToString()
    judged = [_onnxpycore.compare_models(original, "a", rewritten, "b", seed, judge_rounding=True)
              for seed in range(8)]
    plain = [_onnxpycore.compare_models(original, "a", rewritten, "b", seed) for seed in range(8)]
    assert all(same for same, _ in judged)
    assert any(not same for same, _ in plain)
    assert any("within rounding: 1 output differs" in text for _, text in judged)


def test_check_arguments_are_validated():
    with pytest.raises(ValueError, match="check_atol and check_rtol need check=N"):
        onnxopt.optimize(neg_model(), check_atol=0.1)
    with pytest.raises(ValueError, match="check expects a number of input sets >= 0"):
        onnxopt.optimize(neg_model(), check=-1)
    with pytest.raises(ValueError, match="check_rtol must be a number >= 0"):
        onnxopt.optimize(neg_model(), check=1, check_rtol=-1.0)


def test_check_reads_a_model_from_a_path(tmp_path):
    path = tmp_path / "neg.onnx"
    onnx.save(neg_model(), str(path))
    assert ops(onnxopt.optimize(str(path), patterns=[NegNegPattern()], check=1)) == ["Relu", "Neg"]


def test_simplify_returns_the_model_and_whether_the_check_passed():
    simplified, ok = onnxopt.simplify(neg_model(), patterns=[NegNegPattern()])
    assert ok is True and ops(simplified) == ["Relu", "Neg"]
    wrong, ok = onnxopt.simplify(neg_model(), patterns=[ReluIsIdentity()], check_n=2)
    assert ok is False and ops(wrong) == ["Neg", "Neg", "Neg"], "the model is returned all the same"
    unchecked, ok = onnxopt.simplify(neg_model(), patterns=[ReluIsIdentity()], check_n=0)
    assert ok is True, "nothing compared"
    with pytest.raises(TypeError, match="unexpected keyword arguments: report"):
        onnxopt.simplify(neg_model(), report=True)


def test_compare_models_runs_one_input_set():
    model = neg_model().SerializeToString()
    same, text = _onnxpycore.compare_models(model, "a", model, "b", seed=4)
    assert same and "EQUIVALENT (seed 4" in text and "ok       y max_abs_diff=0" in text


# --- Stubs and docstrings -----------------------------------------------------------------------

PACKAGE_DIR = os.path.dirname(onnxopt.__file__)


def stub_names(stub_file):
    """Top-level names a stub defines (classes, functions, assignments, imports; a star import
    brings the other stub's __all__), each with the names its class body defines."""
    tree = ast.parse(open(os.path.join(PACKAGE_DIR, stub_file)).read())
    names = {}
    for node in tree.body:
        if isinstance(node, (ast.ClassDef, ast.FunctionDef)):
            names[node.name] = class_members(node) if isinstance(node, ast.ClassDef) else set()
        elif isinstance(node, ast.AnnAssign) and isinstance(node.target, ast.Name):
            names[node.target.id] = set()
        elif isinstance(node, ast.Assign):
            names.update({target.id: set() for target in node.targets if isinstance(target, ast.Name)})
        elif isinstance(node, ast.ImportFrom):
            for alias in node.names:
                if alias.name == "*":
                    names.update({name: set() for name in stub_all(node.module.lstrip(".") + ".pyi")})
                else:
                    names[alias.asname or alias.name] = set()
    return names


def stub_all(stub_file):
    tree = ast.parse(open(os.path.join(PACKAGE_DIR, stub_file)).read())
    for node in tree.body:
        if isinstance(node, ast.Assign) and any(getattr(t, "id", None) == "__all__" for t in node.targets):
            return [element.value for element in node.value.elts]
    return []


def class_members(node):
    return {n.name for n in node.body if isinstance(n, (ast.FunctionDef, ast.ClassDef))} | {
        n.target.id for n in node.body if isinstance(n, ast.AnnAssign) and isinstance(n.target, ast.Name)}


def stub_class(stub_file, class_name):
    """The members of the class `class_name`, wherever it is nested in the stub."""
    tree = ast.parse(open(os.path.join(PACKAGE_DIR, stub_file)).read())
    for node in ast.walk(tree):
        if isinstance(node, ast.ClassDef) and node.name == class_name:
            return class_members(node)
    return None


def public(obj):
    return {name for name in dir(obj) if not name.startswith("_")}


def test_the_package_is_typed():
    for stub in ("__init__.pyi", "_onnxpycore.pyi", "_onnxpypatterns.pyi", "py.typed"):
        assert os.path.exists(os.path.join(PACKAGE_DIR, stub)), stub


def test_the_core_stub_covers_every_binding():
    stub = stub_names("_onnxpycore.pyi")
    missing = public(_onnxpycore) - set(stub)
    assert not missing, f"not in _onnxpycore.pyi: {sorted(missing)}"
    # The submodules are declared as classes of the stub, each member with it.
    for submodule in ("builder", "fusion"):
        missing = public(getattr(_onnxpycore, submodule)) - stub[submodule]
        assert not missing, f"not in the stub of _onnxpycore.{submodule}: {sorted(missing)}"
    for class_name in ("GraphGraph", "GraphBuilder", "PatternOptimization", "NodeView", "OptimizationReport",
                       "MatchResult", "LocalRewriting", "PatternStats", "NoMatchStats", "ValueShape", "PhaseNodes"):
        members = public(getattr(_onnxpycore.builder, class_name))
        declared = stub_class("_onnxpycore.pyi", class_name)
        assert declared is not None, class_name
        assert members <= declared, f"{class_name}: {sorted(members - declared)}"


def test_the_patterns_stub_declares_every_pattern_class():
    stub = stub_names("_onnxpypatterns.pyi")
    missing = set(_onnxpypatterns.names()) - set(stub)
    assert not missing, f"regenerate python/onnxopt/_onnxpypatterns.pyi: {sorted(missing)}"
    assert {"names", "families", "create", "doc", "register_patterns"} <= set(stub)


def test_the_package_stub_declares_every_public_name_and_each_function_has_a_docstring():
    stub = stub_names("__init__.pyi")
    for name in public(onnxopt):
        value = getattr(onnxopt, name)
        # Modules and the names of `from typing import ...` / `from __future__ import ...`.
        if inspect.ismodule(value) or type(value).__module__ in ("typing", "__future__") or \
                getattr(value, "__module__", None) == "typing":
            continue
        assert name in stub, f"{name} is not in __init__.pyi"
        if callable(value):
            assert own_doc(value), f"onnxopt.{name} has no docstring"


def own_doc(value):
    """The docstring `value` itself has: a class's own (not object's), a pybind11 function's text
    after its signature line."""
    doc = value.__dict__.get("__doc__") if isinstance(value, type) else value.__doc__
    lines = (doc or "").strip().splitlines()
    if lines and lines[0].startswith(value.__name__ + "("):
        lines = lines[1:]
    return "\n".join(lines).strip()


# --- Declarative passes are documented too -----------------------------------------------------

def test_a_declarative_pass_is_documented_by_its_description_or_docstring():
    from onnxopt.fusion import DecomposePass, PatternFusionPass, op, pattern

    class AddZeroRule(PatternFusionPass):
        """x + 0 => x."""

        @pattern
        def add_zero(self, inputs):
            return op.Add(inputs[0], op.Const(name="zero"))

        def replacement(self, inputs):
            return inputs[0]

    class Undocumented(AddZeroRule):
        pass

    class SplitRelu(DecomposePass):
        def replacement(self, inputs):
            return inputs[0]

    onnxopt.fusion.unregister_all()
    try:
        onnxopt.fusion.register_fusion_pass(name="AddZeroDoc")(AddZeroRule)
        onnxopt.fusion.register_fusion_pass(name="AddZeroGiven", description="adds nothing")(AddZeroRule)
        onnxopt.fusion.register_fusion_pass(name="AddZeroBare")(Undocumented)
        onnxopt.fusion.register_decompose_pass(name="Decomposed", op_types=["Relu"],
                                               description="Relu(x) => x, for the test")(SplitRelu)
        assert onnxopt.fusion.pass_description("AddZeroDoc") == "x + 0 => x."
        assert onnxopt.fusion.pass_description("AddZeroGiven") == "adds nothing"
        assert onnxopt.fusion.pass_description("AddZeroBare") == "", "not the docstring of its base class"
        assert onnxopt.fusion.pass_description("Decomposed") == "Relu(x) => x, for the test"
        with pytest.raises(KeyError, match="no declarative pass is registered as 'Missing'"):
            onnxopt.fusion.pass_description("Missing")
    finally:
        onnxopt.fusion.unregister_all()
