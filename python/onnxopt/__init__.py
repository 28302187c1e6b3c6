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
"""

from __future__ import annotations

import os
from typing import Iterable, Optional, Union

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

CastCastPattern = _onnxpypatterns.CastCastPattern

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

    def __init__(self, model: ModelLike, keep_initializer_inputs: bool = True):
        data, base_dir = _model_bytes(model)
        super().__init__(data, base_dir, keep_initializer_inputs)

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
             fold_constants_first: bool = True, max_iter: int = -1, keep_initializer_inputs: bool = False):
    """Optimizes a model as `onnxopt optimize` does and returns the new onnx.ModelProto.

    patterns: a selection of registered patterns ("default", "none", "A,B", "-A", "+A") or
    a list of patterns (objects, classes or registered names) used instead of the registry.
    report=True returns (model, OptimizationReport).
    keep_initializer_inputs=True keeps the initializers an IR < 4 model lists among its inputs
    overridable; by default they are constants there, as onnxruntime treats them
    (`onnxopt optimize --keep-initializer-inputs`).
    """
    builder = GraphBuilder(model, keep_initializer_inputs=keep_initializer_inputs)
    if isinstance(patterns, str):
        graph = GraphGraph(builder, registered=patterns, fold_constants_first=fold_constants_first,
                           collect_no_match=report)
    else:
        graph = GraphGraph(builder, patterns=list(patterns), registered="none",
                           fold_constants_first=fold_constants_first, collect_no_match=report)
    _, stats = graph.optimize(report=report, max_iter=max_iter)
    del graph
    optimized = builder.to_model()
    return (optimized, stats) if report else optimized


def replay(model: ModelLike, rewrites) -> onnx.ModelProto:
    """Applies recorded rewrites (from GraphGraph.optimize or parse_rewrites) to a fresh copy of
    `model` and returns the result."""
    builder = GraphBuilder(model)
    builder.infer_shapes()  # refuses an invalid model, as optimize() does
    _builder.replay(builder, list(rewrites))
    return builder.to_model()


def __getattr__(name: str):
    # onnxopt.SomePattern(): any built-in pattern by its registered name.
    if name in _onnxpypatterns.names():
        def create():
            return _onnxpypatterns.create(name)
        create.__name__ = name
        return create
    raise AttributeError(f"module 'onnxopt' has no attribute '{name}'")
