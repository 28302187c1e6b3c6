#!/usr/bin/python3
"""Self-test of the differential harness (run_differential.py): it must fail the cases
that deserve it, pass the others, and refuse malformed cases.

Usage: harness_selftest.py --onnxopt EXE    exit 0 when the harness behaves, 1 otherwise.
"""
import argparse
import os
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
from differential import Case  # noqa: E402

CASE_FILE = '''
import numpy as np
from differential import Case

X = np.array([-1.5, 0, 2], np.float32)
CASES = [
    Case(op="Add", opset=14, name="add_passes", inputs=[("a", X), ("b", X)]),
    Case(op="Relu", opset=14, name="relu_wrong_spec_fails", inputs=[("x", X)], expect="spec",
         expected=[np.array([1, 1, 1], np.float32)], reason="deliberately wrong expected values"),
    Case(op="Relu", opset=14, name="relu_accepted_error_fails", inputs=[("x", X)], expect="error"),
    Case(op="Dropout", opset=13, name="dropout_random_masks_fail", outputs=2, attrs={"seed": 1},
         inputs=[("x", np.ones([64], np.float32)), ("r", np.float32(0.5)), ("t", np.array(True))]),
    Case(op="Reshape", opset=14, name="reshape_refusal_passes", inputs=[("x", X), ("s", np.array([5], np.int64))],
         expect="error"),
]
'''
EXPECTED_FAILURES = {"relu_wrong_spec_fails", "relu_accepted_error_fails", "dropout_random_masks_fail"}


def check_malformed_cases():
    problems = []
    for kwargs, why in [
        (dict(op="Add", opset=14, name="Add-Bad"), "a name that is not snake_case"),
        (dict(op="Add", opset=14, name="mul_wrong_prefix"), "a name without the op prefix"),
        (dict(op="Add", opset=14, name="add_spec", expect="spec", expected=[]), "a spec case without a reason"),
        (dict(op="Add", opset=14, name="add_float", inputs=[("a", 1.0)]), "a Python number as a value"),
        (dict(op="Add", opset=14, name="add_tolerance", rtol=0.1), "a tolerance without a reason"),
    ]:
        try:
            Case(**kwargs)
            problems.append(f"Case accepted {why}")
        except ValueError:
            pass
    return problems


def main(argv):
    parser = argparse.ArgumentParser()
    parser.add_argument("--onnxopt", required=True)
    args = parser.parse_args(argv)
    problems = check_malformed_cases()
    with tempfile.TemporaryDirectory() as tmp:
        path = os.path.join(tmp, "selftest_cases.py")
        with open(path, "w") as f:
            f.write(CASE_FILE)
        proc = subprocess.run([sys.executable, os.path.join(HERE, "run_differential.py"), "--onnxopt", args.onnxopt,
                               "--cases", path], capture_output=True, text=True)
    print(proc.stdout)
    failed = {line.split()[1] for line in proc.stdout.splitlines() if line.startswith("FAIL ")}
    if proc.returncode != 1:
        problems.append(f"run_differential.py exited {proc.returncode}, expected 1: {proc.stderr.strip()}")
    if failed != EXPECTED_FAILURES:
        problems.append(f"failing cases {sorted(failed)}, expected {sorted(EXPECTED_FAILURES)}")
    for problem in problems:
        print(f"SELFTEST PROBLEM: {problem}")
    print("harness self-test:", "FAILED" if problems else "passed")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
