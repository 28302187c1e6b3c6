#!/usr/bin/python3
"""Shows that tests/ort/compare_rewrites.js fails where it must: writes small exported
cases (the layout pattern_test_util.cc writes) and checks the script's exit code and report.

  agree           z = Add(x, y) rewritten as Add(y, x)
  mismatch        rewritten as Sub(x, y)
  after_refused   rewritten into an operator onnxruntime does not have
  before_refused  the graph before already has such an operator (skipped, not judged)
  evaluator_wrong what "our evaluator" computed is x + y + 1
  nan_lost        z = Add(Mul(x, 0), y) rewritten as Identity(y): equal on finite inputs,
                  not where x is NaN or infinite (judged with --non-finite unless the
                  case says "approximate")

Usage: compare_rewrites_selftest.py   (Debian's /usr/bin/python3 with python3-onnx; node
from ONNXOPT_NODE, onnxruntime-node in the project's node_modules)
"""
import json
import os
import shutil
import subprocess
import sys
import tempfile

import numpy as np
import onnx
from onnx import TensorProto, helper

HERE = os.path.dirname(os.path.abspath(__file__))
SCRIPT = os.path.join(HERE, "compare_rewrites.js")
NODE = os.environ.get("ONNXOPT_NODE", "node")


def model(op, domain=""):
    graph = helper.make_graph(
        [helper.make_node(op, ["x", "y"], ["z"], domain=domain)], "g",
        [helper.make_tensor_value_info("x", TensorProto.FLOAT, [2, 3]),
         helper.make_tensor_value_info("y", TensorProto.FLOAT, [2, 3])],
        [helper.make_tensor_value_info("z", TensorProto.FLOAT, [2, 3])])
    opsets = [helper.make_opsetid("", 18)]
    if domain:
        opsets.append(helper.make_opsetid(domain, 1))
    m = helper.make_model(graph, opset_imports=opsets)
    m.ir_version = 8
    return m


def write_case(folder, name, before, after, expected=lambda x, y: x + y, numerics="exact"):
    case = os.path.join(folder, name)
    os.makedirs(case)
    onnx.save(before, os.path.join(case, "before.onnx"))
    onnx.save(after, os.path.join(case, "after.onnx"))
    rng = np.random.default_rng(3)
    x = rng.uniform(-2, 2, (2, 3)).astype(np.float32)
    y = rng.uniform(-2, 2, (2, 3)).astype(np.float32)
    x.tofile(os.path.join(case, "input_0.bin"))
    y.tofile(os.path.join(case, "input_1.bin"))
    expected(x, y).tofile(os.path.join(case, "expected_0.bin"))
    entry = lambda n, f: {"name": n, "elem_type": 1, "dims": [2, 3], "file": f}
    with open(os.path.join(case, "case.json"), "w") as out:
        json.dump({"test": "Selftest." + name, "numerics": numerics, "tolerance": 0,
                   "inputs": [entry("x", "input_0.bin"), entry("y", "input_1.bin")],
                   "expected": [entry("z", "expected_0.bin")]}, out)


def main():
    failures = 0
    tmp = tempfile.mkdtemp(prefix="onnxopt-compare-rewrites-selftest.")
    try:
        add, add_swapped, sub = model("Add"), model("Add"), model("Sub")
        add_swapped.graph.node[0].input[:] = ["y", "x"]
        unknown = model("Nope", domain="selftest.unknown")
        cases = os.path.join(tmp, "all")
        os.makedirs(cases)
        write_case(cases, "agree", add, add_swapped)
        write_case(cases, "mismatch", add, sub)
        write_case(cases, "after_refused", add, unknown)
        write_case(cases, "before_refused", unknown, add)
        write_case(cases, "evaluator_wrong", add, add, expected=lambda x, y: x + y + np.float32(1))
        zero_times_x = helper.make_graph(
            [helper.make_node("Mul", ["x", "zero"], ["t"]), helper.make_node("Add", ["t", "y"], ["z"])], "g",
            list(add.graph.input), list(add.graph.output),
            [helper.make_tensor("zero", TensorProto.FLOAT, [], [0.0])])
        nan_lost_before = helper.make_model(zero_times_x, opset_imports=[helper.make_opsetid("", 18)])
        nan_lost_before.ir_version = 8
        nan_lost_after = model("Identity")
        nan_lost_after.graph.node[0].input[:] = ["y"]
        write_case(cases, "nan_lost", nan_lost_before, nan_lost_after, expected=lambda x, y: y)
        write_case(cases, "nan_lost_approximate", nan_lost_before, nan_lost_after, expected=lambda x, y: y,
                   numerics="approximate")
        allow = os.path.join(tmp, "allow.txt")
        with open(allow, "w") as out:
            out.write("# known differences\nevaluator_wrong the selftest's evaluator adds one\n")

        def folder_of(*names):
            folder = tempfile.mkdtemp(prefix="+".join(names) + ".", dir=tmp)
            os.rmdir(folder)
            os.makedirs(folder)
            for name in names:
                shutil.copytree(os.path.join(cases, name), os.path.join(folder, name))
            return folder

        def expect(code, what, folder, *options, output=()):
            nonlocal failures
            run = subprocess.run([NODE, SCRIPT, folder, *options], capture_output=True, text=True)
            text = run.stdout + run.stderr
            missing = [line for line in output if line not in text]
            if run.returncode == code and not missing:
                print(f"PASS  {what} (exit {code})")
                return
            failures += 1
            print(f"FAIL  {what}: exit {run.returncode} (expected {code})" +
                  (f", output lacks {missing}" if missing else ""))
            print("".join(f"      | {line}\n" for line in text.splitlines()))

        expect(0, "an equivalent rewrite agrees; a graph onnxruntime cannot run before is skipped",
               folder_of("agree", "before_refused"),
               output=["judged 1 of 2 exported rewrites: 1 agree (1 bitwise), 0 fail",
                       "skipped (onnxruntime cannot run the graph before the rewrite): 1"])
        expect(1, "a rewrite that changes an output fails", folder_of("agree", "mismatch"),
               output=["FAILED  mismatch", "rewrite: output z (float32)"])
        expect(1, "a graph after that onnxruntime refuses fails", folder_of("agree", "after_refused"),
               output=["FAILED  after_refused", "onnxruntime runs the graph before but not after"])
        expect(1, "an evaluator that disagrees with onnxruntime fails", folder_of("agree", "evaluator_wrong"),
               output=["FAILED  evaluator_wrong", "evaluator: output z (float32)"])
        expect(0, "an allowed evaluator difference passes", folder_of("evaluator_wrong"), "--allow", allow,
               output=["1 known difference(s) allowed"])
        expect(1, "an allowance no longer needed fails", folder_of("agree"), "--allow", allow,
               output=["STALE   evaluator_wrong"])
        expect(0, "a rewrite that loses a NaN agrees on finite inputs", folder_of("nan_lost"),
               output=["judged 1 of 1 exported rewrites: 1 agree"])
        expect(1, "a rewrite that loses a NaN fails with --non-finite", folder_of("nan_lost"), "--non-finite",
               output=["FAILED  nan_lost", "rewrite: output z (float32)"])
        expect(0, "an approximate pattern is not judged with --non-finite", folder_of("nan_lost_approximate"),
               "--non-finite", output=["not judged on non-finite inputs (approximate patterns): 1"])
        empty = os.path.join(tmp, "empty")
        os.makedirs(empty)
        expect(2, "a folder without cases is an error", empty, output=["no exported case"])
    finally:
        shutil.rmtree(tmp)
    print(f"{failures} failure(s)")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
