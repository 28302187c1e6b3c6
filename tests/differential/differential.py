"""The differential kernel test: the Case type and the helpers shared by the case files
and the runner (run_differential.py). The format is specified in README.md beside this
file; case files live in cases/<group>.py and define CASES, a list of Case.

A case is one operator node with literal inputs (initializers of the model) and
attributes. The runner evaluates it with `onnxopt run` and with onnxruntime-node and
compares the outputs (or checks that both refuse, or compares onnxopt's outputs with
the spec's values when onnxruntime deviates from the spec).
"""
import dataclasses
import re
from typing import Any, Callable, Optional

import numpy as np
import onnx
from onnx import TensorProto, helper

EXPECTS = ("equal", "error", "shape", "onnxopt-error", "spec")

# Element types newer than onnx 1.12's enum, by number.
FLOAT8E4M3FN, FLOAT8E4M3FNUZ, FLOAT8E5M2, FLOAT8E5M2FNUZ, UINT4, INT4 = 17, 18, 19, 20, 21, 22

# Types given as (type name, values) because numpy has no dtype for them.
SPECIAL_TYPES = {
    "bfloat16": TensorProto.BFLOAT16,
    "float8e4m3fn": FLOAT8E4M3FN,
    "float8e4m3fnuz": FLOAT8E4M3FNUZ,
    "float8e5m2": FLOAT8E5M2,
    "float8e5m2fnuz": FLOAT8E5M2FNUZ,
    "uint4": UINT4,
    "int4": INT4,
}

NUMPY_TYPES = {
    np.dtype(np.float32): TensorProto.FLOAT,
    np.dtype(np.float64): TensorProto.DOUBLE,
    np.dtype(np.float16): TensorProto.FLOAT16,
    np.dtype(np.int8): TensorProto.INT8,
    np.dtype(np.int16): TensorProto.INT16,
    np.dtype(np.int32): TensorProto.INT32,
    np.dtype(np.int64): TensorProto.INT64,
    np.dtype(np.uint8): TensorProto.UINT8,
    np.dtype(np.uint16): TensorProto.UINT16,
    np.dtype(np.uint32): TensorProto.UINT32,
    np.dtype(np.uint64): TensorProto.UINT64,
    np.dtype(np.bool_): TensorProto.BOOL,
}

# IR version introduced with each default-domain opset (onnx's version table), so that
# a model importing opset N declares an IR version that knows it; at least 7 so that
# initializers need not be graph inputs and ONNX types are recent enough.
_IR_OF_OPSET = {19: 9, 20: 9, 21: 10, 22: 10, 23: 11, 24: 11, 25: 12}
# IR version needed by the element types (float8: 9, 4-bit: 10).
_IR_OF_TYPE = {FLOAT8E4M3FN: 9, FLOAT8E4M3FNUZ: 9, FLOAT8E5M2: 9, FLOAT8E5M2FNUZ: 9, UINT4: 10, INT4: 10}


# Values for the case files: seeded uniform floats, literal vectors, 0, 1, 2... in a shape.
def uniform(seed, shape, lo=-1.0, hi=1.0, dtype=np.float32):
    return np.random.default_rng(seed).uniform(lo, hi, shape).astype(dtype)


def i64(*values):
    return np.array(values, np.int64)


def f32(*values):
    return np.array(values, np.float32)


def iota(shape, dtype=np.float32):
    return np.arange(int(np.prod(shape)), dtype=dtype).reshape(shape)


@dataclasses.dataclass(kw_only=True)
class Case:
    """One single-operator model. See README.md for the meaning of every field."""
    op: str
    name: str
    opset: int
    domain: str = ""
    extra_opsets: dict = dataclasses.field(default_factory=dict)
    inputs: list = dataclasses.field(default_factory=list)
    attrs: dict = dataclasses.field(default_factory=dict)
    outputs: Any = 1
    expect: str = "equal"
    rtol: Optional[float] = None
    atol: Optional[float] = None
    expected: Optional[list] = None
    reason: str = ""
    check: Optional[Callable] = None

    def __post_init__(self):
        def bad(why):
            raise ValueError(f"case {self.name!r} ({self.op}): {why}")
        if not re.fullmatch(r"[a-z0-9]+(_[a-z0-9]+)*", self.name):
            bad("the name must be snake_case")
        if not any(self.name.startswith(prefix + "_") or self.name == prefix for prefix in op_prefixes(self.op)):
            bad(f"the name must start with the op ({' or '.join(p + '_' for p in op_prefixes(self.op))})")
        if self.expect not in EXPECTS:
            bad(f"expect must be one of {', '.join(EXPECTS)}")
        if self.expect in ("spec", "onnxopt-error") and not self.reason:
            bad(f"expect={self.expect!r} needs a reason")
        if self.expect == "spec" and self.expected is None:
            bad("expect='spec' needs the expected outputs")
        if self.expected is not None and self.expect != "spec":
            bad("expected is only read with expect='spec'")
        if (self.rtol is not None or self.atol is not None) and not self.reason:
            bad("per-case tolerances need a reason")
        if self.check is not None and self.expect != "shape":
            bad("check is only read with expect='shape'")
        for entry in self.inputs:
            if not (isinstance(entry, tuple) and len(entry) == 2 and isinstance(entry[0], str)):
                bad("inputs are (name, value) pairs")
            describe_value(entry[1], f"case {self.name!r}, input {entry[0]!r}")
        names = self.output_names()
        if not [n for n in names if n]:
            bad("the node has no output")

    def output_names(self):
        if isinstance(self.outputs, int):
            return [f"y{i}" for i in range(self.outputs)]
        return list(self.outputs)

    def opset_imports(self):
        imports = {"": self.opset} if self.domain in ("", "ai.onnx") else {"": 18, self.domain: self.opset}
        imports.update(self.extra_opsets)
        return imports


def op_prefixes(op):
    """Accepted name prefixes of an op: 'gathernd' and 'gather_nd' for GatherND."""
    lower = op.lower()
    snake = re.sub(r"(?<=[a-z0-9])(?=[A-Z])|(?<=[A-Z])(?=[A-Z][a-z])", "_", op).lower()
    return sorted({lower, snake})


# --- Values ----------------------------------------------------------------------------

def describe_value(value, where):
    """Element type of a case value; raises ValueError for values the format lacks."""
    if value is None:
        return None
    if isinstance(value, list):
        for element in value:
            describe_value(element, where)
        return "sequence"
    if isinstance(value, tuple):
        if len(value) != 2 or value[0] not in SPECIAL_TYPES:
            raise ValueError(f"{where}: a tuple value is (type name, values) with a type name in "
                             f"{', '.join(SPECIAL_TYPES)}")
        return SPECIAL_TYPES[value[0]]
    if isinstance(value, np.generic):
        value = np.asarray(value)
    if not isinstance(value, np.ndarray):
        raise ValueError(f"{where}: values are numpy arrays or scalars, not {type(value).__name__} "
                         "(a Python number has no element type)")
    if value.dtype == object or value.dtype.kind == "U":
        return TensorProto.STRING
    if value.dtype not in NUMPY_TYPES:
        raise ValueError(f"{where}: unsupported dtype {value.dtype}")
    return NUMPY_TYPES[value.dtype]


def _round_to_bfloat16_bits(values):
    bits = np.ascontiguousarray(values, dtype=np.float32).view(np.uint32).astype(np.uint64)
    nan = np.isnan(np.asarray(values, dtype=np.float32))
    rounded = (bits + 0x7FFF + ((bits >> 16) & 1)) >> 16
    return np.where(nan, 0x7FC0, rounded).astype(np.uint16)


def float8_table(elem_type):
    """The float value of each of the 256 codes of a float8 type (NaN for NaN codes)."""
    exponent_bits, mantissa_bits, bias, fnuz, has_inf = {
        FLOAT8E4M3FN: (4, 3, 7, False, False), FLOAT8E4M3FNUZ: (4, 3, 8, True, False),
        FLOAT8E5M2: (5, 2, 15, False, True), FLOAT8E5M2FNUZ: (5, 2, 16, True, False)}[elem_type]
    table = np.zeros(256, np.float64)
    for code in range(256):
        sign = -1.0 if code & 0x80 else 1.0
        e = (code >> mantissa_bits) & ((1 << exponent_bits) - 1)
        m = code & ((1 << mantissa_bits) - 1)
        max_e = (1 << exponent_bits) - 1
        if fnuz and code == 0x80:
            v = np.nan
        elif not fnuz and not has_inf and e == max_e and m == (1 << mantissa_bits) - 1:
            v = np.nan
        elif has_inf and e == max_e:
            v = np.inf if m == 0 else np.nan
        elif e == 0:
            v = m * 2.0 ** (1 - bias - mantissa_bits)
        else:
            v = (1 + m / 2 ** mantissa_bits) * 2.0 ** (e - bias)
        table[code] = sign * v
    return table


def _to_float8_codes(values, elem_type):
    """Nearest code (ties to the even code), saturating; NaN to the NaN code."""
    table = float8_table(elem_type)
    finite = np.where(np.isfinite(table))[0]
    out = []
    for v in np.asarray(values, dtype=np.float64).ravel():
        if np.isnan(v):
            out.append(int(np.where(np.isnan(table))[0][0]))
            continue
        if np.isinf(v) and np.isinf(table).any():
            out.append(int(np.where(table == v)[0][0]))
            continue
        distance = np.abs(table[finite] - v)
        best = finite[distance == distance.min()]
        out.append(int(best[best % 2 == 0][0] if (best % 2 == 0).any() else best[0]))
    return np.array(out, np.uint8).reshape(np.shape(values))


def tensor_proto(name, value):
    """TensorProto of a case value (numpy array or scalar, (type name, values), strings)."""
    if isinstance(value, tuple):
        type_name, values = value
        elem_type = SPECIAL_TYPES[type_name]
        values = np.asarray(values)
        dims = list(values.shape)
        if elem_type == TensorProto.BFLOAT16:
            raw = _round_to_bfloat16_bits(values.astype(np.float32)).tobytes()
        elif elem_type in (UINT4, INT4):
            nibbles = (np.asarray(values, np.int64).ravel() & 0xF).astype(np.uint8)
            if nibbles.size % 2:
                nibbles = np.append(nibbles, np.uint8(0))
            raw = (nibbles[0::2] | (nibbles[1::2] << 4)).astype(np.uint8).tobytes()
        else:
            raw = _to_float8_codes(values, elem_type).tobytes()
        tensor = TensorProto(name=name, data_type=elem_type, dims=dims, raw_data=raw)
        return tensor
    array = np.asarray(value)
    if array.dtype == object or array.dtype.kind == "U":
        return helper.make_tensor(name, TensorProto.STRING, list(array.shape),
                                  [str(s).encode("utf-8") for s in array.ravel()])
    elem_type = NUMPY_TYPES[array.dtype]
    if elem_type == TensorProto.BOOL:
        return helper.make_tensor(name, elem_type, list(array.shape), array.astype(np.uint8).tobytes(), raw=True)
    return helper.make_tensor(name, elem_type, list(array.shape), np.ascontiguousarray(array).tobytes(), raw=True)


def element_type_needs(value):
    """IR version the element type of a value needs (0 when any will do)."""
    if isinstance(value, tuple):
        return _IR_OF_TYPE.get(SPECIAL_TYPES[value[0]], 0)
    if isinstance(value, list):
        return max([element_type_needs(v) for v in value] + [0])
    return 0


# --- Models ----------------------------------------------------------------------------

# How the runner observes outputs that onnxruntime-node cannot return to JavaScript: a
# node appended to both models turns each into tensors of a native type.
CAST_FOR_OBSERVATION = {"bfloat16": TensorProto.FLOAT, "float8e4m3fn": TensorProto.FLOAT,
                        "float8e4m3fnuz": TensorProto.FLOAT, "float8e5m2": TensorProto.FLOAT,
                        "float8e5m2fnuz": TensorProto.FLOAT, "int4": TensorProto.INT8,
                        "uint4": TensorProto.UINT8}


def build_model(case, observe=None):
    """The case's model. Inputs are initializers (no feeds needed on either side); a list
    value is a sequence made by SequenceConstruct (SequenceEmpty for []). `observe` maps
    output names to how they are observed: ("cast", to), ("sequence", length) or
    ("optional", has_value); observed outputs are replaced by the observing nodes'
    outputs, named NAME.cast, NAME.length, NAME.at<k>, NAME.has_value, NAME.value."""
    observe = observe or {}
    nodes, initializers = [], []
    ir_version = max(7, _IR_OF_OPSET.get(case.opset if case.domain in ("", "ai.onnx") else 0, 0))
    input_names = []
    for name, value in case.inputs:
        if value is None:
            input_names.append("")
            continue
        input_names.append(name)
        ir_version = max(ir_version, element_type_needs(value))
        if isinstance(value, list):
            if value:
                parts = []
                for k, element in enumerate(value):
                    initializers.append(tensor_proto(f"{name}.{k}", element))
                    parts.append(f"{name}.{k}")
                nodes.append(helper.make_node("SequenceConstruct", parts, [name], name=f"{name}.construct"))
            else:
                nodes.append(helper.make_node("SequenceEmpty", [], [name], name=f"{name}.construct"))
        else:
            initializers.append(tensor_proto(name, value))
    outputs = case.output_names()
    nodes.append(helper.make_node(case.op, input_names, outputs, name=case.name,
                                  domain=case.domain or None, **case.attrs))
    graph_outputs = []
    for out in outputs:
        if not out:
            continue
        how = observe.get(out)
        if how is None:
            graph_outputs.append(out)
        elif how[0] == "cast":
            nodes.append(helper.make_node("Cast", [out], [f"{out}.cast"], to=how[1], name=f"{out}.observe"))
            graph_outputs.append(f"{out}.cast")
        elif how[0] == "sequence":
            nodes.append(helper.make_node("SequenceLength", [out], [f"{out}.length"], name=f"{out}.observe"))
            graph_outputs.append(f"{out}.length")
            for k in range(how[1]):
                initializers.append(helper.make_tensor(f"{out}.position{k}", TensorProto.INT64, [], [k]))
                nodes.append(helper.make_node("SequenceAt", [out, f"{out}.position{k}"], [f"{out}.at{k}"],
                                              name=f"{out}.observe{k}"))
                graph_outputs.append(f"{out}.at{k}")
        elif how[0] == "optional":
            nodes.append(helper.make_node("OptionalHasElement", [out], [f"{out}.has_value"], name=f"{out}.observe"))
            graph_outputs.append(f"{out}.has_value")
            if how[1]:
                nodes.append(helper.make_node("OptionalGetElement", [out], [f"{out}.value"], name=f"{out}.get"))
                graph_outputs.append(f"{out}.value")
        else:
            raise ValueError(f"unknown observation {how!r}")
    # Outputs carry no type: neither side may rely on a declared type.
    graph = helper.make_graph(nodes, case.name, [], [helper.make_value_info(o, onnx.TypeProto()) for o in graph_outputs],
                              initializers)
    imports = case.opset_imports()
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid(d, v) for d, v in imports.items()],
                              producer_name="onnxopt-differential")
    model.ir_version = ir_version
    return model


# --- Comparison ------------------------------------------------------------------------

# Default tolerances per numpy dtype of the compared arrays (bfloat16 and float8 arrive
# as float32 observed through a Cast: their own tolerances are chosen by the runner).
DEFAULT_TOLERANCES = {
    np.dtype(np.float32): (1e-5, 1e-6),
    np.dtype(np.float64): (1e-7, 1e-12),
    np.dtype(np.float16): (1e-3, 1e-3),
}
BFLOAT16_TOLERANCES = (1e-2, 1e-2)


def compare_arrays(ours, ref, rtol=None, atol=None, tolerances=None):
    """None when equal, else a short description of the first difference. Integers,
    bool and strings exactly; floats within atol + rtol*|ref|, NaN where NaN,
    infinities equal (sign included)."""
    ours, ref = np.asarray(ours), np.asarray(ref)
    if _kind(ours) != _kind(ref) or (ours.dtype != ref.dtype and _kind(ref) != "string"):
        return f"dtype {ours.dtype} vs {ref.dtype}"
    if ours.shape != ref.shape:
        return f"shape {list(ours.shape)} vs {list(ref.shape)}"
    if ours.size == 0:
        return None
    if _kind(ref) == "string":
        a, b = ours.ravel().tolist(), ref.ravel().tolist()
        for i, (x, y) in enumerate(zip(a, b)):
            if str(x) != str(y):
                return f"{_count(a, b, lambda p, q: str(p) != str(q))} element(s) differ, first at {i}: {x!r} vs {y!r}"
        return None
    if ref.dtype.kind != "f":
        diff = ours != ref
        if diff.any():
            i = int(np.flatnonzero(diff)[0])
            return (f"{int(diff.sum())}/{ref.size} element(s) differ, first at {i}: "
                    f"{ours.ravel()[i]!r} vs {ref.ravel()[i]!r}")
        return None
    default_rtol, default_atol = (tolerances or DEFAULT_TOLERANCES.get(ref.dtype, (1e-5, 1e-6)))
    rtol = default_rtol if rtol is None else rtol
    atol = default_atol if atol is None else atol
    a, b = ours.astype(np.float64).ravel(), ref.astype(np.float64).ravel()
    nan_a, nan_b = np.isnan(a), np.isnan(b)
    bad = nan_a != nan_b
    inf = np.isinf(a) | np.isinf(b)
    bad |= inf & ~nan_a & ~nan_b & (a != b)
    finite = ~nan_a & ~nan_b & ~inf
    with np.errstate(invalid="ignore"):
        bad |= finite & ~(np.abs(a - b) <= atol + rtol * np.abs(b))
    if bad.any():
        i = int(np.flatnonzero(bad)[0])
        worst = np.max(np.abs(a - b)[finite]) if finite.any() else 0.0
        return (f"{int(bad.sum())}/{b.size} element(s) differ (rtol {rtol:g}, atol {atol:g}; max finite |diff| "
                f"{worst:.3g}), first at {i}: {a[i]!r} vs {b[i]!r}")
    return None


def _kind(array):
    if array.dtype == object or array.dtype.kind == "U":
        return "string"
    return array.dtype.kind


def _count(a, b, differs):
    return sum(1 for x, y in zip(a, b) if differs(x, y))


def format_array(array, limit=8):
    array = np.asarray(array)
    flat = array.ravel()
    text = ", ".join(repr(v) if isinstance(v, str) else f"{v}" for v in flat[:limit].tolist())
    if flat.size > limit:
        text += ", ..."
    return f"{array.dtype}{list(array.shape)} [{text}]"
