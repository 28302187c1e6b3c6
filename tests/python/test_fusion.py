"""Declarative rules in Python (onnxopt.fusion): T41 and T54-T58 of
shared/docs/declarative-fusion.md §11, plus rewrites checked for Replay and onnxruntime."""

import json
import os
import subprocess
import tempfile

import numpy as np
import onnx
import pytest
from onnx import TensorProto, helper, numpy_helper

import onnxopt
from onnxopt import fusion
from onnxopt.fusion import PassStage, PatternFusionPass, op, pattern

from conftest import make_model, tensor

SOURCE_DIR = os.environ.get("ONNXOPT_SOURCE_DIR", os.path.join(os.path.dirname(__file__), "..", ".."))


def gemm_model():
    """T07: t = MatMul(a[4,8], W[8,16]); y = Add(t, c[16])."""
    w = numpy_helper.from_array(np.arange(128, dtype=np.float32).reshape(8, 16) / 64, "W")
    return make_model([helper.make_node("MatMul", ["a", "W"], ["t"]), helper.make_node("Add", ["t", "c"], ["y"])],
                      [tensor("a", (4, 8)), tensor("c", (16,))], [tensor("y", (4, 16))], [w], opset=17)


def add_zero_model(zero=np.zeros(1, np.float32), elem_type=TensorProto.FLOAT):
    """T01: t = Add(a, Z); u = Relu(t)."""
    return make_model([helper.make_node("Add", ["a", "Z"], ["t"]), helper.make_node("Relu", ["t"], ["u"])],
                      [tensor("a", (2, 3), elem_type)], [tensor("u", (2, 3), elem_type)],
                      [numpy_helper.from_array(zero, "Z")], opset=17)


def run(patterns, model):
    """(optimized model, records, report) with `patterns` alone."""
    builder = onnxopt.GraphBuilder(model)
    graph = onnxopt.GraphGraph(builder, patterns=patterns, registered="none")
    records, report = graph.optimize(report=True)
    del graph
    return builder.to_model(), records, report


def applied(records, prefix):
    return [r for r in records if r.name.startswith(prefix)]


def expect_same_on_onnxruntime(before, after):
    with tempfile.TemporaryDirectory() as folder:
        a, b = os.path.join(folder, "a.onnx"), os.path.join(folder, "b.onnx")
        onnx.save(before, a)
        onnx.save(after, b)
        result = subprocess.run(["node", os.path.join(SOURCE_DIR, "tests/ort/compare_models.js"), a, b],
                                capture_output=True, text=True)
        assert result.returncode == 0, result.stdout + result.stderr


def expect_rewritten(patterns, model, prefix):
    optimized, records, _ = run(patterns, model)
    assert applied(records, prefix), "no rule fired"
    replayed = onnxopt.replay(model, records)
    assert replayed.graph.SerializeToString(deterministic=True) == optimized.graph.SerializeToString(
        deterministic=True), "Replay does not reproduce the optimized graph"
    onnx.checker.check_model(optimized)
    expect_same_on_onnxruntime(model, optimized)
    _, again, _ = run(patterns, optimized)
    assert not applied(again, prefix), "the rule fires again on its own result"
    return optimized, records


class MatMulAddToGemm(PatternFusionPass):
    @pattern
    def matmul_add(self, inputs):
        a, w, c = inputs[:3]
        return (a @ w) + c

    def meet_requirements(self, match):
        g = match.graph
        return (g.get_shape(match.input(0)).rank == 2 and g.get_shape(match.input(1)).rank == 2
                and g.get_shape(match.input(2)).rank == 1)

    def replacement(self, inputs):
        a, w, c = inputs[:3]
        return op.Gemm(a, w, c)


def test_expression_rule_rewrites_matmul_add():
    optimized, records = expect_rewritten(MatMulAddToGemm().compile(), gemm_model(), "MatMulAddToGemm/")
    assert [n.op_type for n in optimized.graph.node] == ["Gemm"]
    assert [r.name for r in applied(records, "MatMulAddToGemm")] == ["MatMulAddToGemm/matmul_add"]


def test_t41_auto_capture_order():
    seen = {}

    class Capture(MatMulAddToGemm):
        def meet_requirements(self, match):
            seen["captured"] = [match.captured(i) for i in range(4)]
            with pytest.raises(IndexError):
                match.captured(4)
            seen["checked"] = True
            return False

    run(Capture().compile(), gemm_model())
    assert seen["captured"] == ["a", "W", "c", "y"], "inputs by index, then outputs; no intermediate"
    assert seen["checked"]


class AddZero(PatternFusionPass):
    @pattern
    def add_zero(self, inputs):
        return inputs[0] + op.Const(name="zero")

    def meet_requirements(self, match):
        g = match.graph
        x, y = match.captured(0), match.captured(1)
        sx, sy = g.get_shape(x), g.get_shape(y)
        return bool((match.constant("zero") == 0).all()) and (sx.elem_type, sx.dims) == (sy.elem_type, sy.dims)

    def replacement(self, inputs):
        return inputs[0]


def test_t01_add_zero_in_python():
    optimized, _ = expect_rewritten(AddZero().compile(), add_zero_model(), "AddZero/")
    assert [(n.op_type, list(n.input)) for n in optimized.graph.node] == [("Relu", ["a"])]


def test_t02_nonzero_constant_is_left_alone():
    _, records, report = run(AddZero().compile(), add_zero_model(np.ones(1, np.float32)))
    assert not applied(records, "AddZero")
    reasons = [(s.pattern, s.reason) for s in report.no_matches]
    assert ("AddZero/add_zero", "MeetRequirements rejected the match") in reasons


def test_t54_class_rules():
    class Two(PatternFusionPass):
        @pattern
        def first(self, inputs):
            return op.Relu(inputs[0])

        @pattern
        def second(self, inputs):
            return op.Abs(inputs[0])

        def replacement(self, inputs):
            return op.Relu(inputs[0])

    assert [p.name for p in Two().compile()] == ["Two/first", "Two/second"], "definition order"

    class Iterates(PatternFusionPass):
        @pattern
        def bad(self, inputs):
            return op.Sum(*inputs)

    with pytest.raises(TypeError, match="cannot be iterated"):
        Iterates().compile()

    with pytest.raises(TypeError, match="mixes @pattern"):
        class Mixed(PatternFusionPass):  # noqa: F841
            @pattern
            def p(self, inputs):
                return op.Relu(inputs[0])

            def patterns(self):
                return []

    with pytest.raises(TypeError, match="run"):
        class Runs(PatternFusionPass):  # noqa: F841
            def run(self, graph):
                pass

    fusion.unregister_all()
    fusion.register_fusion_pass(name="Dup")(Two)
    with pytest.raises(ValueError, match="already registered"):
        fusion.register_fusion_pass(name="Dup")(Two)
    # A decompose pass's pattern has the pass's name: it would replace the built-in one.
    with pytest.raises(ValueError, match="'CastCastPattern' is the name of a built-in pattern"):
        fusion.register_decompose_pass(name="CastCastPattern", op_types=["Neg"])(fusion.DecomposePass)
    fusion.unregister_all()


def test_t55_literal_dtype_with_value_matching():
    class StrictAddZero(PatternFusionPass):
        def __init__(self):
            super().__init__(fusion.PatternMatcherConfigBuilder().enable_const_value_match().build())

        @pattern
        def add_zero(self, inputs):
            return inputs[0] + 0.0

        def meet_requirements(self, match):
            return False

    def matches(model):
        _, _, report = run(StrictAddZero().compile(), model)
        return sum(s.count for s in report.no_matches if s.reason == "MeetRequirements rejected the match")

    assert matches(add_zero_model(np.zeros((), np.float16), TensorProto.FLOAT16)) == 0
    assert matches(add_zero_model(np.zeros((), np.float32))) == 1


def test_t56_replacement_forms():
    calls = {"inputs": 0}

    class Pure(MatMulAddToGemm):
        def replacement(self, inputs):
            calls["inputs"] += 1
            return op.Gemm(*inputs[:3])

    class WithMatch(MatMulAddToGemm):
        def replacement(self, inputs, match):
            assert match.captured(3) == "y"
            return op.Gemm(*inputs[:3])

    class WithContext(MatMulAddToGemm):
        def replacement(self, inputs, match, context):
            assert context.opset() == 17
            return op.Gemm(*inputs[:3])

    class Classic(MatMulAddToGemm):
        def replacement(self, match, rb):
            return rb.build([op.Gemm(rb.input(0), rb.input(1), rb.input(2))])

    results = []
    for rule in (Pure(), WithMatch(), WithContext(), Classic()):
        optimized, _, _ = run(rule.compile(), gemm_model())
        results.append([(n.op_type, list(n.input), list(n.output)) for n in optimized.graph.node])
    assert all(r == results[0] for r in results), "the same result every time"

    # Called once per pattern: the template is cached across matches.
    calls["inputs"] = 0
    two = gemm_model()
    two.graph.node.extend([helper.make_node("MatMul", ["a2", "W"], ["t2"]), helper.make_node("Add", ["t2", "c"], ["y2"])])
    two.graph.input.append(tensor("a2", (4, 8)))
    two.graph.output.append(tensor("y2", (4, 16)))
    _, records, _ = run(Pure().compile(), two)
    assert len(applied(records, "Pure")) == 2
    assert calls["inputs"] == 1


def test_t57_pass_path(tmp_path):
    fusion.unregister_all()
    rules = tmp_path / "dir"
    (rules / "pkg").mkdir(parents=True)
    body = ("from onnxopt.fusion import PatternFusionPass, pattern, op, register_fusion_pass\n"
            "@register_fusion_pass(name='{name}')\n"
            "class R(PatternFusionPass):\n"
            "    @pattern\n"
            "    def p(self, inputs):\n"
            "        return op.Neg(inputs[0])\n"
            "    def replacement(self, inputs):\n"
            "        return op.Neg(inputs[0])\n")
    (rules / "a.py").write_text(body.format(name="A"))
    (rules / "_b.py").write_text(body.format(name="B"))
    (rules / "pkg" / "__init__.py").write_text(body.format(name="Pkg"))
    x = tmp_path / "x.py"
    x.write_text(body.format(name="X"))
    fusion.load_passes(f"{rules}{os.pathsep}{x}")
    assert fusion.registered_pass_names() == ["A", "Pkg", "X"]
    fusion.load_passes([str(x)])  # once only: no duplicate registration
    with pytest.raises(FileNotFoundError):
        fusion.load_passes([str(tmp_path / "missing")])
    text = tmp_path / "x.txt"
    text.write_text("")
    with pytest.raises(ValueError):
        fusion.load_passes([str(text)])
    fusion.unregister_all()


def test_t58_exception_propagates_with_the_rule_name():
    class Raises(AddZero):
        def meet_requirements(self, match):
            raise RuntimeError("boom")

    model = add_zero_model()
    builder = onnxopt.GraphBuilder(model)
    graph = onnxopt.GraphGraph(builder, patterns=Raises().compile(), registered="none")
    with pytest.raises(RuntimeError, match="boom") as error:
        graph.optimize()
    assert any("Raises/add_zero" in note for note in getattr(error.value, "__notes__", []))
    del graph
    assert builder.to_model().graph.SerializeToString() == model.graph.SerializeToString(), "the builder is unchanged"


def test_callbacks_see_a_read_only_graph():
    """meet_requirements must not change the graph: the change would not be recorded."""
    class Sneaky(AddZero):
        def meet_requirements(self, match):
            match.graph.make_initializer("sneaky", np.zeros(1, np.float32))
            return False

    model = add_zero_model()
    builder = onnxopt.GraphBuilder(model)
    graph = onnxopt.GraphGraph(builder, patterns=Sneaky().compile(), registered="none")
    with pytest.raises(onnxopt.BuilderError, match="make_initializer changes the graph, which is read-only"):
        graph.optimize()
    del graph
    assert [i.name for i in builder.to_model().graph.initializer] == [i.name for i in model.graph.initializer]


def test_decompose_pass_in_python():
    class NegToSub(fusion.DecomposePass):
        def replacement(self, node, inputs):
            return op.Sub(np.zeros((), np.float32), inputs[0])

    model = make_model([helper.make_node("Neg", ["a"], ["y"])], [tensor("a")], [tensor("y")], opset=17)
    optimized, _ = expect_rewritten(NegToSub(["Neg"]).compile(), model, "NegToSub")
    assert [n.op_type for n in optimized.graph.node] == ["Sub"]

    # Registered, the class builds without arguments (its op types are the registration's).
    fusion.unregister_all()
    registered = fusion.register_decompose_pass(name="NegToSubRegistered", op_types=["Neg"])(NegToSub)
    optimized, _ = expect_rewritten(registered().compile(), model, "NegToSub")
    assert [n.op_type for n in optimized.graph.node] == ["Sub"]
    fusion.unregister_all()


def test_registered_passes_run_in_stage_order():
    fusion.unregister_all()

    @fusion.register_fusion_pass(name="Late", stage=PassStage.AFTER_OPTIMIZATION)
    class Late(AddZero):
        pass

    @fusion.register_fusion_pass(name="Early", stage=PassStage.BEFORE_SHAPE_INFERENCE)
    class Early(AddZero):
        pass

    assert [p.name for p in fusion.registered_patterns()] == ["Early/add_zero", "Late/add_zero"]
    fusion.unregister_all()


def test_pattern_from_text():
    p = fusion.Pattern.from_text("add_zero (x) => (y) {\n c = onnxopt.pattern.AnyConstant()\n y = Add(x, c)\n}")
    assert (p.name, p.num_inputs, p.num_outputs) == ("add_zero", 1, 1)
    with pytest.raises(fusion.PatternError, match="no node reads it"):
        b = fusion.PatternBuilder("unused")
        x, y = b.inputs(2)
        b.build([op.Relu(y)])


def test_command_line_passes(tmp_path):
    """`onnxopt optimize --passes examples/declarative_python/rules.py` and a broken rule file."""
    exe = os.environ.get("ONNXOPT_EXE", os.path.join(SOURCE_DIR, "build", "onnxopt"))
    model = make_model([helper.make_node("MatMul", ["a", "W"], ["t"]), helper.make_node("Add", ["t", "c"], ["y0"]),
                        helper.make_node("Add", ["y0", "Z"], ["y"])],
                       [tensor("a", (4, 8)), tensor("c", (16,))], [tensor("y", (4, 16))],
                       list(gemm_model().graph.initializer) + [numpy_helper.from_array(np.zeros(1, np.float32), "Z")],
                       opset=17)
    onnx.save(model, tmp_path / "model.onnx")
    rules = os.path.join(SOURCE_DIR, "examples", "declarative_python", "rules.py")
    result = subprocess.run([exe, "optimize", str(tmp_path / "model.onnx"), "-o", str(tmp_path / "out.onnx"),
                             "--passes", rules], capture_output=True, text=True)
    assert result.returncode == 0, result.stdout + result.stderr
    optimized = onnx.load(tmp_path / "out.onnx")
    assert [n.op_type for n in optimized.graph.node] == ["Gemm"]
    expect_same_on_onnxruntime(model, optimized)

    # The records of Python rules replay in pure C++, to the same bytes.
    result = subprocess.run([exe, "optimize", str(tmp_path / "model.onnx"), "-o", str(tmp_path / "rec.onnx"),
                             "--passes", rules, "--record", str(tmp_path / "rec.rewrites")], capture_output=True,
                            text=True)
    assert result.returncode == 0, result.stdout + result.stderr
    result = subprocess.run([exe, "replay", str(tmp_path / "model.onnx"), str(tmp_path / "rec.rewrites"), "-o",
                             str(tmp_path / "replayed.onnx")], capture_output=True, text=True)
    assert result.returncode == 0, result.stdout + result.stderr
    assert (tmp_path / "replayed.onnx").read_bytes() == (tmp_path / "rec.onnx").read_bytes()

    # --check N compares the saved model with the original, as without --passes.
    result = subprocess.run([exe, "optimize", str(tmp_path / "model.onnx"), "-o", str(tmp_path / "chk.onnx"),
                             "--passes", rules, "--check", "2"], capture_output=True, text=True)
    assert result.returncode == 0, result.stdout + result.stderr
    assert "check: the same outputs as the original on 2 random input sets" in result.stdout
    wrong = tmp_path / "wrong_rules.py"  # drops any constant added, not only zeros
    wrong.write_text(
        "from onnxopt.fusion import PassStage, PatternFusionPass, op, pattern, register_fusion_pass\n\n\n"
        "@register_fusion_pass(name='DropAdd', stage=PassStage.AFTER_SHAPE_INFERENCE)\n"
        "class DropAdd(PatternFusionPass):\n"
        "    @pattern\n"
        "    def add(self, inputs):\n"
        "        return op.Add(inputs[0], op.Const(name='c'))\n\n"
        "    def replacement(self, inputs):\n"
        "        return inputs[0]\n")
    ones = make_model([helper.make_node("Add", ["a", "K"], ["y"])], [tensor("a", (3,))], [tensor("y", (3,))],
                      [numpy_helper.from_array(np.ones(3, np.float32), "K")], opset=17)
    onnx.save(ones, tmp_path / "ones.onnx")
    result = subprocess.run([exe, "optimize", str(tmp_path / "ones.onnx"), "-o", str(tmp_path / "chk.onnx"),
                             "--passes", str(wrong), "--patterns", "none", "--check", "1"], capture_output=True,
                            text=True)
    assert result.returncode == 5, result.stdout + result.stderr
    assert "differ from the original's" in result.stderr, result.stderr

    # --patterns excludes rules by pattern or pass name; "none" leaves the rules alone.
    for selection, ops in (("none", ["Gemm"]),
                           ("none,-MatMulAddToGemm/matmul_add", ["MatMul", "Add"]),
                           ("none,-MatMulAddToGemm", ["MatMul", "Add"]),
                           ("none,-AddZero", ["Gemm", "Add"]),
                           ("AddZero", ["MatMul", "Add"])):  # exactly that pass
        result = subprocess.run([exe, "optimize", str(tmp_path / "model.onnx"), "-o", str(tmp_path / "sel.onnx"),
                                 "--passes", rules, "--patterns", selection], capture_output=True, text=True)
        assert result.returncode == 0, result.stdout + result.stderr
        assert [n.op_type for n in onnx.load(tmp_path / "sel.onnx").graph.node] == ops, selection

    bad = tmp_path / "bad_rules.py"
    bad.write_text("from onnxopt.fusion import op\n\nraise RuntimeError('broken rule')\n")
    result = subprocess.run([exe, "optimize", str(tmp_path / "model.onnx"), "-o", str(tmp_path / "out2.onnx"),
                             "--passes", str(bad)], capture_output=True, text=True)
    assert result.returncode == 2
    assert f"{bad}:3: error: RuntimeError: broken rule" in result.stderr

    # A rule that fails while it runs: where, exit 2, no output written.
    raises = tmp_path / "raising_rules.py"
    raises.write_text(
        "from onnxopt.fusion import PassStage, PatternFusionPass, op, pattern, register_fusion_pass\n\n\n"
        "@register_fusion_pass(name='Raises', stage=PassStage.AFTER_SHAPE_INFERENCE)\n"
        "class Raises(PatternFusionPass):\n"
        "    @pattern\n"
        "    def add(self, inputs):\n"
        "        return op.Add(inputs[0], inputs[1])\n\n"
        "    def meet_requirements(self, match):\n"
        "        raise RuntimeError('boom')\n\n"
        "    def replacement(self, inputs):\n"
        "        return inputs[0]\n")
    out3 = tmp_path / "out3.onnx"
    result = subprocess.run([exe, "optimize", str(tmp_path / "model.onnx"), "-o", str(out3), "--passes", str(raises)],
                            capture_output=True, text=True)
    assert result.returncode == 2, result.stdout + result.stderr
    assert f"{raises}:11: error: RuntimeError: boom" in result.stderr, result.stderr
    assert "Traceback" not in result.stderr
    assert not out3.exists()

    # A pattern the engine refuses once its method has returned: located at that method.
    unused = tmp_path / "unused_input_rules.py"
    unused.write_text(
        "from onnxopt.fusion import PassStage, PatternFusionPass, op, pattern, register_fusion_pass\n\n\n"
        "@register_fusion_pass(name='Unused', stage=PassStage.AFTER_SHAPE_INFERENCE)\n"
        "class Unused(PatternFusionPass):\n"
        "    @pattern\n"
        "    def add(self, inputs):\n"
        "        return op.Relu(inputs[1])\n\n"
        "    def replacement(self, inputs):\n"
        "        return inputs[1]\n")
    result = subprocess.run([exe, "optimize", str(tmp_path / "model.onnx"), "-o", str(out3), "--passes", str(unused)],
                            capture_output=True, text=True)
    assert result.returncode == 2, result.stdout + result.stderr
    assert f"{unused}:6: error: PatternError: pattern 'add': placeholder 0 is declared but no node reads it" \
        in result.stderr, result.stderr

    # Usage errors exit with 1, as in the C++ command line.
    result = subprocess.run([exe, "optimize", str(tmp_path / "model.onnx"), "-o", str(out3), "--passes", rules,
                             "--max-iter", "0"], capture_output=True, text=True)
    assert result.returncode == 1, result.stdout + result.stderr
    assert "--max-iter expects a positive integer" in result.stderr


def test_command_line_passes_check_with_onnxruntime(tmp_path):
    """--passes with --check-with onnxruntime: the Python command line optimizes, saves and
    makes its --check; the C++ command line then runs both models in onnxruntime."""
    exe = os.environ.get("ONNXOPT_EXE", os.path.join(SOURCE_DIR, "build", "onnxopt"))
    model = make_model([helper.make_node("MatMul", ["a", "W"], ["t"]), helper.make_node("Add", ["t", "c"], ["y"])],
                       [tensor("a", ("batch", 8)), tensor("c", (16,))], [tensor("y", ("batch", 16))],
                       list(gemm_model().graph.initializer), opset=17)
    onnx.save(model, tmp_path / "model.onnx")
    rules = os.path.join(SOURCE_DIR, "examples", "declarative_python", "rules.py")

    def optimize(*args, harness=None):
        env = dict(os.environ)
        if harness:
            env["ONNXOPT_ORT_HARNESS"] = str(harness)
        return subprocess.run([exe, "optimize", *map(str, args), "--passes", rules], capture_output=True, text=True,
                              env=env)

    # The output as the second argument, as without --passes.
    result = optimize(tmp_path / "model.onnx", tmp_path / "out.onnx", "--check", "1", "--check-with", "onnxruntime")
    assert result.returncode == 0, result.stdout + result.stderr
    assert [n.op_type for n in onnx.load(tmp_path / "out.onnx").graph.node] == ["Gemm"]
    # Both checks name the empty-dimension set (batch = 0), as without --passes.
    assert "check: the same outputs as the original on 1 random input set and 1 empty-dimension set\n" \
        in result.stdout, result.stdout
    assert "check: onnxruntime finds the same outputs on 1 random input set and 1 empty-dimension set\n" \
        in result.stdout, result.stdout

    # What onnxruntime finds different exits 5 (a stand-in harness plays onnxruntime's part,
    # since our own check passes first); the output stays for inspection.
    differs = tmp_path / "differs.js"
    differs.write_text("console.log('MISMATCH y float32[2,16] max_abs_diff=1');\nprocess.exitCode = 1;\n")
    result = optimize(tmp_path / "model.onnx", "-o", tmp_path / "o2.onnx", "--check", "1", "--check-with",
                      "onnxruntime", harness=differs)
    assert result.returncode == 5, result.stdout + result.stderr
    assert "onnxruntime: MISMATCH y" in result.stdout, result.stdout
    assert (tmp_path / "o2.onnx").exists()

    # In place: onnxruntime gets the original as it was read, not the file that replaced it.
    one_model = tmp_path / "one_model.js"
    one_model.write_text("const fs = require('fs');\n"
                         "const [a, b] = process.argv.slice(2, 4);\n"
                         "if (fs.readFileSync(a).equals(fs.readFileSync(b))) {\n"
                         "  console.log('MISMATCH the original given is the optimized model'); process.exitCode = 1;\n"
                         "} else console.log('EQUIVALENT');\n")
    in_place = tmp_path / "in_place.onnx"
    onnx.save(model, in_place)
    result = optimize(in_place, in_place, "--check", "1", "--check-with", "onnxruntime", harness=one_model)
    assert result.returncode == 0, result.stdout + result.stderr
    assert [n.op_type for n in onnx.load(in_place).graph.node] == ["Gemm"]

    # Usage errors, before anything runs: as without --passes.
    result = optimize(tmp_path / "model.onnx", "-o", tmp_path / "o3.onnx", "--check-with", "onnxruntime")
    assert result.returncode == 1, result.stdout + result.stderr
    assert "--check-atol, --check-rtol and --check-with need --check N" in result.stderr, result.stderr
    result = optimize(tmp_path / "model.onnx", "-o", tmp_path / "o3.onnx", "--check", "1", "--check-with", "tvm")
    assert result.returncode == 1, result.stdout + result.stderr
    assert "--check-with expects 'onnxruntime'" in result.stderr, result.stderr
    result = optimize(tmp_path / "model.onnx", tmp_path / "o3.onnx", "-o", tmp_path / "o4.onnx")
    assert result.returncode == 1, result.stdout + result.stderr
    assert "two outputs" in result.stderr, result.stderr
    assert not (tmp_path / "o3.onnx").exists() and not (tmp_path / "o4.onnx").exists()


def test_command_line_passes_reads_ir3_initializer_inputs_as_constants(tmp_path):
    """An IR < 4 model's initializers listed among its inputs: constants, as without --passes."""
    exe = os.environ.get("ONNXOPT_EXE", os.path.join(SOURCE_DIR, "build", "onnxopt"))
    rules = tmp_path / "add_zero_rules.py"
    rules.write_text(
        "import numpy as np\n"
        "from onnxopt.fusion import PassStage, PatternFusionPass, op, pattern, register_fusion_pass\n\n\n"
        "@register_fusion_pass(name='AddZero', stage=PassStage.AFTER_SHAPE_INFERENCE)\n"
        "class AddZero(PatternFusionPass):\n"
        "    @pattern\n"
        "    def add_zero(self, inputs):\n"
        "        return op.Add(inputs[0], op.Const(name='zero'))\n\n"
        "    def meet_requirements(self, match):\n"
        "        g = match.graph\n"
        "        x, y = match.captured(0), match.captured(1)\n"
        "        sx, sy = g.get_shape(x), g.get_shape(y)\n"
        "        return bool((match.constant('zero') == 0).all()) and (sx.elem_type, sx.dims) == (sy.elem_type, sy.dims)\n\n"
        "    def replacement(self, inputs):\n"
        "        return inputs[0]\n")
    model = helper.make_model(
        helper.make_graph([helper.make_node("Add", ["a", "b"], ["t"]), helper.make_node("Relu", ["t"], ["y"])], "g",
                          [tensor("a", (3,)), tensor("b", (3,))], [tensor("y", (3,))],
                          [numpy_helper.from_array(np.zeros(3, np.float32), "b")]),
        opset_imports=[helper.make_opsetid("", 9)], ir_version=3)
    onnx.save(model, tmp_path / "ir3.onnx")
    out = tmp_path / "out.onnx"
    for extra, ops in (([], ["Relu"]), (["--keep-initializer-inputs"], ["Add", "Relu"])):
        result = subprocess.run([exe, "optimize", str(tmp_path / "ir3.onnx"), "-o", str(out), "--passes", str(rules),
                                 "--patterns", "none"] + extra, capture_output=True, text=True)
        assert result.returncode == 0, result.stdout + result.stderr
        assert [n.op_type for n in onnx.load(out).graph.node] == ops, extra


def test_command_line_passes_takes_fold_dequantize(tmp_path):
    """`optimize --passes ... --fold-dequantize` folds a DequantizeLinear of constants, as without --passes."""
    exe = os.environ.get("ONNXOPT_EXE", os.path.join(SOURCE_DIR, "build", "onnxopt"))
    model = make_model([helper.make_node("DequantizeLinear", ["q", "s"], ["w"]), helper.make_node("Add", ["a", "w"], ["y"])],
                       [tensor("a", (3,))], [tensor("y", (3,))],
                       [numpy_helper.from_array(np.array([1, -2, 3], np.int8), "q"),
                        numpy_helper.from_array(np.array(0.25, np.float32), "s")], opset=17)
    onnx.save(model, tmp_path / "model.onnx")
    rules = os.path.join(SOURCE_DIR, "examples", "declarative_python", "rules.py")
    for flags, ops in (([], ["DequantizeLinear", "Add"]), (["--fold-dequantize"], ["Add"])):
        result = subprocess.run([exe, "optimize", str(tmp_path / "model.onnx"), "-o", str(tmp_path / "out.onnx"),
                                 "--passes", rules] + flags, capture_output=True, text=True)
        assert result.returncode == 0, result.stdout + result.stderr
        assert [n.op_type for n in onnx.load(tmp_path / "out.onnx").graph.node] == ops, flags


def test_command_line_passes_takes_input_shapes(tmp_path):
    """`optimize --passes ... --overwrite-input-shape/--dim` specialise the model before
    optimizing, as without --passes: the record carries the settings (replay requires them),
    and both checks compare with the specialised model."""
    exe = os.environ.get("ONNXOPT_EXE", os.path.join(SOURCE_DIR, "build", "onnxopt"))
    model = make_model([helper.make_node("Shape", ["x"], ["s"]), helper.make_node("Cast", ["s"], ["y"], to=1)],
                       [tensor("x", ("batch", 4))], [tensor("y", (2,))])
    onnx.save(model, tmp_path / "model.onnx")
    rules = os.path.join(SOURCE_DIR, "examples", "declarative_python", "rules.py")

    def run(*args):
        return subprocess.run([exe, *map(str, args)], capture_output=True, text=True)

    def optimize(out, *args):
        return run("optimize", tmp_path / "model.onnx", "-o", out, "--passes", rules, *args)

    result = optimize(tmp_path / "plain.onnx")
    assert result.returncode == 0, result.stdout + result.stderr
    assert [n.op_type for n in onnx.load(tmp_path / "plain.onnx").graph.node] == ["Shape", "Cast"]

    record = tmp_path / "fixed.rewrites"
    for settings in (["--overwrite-input-shape", "x:3,4"], ["--dim", "batch=3"]):
        out = tmp_path / "fixed.onnx"
        result = optimize(out, *settings, "--record", record, "--check", "1", "--check-with", "onnxruntime")
        assert result.returncode == 0, result.stdout + result.stderr
        assert f"input shapes: {settings[0]} {settings[1]}\n" in result.stdout, result.stdout
        assert "check: onnxruntime finds the same outputs" in result.stdout, result.stdout
        optimized = onnx.load(out)
        assert [n.op_type for n in optimized.graph.node] in ([], ["Constant"]), settings
        assert [d.dim_value for d in optimized.graph.input[0].type.tensor_type.shape.dim] == [3, 4]
        # The records replay in C++ to the same bytes: the record carries the settings, and
        # refuses others.
        for given in ([], settings):
            result = run("replay", tmp_path / "model.onnx", record, "-o", tmp_path / "replayed.onnx", *given)
            assert result.returncode == 0, result.stdout + result.stderr
            assert (tmp_path / "replayed.onnx").read_bytes() == out.read_bytes()
        result = run("replay", tmp_path / "model.onnx", record, "-o", tmp_path / "replayed2.onnx", "--dim", "batch=5")
        assert result.returncode == 2 and "was recorded under other input shapes" in result.stderr, result.stderr

    # Malformed settings and settings the model contradicts are usage errors, with the C++
    # command line's messages, and write nothing.
    for settings, message in ((["--overwrite-input-shape", "x3,4"], "expects NAME:D0,D1,..., got 'x3,4'"),
                              (["--dim", "batch"], "--dim expects NAME=VALUE, got 'batch'"),
                              (["--overwrite-input-shape", "x:3"], "input 'x' has rank 2, not 1"),
                              (["--dim", "seq=2"], "seq")):
        result = optimize(tmp_path / "bad.onnx", *settings)
        assert result.returncode == 1, result.stdout + result.stderr
        assert message in result.stderr, result.stderr
        assert not (tmp_path / "bad.onnx").exists()


def test_command_line_passes_keeps_the_tensor_size_limit(tmp_path):
    """`onnxopt --max-tensor-bytes N optimize --passes ...`: the Python command line works
    under the same limit (it ran under its own default before)."""
    exe = os.environ.get("ONNXOPT_EXE", os.path.join(SOURCE_DIR, "build", "onnxopt"))
    # y = x + sum(ones(100000)): evaluating it (--check) needs a 400 000-byte tensor.
    model = make_model([helper.make_node("ConstantOfShape", ["shape"], ["ones"],
                                         value=numpy_helper.from_array(np.ones(1, np.float32))),
                        helper.make_node("ReduceSum", ["ones"], ["s"], keepdims=0),
                        helper.make_node("Add", ["x", "s"], ["y"])],
                       [tensor("x", (1,))], [tensor("y", (1,))],
                       [numpy_helper.from_array(np.array([100000], np.int64), "shape")], opset=17)
    onnx.save(model, tmp_path / "model.onnx")
    rules = os.path.join(SOURCE_DIR, "examples", "declarative_python", "rules.py")
    for limit, status in (("1K", 2), ("1M", 0)):
        out = tmp_path / f"out_{limit}.onnx"
        result = subprocess.run([exe, "optimize", str(tmp_path / "model.onnx"), "-o", str(out), "--passes", rules,
                                 "--check", "1", "--max-tensor-bytes", limit], capture_output=True, text=True)
        assert result.returncode == status, result.stdout + result.stderr
        if status:
            assert "needs 400000 bytes, more than the limit on tensor sizes of 1024 bytes" in result.stderr, \
                result.stderr


def test_command_line_passes_takes_the_folding_limits(tmp_path):
    """`optimize --passes ... --fold-size-limit SIZE --fold-work-limit STEPS`, suffixes
    included, limit folding as without --passes."""
    exe = os.environ.get("ONNXOPT_EXE", os.path.join(SOURCE_DIR, "build", "onnxopt"))
    # y = x + (A @ B): folding the 16x16 MatMul needs 2 KiB (its kernel works in a
    # tensor of 2 048 bytes) and 4 096 steps.
    model = make_model([helper.make_node("MatMul", ["A", "B"], ["w"]), helper.make_node("Add", ["x", "w"], ["y"])],
                       [tensor("x", (16, 16))], [tensor("y", (16, 16))],
                       [numpy_helper.from_array(np.ones((16, 16), np.float32), "A"),
                        numpy_helper.from_array(np.ones((16, 16), np.float32), "B")], opset=17)
    onnx.save(model, tmp_path / "model.onnx")
    rules = os.path.join(SOURCE_DIR, "examples", "declarative_python", "rules.py")
    for limits, ops in (([], ["Add"]), (["--fold-size-limit", "1023"], ["MatMul", "Add"]),
                        (["--fold-size-limit=2K"], ["Add"]), (["--fold-work-limit", "4K"], ["Add"]),
                        (["--fold-work-limit", "4095"], ["MatMul", "Add"])):
        out = tmp_path / "out.onnx"
        result = subprocess.run([exe, "optimize", str(tmp_path / "model.onnx"), "-o", str(out), "--passes", rules]
                                + limits, capture_output=True, text=True)
        assert result.returncode == 0, result.stdout + result.stderr
        assert [n.op_type for n in onnx.load(out).graph.node] == ops, limits
    result = subprocess.run([exe, "optimize", str(tmp_path / "model.onnx"), "-o", str(tmp_path / "bad.onnx"),
                             "--passes", rules, "--fold-size-limit", "1Q"], capture_output=True, text=True)
    assert result.returncode == 1, result.stdout + result.stderr
    assert "--fold-size-limit expects a byte count such as 1024, 64K, 16M or 1G, got '1Q'" in result.stderr
    assert not (tmp_path / "bad.onnx").exists()


def _matmul_add_model_and_optimize(tmp_path):
    """tmp_path/model.onnx, y = a @ W + c (W 512 bytes, the nodes named attn_matmul and bias),
    which the example rules make one Gemm; and a function running `onnxopt optimize` on it
    with those rules, OUT and more arguments."""
    exe = os.environ.get("ONNXOPT_EXE", os.path.join(SOURCE_DIR, "build", "onnxopt"))
    w = numpy_helper.from_array(np.arange(128, dtype=np.float32).reshape(8, 16) / 64, "W")
    model = make_model([helper.make_node("MatMul", ["a", "W"], ["t"], name="attn_matmul"),
                        helper.make_node("Add", ["t", "c"], ["y"], name="bias")],
                       [tensor("a", ("batch", 8)), tensor("c", (16,))], [tensor("y", ("batch", 16))], [w], opset=17)
    onnx.save(model, tmp_path / "model.onnx")
    rules = os.path.join(SOURCE_DIR, "examples", "declarative_python", "rules.py")

    def optimize(out, *args):
        return subprocess.run([exe, "optimize", str(tmp_path / "model.onnx"), "-o", str(out), "--passes", rules,
                               *map(str, args)], capture_output=True, text=True)
    return w, optimize


def test_command_line_passes_takes_keep_report_json_and_external_data(tmp_path):
    """`optimize --passes ... --keep GLOB --report-json FILE --external-data-threshold SIZE`,
    as without --passes; the files are checked against each other before anything runs, and
    written all or none."""
    w, optimize = _matmul_add_model_and_optimize(tmp_path)

    def ops(path):
        return [n.op_type for n in onnx.load(path).graph.node]

    # --keep: the rule may not touch a node so named (the glob's and a name's spellings).
    for keep, expected in (([], ["Gemm"]), (["--keep", "attn_*"], ["MatMul", "Add"]),
                           (["--keep=bias"], ["MatMul", "Add"]), (["--keep", "other*"], ["Gemm"])):
        result = optimize(tmp_path / "kept.onnx", *keep)
        assert result.returncode == 0, result.stdout + result.stderr
        assert ops(tmp_path / "kept.onnx") == expected, keep

    # --report-json: the C++ command line's report, with the input shapes.
    report = tmp_path / "report.json"
    result = optimize(tmp_path / "out.onnx", "--report-json", report, "--dim", "batch=4")
    assert result.returncode == 0, result.stdout + result.stderr
    written = json.loads(report.read_text())
    assert written["format"] == "onnxopt-optimization-report"
    assert (written["nodes_after"], written["input_shapes"], written["dims"]) == (1, {}, {"batch": 4})
    assert any(p["name"].startswith("MatMulAddToGemm") and p["applied"] == 1 for p in written["patterns"])

    # --external-data-threshold (suffixes parsed by the C++ command line): the weight goes
    # to OUTPUT.data at 256 bytes, stays inside at 1K; --check runs the saved model.
    for threshold, outside in (("256", True), ("1K", False)):
        out = tmp_path / f"external_{threshold}.onnx"
        result = optimize(out, "--external-data-threshold", threshold, "--check", "1")
        assert result.returncode == 0, result.stdout + result.stderr
        assert (tmp_path / f"external_{threshold}.onnx.data").exists() == outside, threshold
        (weight,) = onnx.load(str(out)).graph.initializer  # Gemm may take it transposed
        assert sorted(numpy_helper.to_array(weight).ravel()) == sorted(numpy_helper.to_array(w).ravel())
    result = optimize(tmp_path / "bad.onnx", "--external-data-threshold", "1Q")
    assert result.returncode == 1, result.stdout + result.stderr
    assert "--external-data-threshold expects a byte count" in result.stderr, result.stderr

    # One file for two outputs, or an output replacing the model: refused before anything runs.
    for args in (["--record", tmp_path / "bad.onnx"], ["--report-json", tmp_path / "model.onnx"]):
        result = optimize(tmp_path / "bad.onnx", *args)
        assert result.returncode == 1, result.stdout + result.stderr
        assert "--record" in result.stderr or "--report-json" in result.stderr, result.stderr
        assert not (tmp_path / "bad.onnx").exists()
    onnx.checker.check_model(onnx.load(tmp_path / "model.onnx"))

    # A report that cannot be written: no model, no rewrite file either.
    result = optimize(tmp_path / "bad.onnx", "--record", tmp_path / "bad.rewrites",
                      "--report-json", tmp_path / "missing" / "report.json")
    assert result.returncode == 2, result.stdout + result.stderr
    assert f"cannot write '{tmp_path / 'missing' / 'report.json'}'" in result.stderr, result.stderr
    assert sorted(p.name for p in tmp_path.iterdir() if p.name.startswith("bad")) == []


def test_command_line_passes_writes_the_html_report_and_names_removed_nodes(tmp_path):
    """`optimize --passes ... --report-html FILE` writes the C++ command line's page, the
    nodes a rule removed named as in the model; the records of --record say what they
    removed (replay checks it), as without --passes."""
    exe = os.environ.get("ONNXOPT_EXE", os.path.join(SOURCE_DIR, "build", "onnxopt"))
    w, optimize = _matmul_add_model_and_optimize(tmp_path)

    page_path, record = tmp_path / "report.html", tmp_path / "out.rewrites"
    result = optimize(tmp_path / "out.onnx", "--report-html", page_path, "--record", record, "--dim", "batch=4",
                      "--check", "1")  # the page and --check share the serialized optimized model
    assert result.returncode == 0, result.stdout + result.stderr
    assert [n.op_type for n in onnx.load(tmp_path / "out.onnx").graph.node] == ["Gemm"]
    page = page_path.read_text()
    assert page.startswith("<!DOCTYPE html>") and page.rstrip().endswith("</html>"), page[:80]
    assert f"<title>onnxopt report: {tmp_path / 'model.onnx'}</title>" in page
    assert "--dim batch=4" in page
    assert "MatMulAddToGemm" in page
    # The removed nodes by the names they had (records know them by position only) and what
    # they were; without describe_removed_nodes the page says "node at position".
    for name in ("attn_matmul", "bias"):
        assert f">{name}<" in page, name
    assert "node at position" not in page

    (rewrite,) = [r for r in onnxopt.parse_rewrites(record.read_bytes()) if r.name.startswith("MatMulAddToGemm")]
    assert rewrite.matched_node_signatures == ["MatMul (outputs 't')", "Add (outputs 'y')"]
    result = subprocess.run([exe, "replay", str(tmp_path / "model.onnx"), str(record), "-o",
                             str(tmp_path / "replayed.onnx"), "--dim", "batch=4"], capture_output=True, text=True)
    assert result.returncode == 0, result.stdout + result.stderr
    assert (tmp_path / "replayed.onnx").read_bytes() == (tmp_path / "out.onnx").read_bytes()
    # Replayed on another model whose node at that position is not the one removed: refused.
    other = make_model([helper.make_node("MatMul", ["a", "W"], ["t"]), helper.make_node("Sub", ["t", "c"], ["y"])],
                       [tensor("a", ("batch", 8)), tensor("c", (16,))], [tensor("y", ("batch", 16))], [w], opset=17)
    onnx.save(other, tmp_path / "other.onnx")
    specialised = onnxopt.GraphBuilder(str(tmp_path / "other.onnx"), dims={"batch": 4}).to_model_bytes()
    with pytest.raises(onnxopt.Error, match="recorded as Add"):
        onnxopt.replay(specialised, onnxopt.parse_rewrites(record.read_bytes()))

    # A page that cannot be written: no model, no rewrite file either.
    result = optimize(tmp_path / "bad.onnx", "--record", tmp_path / "bad.rewrites",
                      "--report-html", tmp_path / "missing" / "report.html")
    assert result.returncode == 2, result.stdout + result.stderr
    assert f"cannot write '{tmp_path / 'missing' / 'report.html'}'" in result.stderr, result.stderr
    assert sorted(p.name for p in tmp_path.iterdir() if p.name.startswith("bad")) == []
    # The page may not replace the model, nor be another output.
    for args in (["--report-html", tmp_path / "model.onnx"], ["--report-html", tmp_path / "bad.onnx"]):
        result = optimize(tmp_path / "bad.onnx", *args)
        assert result.returncode == 1, result.stdout + result.stderr
        assert "--report-html" in result.stderr, result.stderr
        assert not (tmp_path / "bad.onnx").exists()
