#!/usr/bin/python3
"""Compares onnxopt's evaluator with onnxruntime node by node on one model, to tell a
kernel difference from the amplification of rounding differences (conditioning).

Usage: per_node_compare.py --onnxopt EXE MODEL [--float-range R] [--int-max M] [--seed S]
                           [--dim NAME=VALUE ...] [--node NODE] [--top N] [--keep DIR]
                           [--json FILE]

1. Inputs are drawn with numpy (floats uniform in [-R, R), integers in [0, M), bool fair;
   unnamed or symbolic dims 2 unless --dim) and baked into a copy of the model as
   initializers; tests/shapes/expose_values.py makes every node output of the main graph
   a graph output.
2. `onnxopt run` and onnxruntime-node (tests/differential/run_ort.js, graph optimizations
   disabled) evaluate that model: every intermediate value on both sides
   ("accumulated": each side computed from its own earlier values).
3. Each node (of the main graph, without nested graphs) then runs alone on both sides
   with onnxruntime's values of its inputs ("local": the kernels on identical inputs).

Per value: rel = max|ours - ort| / max|ort| (over the tensor; NaN/inf positions must
match). Printed in node order for the nodes whose accumulated error exceeds the largest
local error seen so far by 10x (where amplification happens), then the N worst local
errors, then a summary per graph output. A kernel difference shows as a large local error;
conditioning as a small local error with a large accumulated one, the amplification
column (accumulated error of the output over the largest accumulated error of the
inputs) saying where it grows. Exit 0 (a report, not a test), 2 on a usage error.
"""
import argparse
import concurrent.futures
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile

import numpy as np
import onnx
from onnx import helper

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "differential"))
import differential  # noqa: E402
import run_differential  # noqa: E402

NUMPY_OF = {1: np.float32, 2: np.uint8, 3: np.int8, 4: np.uint16, 5: np.int16, 6: np.int32, 7: np.int64, 9: np.bool_,
            10: np.float16, 11: np.float64, 12: np.uint32, 13: np.uint64}
FLOAT_KINDS = {np.dtype(np.float32), np.dtype(np.float64), np.dtype(np.float16)}


def make_inputs(model, args, rng):
    inits = {t.name for t in model.graph.initializer}
    dims = dict(args.dim or [])
    values = {}
    for vi in model.graph.input:
        if vi.name in inits:
            continue
        t = vi.type.tensor_type
        shape = [d.dim_value if d.HasField("dim_value") else dims.get(d.dim_param, 2) for d in t.shape.dim]
        if t.elem_type == onnx.TensorProto.BFLOAT16:
            values[vi.name] = ("bfloat16", rng.uniform(-args.float_range, args.float_range, shape).astype(np.float32))
            continue
        dtype = NUMPY_OF[t.elem_type]
        if np.dtype(dtype) in FLOAT_KINDS:
            values[vi.name] = rng.uniform(-args.float_range, args.float_range, shape).astype(dtype)
        elif dtype == np.bool_:
            values[vi.name] = rng.random(shape) < 0.5
        else:
            values[vi.name] = rng.integers(0, args.int_max, shape).astype(dtype)
    return values


def bake(model, values):
    """The model with `values` as initializers instead of graph inputs."""
    baked = onnx.ModelProto()
    baked.CopyFrom(model)
    kept = [vi for vi in baked.graph.input if vi.name not in values]
    del baked.graph.input[:]
    baked.graph.input.extend(kept)
    for name, value in values.items():
        baked.graph.initializer.append(differential.tensor_proto(name, value))
    return baked


def rel_error(ours, ref):
    """max|a - b| / max|b| over finite positions; inf when NaN/inf positions differ or
    types/shapes differ."""
    ours, ref = np.asarray(ours), np.asarray(ref)
    if ours.shape != ref.shape:
        return float("inf")
    if ref.dtype.kind not in "fc":
        return 0.0 if np.array_equal(ours, ref) else float("inf")
    a, b = ours.astype(np.float64), ref.astype(np.float64)
    if not np.array_equal(np.isnan(a), np.isnan(b)) or not np.array_equal(a[np.isinf(b)], b[np.isinf(b)]):
        return float("inf")
    finite = np.isfinite(b)
    if not finite.any():
        return 0.0
    scale = np.max(np.abs(b[finite]))
    diff = np.max(np.abs(a[finite] - b[finite]))
    return float(diff / scale) if scale > 0 else float(diff)


def run_onnxopt(exe, model_path, out_dir):
    outcome = run_differential.run_onnxopt(exe, model_path, out_dir, timeout=3600)
    if not outcome.ok:
        raise RuntimeError(f"onnxopt run {model_path}: {outcome.error}")
    return outcome


def main(argv):
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--onnxopt", required=True)
    parser.add_argument("model")
    parser.add_argument("--float-range", type=float, default=1.0)
    parser.add_argument("--int-max", type=int, default=16)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--dim", action="append", type=lambda s: (s.split("=")[0], int(s.split("=")[1])))
    parser.add_argument("--top", type=int, default=15)
    parser.add_argument("--node", default=os.environ.get("ONNXOPT_NODE", "node"))
    parser.add_argument("--keep")
    parser.add_argument("--json")
    args = parser.parse_args(argv)
    work = args.keep or tempfile.mkdtemp(prefix="onnxopt-per-node-")
    os.makedirs(work, exist_ok=True)
    try:
        report = compare(args, work)
    finally:
        if not args.keep:
            shutil.rmtree(work, ignore_errors=True)
    if args.json:
        with open(args.json, "w") as f:
            json.dump(report, f, indent=1)
    return 0


def compare(args, work):
    exe = os.path.abspath(args.onnxopt)
    model = onnx.load(args.model)
    rng = np.random.default_rng(args.seed)
    baked_path = os.path.join(work, "baked.onnx")
    onnx.save(bake(model, make_inputs(model, args, rng)), baked_path)
    exposed_path = os.path.join(work, "exposed.onnx")
    proc = subprocess.run([sys.executable, os.path.join(HERE, "..", "shapes", "expose_values.py"), baked_path, exposed_path],
                          capture_output=True, text=True, check=True)
    order = json.loads(proc.stdout)["values"]

    # Accumulated: both sides evaluate the whole model.
    ours = run_onnxopt(exe, exposed_path, os.path.join(work, "ours"))
    exposed = onnx.load(exposed_path)
    returnable = [o for o in exposed.graph.output
                  if ours.kinds.get(o.name, ("",))[0] == "tensor" and ours.kinds[o.name][1] not in
                  run_differential.SPECIAL_OUTPUT_TYPES]
    del exposed.graph.output[:]
    exposed.graph.output.extend(returnable)
    ort_model_path = os.path.join(work, "exposed_ort.onnx")
    onnx.save(exposed, ort_model_path)
    theirs = run_differential.run_ort(args.node, [{"id": "model", "model": ort_model_path,
                                                   "out_dir": os.path.join(work, "ort")}], work)["model"]
    if not theirs.ok:
        raise RuntimeError(theirs.error)
    accumulated = {name: rel_error(ours.outputs[name], theirs.outputs[name]) for name in theirs.outputs}

    # Local: each node alone on onnxruntime's values of its inputs.
    graph = model.graph
    known = dict(theirs.outputs)
    node_models, manifest = {}, []
    base_values = {t.name: t for t in exposed.graph.initializer}
    for index, node in enumerate(graph.node):
        if any(a.type in (onnx.AttributeProto.GRAPH, onnx.AttributeProto.GRAPHS) for a in node.attribute):
            continue
        outputs = [o for o in node.output if o]
        if not outputs or not all(o in accumulated for o in outputs):
            continue
        inits, ok = [], True
        for name in node.input:
            if not name:
                continue
            if name in known:
                inits.append(differential.tensor_proto(name, known[name]))
            elif name in base_values:
                inits.append(base_values[name])
            else:
                ok = False
        if not ok:
            continue
        g = helper.make_graph([node], f"node{index}", [], [helper.make_value_info(o, onnx.TypeProto()) for o in outputs],
                              inits)
        single = helper.make_model(g, opset_imports=model.opset_import, producer_name="per-node")
        single.ir_version = model.ir_version
        single.functions.extend(model.functions)
        path = os.path.join(work, f"node{index}.onnx")
        onnx.save(single, path)
        node_models[index] = path
        manifest.append({"id": str(index), "model": path, "out_dir": os.path.join(work, f"node{index}_ort")})

    def ours_local(index):
        try:
            return index, run_onnxopt(exe, node_models[index], os.path.join(work, f"node{index}_out"))
        except RuntimeError as e:
            return index, e

    with concurrent.futures.ThreadPoolExecutor(max_workers=2) as pool:
        ours_nodes = dict(pool.map(ours_local, list(node_models)))
    theirs_nodes = run_differential.run_ort(args.node, manifest, work)
    local = {}
    for index in node_models:
        mine, ref = ours_nodes[index], theirs_nodes[str(index)]
        if isinstance(mine, Exception) or not ref.ok:
            continue
        for name in ref.outputs:
            local[name] = rel_error(mine.outputs[name], ref.outputs[name])

    return print_report(graph, order, accumulated, local, theirs.outputs, args.top)


def print_report(graph, order, accumulated, local, ref_values, top):
    producer = {o: node for node in graph.node for o in node.output}
    rows = []
    for name in order:
        if name not in accumulated:
            continue
        node = producer[name]
        inputs_err = max([accumulated.get(i, 0.0) for i in node.input if i] + [0.0])
        amplification = accumulated[name] / inputs_err if inputs_err > 0 else float("nan")
        ref = np.asarray(ref_values[name])
        magnitude = float(np.max(np.abs(ref[np.isfinite(ref)]))) if ref.dtype.kind == "f" and np.isfinite(ref).any() else 0.0
        rows.append({"value": name, "op": node.op_type, "max_abs": magnitude, "accumulated": accumulated[name],
                     "local": local.get(name), "amplification": amplification})
    fmt = "{:<5} {:<28} {:<22} {:>10} {:>11} {:>11} {:>9}"
    print(fmt.format("#", "value", "op", "max|ort|", "accumulated", "local", "ampl."))
    worst_local_so_far = 1e-12
    for i, row in enumerate(rows):
        loc = row["local"] if row["local"] is not None else 0.0
        worst_local_so_far = max(worst_local_so_far, loc)
        if row["accumulated"] > 10 * worst_local_so_far and row["accumulated"] > 1e-5:
            print(fmt.format(i, row["value"][:28], row["op"][:22], f"{row['max_abs']:.3g}", f"{row['accumulated']:.2e}",
                             "-" if row["local"] is None else f"{row['local']:.2e}", f"{row['amplification']:.3g}"))
    print(f"\nworst local errors (the kernels on identical inputs):")
    for row in sorted([r for r in rows if r["local"] is not None], key=lambda r: -r["local"])[:top]:
        print(fmt.format("", row["value"][:28], row["op"][:22], f"{row['max_abs']:.3g}", f"{row['accumulated']:.2e}",
                         f"{row['local']:.2e}", f"{row['amplification']:.3g}"))
    print("\ngraph outputs (accumulated):")
    for out in graph.output:
        if out.name in accumulated:
            row = next((r for r in rows if r["value"] == out.name), None)
            print(f"  {out.name}: {accumulated[out.name]:.3e} of max|ort| {row['max_abs'] if row else 0:.3g}")
    return {"rows": rows}


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
