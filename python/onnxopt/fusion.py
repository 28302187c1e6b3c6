"""Declarative rewrite rules: a pattern graph, a predicate and a replacement graph.

A rule is a PatternFusionPass subclass: @pattern methods (or patterns()) give the graphs to
find, meet_requirements filters the matches, replacement gives what to put instead. A
DecomposePass rewrites single nodes of given op types. examples/declarative_python/rules.py
shows both forms of rule; docs/declarative-rules.md is the tutorial and
shared/docs/declarative-fusion.md the semantics.

The pattern is built in Python once, compiled into a C++ pattern, and matched in C++; only
meet_requirements and replacement call back into Python. `compile()` returns engine
patterns that GraphGraph(patterns=[...]) and onnxopt.optimize(patterns=[...]) accept.
"""

from __future__ import annotations

import contextlib
import enum
import importlib.util
import inspect
import os
import sys
from typing import Callable, Dict, List, Optional, Sequence

import numpy as np
import onnx
from onnx import helper, numpy_helper

from . import _onnxpycore

_f = _onnxpycore.fusion

PatternError = _f.PatternError
Pattern = _f.Pattern
ReplacementGraph = _f.ReplacementGraph


def _capture(self, value, name: str = ""):
    """Pattern.capture(value, name=""): appends a capture and returns its index."""
    return _cpp_capture(self, value.ref if isinstance(value, Value) else value, name)


_cpp_capture = _f.Pattern.capture


class PassStage(enum.IntEnum):
    """When a rule runs (the values are onnxopt::fusion::PassStage)."""

    BEFORE_SHAPE_INFERENCE = 0
    AFTER_SHAPE_INFERENCE = 1
    AFTER_BUILTIN_PATTERNS = 2
    AFTER_OPTIMIZATION = 3


# --- Expressions ------------------------------------------------------------------------

# The builders that expressions add nodes to: the innermost one is current.
_active: List[object] = []


@contextlib.contextmanager
def _building(builder):
    _active.append(builder)
    try:
        yield builder
    finally:
        _active.pop()


def _current():
    if not _active:
        raise RuntimeError("onnxopt.fusion expressions are only valid inside a @pattern method, "
                           "a replacement, or a PatternBuilder/ReplacementBuilder")
    return _active[-1]


class Value:
    """A value of the pattern or replacement being built; operators build nodes."""

    __slots__ = ("ref", "builder")

    def __init__(self, ref, builder):
        self.ref = ref
        self.builder = builder

    def __add__(self, other):
        return op.Add(self, other)

    def __radd__(self, other):
        return op.Add(other, self)

    def __sub__(self, other):
        return op.Sub(self, other)

    def __rsub__(self, other):
        return op.Sub(other, self)

    def __mul__(self, other):
        return op.Mul(self, other)

    def __rmul__(self, other):
        return op.Mul(other, self)

    def __truediv__(self, other):
        return op.Div(self, other)

    def __rtruediv__(self, other):
        return op.Div(other, self)

    def __matmul__(self, other):
        return op.MatMul(self, other)

    def __rmatmul__(self, other):
        return op.MatMul(other, self)

    def __bool__(self):
        raise TypeError("a pattern value has no truth value (use meet_requirements for conditions)")


def _literal_tensor(value) -> onnx.TensorProto:
    # int -> int64 scalar, float -> float32 scalar (as GE); arrays keep their dtype.
    if isinstance(value, bool):
        array = np.array(value, dtype=np.bool_)
    elif isinstance(value, int):
        array = np.array(value, dtype=np.int64)
    elif isinstance(value, float):
        array = np.array(value, dtype=np.float32)
    elif isinstance(value, np.ndarray):
        array = value
    elif isinstance(value, (list, tuple)):
        array = np.array(value)
        if array.dtype == np.float64:
            array = array.astype(np.float32)
    else:
        raise TypeError(f"cannot use a {type(value).__name__} as a pattern value")
    return numpy_helper.from_array(array)


def _ref(value, builder):
    """The C++ ValueRef of an operand (a Value, a literal, or None for an absent input)."""
    if isinstance(value, Value):
        if value.builder is not builder:
            raise ValueError("a value of another pattern or replacement was used")
        return value.ref
    if value is None:
        return builder.absent()
    return builder.constant(_literal_tensor(value).SerializeToString())


def _attribute(name: str, value) -> bytes:
    if isinstance(value, onnx.AttributeProto):
        return value.SerializeToString()
    if isinstance(value, np.ndarray):
        value = value.tolist()
    return helper.make_attribute(name, value).SerializeToString()


class _Ops:
    """op.<OpType>(*inputs, _domain="", _outputs=1, _label="", **attributes)."""

    def __getattr__(self, op_type: str):
        if op_type.startswith("__"):
            raise AttributeError(op_type)

        def make(*inputs, _domain: str = "", _outputs: int = 1, _label: str = "", **attributes):
            builder = _current()
            refs = [_ref(value, builder) for value in inputs]
            attrs = [_attribute(name, value) for name, value in attributes.items()]
            outputs = builder.op(op_type, refs, _domain, _outputs, attrs, _label)
            values = tuple(Value(ref, builder) for ref in outputs)
            return values if _outputs > 1 else values[0]

        make.__name__ = op_type
        return make

    def Const(self, value=None, name: Optional[str] = None) -> Value:  # noqa: N802 (an op name)
        """A constant: with no value, any constant of the graph (a pattern only)."""
        builder = _current()
        label = name or ""
        if value is None:
            if not isinstance(builder, _f.PatternBuilder):
                raise TypeError("op.Const() without a value only exists in patterns")
            return Value(builder.any_constant(label), builder)
        return Value(builder.constant(_literal_tensor(value).SerializeToString(), label), builder)

    def absent(self) -> Value:
        builder = _current()
        return Value(builder.absent(), builder)


op = _Ops()
_f.Pattern.capture = _capture


class Inputs:
    """The lazy inputs of a @pattern method or an expression replacement.

    inputs[i] creates input i (and every lower one); inputs[:n] declares n of them. The
    count is not known in advance, so iterating is an error."""

    def __init__(self, builder, fixed: Optional[int] = None):
        self._builder = builder
        self._fixed = fixed  # replacements: the match's input count
        self._values: List[Value] = []

    def _get(self, index: int) -> Value:
        if index < 0:
            raise IndexError("negative input indices are not allowed")
        if self._fixed is not None:
            if index >= self._fixed:
                raise IndexError(f"the match has {self._fixed} inputs, input {index} was asked")
            return Value(self._builder.input(index), self._builder)
        while len(self._values) <= index:
            self._values.append(Value(self._builder.input(), self._builder))
        return self._values[index]

    def __getitem__(self, key):
        if isinstance(key, slice):
            if key.step not in (None, 1):
                raise IndexError("an input slice takes no step")
            if key.stop is None:
                raise IndexError("an input slice needs a stop (the count of inputs)")
            start = key.start or 0
            if start < 0 or key.stop < 0:
                raise IndexError("negative input indices are not allowed")
            return [self._get(i) for i in range(start, key.stop)]
        if not isinstance(key, int):
            raise TypeError("inputs are indexed by int or slice")
        return self._get(key)

    def __iter__(self):
        raise TypeError("inputs cannot be iterated: the count is unknown (use inputs[:n])")

    def present(self, index: int) -> bool:
        """Whether a decomposed node's input slot `index` holds a value."""
        return self._fixed is not None and self._builder.present(index)

    def __len__(self):
        if self._fixed is None:
            raise TypeError("a pattern's inputs have no length (use inputs[:n])")
        return self._fixed


class PatternBuilder:
    """Explicit composition: inputs, constants and op.X(...) nodes, then build()."""

    def __init__(self, name: str):
        self._builder = _f.PatternBuilder(name)
        _active.append(self._builder)  # op.X(...) adds to this builder until build()

    def input(self) -> Value:
        return Value(self._builder.input(), self._builder)

    def inputs(self, count: int) -> List[Value]:
        return [self.input() for _ in range(count)]

    def any_constant(self, label: str = "") -> Value:
        return Value(self._builder.any_constant(label), self._builder)

    def build(self, outputs: Sequence[Value]) -> "Pattern":
        try:
            return self._builder.build([_ref(o, self._builder) for o in outputs])
        finally:
            if self._builder in _active:
                _active.remove(self._builder)


class ReplacementBuilder:
    """The classic replacement form's `rb`: rb.input(i), op.X(...), rb.build([...])."""

    def __init__(self, builder):
        self._builder = builder

    def input(self, index: int) -> Value:
        return Value(self._builder.input(index), self._builder)

    def present(self, index: int) -> bool:
        return self._builder.present(index)

    def build(self, outputs: Sequence[Value]):
        return self._builder.build([_ref(o, self._builder) for o in outputs])


# --- Matches ----------------------------------------------------------------------------

class Match:
    """The match a callback receives; valid only during the callback."""

    def __init__(self, view):
        self._view = view

    @property
    def graph(self):
        return self._view.graph

    @property
    def pattern_name(self) -> str:
        return self._view.pattern_name

    def input(self, i: int) -> str:
        return self._view.input(i)

    def output(self, j: int) -> str:
        return self._view.output(j)

    def captured(self, key) -> str:
        """Capture `key` (index or name): the bound value's name. IndexError when out of range."""
        try:
            return self._view.captured(key)
        except (IndexError, KeyError) as e:
            raise IndexError(str(e)) from None

    def constant(self, label: str) -> np.ndarray:
        """The value of the graph constant bound to the pattern constant `label`."""
        return numpy_helper.to_array(onnx.TensorProto.FromString(self._view.constant_bytes(label)))

    def get_matched_nodes(self):
        return self._view.matched_nodes()

    matched_nodes = get_matched_nodes

    def node(self, label: str):
        return self._view.node(label)

    def __str__(self):
        return str(self._view)


class Context:
    """What a callback may ask besides the match."""

    def __init__(self, view):
        self._view = view

    def opset(self, domain: str = "") -> int:
        return self._view.opset(domain)

    @property
    def stage(self) -> PassStage:
        return PassStage(self._view.stage)

    @property
    def pass_name(self) -> str:
        return self._view.pass_name

    @property
    def graph(self):
        return self._view.graph


class MatcherConfig:
    def __init__(self, const_value_match: bool = False, ir_attr_match: bool = False):
        self.const_value_match = const_value_match
        self.ir_attr_match = ir_attr_match


class PatternMatcherConfigBuilder:
    def __init__(self):
        self._config = MatcherConfig()

    def enable_const_value_match(self):
        self._config.const_value_match = True
        return self

    def enable_ir_attr_match(self):
        self._config.ir_attr_match = True
        return self

    def build(self) -> MatcherConfig:
        return MatcherConfig(self._config.const_value_match, self._config.ir_attr_match)


# --- Passes -----------------------------------------------------------------------------

def pattern(method: Callable) -> Callable:
    """Marks a method `(self, inputs)` that returns one pattern (one or several outputs)."""
    parameters = list(inspect.signature(method).parameters)
    if len(parameters) != 2:
        raise TypeError(f"@pattern method {method.__name__} must take exactly (self, inputs)")
    method._onnxopt_pattern = True
    return method


def _annotated(error: BaseException, rule: str) -> BaseException:
    error.add_note(f"in declarative rule {rule}")
    return error


def _parameters(method) -> List[str]:
    """The parameters of a bound method (self is not among them)."""
    return list(inspect.signature(method).parameters)


class _Base:
    """What PatternFusionPass and DecomposePass share: class checks and compilation."""

    _kind = ""

    def __init_subclass__(cls, **kwargs):
        super().__init_subclass__(**kwargs)
        if "run" in cls.__dict__:
            raise TypeError(f"{cls.__name__} defines run(), which the engine never calls: "
                            f"write meet_requirements and replacement instead")

    def _pass_name(self) -> str:
        return getattr(self, "_registered_name", None) or type(self).__name__

    def _call(self, method, arguments: Dict[str, object], rule: str):
        names = _parameters(method)
        try:
            values = []
            for position, name in enumerate(names):
                if name in arguments:
                    values.append(arguments[name])
                elif position < len(arguments.get("_positional", ())):
                    values.append(arguments["_positional"][position])
                else:
                    raise TypeError(f"{type(self).__name__}.{method.__name__}: unexpected parameter '{name}'")
            return method(*values)
        except Exception as e:
            raise _annotated(e, rule)


def _outputs_of(result, what: str) -> List:
    if isinstance(result, (list, tuple)):
        if not result:
            raise TypeError(f"{what} returned an empty list")
        return list(result)
    return [result]


class PatternFusionPass(_Base):
    """A rule: patterns (@pattern methods or patterns()), meet_requirements, replacement."""

    def __init__(self, config: Optional[MatcherConfig] = None):
        self._config = config or MatcherConfig()
        self._templates: Dict[str, object] = {}

    def _cache(self) -> Dict[str, object]:
        # Subclasses that define __init__ without calling super().__init__ still work.
        if "_templates" not in self.__dict__:
            self._templates = {}
        return self._templates

    def __init_subclass__(cls, **kwargs):
        super().__init_subclass__(**kwargs)
        methods = [name for name, member in cls.__dict__.items() if getattr(member, "_onnxopt_pattern", False)]
        defines_patterns = any("patterns" in klass.__dict__ for klass in cls.__mro__ if klass is not PatternFusionPass)
        inherited = [name for klass in cls.__mro__[1:] for name, member in klass.__dict__.items()
                     if getattr(member, "_onnxopt_pattern", False)]
        if (methods or inherited) and defines_patterns:
            raise TypeError(f"{cls.__name__} mixes @pattern methods with patterns(): use one or the other")
        ordered = []
        for klass in reversed(cls.__mro__):
            for name, member in klass.__dict__.items():
                if getattr(member, "_onnxopt_pattern", False) and name not in ordered:
                    ordered.append(name)
        cls._pattern_methods = ordered

    def patterns(self) -> List[Pattern]:
        return []

    def meet_requirements(self, match) -> bool:
        return True

    def replacement(self, match, rb):
        raise NotImplementedError(f"{type(self).__name__} does not implement replacement()")

    def _build_patterns(self) -> List[Pattern]:
        if not self._pattern_methods:
            built = self.patterns()
            if isinstance(built, Pattern):
                built = [built]
            return list(built)
        patterns = []
        for name in self._pattern_methods:
            builder = _f.PatternBuilder(name)
            inputs = Inputs(builder)
            with _building(builder):
                result = getattr(self, name)(inputs)
            if isinstance(result, Pattern):
                patterns.append(result)
                continue
            outputs = _outputs_of(result, f"@pattern {name}")
            if any(isinstance(o, Pattern) for o in outputs):
                raise TypeError(f"@pattern {name} returned a list of patterns: write one @pattern method per pattern")
            try:
                built = builder.build([_ref(o, builder) for o in outputs])
            except PatternError as error:
                # Raised once the method has returned: no frame of the rule file is left in
                # the traceback, so the error carries the method's place (the command line
                # reports it as FILE:LINE).
                code = getattr(self, name).__func__.__code__
                error.rule_location = f"{code.co_filename}:{code.co_firstlineno}"
                raise
            # Auto captures: the inputs by index, then the outputs in return order.
            for value in inputs._values:
                built.capture(value.ref)
            for value in outputs:
                built.capture(value.ref)
            patterns.append(built)
        return patterns

    def _meet(self, view, context):
        match, ctx = Match(view), Context(context)
        rule = view.rule_name
        arguments = {"match": match, "match_result": match, "context": ctx, "_positional": (match, ctx)}
        return bool(self._call(self.meet_requirements, arguments, rule))

    def _replace(self, view, rb, context):
        match, ctx = Match(view), Context(context)
        rule = view.rule_name
        names = _parameters(self.replacement)
        if names and names[0] == "inputs":
            cacheable = len(names) == 1  # (self, inputs): pure, built once per pattern
            if cacheable and rule in self._cache():
                return self._cache()[rule]
            inputs = Inputs(rb, fixed=rb.num_inputs)
            arguments = {"inputs": inputs, "match": match, "match_result": match, "context": ctx,
                         "_positional": (inputs, match, ctx)}
            with _building(rb):
                result = self._call(self.replacement, arguments, rule)
                if isinstance(result, ReplacementGraph):
                    graph = result
                else:
                    graph = rb.build([_ref(o, rb) for o in _outputs_of(result, "replacement")])
            if cacheable:
                self._cache()[rule] = graph
            return graph
        wrapper = ReplacementBuilder(rb)
        arguments = {"match": match, "match_result": match, "rb": wrapper, "context": ctx,
                     "_positional": (match, wrapper, ctx)}
        with _building(rb):
            return self._call(self.replacement, arguments, rule)

    def compile(self, name: Optional[str] = None, stage: PassStage = PassStage.AFTER_SHAPE_INFERENCE,
                priority: int = 1) -> list:
        """Engine patterns named '<pass>/<pattern>', one per pattern."""
        name = name or self._pass_name()
        stage = getattr(self, "_registered_stage", stage)
        config = getattr(self, "_config", None) or MatcherConfig()
        return _f.compile_fusion_pass(self, name, self._build_patterns(), int(stage), priority,
                                      config.const_value_match, config.ir_attr_match)


class DecomposePass(_Base):
    """A rule on single nodes of the given op types: meet_requirements(node), replacement."""

    op_types: Sequence[str] = ()

    def __init__(self, op_types: Optional[Sequence[str]] = None):
        types = list(op_types if op_types is not None else getattr(self, "_registered_op_types", self.op_types))
        if not types or not all(isinstance(t, str) and t for t in types):
            raise ValueError("op_types must be a non-empty list of non-empty strings")
        self._op_types = types

    def meet_requirements(self, node) -> bool:
        return True

    def replacement(self, node, rb):
        raise NotImplementedError(f"{type(self).__name__} does not implement replacement()")

    def _meet(self, node, context):
        ctx = Context(context)
        arguments = {"node": node, "context": ctx, "_positional": (node, ctx)}
        return bool(self._call(self.meet_requirements, arguments, self._pass_name()))

    def _replace(self, node, rb, context):
        ctx = Context(context)
        names = _parameters(self.replacement)
        inputs = Inputs(rb, fixed=rb.num_inputs)
        wrapper = ReplacementBuilder(rb)
        arguments = {"node": node, "inputs": inputs, "rb": wrapper, "context": ctx,
                     "_positional": (node, wrapper if "inputs" not in names else inputs, ctx)}
        with _building(rb):
            result = self._call(self.replacement, arguments, self._pass_name())
            if isinstance(result, ReplacementGraph):
                return result
            return rb.build([_ref(o, rb) for o in _outputs_of(result, "replacement")])

    def compile(self, name: Optional[str] = None, stage: PassStage = PassStage.AFTER_SHAPE_INFERENCE,
                priority: int = 1) -> list:
        name = name or self._pass_name()
        stage = getattr(self, "_registered_stage", stage)
        keys = [tuple(t.rsplit(".", 1)) if "." in t else ("", t) for t in self._op_types]
        return _f.compile_decompose_pass(self, name, keys, int(stage), priority)


# --- Registration -----------------------------------------------------------------------

class _Registered:
    def __init__(self, name: str, factory: Callable[[], _Base], stage: PassStage, priority: int,
                 description: str = ""):
        self.name, self.factory, self.stage, self.priority = name, factory, PassStage(stage), priority
        self.description = description

    def compile(self) -> list:
        rule = self.factory()
        rule._registered_name = self.name
        rule._registered_stage = self.stage
        return rule.compile(self.name, self.stage, self.priority)


_registry: Dict[str, _Registered] = {}


def _register(name: str, factory, stage, priority: int, description: Optional[str], cls: type) -> None:
    if not isinstance(name, str) or not name:
        raise ValueError("a pass needs a non-empty name")
    if name in _registry:
        raise ValueError(f"a declarative pass named '{name}' is already registered")
    # A decompose pass's pattern takes the pass's name: under a built-in's name it would
    # replace the built-in in the optimizer without a word.
    from . import registered_pattern_names
    if name in registered_pattern_names():
        raise ValueError(f"'{name}' is the name of a built-in pattern or pass: give the declarative pass another")
    if description is None:  # the class's own docstring, not one it inherits
        description = inspect.cleandoc(cls.__dict__.get("__doc__") or "")
    _registry[name] = _Registered(name, factory, stage, priority, description)


def register_fusion_pass(*, name: str, stage: PassStage = PassStage.BEFORE_SHAPE_INFERENCE, priority: int = 1,
                         description: Optional[str] = None):
    """Class decorator: registers a PatternFusionPass subclass under `name` for `stage`.
    description documents the pass (pass_description); by default the class's docstring."""
    def decorate(cls):
        if not (isinstance(cls, type) and issubclass(cls, PatternFusionPass)):
            raise TypeError("@register_fusion_pass decorates a PatternFusionPass subclass")
        _register(name, cls, stage, priority, description, cls)
        return cls
    return decorate


def register_decompose_pass(*, name: str, op_types: Sequence[str], stage: PassStage = PassStage.BEFORE_SHAPE_INFERENCE,
                            priority: int = 1, description: Optional[str] = None):
    """Class decorator: registers a DecomposePass subclass for `op_types` under `name`.
    description documents the pass (pass_description); by default the class's docstring."""
    if not op_types or not all(isinstance(t, str) and t for t in op_types):
        raise ValueError("op_types must be a non-empty list of non-empty strings")

    def decorate(cls):
        if not (isinstance(cls, type) and issubclass(cls, DecomposePass)):
            raise TypeError("@register_decompose_pass decorates a DecomposePass subclass")
        _register(name, lambda: cls(list(op_types)), stage, priority, description, cls)
        cls._registered_op_types = list(op_types)  # so that cls() alone builds it, as the tutorial does
        return cls
    return decorate


def registered_pass_names() -> List[str]:
    """The names of the registered declarative passes, sorted."""
    return sorted(_registry)


def pass_description(name: str) -> str:
    """The documentation of the registered declarative pass `name`: the description given to
    its decorator, else its class's docstring ("" without either)."""
    if name not in _registry:
        raise KeyError(f"no declarative pass is registered as '{name}'")
    return _registry[name].description


def unregister_all() -> None:
    """Forgets every registered declarative pass (tests)."""
    _registry.clear()


def registered_patterns(stage: Optional[PassStage] = None) -> list:
    """The compiled patterns of the registered passes (of `stage`, or all), ordered by stage,
    then priority, then name: the order GraphGraph runs them in."""
    entries = [r for r in _registry.values() if stage is None or r.stage == stage]
    entries.sort(key=lambda r: (int(r.stage), r.priority, r.name))
    patterns = []
    for entry in entries:
        patterns.extend(entry.compile())
    return patterns


# --- Loading rule files (--passes, ONNXOPT_PY_PASS_PATH) ---------------------------------

_loaded: Dict[str, object] = {}


def _load_file(path: str) -> None:
    real = os.path.realpath(path)
    if real in _loaded:
        return
    name = "onnxopt_rules_" + str(len(_loaded)) + "_" + os.path.splitext(os.path.basename(real))[0]
    spec = importlib.util.spec_from_file_location(name, real)
    module = importlib.util.module_from_spec(spec)
    _loaded[real] = module
    sys.modules[name] = module
    spec.loader.exec_module(module)


def _load_package(path: str) -> None:
    real = os.path.realpath(path)
    if real in _loaded:
        return
    name = "onnxopt_rules_" + str(len(_loaded)) + "_" + os.path.basename(real)
    spec = importlib.util.spec_from_file_location(name, os.path.join(real, "__init__.py"),
                                                  submodule_search_locations=[real])
    module = importlib.util.module_from_spec(spec)
    _loaded[real] = module
    sys.modules[name] = module
    spec.loader.exec_module(module)


def load_passes(paths) -> None:
    """Loads rule files: a ':'-separated string or a list of .py files and directories. In a
    directory, files starting with '_' are skipped, other .py files load as modules and
    subdirectories with __init__.py as packages, in sorted order. A path loads once.
    FileNotFoundError for a missing path, ValueError for a file that is not .py."""
    if isinstance(paths, str):
        paths = [p for p in paths.split(os.pathsep) if p]
    for path in paths:
        path = os.fspath(path)
        if os.path.isdir(path):
            for entry in sorted(os.listdir(path)):
                full = os.path.join(path, entry)
                if entry.startswith("_"):
                    continue
                if os.path.isdir(full) and os.path.isfile(os.path.join(full, "__init__.py")):
                    _load_package(full)
                elif os.path.isfile(full) and entry.endswith(".py"):
                    _load_file(full)
        elif os.path.isfile(path):
            if not path.endswith(".py"):
                raise ValueError(f"{path}: a rule file must be a .py file")
            _load_file(path)
        else:
            raise FileNotFoundError(f"{path}: no such rule file or directory")


__all__ = [
    "PassStage", "PatternFusionPass", "DecomposePass", "pattern", "op", "Inputs", "Value", "Match", "Context",
    "PatternBuilder", "ReplacementBuilder", "Pattern", "PatternError", "ReplacementGraph",
    "PatternMatcherConfigBuilder", "MatcherConfig", "register_fusion_pass", "register_decompose_pass",
    "registered_patterns", "registered_pass_names", "pass_description", "load_passes", "unregister_all",
]
