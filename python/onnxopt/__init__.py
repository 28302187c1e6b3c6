"""onnxopt: rewrite ONNX models into cheaper equivalent graphs.

    import onnxopt
    optimized = onnxopt.optimize("model.onnx")               # same graph as `onnxopt optimize`
    optimized, report = onnxopt.optimize(model, report=True)

Custom patterns subclass onnxopt.PatternOptimization (see docs/python.md):

    class NegNegPattern(onnxopt.PatternOptimization):
        def __init__(self):
            super().__init__(priority=1, name="NegNeg")
        def fast_op_type(self):
            return {"Neg"}
        def match(self, graph, node):
            previous = graph.node_before(node.input[0])
            if previous is None or previous.op_type != "Neg":
                return self.no_match(node, "the input is not produced by Neg")
            return self.result([previous, node], insert_at=node)
        def apply(self, graph, nodes):
            previous, node = nodes
            return [onnx.helper.make_node("Identity", [previous.input[0]], list(node.output))]

    builder = onnxopt.GraphBuilder(model)
    graph = onnxopt.GraphGraph(builder, patterns=[NegNegPattern()], registered="none")
    rewrites, report = graph.optimize(report=True)
    optimized = builder.to_model()

Every built-in pattern is a class of this module (onnxopt.CastCastPattern, ...) whose
docstring is its documentation, the text `onnxopt patterns NAME` prints.
"""

from __future__ import annotations

import os
from typing import Callable, Dict, Iterable, NamedTuple, Optional, Sequence, Tuple, Union

import onnx

from . import _onnxpycore

# Imported for its side effect too: registers the built-in patterns globally.
from . import _onnxpypatterns

_builder = _onnxpycore.builder

Error = _onnxpycore.Error
ModelError = _onnxpycore.ModelError
IoError = _onnxpycore.IoError
BuilderError = _onnxpycore.BuilderError
StaleViewError = _onnxpycore.StaleViewError

# The largest tensor onnxopt allocates (bytes); a model needing more raises ModelError.
max_tensor_bytes = _onnxpycore.max_tensor_bytes
set_max_tensor_bytes = _onnxpycore.set_max_tensor_bytes

GraphGraph = _builder.GraphGraph
NodeView = _builder.NodeView
ValueShape = _builder.ValueShape
MatchResult = _builder.MatchResult
LocalRewriting = _builder.LocalRewriting
OptimizationReport = _builder.OptimizationReport
PatternStats = _builder.PatternStats
NoMatchStats = _builder.NoMatchStats
# The base of every pattern, C++ (built-in) or Python.
PatternOptimizationBase = _builder.PatternOptimization

register_pattern = _builder.register_pattern
replace_pattern = _builder.replace_pattern
registered_pattern_names = _builder.registered_pattern_names
registered_patterns = _builder.registered_patterns
opt_in_pattern_names = _builder.opt_in_pattern_names
resolve_selection = _builder.resolve_selection
serialize_rewrites = _builder.serialize_rewrites
parse_rewrites = _builder.parse_rewrites
model_fingerprint = _builder.model_fingerprint
describe_removed_nodes = _builder.describe_removed_nodes
render_report_html = _builder.render_report_html


def pattern_doc(name: str) -> str:
    """The documentation of the registered pattern `name`, as `onnxopt patterns NAME` prints it:
    the comment above a built-in pattern's C++ class, or a Python pattern's class docstring."""
    return _builder.pattern_doc(name)


# Every built-in pattern as a class of this module: onnxopt.CastCastPattern() is an instance
# of onnxopt.CastCastPattern, and so is every instance the registry creates. A registered
# pattern whose header the build did not list would have no class: the import still works,
# and test_every_built_in_pattern_is_a_class_documented_by_the_registry names it.
for _name in _onnxpypatterns.names():
    if hasattr(_onnxpypatterns, _name):
        globals()[_name] = getattr(_onnxpypatterns, _name)
del _name


class CheckError(Error):
    """optimize(check=N) found an output of the optimized model that differs from the original's
    (`onnxopt optimize --check` exits 5 then). The message holds the comparison."""


# Declarative rules (pattern graphs, PatternFusionPass, DecomposePass): onnxopt.fusion.
from . import fusion  # noqa: E402

ModelLike = Union[onnx.ModelProto, bytes, str, os.PathLike]


class PatternOptimization(_builder.PatternOptimization):
    """Base class of Python patterns: the name defaults to the class name."""

    def __init__(self, priority: int = 1, name: Optional[str] = None):
        super().__init__(priority, name or type(self).__name__)


def _model_bytes(model: ModelLike):
    """(serialized model, folder its external data is relative to)."""
    if isinstance(model, onnx.ModelProto):
        return model.SerializeToString(), None
    if isinstance(model, (bytes, bytearray)):
        return bytes(model), None
    if isinstance(model, (str, os.PathLike)):
        path = os.fspath(model)
        try:
            with open(path, "rb") as f:
                data = f.read()
        except OSError as e:
            raise IoError(f"cannot read '{path}': {e.strerror}") from e
        return data, os.path.dirname(os.path.abspath(path))
    raise TypeError(f"expected an onnx.ModelProto, bytes or a path, got {type(model).__name__}")


class GraphBuilder(_builder.GraphBuilder):
    """The graph being optimized: from an onnx.ModelProto, serialized bytes or a path."""

    def __init__(self, model: ModelLike, keep_initializer_inputs: bool = True,
                 input_shapes: Optional[Dict[str, Sequence[int]]] = None, dims: Optional[Dict[str, int]] = None):
        data, base_dir = _model_bytes(model)
        super().__init__(data, base_dir, keep_initializer_inputs, **_shape_settings(input_shapes, dims))

    def to_model(self) -> onnx.ModelProto:
        """The current model as an onnx.ModelProto (a copy)."""
        return onnx.ModelProto.FromString(self.to_model_bytes())


def standard_patterns(names: Union[None, str, Iterable[str]] = None) -> list:
    """New instances of registered patterns.

    names: None (every built-in pattern), a selection as on the command line
    ("default", "A,B", "-A", ...) or a list of registered names.
    """
    if names is None:
        selected = _onnxpypatterns.names()
    elif isinstance(names, str):
        selected = resolve_selection(names)
    else:
        selected = list(names)
    return [_builder.create_registered_pattern(name) for name in selected]


def optimize(model: ModelLike, patterns: Union[str, Iterable] = "default", report: bool = False,
             fold_constants_first: bool = True, max_iter: int = -1, keep_initializer_inputs: bool = False,
             do_not_remove: Optional[Callable[[NodeView], bool]] = None, check: int = 0,
             check_atol: Optional[float] = None, check_rtol: Optional[float] = None,
             fold_size_limit: Optional[int] = None, fold_work_limit: Optional[int] = None,
             fold_dequantize: bool = False, input_shapes: Optional[Dict[str, Sequence[int]]] = None,
             dims: Optional[Dict[str, int]] = None):
    """Optimizes a model as `onnxopt optimize` does and returns the new onnx.ModelProto.

    patterns: a selection of registered patterns ("default", "none", "A,B", "-A", "+A") or
    a list of patterns (objects, classes or registered names) used instead of the registry.
    report=True returns (model, OptimizationReport).
    keep_initializer_inputs=True keeps the initializers an IR < 4 model lists among its inputs
    overridable; by default they are constants there, as onnxruntime treats them
    (`onnxopt optimize --keep-initializer-inputs`).
    do_not_remove: a callable(node: NodeView) -> bool; no pattern touches a node it returns True
    for (nodes whose name contains "_DONOTREMOVE_" stay protected too). An exception it raises
    ends the optimization: a RuntimeError naming the node, chained to it.
    check=N: like `onnxopt optimize --check N`, runs the original and the optimized model with
    the reference evaluator on N random input sets (seeds 0..N-1) and compares their outputs
    (check_atol/check_rtol: the tolerances, default per element type as `onnxopt verify`);
    raises CheckError, with the comparison, when one differs.
    fold_size_limit (bytes, default 1 MiB), fold_work_limit (elementary steps, default 2**28,
    about a second) and fold_dequantize: as `onnxopt optimize --fold-size-limit`,
    `--fold-work-limit` and `--fold-dequantize`. By default a DequantizeLinear of constants is
    not folded: the model keeps its integer weights.
    input_shapes ({input name: [dims]}) and dims ({symbolic dimension: value}) fix shapes
    before optimizing, as `onnxopt optimize --overwrite-input-shape NAME:D0,D1` and `--dim
    NAME=VALUE` (onnx-simplifier's overwrite_input_shapes): rewrites that need a dimension can
    then prove it; a symbolic dimension an input shape replaces takes that value everywhere.
    ModelError names a setting that contradicts the model. check compares with the model so
    specialised.
    """
    fold = _fold_options(fold_constants_first, fold_size_limit, fold_work_limit, fold_dequantize)
    optimized, stats, mismatch = _optimize(model, patterns, report, fold, _shape_settings(input_shapes, dims),
                                           max_iter, keep_initializer_inputs, do_not_remove, check, check_atol,
                                           check_rtol)
    if mismatch is not None:
        raise CheckError(mismatch)
    return (optimized, stats) if report else optimized


def _fold_options(fold_constants_first, fold_size_limit, fold_work_limit, fold_dequantize) -> dict:
    """GraphGraph's folding keywords, checked (ValueError names the argument)."""
    for limit, name in ((fold_size_limit, "fold_size_limit"), (fold_work_limit, "fold_work_limit")):
        if limit is not None and (isinstance(limit, bool) or not isinstance(limit, int) or limit < 0):
            raise ValueError(f"{name} expects None or an integer >= 0, got {limit!r}")
    if not isinstance(fold_dequantize, bool):
        raise ValueError(f"fold_dequantize expects True or False, got {fold_dequantize!r}")
    return dict(fold_constants_first=fold_constants_first, fold_size_limit=fold_size_limit,
                fold_work_limit=fold_work_limit, fold_dequantize=fold_dequantize)


def _shape_settings(input_shapes, dims) -> dict:
    """GraphBuilder's specialisation keywords, checked (ValueError names the argument)."""
    shapes = {} if input_shapes is None else input_shapes
    symbols = {} if dims is None else dims
    if not isinstance(shapes, dict) or not all(
            isinstance(name, str) and not isinstance(shape, (str, bytes)) and isinstance(shape, Sequence)
            and all(isinstance(d, int) and not isinstance(d, bool) for d in shape) for name, shape in shapes.items()):
        raise ValueError(f"input_shapes expects {{input name: [int, ...]}}, got {input_shapes!r}")
    if not isinstance(symbols, dict) or not all(
            isinstance(name, str) and isinstance(value, int) and not isinstance(value, bool)
            for name, value in symbols.items()):
        raise ValueError(f"dims expects {{symbolic dimension: int}}, got {dims!r}")
    return dict(input_shapes={name: list(shape) for name, shape in shapes.items()}, dims=dict(symbols))


def _optimize(model, patterns, report, fold, shape_settings, max_iter, keep_initializer_inputs, do_not_remove, check,
              check_atol, check_rtol):
    """optimize()'s work: (model, report or None, the comparison's text when check found a difference).
    fold: GraphGraph's folding keywords (_fold_options); shape_settings: GraphBuilder's
    (_shape_settings)."""
    _check_arguments(check, check_atol, check_rtol)
    data, base_dir = _model_bytes(model)
    builder = _builder.GraphBuilder(data, base_dir, keep_initializer_inputs, **shape_settings)
    options = dict(collect_no_match=report, do_not_remove=do_not_remove, **fold)
    if isinstance(patterns, str):
        graph = GraphGraph(builder, registered=patterns, **options)
    else:
        graph = GraphGraph(builder, patterns=list(patterns), registered="none", **options)
    _, stats = graph.optimize(report=report, max_iter=max_iter)
    del graph
    optimized = builder.to_model_bytes()
    mismatch = None
    if check > 0:
        # The original as specialised, with its external data read in: a fresh builder's model.
        specialised = shape_settings["input_shapes"] or shape_settings["dims"]
        original = data if base_dir is None and not specialised else _builder.GraphBuilder(
            data, base_dir, True, **shape_settings).to_model_bytes()
        mismatch = _compare_with_original(original, optimized, check, check_atol, check_rtol).mismatch
    return onnx.ModelProto.FromString(optimized), stats, mismatch


def _check_arguments(check, atol, rtol, tolerances_need_check="check_atol and check_rtol need check=N") -> None:
    """Raises ValueError for invalid check arguments; the command line words the last rule
    with its option names."""
    if isinstance(check, bool) or not isinstance(check, int) or check < 0:
        raise ValueError(f"check expects a number of input sets >= 0, got {check!r}")
    for tolerance, name in ((atol, "check_atol"), (rtol, "check_rtol")):
        if tolerance is not None and not tolerance >= 0:
            raise ValueError(f"{name} must be a number >= 0, got {tolerance!r}")
    if check == 0 and (atol is not None or rtol is not None):
        raise ValueError(tolerances_need_check)  # as --check-atol needs --check


class _Comparison(NamedTuple):
    """What `onnxopt optimize --check` finds: the comparison of the first set that differs
    (None when all match), the sets that matched only within rounding (their comparison's
    text, shown to the user), and the empty-dimension sets made ('' when none)."""
    mismatch: Optional[str]
    within_rounding: str
    empty_sets: str


def _compare_with_original(original: bytes, optimized: bytes, runs: int, atol, rtol) -> _Comparison:
    """Compares the two models on `runs` random input sets (seeds 0..runs-1), then with each
    symbolic input dimension 0 in turn, as `onnxopt optimize --check`."""
    matched = []  # the comparison's text of each set that matched
    for seed in range(runs):
        same, details = _onnxpycore.compare_models(original, "original", optimized, "optimized", seed, atol, rtol,
                                                   judge_rounding=True)
        if not same:
            return _Comparison(f"{details}check: the optimized model's outputs differ from the original's on input "
                               f"set {seed + 1} of {runs} (seed {seed})", "", "")
        matched.append(details)
    same, details, failure, empty_sets = _onnxpycore.compare_models_with_empty_dims(
        original, "the original", optimized, "the optimized model", atol, rtol, judge_rounding=True)
    if not same:
        return _Comparison(f"{details}check: {failure} (empty-dimension set, seed 0)", "", "")
    matched.append(details)
    # The line model_comparison.cc writes for an output that passed only within rounding.
    return _Comparison(None, "".join(text for text in matched if "\nwithin rounding: " in text), empty_sets)


def simplify(model: ModelLike, check_n: int = 1, patterns: Union[str, Iterable] = "default",
             **options) -> Tuple[onnx.ModelProto, bool]:
    """For users of onnx-simplifier: `model, ok = onnxopt.simplify(model)`.

    A thin wrapper over optimize(model, patterns, check=check_n, ...): returns the optimized
    model and whether its outputs matched the original's on `check_n` random input sets (True
    when check_n is 0: nothing compared). Unlike onnxsim.simplify, a model that fails the check
    is returned too (ok False), not refused; onnxsim's other arguments (skip_fuse_bn, ...) are
    not taken. `options`: optimize()'s keyword arguments but report
    (fold_constants_first, max_iter, keep_initializer_inputs, do_not_remove, check_atol, check_rtol,
    fold_size_limit, fold_work_limit, fold_dequantize, input_shapes, dims); onnxsim's
    overwrite_input_shapes is taken as input_shapes.
    """
    arguments = dict(fold_constants_first=True, max_iter=-1, keep_initializer_inputs=False, do_not_remove=None,
                     check_atol=None, check_rtol=None, fold_size_limit=None, fold_work_limit=None,
                     fold_dequantize=False, input_shapes=None, dims=None)
    if "overwrite_input_shapes" in options:
        if "input_shapes" in options:
            raise TypeError("simplify() takes input_shapes or overwrite_input_shapes, not both")
        options = dict(options)
        options["input_shapes"] = options.pop("overwrite_input_shapes")
    unknown = set(options) - set(arguments)
    if unknown:
        raise TypeError(f"simplify() got unexpected keyword arguments: {', '.join(sorted(unknown))}")
    arguments.update(options)
    fold = _fold_options(arguments["fold_constants_first"], arguments["fold_size_limit"],
                         arguments["fold_work_limit"], arguments["fold_dequantize"])
    shape_settings = _shape_settings(arguments["input_shapes"], arguments["dims"])
    optimized, _, mismatch = _optimize(model, patterns, False, fold, shape_settings, arguments["max_iter"],
                                       arguments["keep_initializer_inputs"], arguments["do_not_remove"], check_n,
                                       arguments["check_atol"], arguments["check_rtol"])
    return optimized, mismatch is None


def replay(model: ModelLike, rewrites) -> onnx.ModelProto:
    """Applies recorded rewrites (from GraphGraph.optimize or parse_rewrites) to a fresh copy of
    `model` and returns the result."""
    builder = GraphBuilder(model)
    builder.infer_shapes()  # refuses an invalid model, as optimize() does
    _builder.replay(builder, list(rewrites))
    return builder.to_model()
