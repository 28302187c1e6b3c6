"""Type stub of the onnxopt package (python/onnxopt/__init__.py)."""

import os
from typing import Any, Callable, Dict, Iterable, List, Optional, Sequence, Tuple, Union

import onnx

from . import fusion as fusion
from ._onnxpycore import BuilderError as BuilderError
from ._onnxpycore import Error as Error
from ._onnxpycore import IoError as IoError
from ._onnxpycore import ModelError as ModelError
from ._onnxpycore import StaleViewError as StaleViewError
from ._onnxpycore import builder as _builder
from ._onnxpycore import max_tensor_bytes as max_tensor_bytes
from ._onnxpycore import set_max_tensor_bytes as set_max_tensor_bytes
from ._onnxpypatterns import *  # every built-in pattern class (CastCastPattern, ...), generated

GraphGraph = _builder.GraphGraph
NodeView = _builder.NodeView
ValueShape = _builder.ValueShape
MatchResult = _builder.MatchResult
LocalRewriting = _builder.LocalRewriting
OptimizationReport = _builder.OptimizationReport
PatternStats = _builder.PatternStats
NoMatchStats = _builder.NoMatchStats
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

ModelLike = Union[onnx.ModelProto, bytes, str, os.PathLike]
# A pattern given to optimize() or GraphGraph: an instance, a class, or a registered name.
PatternLike = Union[_builder.PatternOptimization, type, str]

def pattern_doc(name: str) -> str: ...

class CheckError(Error): ...

class PatternOptimization(_builder.PatternOptimization):
    def __init__(self, priority: int = 1, name: Optional[str] = None) -> None: ...

class GraphBuilder(_builder.GraphBuilder):
    def __init__(
        self,
        model: ModelLike,
        keep_initializer_inputs: bool = True,
        input_shapes: Optional[Dict[str, Sequence[int]]] = None,
        dims: Optional[Dict[str, int]] = None,
    ) -> None: ...
    def to_model(self) -> onnx.ModelProto: ...

def standard_patterns(names: Union[None, str, Iterable[str]] = None) -> List[_builder.PatternOptimization]: ...
def optimize(
    model: ModelLike,
    patterns: Union[str, Iterable[PatternLike]] = "default",
    report: bool = False,
    fold_constants_first: bool = True,
    max_iter: int = -1,
    keep_initializer_inputs: bool = False,
    do_not_remove: Optional[Callable[[_builder.NodeView], bool]] = None,
    check: int = 0,
    check_atol: Optional[float] = None,
    check_rtol: Optional[float] = None,
    fold_size_limit: Optional[int] = None,
    fold_work_limit: Optional[int] = None,
    fold_dequantize: bool = False,
    input_shapes: Optional[Dict[str, Sequence[int]]] = None,
    dims: Optional[Dict[str, int]] = None,
) -> Union[onnx.ModelProto, Tuple[onnx.ModelProto, _builder.OptimizationReport]]: ...
def simplify(
    model: ModelLike, check_n: int = 1, patterns: Union[str, Iterable[PatternLike]] = "default", **options: Any
) -> Tuple[onnx.ModelProto, bool]: ...
def replay(model: ModelLike, rewrites: Iterable[_builder.LocalRewriting]) -> onnx.ModelProto: ...
