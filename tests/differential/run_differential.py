#!/usr/bin/python3
"""Runs the differential kernel test: every case of the case files, evaluated by
`onnxopt run` and by onnxruntime-node (one process for all cases), compared as the
case's `expect` says (README.md).

Usage: run_differential.py --onnxopt EXE [--filter SUBSTRING] [--cases FILE ...]
                           [--jobs N] [--node NODE] [--keep DIR] [--verbose]

  --filter SUBSTRING  only the cases whose name or op contains SUBSTRING
  --cases FILE        case files to run (repeatable; default every cases/*.py)
  --jobs N            onnxopt processes run at a time (default 2)
  --node NODE         the node executable (default $ONNXOPT_NODE, else node)
  --keep DIR          keep the models and outputs in DIR (default: a temporary folder)
  --verbose           one line per case, passing or not

Prints one line per failing case (name, what differs, both values), notes (onnxruntime
agreeing with the spec in a "spec" case...), then the count of cases per op and a
summary. Exit 0 when every case passes, 1 when one fails, 2 on a usage error or when
onnxruntime cannot be run at all.

Steps: (1) each case's model is built (differential.build_model) and run by onnxopt;
(2) outputs onnxruntime-node cannot return (bfloat16, float8, 4-bit types, sequences,
optionals) are observed through nodes appended to the model (Cast to a native type,
SequenceLength + SequenceAt, OptionalHasElement + OptionalGetElement), decided from
what onnxopt returned, and onnxopt runs the observed model again; (3) run_ort.js runs
every (observed) model; (4) results are compared.
"""
import argparse
import base64
import collections
import concurrent.futures
import importlib.util
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time

import numpy as np
import onnx

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import differential  # noqa: E402  (the case files import it by this name too)

ONNXOPT_TIMEOUT_SECONDS = 120
ORT_TYPES = {
    "float32": np.float32, "float64": np.float64, "float16": np.float16, "int8": np.int8, "int16": np.int16,
    "int32": np.int32, "int64": np.int64, "uint8": np.uint8, "uint16": np.uint16, "uint32": np.uint32,
    "uint64": np.uint64, "bool": np.bool_,
}
SPECIAL_OUTPUT_TYPES = {"bfloat16", "float8e4m3fn", "float8e4m3fnuz", "float8e5m2", "float8e5m2fnuz", "int4",
                        "uint4", "float4e2m1", "float8e8m0"}
# Ops whose outputs are sequences / optionals, observed even when onnxopt fails (so that
# onnxruntime-node can load the model and report its own verdict).
SEQUENCE_OUTPUT_OPS = {"SequenceConstruct", "SequenceEmpty", "SequenceInsert", "SequenceErase", "SplitToSequence"}
OPTIONAL_OUTPUT_OPS = {"Optional"}


def load_cases(files):
    cases, seen = [], {}
    for path in files:
        spec = importlib.util.spec_from_file_location(f"cases_{os.path.basename(path)[:-3]}", path)
        module = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(module)
        if not isinstance(getattr(module, "CASES", None), list):
            raise ValueError(f"{path}: defines no CASES list")
        for case in module.CASES:
            if not isinstance(case, differential.Case):
                raise ValueError(f"{path}: CASES holds a {type(case).__name__}, not a Case")
            if case.name in seen:
                raise ValueError(f"case name {case.name!r} is defined in {seen[case.name]} and {path}")
            seen[case.name] = path
            cases.append(case)
    return cases


class Outcome:
    """What one side returned for one case."""

    def __init__(self):
        self.ok = False
        self.error = ""          # message when not ok
        self.exit_code = None    # onnxopt only
        self.outputs = {}        # name -> numpy array
        self.kinds = {}          # onnxopt: name -> ("tensor", type name) | ("sequence", n) | ("optional", False)


SUMMARY_LINE = re.compile(r"^(\S+): (?:sequence of (\d+) tensors|(optional without a value)|([a-z0-9]+)\[)")


def run_onnxopt(exe, model_path, out_dir, timeout=ONNXOPT_TIMEOUT_SECONDS):
    outcome = Outcome()
    try:
        proc = subprocess.run([exe, "run", model_path, "--output-dir", out_dir], capture_output=True, text=True,
                              timeout=timeout)
    except subprocess.TimeoutExpired:
        outcome.error = f"onnxopt run did not finish in {timeout} s"
        return outcome
    outcome.exit_code = proc.returncode
    if proc.returncode != 0:
        outcome.error = (proc.stderr.strip() or proc.stdout.strip() or "(no message)").splitlines()[-1]
        return outcome
    for line in proc.stdout.splitlines():
        m = SUMMARY_LINE.match(line)
        if not m:
            continue
        name = m.group(1)
        if m.group(2) is not None:
            outcome.kinds[name] = ("sequence", int(m.group(2)))
        elif m.group(3):
            outcome.kinds[name] = ("optional", False)
        else:
            outcome.kinds[name] = ("tensor", m.group(4))
            outcome.outputs[name] = np.load(os.path.join(out_dir, escape_file_name(name) + ".npy"))
    outcome.ok = True
    return outcome


def escape_file_name(name):
    """The file name `onnxopt run --output-dir` gives an output (bytes outside
    [A-Za-z0-9._-] as %XX)."""
    if name in (".", ".."):
        return "".join(f"%{b:02X}" for b in name.encode())
    return "".join(chr(b) if re.match(rb"[A-Za-z0-9._-]", bytes([b])) else f"%{b:02X}" for b in name.encode())


def observation_plan(case, first):
    """How each output is observed (differential.build_model's `observe`)."""
    observe = {}
    special_inputs = [v[0] for _, v in case.inputs if isinstance(v, tuple)]
    for name in case.output_names():
        if not name:
            continue
        kind = first.kinds.get(name) if first.ok else None
        if kind is None:
            # onnxopt gave nothing to go by: guess from the op and the input types.
            if case.op in SEQUENCE_OUTPUT_OPS:
                observe[name] = ("sequence", 0)
            elif case.op in OPTIONAL_OUTPUT_OPS:
                observe[name] = ("optional", False)
            elif special_inputs and special_inputs[0] in differential.CAST_FOR_OBSERVATION:
                observe[name] = ("cast", differential.CAST_FOR_OBSERVATION[special_inputs[0]])
        elif kind[0] == "sequence":
            observe[name] = kind
        elif kind[0] == "optional":
            observe[name] = ("optional", False)
        elif case.op in OPTIONAL_OUTPUT_OPS:
            observe[name] = ("optional", True)
        elif kind[1] in SPECIAL_OUTPUT_TYPES:
            observe[name] = ("cast", differential.CAST_FOR_OBSERVATION.get(kind[1], onnx.TensorProto.FLOAT))
    return observe


def run_ort(node, manifest, work):
    """Runs run_ort.js on the manifest; when onnxruntime crashes on a model, that model's
    outcome says so and a new process resumes after it."""
    manifest_file = os.path.join(work, "ort_manifest.json")
    results_file = os.path.join(work, "ort_results.jsonl")
    outcomes = {}
    pending = list(manifest)
    while pending:
        with open(manifest_file, "w") as f:
            json.dump(pending, f)
        if os.path.exists(results_file):
            os.remove(results_file)
        proc = subprocess.run([node, os.path.join(HERE, "run_ort.js"), manifest_file, results_file],
                              capture_output=True, text=True, cwd=HERE)
        results = []
        if os.path.exists(results_file):
            with open(results_file) as f:
                results = [json.loads(line) for line in f if line.strip()]
        for r in results:
            outcomes[r["id"]] = ort_outcome(r)
        pending = pending[len(results):]
        if proc.returncode == 0 or not pending:
            break
        if proc.returncode > 0:
            # run_ort.js itself failed (onnxruntime-node missing, a bad manifest), not a model.
            raise RuntimeError(f"run_ort.js failed (exit {proc.returncode}): {proc.stderr.strip()}")
        crashed = pending.pop(0)
        outcome = Outcome()
        outcome.error = f"onnxruntime crashed (exit {proc.returncode}) on this model"
        outcomes[crashed["id"]] = outcome
    return outcomes


def ort_outcome(r):
    outcome = Outcome()
    outcome.ok = r["ok"]
    if not r["ok"]:
        message = r["error"].strip().splitlines()[0] if r["error"].strip() else ""
        outcome.error = f"onnxruntime fails at {r['stage']}: {message}"
    for out in r.get("outputs", []):
        if out["type"] == "string":
            array = np.array(out["data"], dtype=object).reshape(out["dims"])
        elif out["type"] in ORT_TYPES:
            raw = np.fromfile(out["file"], dtype=np.uint8) if "file" in out else base64.b64decode(out["data"])
            array = np.frombuffer(raw, dtype=ORT_TYPES[out["type"]]).reshape(out["dims"])
        else:
            outcome.ok = False
            outcome.error = f"onnxruntime returned output {out['name']} of type {out['type']}"
            continue
        outcome.outputs[out["name"]] = array
    return outcome


class Verdict:
    def __init__(self, case):
        self.case = case
        self.failures = []
        self.notes = []


def tolerances_for(case, first, name):
    """(rtol, atol) of an output: the case's, else those of its element type (bfloat16
    and float8 outputs arrive as float32 through a Cast)."""
    base = name.split(".")[0]
    kind = first.kinds.get(base)
    if kind and kind[0] == "tensor" and kind[1] == "bfloat16":
        return differential.BFLOAT16_TOLERANCES
    return None


def compare_outputs(case, ours, theirs, first, what):
    problems = []
    if sorted(ours) != sorted(theirs):
        return [f"{what}: outputs {sorted(ours)} vs {sorted(theirs)}"]
    for name in ours:
        diff = differential.compare_arrays(ours[name], theirs[name], case.rtol, case.atol,
                                           tolerances_for(case, first, name))
        if diff:
            problems.append(f"output {name}: {diff}\n      onnxopt:     {differential.format_array(ours[name])}"
                            f"\n      {what + ':':12} {differential.format_array(theirs[name])}")
    return problems


def compare_with_spec(case, outputs, first, who):
    """Problems of `outputs` against case.expected: a tensor output by its name (or the
    name of its observing Cast), a sequence output (an expected list) element by element."""
    problems = []
    for name, expected in zip([n for n in case.output_names() if n], case.expected):
        if isinstance(expected, list):
            length = outputs.get(f"{name}.length")
            if length is None or int(length) != len(expected):
                problems.append(f"output {name}: {who} gives a sequence of {length} tensors, the spec {len(expected)}")
                continue
            pairs = [(f"{name}.at{k}", e) for k, e in enumerate(expected)]
        else:
            pairs = [(name if name in outputs else f"{name}.cast", expected)]
        for key, value in pairs:
            if key not in outputs:
                problems.append(f"output {name}: {who} gives no value")
                continue
            diff = differential.compare_arrays(outputs[key], np.asarray(value), case.rtol, case.atol,
                                               tolerances_for(case, first, key))
            if diff:
                problems.append(f"output {key}: {diff}\n      {who + ':':12} {differential.format_array(outputs[key])}"
                                f"\n      spec:        {differential.format_array(value)}")
    return problems


def onnxopt_refusal_problem(case, ours):
    """None when onnxopt refused as it must (exit 2, the node named)."""
    if ours.ok:
        return "onnxopt accepts the model (expected an error)"
    if ours.exit_code != 2:
        return f"onnxopt failed with exit {ours.exit_code} (expected 2): {ours.error}"
    if f"node '{case.name}'" not in ours.error:
        return f"onnxopt's message does not name the node '{case.name}': {ours.error}"
    return None


def judge(case, first, ours, theirs):
    v = Verdict(case)
    if case.expect in ("error", "onnxopt-error"):
        problem = onnxopt_refusal_problem(case, first)
        if problem:
            v.failures.append(problem)
        if case.expect == "error" and theirs.ok:
            v.failures.append("onnxruntime accepts the model (expected an error)")
        if case.expect == "onnxopt-error" and not theirs.ok:
            v.notes.append(f"onnxruntime now refuses the model too ({theirs.error}): the case can be 'error'")
        return v
    if not ours.ok:
        kind = "crashed or failed internally" if ours.exit_code not in (2,) else "refuses the model"
        v.failures.append(f"onnxopt {kind} (exit {ours.exit_code}): {ours.error}")
        return v
    if case.expect == "spec":
        names = [n for n in case.output_names() if n]
        if len(case.expected) != len(names):
            v.failures.append(f"expected holds {len(case.expected)} values for {len(names)} outputs")
            return v
        v.failures += compare_with_spec(case, ours.outputs, first, "onnxopt")
        if theirs.ok and not compare_with_spec(case, theirs.outputs, first, "onnxruntime"):
            v.notes.append("onnxruntime now agrees with the spec: the case can be 'equal'")
        return v
    if not theirs.ok:
        v.failures.append(f"onnxopt runs it but {theirs.error}")
        return v
    if case.expect == "shape":
        for name, array in ours.outputs.items():
            ref = theirs.outputs.get(name)
            if ref is None or ref.dtype != array.dtype or ref.shape != array.shape:
                v.failures.append(f"output {name}: onnxopt {differential.format_array(array)} vs onnxruntime "
                                  f"{differential.format_array(ref) if ref is not None else 'nothing'}")
        if case.check:
            try:
                case.check([ours.outputs[n] for n in sorted(ours.outputs)])
            except AssertionError as e:
                v.failures.append(f"check fails on onnxopt's outputs: {e}")
            try:
                case.check([theirs.outputs[n] for n in sorted(theirs.outputs)])
            except AssertionError as e:
                v.notes.append(f"check fails on onnxruntime's outputs too: {e}")
        return v
    v.failures += compare_outputs(case, ours.outputs, theirs.outputs, first, "onnxruntime")
    return v


def main(argv):
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--onnxopt", required=True)
    parser.add_argument("--filter")
    parser.add_argument("--cases", action="append")
    parser.add_argument("--jobs", type=int, default=2)
    parser.add_argument("--node", default=os.environ.get("ONNXOPT_NODE", "node"))
    parser.add_argument("--keep")
    parser.add_argument("--verbose", action="store_true")
    args = parser.parse_args(argv)
    files = args.cases or sorted(os.path.join(HERE, "cases", f) for f in os.listdir(os.path.join(HERE, "cases"))
                                 if f.endswith(".py") and not f.startswith("_"))
    try:
        cases = load_cases(files)
    except (ValueError, OSError, SyntaxError) as e:
        print(f"run_differential: {e}", file=sys.stderr)
        return 2
    if args.filter:
        cases = [c for c in cases if args.filter in c.name or args.filter == c.op]
    if not cases:
        print("run_differential: no case selected", file=sys.stderr)
        return 2
    start = time.time()
    work = args.keep or tempfile.mkdtemp(prefix="onnxopt-differential-")
    os.makedirs(work, exist_ok=True)
    try:
        return run_cases(args, cases, work, start)
    finally:
        if not args.keep:
            shutil.rmtree(work, ignore_errors=True)


def run_cases(args, cases, work, start):
    exe = os.path.abspath(args.onnxopt)

    def onnxopt_side(case):
        folder = os.path.join(work, case.name)
        os.makedirs(folder, exist_ok=True)
        model_path = os.path.join(folder, "model.onnx")
        onnx.save(differential.build_model(case), model_path)
        first = run_onnxopt(exe, model_path, os.path.join(folder, "out"))
        observe = observation_plan(case, first)
        if not observe:
            return first, first, model_path
        observed_path = os.path.join(folder, "observed.onnx")
        onnx.save(differential.build_model(case, observe), observed_path)
        if not first.ok:
            return first, first, observed_path
        return first, run_onnxopt(exe, observed_path, os.path.join(folder, "observed_out")), observed_path

    with concurrent.futures.ThreadPoolExecutor(max_workers=max(1, args.jobs)) as pool:
        sides = list(pool.map(onnxopt_side, cases))
    onnxopt_seconds = time.time() - start
    manifest = [{"id": case.name, "model": model} for case, (_, _, model) in zip(cases, sides)]
    try:
        theirs = run_ort(args.node, manifest, work)
    except (RuntimeError, OSError) as e:
        print(f"run_differential: {e}", file=sys.stderr)
        return 2
    per_op = collections.OrderedDict()
    failed = 0
    for case, (first, ours, _) in zip(cases, sides):
        v = judge(case, first, ours, theirs[case.name])
        stats = per_op.setdefault(case.op if not case.domain else f"{case.domain}.{case.op}", [0, 0])
        stats[1] += 1
        if v.failures:
            failed += 1
            print(f"FAIL {case.name} ({case.op}, opset {case.opset}, expect {case.expect}):")
            for problem in v.failures:
                print(f"    {problem}")
        else:
            stats[0] += 1
            if args.verbose:
                print(f"ok   {case.name}")
        for note in v.notes:
            print(f"note {case.name}: {note}")
    print("per op (passed/total):")
    line = ""
    for op, (passed, total) in per_op.items():
        item = f"{op} {passed}/{total}"
        if len(line) + len(item) > 100:
            print("  " + line.rstrip(", "))
            line = ""
        line += item + ", "
    if line:
        print("  " + line.rstrip(", "))
    elapsed = time.time() - start
    print(f"{'FAILED' if failed else 'PASSED'}: {len(cases) - failed}/{len(cases)} cases passed, {len(per_op)} ops "
          f"({elapsed:.1f} s: onnxopt {onnxopt_seconds:.1f} s, onnxruntime {elapsed - onnxopt_seconds:.1f} s)")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
