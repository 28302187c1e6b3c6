#!/usr/bin/python3
"""Cost of a Python pattern callback: Optimize on the synthetic decoder with and without a
no-op Python pattern whose fast_op_type is empty (every node is a candidate, every call
rejects), divided by the number of callbacks.

Usage: PYTHONPATH=build/python /usr/bin/python3 bench/python_pattern_overhead.py
           [--layers 400] [--model decoder.onnx] [--results bench/RESULTS-python.md]

Both runs use the command line's setup (default patterns, constant folding first, no
NoMatch collection) on fresh builders of the same model, and time GraphGraph.optimize only
(not loading nor serializing). The pair is repeated (--repeat, alternating) and the
fastest time of each kind is kept: on a shared machine a single pair is dominated by
noise. The script also prints the time the driver itself measured inside the Match calls
of the Python pattern (report.patterns[...].match_time_ns / match_calls): the whole
callback (GIL, views, the Python call), without the noise of two separate runs.
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
    parser.add_argument("--repeat", type=int, default=3, help="runs of each kind (default 3)")
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

    base_times, noop_times, in_match_us = [], [], []
    for _ in range(args.repeat):
        base_time, base_report, base_builder = run(data, [])
        noop_time, noop_report, noop_builder = run(data, [NoOpPattern()])
        stats = {p.name: p for p in noop_report.patterns}["NoOpPattern"]
        calls = stats.match_calls
        assert base_builder.to_model_bytes() == noop_builder.to_model_bytes(), "the no-op pattern changed the graph"
        base_times.append(base_time)
        noop_times.append(noop_time)
        in_match_us.append(stats.match_time_ns / calls / 1e3)
        del base_builder, noop_builder
    base_time, noop_time = min(base_times), min(noop_times)
    per_call_us = (noop_time - base_time) / calls * 1e6
    in_match = min(in_match_us)
    nodes = base_report.nodes_before
    print(f"nodes: {nodes} -> {base_report.nodes_after}, iterations: {base_report.iterations}")
    print("Optimize without the Python pattern: " + ", ".join(f"{t:.3f}" for t in base_times) + " s")
    print("Optimize with a no-op Python pattern: " + ", ".join(f"{t:.3f}" for t in noop_times) + f" s ({calls} callbacks)")
    print(f"overhead per callback (fastest runs): {per_call_us:.2f} us")
    print("time inside Match per callback (driver's clock): " + ", ".join(f"{t:.2f}" for t in in_match_us) + " us")
    if args.results:
        line = (f"| {datetime.date.today().isoformat()} | {cpu_name()}, {os.cpu_count()} cpus, Python "
                f"{platform.python_version()} | {nodes} | {base_time:.3f} | {noop_time:.3f} | {calls} | "
                f"{per_call_us:.2f} | {in_match:.2f} |\n")
        with open(args.results, "a") as f:
            f.write(line)


if __name__ == "__main__":
    main()
