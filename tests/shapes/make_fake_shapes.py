#!/usr/bin/python3
"""Writes a stand-in for `onnxopt info --shapes --json MODEL`, for the self-test of
check_shapes_with_ort.js: the shapes come from onnx's own shape inference (onnx 1.12;
strict mode off, so it also runs on opset 18 models as far as it can), in onnxopt's JSON
format. Then an optional corruption is applied, which the checker must catch.

Usage: make_fake_shapes.py MODEL OUT.json [--corrupt KIND]
  KIND:
    none        (default) the inferred shapes as they are
    dim         the first node output with a known integer dim > 1 gets that dim + 1
    symbol      the first node output with a symbolic dim gets "SYM+1" instead of "SYM"
    expr        same value, written as an equal expression: "2*SYM//2" (must pass)
    rank        the first node output with a known shape gets one more dim
    elem_type   the first node output with a known elem_type gets another one
    missing     the first node output is left out of "values"
    fresh       a dim of the first node output gets a fresh symbol "fresh__0"... and a
                dim of another value with a different runtime size gets the same symbol
                (a wrong claim that the two are equal); needs a model with >= 2 distinct
                sizes
Prints the corrupted value's name.
"""
import json
import sys

import onnx
from onnx import shape_inference


def dims_json(type_proto):
    t = type_proto.tensor_type
    if not t.HasField("shape"):
        return None
    out = []
    for d in t.shape.dim:
        if d.HasField("dim_value"):
            out.append(d.dim_value)
        elif d.dim_param:
            out.append(d.dim_param)
        else:
            out.append(None)
    return out


def main(argv):
    src, dst = argv[1], argv[2]
    kind = argv[4] if len(argv) > 4 and argv[3] == "--corrupt" else "none"
    model = onnx.load(src)
    inferred = shape_inference.infer_shapes(model)
    g = inferred.graph
    info = {}
    for vi in list(g.input) + list(g.value_info) + list(g.output):
        if vi.type.HasField("tensor_type"):
            entry = {"shape": dims_json(vi.type)}
            if vi.type.tensor_type.elem_type:
                entry["elem_type"] = vi.type.tensor_type.elem_type
            info[vi.name] = entry
    for t in g.initializer:
        info[t.name] = {"elem_type": t.data_type, "shape": list(t.dims)}
    node_outputs = [o for n in g.node for o in n.output if o]
    for o in node_outputs:
        info.setdefault(o, {"shape": None})

    target = ""
    if kind == "dim":
        for o in node_outputs:
            s = info[o]["shape"]
            if s and any(isinstance(d, int) and d > 1 for d in s):
                i = next(i for i, d in enumerate(s) if isinstance(d, int) and d > 1)
                s[i] += 1
                target = o
                break
    elif kind in ("symbol", "expr"):
        for o in node_outputs:
            s = info[o]["shape"]
            if s and any(isinstance(d, str) for d in s):
                i = next(i for i, d in enumerate(s) if isinstance(d, str))
                s[i] = f"{s[i]}+1" if kind == "symbol" else f"2*{s[i]}//2"
                target = o
                break
    elif kind == "rank":
        for o in node_outputs:
            if info[o]["shape"] is not None:
                info[o]["shape"].append(1)
                target = o
                break
    elif kind == "elem_type":
        for o in node_outputs:
            if info[o].get("elem_type"):
                info[o]["elem_type"] = 7 if info[o]["elem_type"] != 7 else 1
                target = o
                break
    elif kind == "missing":
        target = node_outputs[0]
        del info[target]
    elif kind == "fresh":
        first = None
        for o in node_outputs:
            s = info[o]["shape"]
            if not s:
                continue
            for i, d in enumerate(s):
                if isinstance(d, int):
                    if first is None:
                        first = (o, i, d)
                        s[i] = "fresh__0"
                    elif d != first[2]:
                        s[i] = "fresh__0"
                        target = o
                        break
            if target:
                break
    elif kind != "none":
        print(f"unknown corruption {kind}", file=sys.stderr)
        return 2
    if kind != "none" and not target:
        print(f"corruption {kind}: no suitable value in {src}", file=sys.stderr)
        return 2
    with open(dst, "w") as f:
        json.dump({"values": info, "diagnostics": []}, f)
    print(target)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
