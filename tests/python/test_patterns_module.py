"""_onnxpypatterns: the built-in patterns share _onnxpycore's registry and types."""

import onnxopt
from onnxopt import _onnxpycore, _onnxpypatterns


def test_one_registry_for_both_modules():
    names = _onnxpypatterns.names()
    assert "CastCastPattern" in names
    # Registered by _onnxpypatterns, seen by _onnxpycore: one copy of onnx_core.
    assert set(names) <= set(_onnxpycore.builder.registered_pattern_names())
    _onnxpypatterns.register_patterns()  # idempotent
    assert _onnxpypatterns.names() == names


def test_pattern_classes_and_factory():
    pattern = onnxopt.CastCastPattern()
    assert isinstance(pattern, onnxopt.PatternOptimizationBase)
    assert pattern.name == "CastCastPattern" and pattern.priority == 0
    assert pattern.fast_op_type() == {"Cast"}
    created = _onnxpypatterns.create("CastCastPattern")
    assert isinstance(created, onnxopt.CastCastPattern)
    assert type(created) is onnxopt.CastCastPattern
    assert dict(_onnxpypatterns.families())["CastCastPattern"] == "canonicalization"
