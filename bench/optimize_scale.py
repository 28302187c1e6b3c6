#!/usr/bin/python3
"""`onnxopt optimize` on graphs where the default patterns were once quadratic or worse in a
count: many readers of one value computing the same, Reshapes to shapes computed from
Shape, Gathers and Slices of one tensor, Reshapes alternating with element-wise nodes.
Results: bench/RESULTS-optimize-scale.md.

Usage: /usr/bin/python3 bench/optimize_scale.py NAME=ONNXOPT [NAME=ONNXOPT ...]
  e.g. /usr/bin/python3 bench/optimize_scale.py old=/tmp/old/build/onnxopt new=build/onnxopt
Options: --counts 1000 4000 (graph sizes), --reps 3 (the table shows medians), --timeout 120
(seconds a run may take; a run killed shows "> T", one that fails "failed (code)": a negative
code is the signal that killed it).

Each repetition runs every binary on the model back to back (the order rotating with the
repetition), so machine noise hits them alike. Every optimized model must compute what its
original computes (`onnxopt verify` of the last binary; exit 1 otherwise). The ratio columns
are each binary's time over the first one's.
"""

import argparse
import os
import statistics
import subprocess
import sys
import tempfile
import time

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

FLOAT = TensorProto.FLOAT


def value(name, shape=None):
    return helper.make_tensor_value_info(name, FLOAT, shape)


def ints(name, values, scalar=False):
    return numpy_helper.from_array(np.array(values[0] if scalar else values, np.int64), name)


def save(path, nodes, inputs, outputs, initializers=()):
    graph = helper.make_graph(nodes, "g", inputs, outputs, list(initializers))
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 18)])
    model.ir_version = 8
    onnx.save(model, path)


def same_readers(path, n):
    """n Relu readers of a graph input, each a graph output (the duplicate cleanup leaves
    graph outputs to SameChildrenFromInputPattern)."""
    save(path, [helper.make_node("Relu", ["x"], [f"y{i}"]) for i in range(n)], [value("x", [2, 3])],
         [value(f"y{i}") for i in range(n)])


def shape_reshapes(path, n):
    """n Reshapes of one value to Shape -> Gather -> Unsqueeze -> Concat targets, folded alike."""
    nodes, outputs = [], []
    for i in range(n):
        nodes += [helper.make_node("Shape", ["x"], [f"s{i}"]),
                  helper.make_node("Gather", [f"s{i}", "zero"], [f"g{i}"], axis=0),
                  helper.make_node("Unsqueeze", [f"g{i}", "axes"], [f"u{i}"]),
                  helper.make_node("Concat", [f"u{i}", "rest"], [f"c{i}"], axis=0),
                  helper.make_node("Reshape", ["x", f"c{i}"], [f"y{i}"])]
        outputs.append(value(f"y{i}"))
    save(path, nodes, [value("x", [2, 3])], outputs,
         [ints("zero", [0], scalar=True), ints("axes", [0]), ints("rest", [-1])])


def transpose_pairs(path, n):
    """n Transpose pairs of one value, each added to it."""
    nodes = []
    for i in range(n):
        nodes += [helper.make_node("Transpose", ["x"], [f"t{i}"], perm=[1, 0]),
                  helper.make_node("Transpose", [f"t{i}"], [f"u{i}"], perm=[1, 0]),
                  helper.make_node("Add", [f"u{i}", "x"], [f"y{i}"])]
    save(path, nodes, [value("x", [2, 3])], [value(f"y{i}") for i in range(n)])


def alternating_reshapes(path, n):
    """Reshape, Relu, Reshape, Neg... n pairs in a chain."""
    nodes, previous = [], "x"
    for i in range(n):
        nodes += [helper.make_node("Reshape", [previous, "flat" if i % 2 == 0 else "tall"], [f"r{i}"]),
                  helper.make_node("Relu" if i % 2 == 0 else "Neg", [f"r{i}"], [f"e{i}"])]
        previous = f"e{i}"
    save(path, nodes, [value("x", [2, 3])], [value(previous)], [ints("flat", [6]), ints("tall", [3, 2])])


def gathers(path, n):
    """n Gathers, one per row of an [n, 4] tensor (GathersSplitPattern)."""
    save(path, [helper.make_node("Gather", ["x", f"i{i}"], [f"y{i}"], axis=0) for i in range(n)],
         [value("x", [n, 4])], [value(f"y{i}") for i in range(n)], [ints(f"i{i}", [i], scalar=True) for i in range(n)])


def slices(path, n):
    """n Slices, one per row of an [n, 4] tensor (SlicesSplitPattern)."""
    initializers = [ints("axis", [0])]
    for i in range(n):
        initializers += [ints(f"s{i}", [i]), ints(f"e{i}", [i + 1])]
    save(path, [helper.make_node("Slice", ["x", f"s{i}", f"e{i}", "axis"], [f"y{i}"]) for i in range(n)],
         [value("x", [n, 4])], [value(f"y{i}") for i in range(n)], initializers)


GRAPHS = [same_readers, shape_reshapes, transpose_pairs, alternating_reshapes, gathers, slices]


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("binaries", nargs="+", metavar="NAME=ONNXOPT")
    parser.add_argument("--counts", type=int, nargs="+", default=[1000, 4000])
    parser.add_argument("--reps", type=int, default=3)
    parser.add_argument("--timeout", type=float, default=120)
    args = parser.parse_args()
    binaries = [tuple(arg.split("=", 1)) for arg in args.binaries]
    if any(len(b) != 2 for b in binaries):
        parser.error("each binary is NAME=ONNXOPT")
    names = [name for name, _ in binaries]
    header = "| model | nodes |" + "".join(f" {n} (s) | {n} nodes after |" for n in names)
    header += "".join(f" {n} / {names[0]} |" for n in names[1:])
    print(header)
    print("|---" * (2 + 2 * len(names) + len(names) - 1) + "|")
    status = 0
    with tempfile.TemporaryDirectory() as folder:
        for make in GRAPHS:
            for count in args.counts:
                model = os.path.join(folder, f"{make.__name__}_{count}.onnx")
                make(model, count)
                times = {name: [] for name in names}
                failed = {}  # name -> how a run failed other than by the timeout
                for rep in range(args.reps):
                    for k in range(len(binaries)):
                        name, exe = binaries[(k + rep) % len(binaries)]
                        out = os.path.join(folder, f"{name}.onnx")
                        start = time.monotonic()
                        try:
                            subprocess.run([exe, "optimize", model, "-o", out, "-q"], check=True,
                                           timeout=args.timeout, stdout=subprocess.DEVNULL)
                            times[name].append(time.monotonic() - start)
                        except subprocess.TimeoutExpired:
                            times[name].append(None)
                        except subprocess.CalledProcessError as error:  # out of memory, say
                            times[name].append(None)
                            failed[name] = f"failed ({error.returncode})"
                row = f"| {make.__name__}_{count} | {len(onnx.load(model).graph.node)} |"
                medians = {}
                for name, _ in binaries:
                    finished = [t for t in times[name] if t is not None]
                    medians[name] = statistics.median(finished) if len(finished) == len(times[name]) else None
                    out = os.path.join(folder, f"{name}.onnx")
                    after = len(onnx.load(out).graph.node) if medians[name] is not None else "-"
                    shown = f"{medians[name]:.3f}" if medians[name] is not None else f"> {args.timeout:g}"
                    shown = failed.get(name, shown)
                    row += f" {shown} | {after} |"
                    if medians[name] is not None:
                        check = subprocess.run([binaries[-1][1], "verify", model, out], capture_output=True, text=True)
                        if check.returncode != 0:
                            print(f"{make.__name__}_{count}: {name}'s model differs: {check.stdout}{check.stderr}",
                                  file=sys.stderr)
                            status = 1
                first = medians[names[0]]
                for name in names[1:]:
                    ratio = f"{medians[name] / first:.3f}" if first and medians[name] is not None else "-"
                    row += f" {ratio} |"
                print(row, flush=True)
    return status


if __name__ == "__main__":
    sys.exit(main())
