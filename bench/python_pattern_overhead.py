#!/usr/bin/python3
"""Cost of a Python pattern callback: Optimize on the synthetic decoder with and without a
no-op Python pattern whose fast_op_type is empty (every node is a candidate, every call
rejects), divided by the number of callbacks.

Usage: PYTHONPATH=build/python /usr/bin/python3 bench/python_pattern_overhead.py
           [--layers 400] [--model decoder.onnx] [--results bench/RESULTS-python.md]

Both runs use the command line's setup (default patterns, constant folding first, no
NoMatch collection) on fresh builders of the same model, and time GraphGraph.optimize only
(not loading nor serializing). The difference also contains the report bookkeeping of the
extra pattern, which is part of what a Python pattern costs.
"""
import argparse
import datetime
import os
import platform
import subprocess
import sys
import tempfile
import time

import onnxopt


class NoOpPattern(onnxopt.PatternOptimization):
    def fast_op_type(self):
        return set()

    def match(self, graph, node):
        return self.no_match(node, "no-op")

    def apply(self, graph, nodes):
        raise AssertionError("never matches")


def run(data, patterns):
    builder = onnxopt.GraphBuilder(data)
    graph = onnxopt.GraphGraph(builder, patterns=patterns, registered="default", fold_constants_first=True,
                               collect_no_match=False)
    start = time.perf_counter()
    _, report = graph.optimize(report=True)
    elapsed = time.perf_counter() - start
    return elapsed, report, builder


def cpu_name():
    try:
        with open("/proc/cpuinfo") as f:
            for line in f:
                if line.startswith("model name"):
                    return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or "unknown cpu"


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--layers", type=int, default=400)
    parser.add_argument("--model", help="use this model instead of generating the decoder")
    parser.add_argument("--results", help="append a line of results to this markdown file")
    args = parser.parse_args()

    with tempfile.TemporaryDirectory() as tmp:
        path = args.model
        if not path:
            path = os.path.join(tmp, "decoder.onnx")
            here = os.path.dirname(os.path.abspath(__file__))
            subprocess.run([sys.executable, os.path.join(here, "make_decoder.py"), "--layers", str(args.layers), path],
                           check=True, stdout=subprocess.DEVNULL)
        with open(path, "rb") as f:
            data = f.read()

    base_time, base_report, base_builder = run(data, [])
    noop_time, noop_report, noop_builder = run(data, [NoOpPattern()])
    calls = {p.name: p.match_calls for p in noop_report.patterns}["NoOpPattern"]
    assert base_builder.to_model_bytes() == noop_builder.to_model_bytes(), "the no-op pattern changed the graph"
    per_call_us = (noop_time - base_time) / calls * 1e6
    nodes = base_report.nodes_before
    print(f"nodes: {nodes} -> {base_report.nodes_after}, iterations: {base_report.iterations}")
    print(f"Optimize without the Python pattern: {base_time:.3f} s")
    print(f"Optimize with a no-op Python pattern: {noop_time:.3f} s ({calls} callbacks)")
    print(f"overhead per callback: {per_call_us:.2f} us")
    if args.results:
        line = (f"| {datetime.date.today().isoformat()} | {cpu_name()}, {os.cpu_count()} cpus, Python "
                f"{platform.python_version()} | {nodes} | {base_time:.3f} | {noop_time:.3f} | {calls} | "
                f"{per_call_us:.2f} |\n")
        with open(args.results, "a") as f:
            f.write(line)


if __name__ == "__main__":
    main()
