#!/usr/bin/python3
"""Cross-checks onnxopt's shape inference with onnx's own (issue 3, "Done when" 2): for
models of default-domain opset <= 17 (what onnx 1.12 knows), no disagreement where both
know something.

Usage: check_shapes_with_onnx.py MODEL --onnxopt EXE [--shapes-json FILE] [--verbose]

onnx side: onnx.shape_inference.infer_shapes(model) on a copy without value_info (stale
annotations would be merged in; onnxopt does not trust them either), strict mode off.
onnxopt side: `onnxopt info --shapes --json MODEL` (or FILE).

For every main-graph value (inputs, initializers, node outputs) known to both:
  - elem_type, when both know it: equal;
  - rank, when both know it: equal;
  - per dim:
      onnx integer     vs ours integer            -> equal
      onnx integer     vs ours expression         -> disagreement (onnx proves a constant
                                                     that we keep symbolic, or we are wrong)
      onnx dim_param P vs ours known, when P is a dim_param of a graph input (a symbol
                          of the model, not one onnx invents such as "unk__3") -> ours
                          must be the bare symbol P (quoted or not)
      anything else (onnx unknown or invented symbol, ours unknown) -> not compared.
Prints the disagreements and one line
  ONNX-CHECK <model> values=N compared_dims=N disagreements=N
Exit 0 without disagreement, 1 with, 2 on usage errors or when a side cannot run.
"""
import json
import os
import subprocess
import sys

import onnx
from onnx import shape_inference


def dims_of(type_proto):
    if not type_proto.HasField("tensor_type"):
        return None, None
    t = type_proto.tensor_type
    elem = t.elem_type or None
    if not t.HasField("shape"):
        return elem, None
    out = []
    for d in t.shape.dim:
        if d.HasField("dim_value"):
            out.append(d.dim_value)
        elif d.HasField("dim_param") and d.dim_param:
            out.append(d.dim_param)
        else:
            out.append(None)
    return elem, out


def quote(name):
    """onnxopt's text form of a symbol: identifiers as is, else between backquotes."""
    ident = name and (name[0].isalpha() or name[0] == "_") and all(c.isalnum() or c == "_" for c in name) \
        and name.isascii()
    return name if ident else "`" + name.replace("`", "``") + "`"


def main(argv):
    args = argv[1:]
    model_path = None
    exe = None
    shapes_json = None
    verbose = False
    i = 0
    while i < len(args):
        a = args[i]
        if a == "--onnxopt" and i + 1 < len(args):
            exe = args[i + 1]
            i += 2
        elif a == "--shapes-json" and i + 1 < len(args):
            shapes_json = args[i + 1]
            i += 2
        elif a == "--verbose":
            verbose = True
            i += 1
        elif a.startswith("--") or model_path:
            print(__doc__, file=sys.stderr)
            return 2
        else:
            model_path = a
            i += 1
    if not model_path or not (exe or shapes_json):
        print(__doc__, file=sys.stderr)
        return 2
    name = os.path.basename(model_path)

    model = onnx.load(model_path)
    opset = max((o.version for o in model.opset_import if o.domain in ("", "ai.onnx")), default=0)
    if opset > onnx.defs.onnx_opset_version():
        print(f"{name}: opset {opset} > {onnx.defs.onnx_opset_version()} (onnx {onnx.__version__}): not compared")
        return 2
    g = model.graph
    del g.value_info[:]
    inferred = shape_inference.infer_shapes(model, check_type=False, strict_mode=False)

    onnx_info = {}
    ig = inferred.graph
    for vi in list(ig.input) + list(ig.value_info) + list(ig.output):
        onnx_info[vi.name] = dims_of(vi.type)
    for t in ig.initializer:
        onnx_info[t.name] = (t.data_type, list(t.dims))
    model_symbols = set()
    init_names = {t.name for t in g.initializer}
    for vi in g.input:
        if vi.name in init_names:
            continue
        _, dims = dims_of(vi.type)
        for d in dims or []:
            if isinstance(d, str):
                model_symbols.add(d)

    if shapes_json:
        with open(shapes_json) as f:
            ours = json.load(f)
    else:
        r = subprocess.run([exe, "info", "--shapes", model_path, "--json"], capture_output=True, text=True)
        if r.returncode != 0:
            print(f"onnxopt info --shapes --json exited with {r.returncode}: {r.stderr[:2000]}")
            return 2
        ours = json.loads(r.stdout)
    values = ours.get("values", {})

    names = [vi.name for vi in g.input] + [t.name for t in g.initializer] + \
        [o for n in g.node for o in n.output if o]
    seen = set()
    compared = 0
    nvalues = 0
    problems = []
    for v in names:
        if v in seen:
            continue
        seen.add(v)
        if v not in values or v not in onnx_info:
            continue
        nvalues += 1
        o_elem, o_dims = onnx_info[v]
        mine = values[v]
        m_elem = mine.get("elem_type")
        m_dims = mine.get("shape")
        if o_elem and m_elem is not None and o_elem != m_elem:
            problems.append(f"{v}: elem_type onnx {o_elem}, onnxopt {m_elem}")
        if o_dims is None or m_dims is None:
            continue
        if len(o_dims) != len(m_dims):
            problems.append(f"{v}: rank onnx {len(o_dims)} {o_dims}, onnxopt {len(m_dims)} {m_dims}")
            continue
        for axis, (od, md) in enumerate(zip(o_dims, m_dims)):
            if md is None or od is None:
                continue
            if isinstance(od, int):
                compared += 1
                if md != od:
                    problems.append(f"{v}[{axis}]: onnx {od}, onnxopt {json.dumps(md)}")
            elif od in model_symbols:
                compared += 1
                if md not in (od, quote(od)):
                    problems.append(f"{v}[{axis}]: onnx {json.dumps(od)}, onnxopt {json.dumps(md)}")
    for p in problems:
        print(f"DISAGREEMENT {p}")
    if verbose:
        print(f"model symbols: {sorted(model_symbols)}")
    print(f"ONNX-CHECK {name} opset={opset} values={nvalues} compared_dims={compared} disagreements={len(problems)}")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
