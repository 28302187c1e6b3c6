#!/usr/bin/python3
"""Mutation fuzzing of `onnxopt optimize` on the graphs of the pattern tests.

The graphs the pattern and transpose tests rewrite (exported with ONNXOPT_EXPORT_REWRITES,
see tests/onnx_extensions/patterns/pattern_test_util.cc) are built to make a pattern fire.
Each mutant changes one to three facts of such a graph: a dim of an input (a symbol, a
small or a huge value), the element type of an input, an element of an initializer (an
edge value of its type: 0, -1, 2^62, INT64_MAX...; NaN, an infinity or -0 for floats; all
elements one constant), an integer or float attribute (moved by one or two, or an edge
value; or dropped), an input of a node (another value of the graph, or none), the operator
of a node (a sibling that takes the same inputs: Add for Mul, ReduceMax for ReduceSum,
Unsqueeze for Squeeze...) or the opset the model imports (patterns and shape rules that
depend on it: attributes that became inputs, broadcasting before opset 7...); two inputs of a
node change places, an initializer keeps its elements in other dims (a per-channel
constant [C,1,1] becomes [1,1,C] or [C]: broadcasting), an intermediate value becomes a
graph output too (a pattern must keep what it would remove), an initializer becomes a graph
input as well (a default the caller may override: not a constant), or a node is duplicated
and one reader of its output reads the copy (duplicate removal meets the patterns). Most
mutants are invalid and must be refused with a clear error; the others must be optimized
into a model that computes the same. Each runs

    onnxopt optimize MUTANT -o OUT --check 2 -q      (under a time limit)

and any exit but 0 (optimized, outputs checked) or 2 (refused: invalid model) is a
finding: 3 an internal error, 5 outputs that differ, a timeout, a crash; so is an exit 0
whose warning says a rewrite was refused (a pattern built a node the model cannot hold,
which the driver kept out of the output). Outputs that
differ are judged again with the exact patterns only (`onnxopt patterns`, numerics
"exact"): when those agree, the difference is rounding that the default set's "rounding"
rewrites (a BatchNormalization folded into a Conv, a sum reordered) change and the graph
amplifies (values that grow through 80 layers, a Reciprocal near 0); it is counted as
"rounding amplified", not a finding. Findings are copied with onnxopt's output into
--findings. The graph fuzzer (fuzz/graph_fuzzer.cc) draws graphs from the operator
schemas, where patterns rarely fire; these start where they do.

Usage:
  mutate_pattern_graphs.py --onnxopt build/onnxopt (--cases DIR | --export TEST_EXE... | --models DIR)
      [--seed 1] [--per-case 5] [--jobs 2] [--timeout 30] [--findings DIR] [--limit N] [--again]
      [--ort]

--again optimizes every optimized mutant a second time and lists those where that run still
rewrites something ("ok, not stable"): the first run stopped short of its fixed point.

--ort judges every optimized model in onnxruntime as well (tests/ort/compare_models.js, two
sets of random inputs, the original against the optimized model): --check runs both with
our evaluator, which also computed the folded constants, so a misreading of an operator
there agrees with itself. "onnxruntime: outputs differ" is a finding, judged again with the
exact patterns as above ("rounding amplified in onnxruntime" when those agree), and so is an
optimized model that onnxruntime cannot load or run; a model whose original onnxruntime
cannot run (or runs differently in two sessions) or whose inputs onnxruntime-node cannot
exchange is counted, not judged. onnxruntime's CPU provider computes some float16 operators
in float32 with casts placed by the graph's shape, so float16 findings need `onnxopt verify`
too before they are called defects. Differences seen on graph_fuzzer's models that are not
defects, where onnxruntime departs from the spec: its ReduceMin and LogSoftmax pass over a
NaN; PRelu(inf, inf), Gelu(-inf) and ReduceLogSumExp of two infinities give NaN; an integer
ReduceMin or ReduceMax of no element gives 0 (the spec: the type's largest or smallest
value); Shrink of an unsigned integer and ReduceLogSumExp of one compute in float32 or in
the integer type itself (2^32 - 1 becomes 2^32, out of range); Hardmax passes over a NaN
(the reference's argmax picks it); Unique takes a NaN for any value it meets first; Sign of
an int64 from 2^31 on gives -1 (truncated to 32 bits); a ReduceMin of an empty tensor keeps
the reduced axis's length with keepdims; Det of float32 overflows where the double the
evaluator uses does not (a matrix holding 65504: inf, the determinant 0.124). Values the
spec leaves undefined (a float out of an integer type's range) are not folded
(eval/undefined_results.h).

--cases: folders of exported cases (before.onnx in each); --export: run these test
executables with ONNXOPT_EXPORT_REWRITES first; --models: the .onnx files of a folder, judged
as they are, not mutated (graph_fuzzer's models: GRAPH_FUZZER_EXPORT, with --ort).
Deterministic for a seed. Exit 0 without finding, 1 with one, 2 on a usage error. (Debian's
/usr/bin/python3 with python3-onnx.)
"""
import argparse
import concurrent.futures
import os
import random
import shutil
import subprocess
import sys
import tempfile

import numpy as np
import onnx
import onnx.shape_inference
from onnx import AttributeProto, numpy_helper

INT64_MIN, INT64_MAX = -(2**63), 2**63 - 1
# No value between 3 and 2^31: an Expand to 100 000 copies is allowed and only makes --check
# evaluate for half a minute (a FunctionAttentionPattern mutant, seed 312: 16M elements
# through MatMul and Softmax); 2^31 and above meet the size limits at once.
EDGE_INTS = [-2, -1, 0, 1, 2, 3, 2**31, 2**62, -(2**62), INT64_MAX, INT64_MIN]
EDGE_FLOATS = [float("nan"), float("inf"), float("-inf"), -0.0]
DIM_VALUES = [0, 1, 2, 3, 5, 2**40]  # larger real dims only make --check slow
SYMBOLS = ["N", "M", "S"]
# float, float16, double, int64, int32, bool, uint8, bfloat16
ELEMENT_TYPES = [1, 10, 11, 7, 6, 9, 2, 16]
# Default-domain operators that take the same inputs as the others of their group.
SIBLING_OPS = [
    ["Add", "Sub", "Mul", "Div", "Pow", "Max", "Min", "Mod"],
    ["Equal", "Less", "Greater", "LessOrEqual", "GreaterOrEqual"],
    ["And", "Or", "Xor"],
    ["Relu", "Neg", "Abs", "Sigmoid", "Tanh", "Exp", "Log", "Sqrt", "Reciprocal", "Identity", "Floor", "Erf", "Not"],
    ["ReduceSum", "ReduceMean", "ReduceMax", "ReduceMin", "ReduceProd", "ReduceL2", "ReduceSumSquare"],
    ["Squeeze", "Unsqueeze"],
    ["Reshape", "Expand"],
    ["ArgMax", "ArgMin"],
    ["MaxPool", "AveragePool", "LpPool"],
    ["Softmax", "LogSoftmax", "Hardmax"],
    ["MatMul", "Add"],
    ["Shape", "Size"],
]
OPSETS = [6, 7, 9, 11, 12, 13, 15, 17, 18, 19, 21, 23]


def clamp64(value):
    return max(INT64_MIN, min(INT64_MAX, value))


# Each mutation: what it picks one of in a model, and how it changes the one picked in the
# model's graph (the changes that find nothing to change in it leave the graph as it is).

def change_dim(tensor_input, graph, rng):
    dim = rng.choice(list(tensor_input.type.tensor_type.shape.dim))
    dim.Clear()
    if rng.random() < 0.3:
        dim.dim_param = rng.choice(SYMBOLS)
    else:
        dim.dim_value = rng.choice(DIM_VALUES)


def change_initializer(tensor, graph, rng):
    try:
        values = numpy_helper.to_array(tensor).copy()
    except Exception:  # a type numpy does not hold (bfloat16, float8...)
        return
    flat = values.reshape(-1)
    if flat.size == 0:
        return
    if values.dtype.kind in "iu":
        info = np.iinfo(values.dtype)
        flat[rng.randrange(flat.size)] = rng.choice([v for v in EDGE_INTS if info.min <= v <= info.max])
    elif values.dtype.kind == "f":
        choice = rng.random()
        if choice < 0.3:
            flat[:] = rng.choice([0.0, 1.0, -1.0, 2.0])
        elif choice < 0.6:
            flat[rng.randrange(flat.size)] = rng.choice(EDGE_FLOATS)
        else:
            flat[rng.randrange(flat.size)] = rng.uniform(-3, 3)
    elif values.dtype.kind == "b":
        flat[rng.randrange(flat.size)] ^= True
    else:
        return
    tensor.CopyFrom(numpy_helper.from_array(values, tensor.name))


def change_attribute(attribute, graph, rng):
    if attribute.type == AttributeProto.INT:
        attribute.i = clamp64(attribute.i + rng.choice([-2, -1, 1, 2])) if rng.random() < 0.6 else rng.choice(EDGE_INTS)
    elif attribute.type == AttributeProto.FLOAT:
        attribute.f = rng.choice([0.0, 1.0, -1.0, 2 * attribute.f])
    elif attribute.ints:
        ints = list(attribute.ints)
        if rng.random() < 0.4:
            rng.shuffle(ints)
        else:
            k = rng.randrange(len(ints))
            ints[k] = clamp64(ints[k] + rng.choice([-1, 1])) if rng.random() < 0.7 else rng.choice(EDGE_INTS)
        attribute.ints[:] = ints


def tensor_inputs(graph):
    return [i for i in graph.input if i.type.HasField("tensor_type")]


def give_input_type(elem_type, graph, rng):
    rng.choice(tensor_inputs(graph)).type.tensor_type.elem_type = elem_type


def change_node_input(node, graph, rng):
    """The node reads another value of the graph, or leaves an input empty."""
    values = [i.name for i in graph.input] + [t.name for t in graph.initializer] + [o for n in graph.node for o in n.output]
    node.input[rng.randrange(len(node.input))] = rng.choice(["", rng.choice(values)])


def drop_attribute(node, graph, rng):
    del node.attribute[rng.randrange(len(node.attribute))]


def swap_inputs(node, graph, rng):
    i, j = rng.sample(range(len(node.input)), 2)
    node.input[i], node.input[j] = node.input[j], node.input[i]


def reshape_initializer(tensor, graph, rng):
    """The same elements in other dims: 1s moved, added or dropped, or the dims reversed."""
    dims = list(tensor.dims)
    choice = rng.random()
    if choice < 0.3:
        dims = [d for d in dims if d != 1] or [1]
    elif choice < 0.6:
        dims.insert(rng.randrange(len(dims) + 1), 1)
    else:
        dims.reverse()
    tensor.dims[:] = dims


def expose_value(node, graph, rng):
    """An output of `node` becomes a graph output as well, typed as onnx's shape inference
    typed it before the mutations (mutants() leaves those types out of the mutant)."""
    name = rng.choice([o for o in node.output if o])
    if any(o.name == name for o in graph.output):
        return
    typed = {v.name: v for v in graph.value_info}
    output = graph.output.add()
    if name in typed:
        output.CopyFrom(typed[name])
    else:  # the element type of the node's first input, rank unknown
        output.name = name
        source = {v.name: v for v in list(graph.input) + list(graph.output)}.get(node.input[0] if node.input else "")
        output.type.tensor_type.elem_type = source.type.tensor_type.elem_type if source else 1


def overridable_initializer(tensor, graph, rng):
    if any(i.name == tensor.name for i in graph.input):
        return
    graph.input.append(onnx.helper.make_tensor_value_info(tensor.name, tensor.data_type, list(tensor.dims)))


def duplicate_node(node, graph, rng):
    copy = onnx.NodeProto()
    copy.CopyFrom(node)
    copy.name = (node.name or node.op_type) + "_copy"
    copy.output[:] = [o + "_copy" if o else "" for o in node.output]
    readers = [(n, k) for n in graph.node for k, i in enumerate(n.input) if i and i in node.output]
    if not readers:
        return
    reader, k = rng.choice(readers)
    reader.input[k] += "_copy"
    # Before its first reader: the nodes stay in a topological order.
    graph.node.insert(list(graph.node).index(node) + 1, copy)


def siblings(node):
    if node.domain not in ("", "ai.onnx"):
        return []
    return next(([op for op in group if op != node.op_type] for group in SIBLING_OPS if node.op_type in group), [])


def change_op_type(node, graph, rng):
    node.op_type = rng.choice(siblings(node))


def change_opset(opset_import, graph, rng):
    opset_import.version = rng.choice([v for v in OPSETS if v != opset_import.version])


MUTATIONS = [
    (lambda m: [i for i in m.graph.input if i.type.HasField("tensor_type") and i.type.tensor_type.shape.dim],
     change_dim),
    (lambda m: list(m.graph.initializer), change_initializer),
    (lambda m: [a for n in m.graph.node for a in n.attribute
                if a.type in (AttributeProto.INT, AttributeProto.INTS, AttributeProto.FLOAT)], change_attribute),
    # The type is picked first, then the input that gets it.
    (lambda m: ELEMENT_TYPES if tensor_inputs(m.graph) else [], give_input_type),
    (lambda m: [n for n in m.graph.node if n.input], change_node_input),
    (lambda m: [n for n in m.graph.node if n.attribute], drop_attribute),
    (lambda m: [n for n in m.graph.node if siblings(n)], change_op_type),
    (lambda m: [o for o in m.opset_import if o.domain in ("", "ai.onnx")], change_opset),
    (lambda m: [n for n in m.graph.node if len(n.input) >= 2], swap_inputs),
    (lambda m: [t for t in m.graph.initializer if len(t.dims) >= 1], reshape_initializer),
    (lambda m: [n for n in m.graph.node[:-1] if any(n.output)], expose_value),
    (lambda m: list(m.graph.initializer) if m.ir_version >= 4 else [], overridable_initializer),
    (lambda m: [n for n in m.graph.node if any(n.output) and not any(a.type in (AttributeProto.GRAPH, AttributeProto.GRAPHS) for a in n.attribute)], duplicate_node),
]


def mutate(model, rng):
    candidates, change = rng.choice(MUTATIONS)
    picked = candidates(model)
    if picked:
        change(rng.choice(picked), model.graph, rng)


def mutants(model, rng, count):
    """`count` mutants of `model` (serialized), each with one to three mutations."""
    typed = model
    try:  # types of the intermediate values, for those that become graph outputs
        typed = onnx.shape_inference.infer_shapes(model)
    except Exception:
        pass
    made = []
    for _ in range(count):
        mutant = onnx.ModelProto()
        mutant.CopyFrom(typed)
        for _ in range(rng.choice([1, 1, 2, 3])):
            mutate(mutant, rng)
        mutant.graph.ClearField("value_info")
        mutant.graph.value_info.extend(model.graph.value_info)
        made.append(mutant.SerializeToString())
    return made


def exact_patterns(onnxopt):
    """The selection of the registered patterns whose numerics are "exact"; None when
    `onnxopt patterns` fails (differences are then not judged again)."""
    done = subprocess.run([onnxopt, "patterns"], capture_output=True, text=True)
    if done.returncode != 0:
        return None
    rows = [line.split() for line in done.stdout.splitlines()[1:]]
    return "none," + ",".join("+" + row[0] for row in rows if len(row) > 2 and row[2] == "exact")


ORT_TOOLS = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "tests", "ort")
COMPARE_IN_ORT = os.path.join(ORT_TOOLS, "compare_models.js")
SEED_RANDOM_OPS = os.path.join(ORT_TOOLS, "seed_random_ops.py")


def run(onnxopt, path, timeout, exact=None, again=False, ort=False):
    """(outcome, onnxopt's output): outcome "ok", "refused", "rounding amplified", "ok, not
    stable" (with `again`), what onnxruntime made of it (with `ort`) or what the finding
    is. `exact`: the selection that judges a difference again."""
    outcome, text = optimize(onnxopt, path, timeout, [], again, ort)
    if outcome in ("outputs differ", "onnxruntime: outputs differ") and exact:
        judged, _ = optimize(onnxopt, path, timeout, ["--patterns", exact], ort=ort)
        if judged.startswith("ok"):
            return "rounding amplified" + (" in onnxruntime" if outcome.startswith("onnxruntime") else ""), text
    return outcome, text


def judge_in_onnxruntime(original, optimized, timeout):
    """The outcome of comparing the two models in onnxruntime, with its output. A difference
    or a failure counts only when onnxruntime runs the original consistently."""
    def compare(candidate, reference=original):
        try:
            done = subprocess.run(["node", COMPARE_IN_ORT, reference, candidate, "--runs", "2"], capture_output=True,
                                  text=True, errors="replace", timeout=timeout)
        except subprocess.TimeoutExpired:
            return f"onnxruntime: timeout ({timeout} s)", ""
        outcome = {0: "ok", 1: "onnxruntime: outputs differ", 2: "onnxruntime: a model fails to load or run",
                   3: "ok, a type onnxruntime-node cannot exchange"}.get(done.returncode,
                                                                         f"onnxruntime: exit {done.returncode}")
        return outcome, done.stdout + done.stderr

    outcome, text = compare(optimized)
    if outcome == "onnxruntime: outputs differ" and seeded(original) and seeded(optimized):
        # Unseeded random operators draw from the clock: judged again with a seed on each.
        outcome, text = compare(optimized + ".seeded.onnx", original + ".seeded.onnx")
    if outcome.startswith("onnxruntime") and compare(original)[0] != "ok":
        # It refuses the original, gives other values in each session (a Cast from int64 to
        # float16 with saturate=3) or dies running it (a signal: a ScatterND, a
        # ReduceLogSumExp with keepdims INT64_MIN): not the optimized model's doing.
        return "ok, onnxruntime cannot run the original consistently", text
    return outcome, text


def seeded(path):
    """Writes path + ".seeded.onnx", its random operators given a seed; whether it had one
    to seed (tests/ort/seed_random_ops.py prints how many)."""
    done = subprocess.run([sys.executable, SEED_RANDOM_OPS, path, path + ".seeded.onnx"], capture_output=True,
                          text=True)
    return done.returncode == 0 and done.stdout.strip() not in ("", "0")


def optimize(onnxopt, path, timeout, options, again=False, ort=False):
    """With `again`, an optimized model is optimized a second time: when that run still
    rewrites something, the outcome is "ok, not stable" and the text says what (the first
    run stopped short of its fixed point: not a wrong result, a missed one). With `ort`, an
    optimized model is also judged in onnxruntime."""
    output = path + ".out.onnx"
    second = path + ".again.onnx"
    try:
        done = subprocess.run([onnxopt, "optimize", path, "-o", output, "--check", "2", "-q"] + options,
                              capture_output=True, text=True, errors="replace", timeout=timeout)
        if again and done.returncode == 0:
            rerun = subprocess.run([onnxopt, "optimize", output, "-o", second], capture_output=True, text=True,
                                   errors="replace", timeout=timeout)
            summary = [line for line in rerun.stdout.splitlines() if line.startswith("iterations: ")]
            if rerun.returncode == 0 and summary and "rewrites: 0" not in summary[0]:
                return "ok, not stable", summary[0]
        if ort and done.returncode == 0 and "rewrite(s) refused" not in done.stderr:
            return judge_in_onnxruntime(path, output, timeout)
    except subprocess.TimeoutExpired:
        return f"timeout ({timeout} s)", ""
    finally:
        for leftover in (output, output + ".data", second, second + ".data", output + ".seeded.onnx",
                         path + ".seeded.onnx"):
            if os.path.exists(leftover):
                os.remove(leftover)
    text = done.stdout + done.stderr
    if done.returncode == 0 and "rewrite(s) refused" in done.stderr:
        return "rewrite refused", text
    if done.returncode == 0:
        return "ok", text
    if done.returncode == 2:
        return "refused", text
    if done.returncode == 3:
        return "internal error", text
    if done.returncode == 5:
        return "outputs differ", text
    if done.returncode < 0:
        return f"killed by signal {-done.returncode}", text
    return f"exit {done.returncode}", text


def export(executables, folder):
    for exe in executables:
        env = dict(os.environ, ONNXOPT_EXPORT_REWRITES=folder)
        done = subprocess.run([exe, "--gtest_brief=1"], env=env, capture_output=True, text=True)
        if done.returncode != 0:
            sys.exit(f"mutate_pattern_graphs: {exe} failed:\n{done.stdout[-2000:]}{done.stderr[-2000:]}")


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--onnxopt", required=True)
    source = parser.add_mutually_exclusive_group(required=True)
    source.add_argument("--cases")
    source.add_argument("--export", nargs="+", metavar="TEST_EXE")
    source.add_argument("--models", help="a folder of .onnx files, optimized as they are (no mutant)")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--per-case", type=int, default=5)
    parser.add_argument("--limit", type=int, default=0, help="at most this many mutants (0: no limit)")
    parser.add_argument("--jobs", type=int, default=2)
    parser.add_argument("--timeout", type=float, default=30)
    parser.add_argument("--findings", help="where findings are copied (default: only reported)")
    parser.add_argument("--ort", action="store_true",
                        help="judge every optimized mutant in onnxruntime as well (node, onnxruntime-node)")
    parser.add_argument("--again", action="store_true",
                        help="optimize each optimized mutant again and report those where that run rewrites "
                        "something (\"ok, not stable\": copied to --findings/unstable, not a finding)")
    args = parser.parse_args()

    work = tempfile.mkdtemp(prefix="onnxopt-mutants.")
    try:
        if args.models:
            names = sorted(n for n in os.listdir(args.models) if n.endswith(".onnx"))
            paths = []
            for name in names:
                paths.append(os.path.join(work, name))
                shutil.copy(os.path.join(args.models, name), paths[-1])
            return judge(args, paths, f"{len(paths)} models of {args.models}")
        cases = args.cases
        if args.export:
            cases = os.path.join(work, "cases")
            export(args.export, cases)
        names = sorted(n for n in os.listdir(cases) if os.path.exists(os.path.join(cases, n, "before.onnx")))
        if not names:
            sys.exit(f"mutate_pattern_graphs: no before.onnx under {cases}")
        rng = random.Random(args.seed)
        paths = []
        for name in names:
            model = onnx.load(os.path.join(cases, name, "before.onnx"))
            for k, data in enumerate(mutants(model, rng, args.per_case)):
                path = os.path.join(work, f"{name}.m{k}.onnx")
                with open(path, "wb") as out:
                    out.write(data)
                paths.append(path)
        if args.limit:
            paths = rng.sample(paths, min(args.limit, len(paths)))
        return judge(args, paths, f"{len(paths)} mutants of {len(names)} graphs (seed {args.seed})")
    finally:
        shutil.rmtree(work)


def judge(args, paths, what):
    """Optimizes (and checks) every model of `paths`, prints the findings and a summary
    that starts with `what`; 1 when there is a finding."""
    outcomes = {}
    findings = []
    unstable = []
    exact = exact_patterns(args.onnxopt)
    with concurrent.futures.ThreadPoolExecutor(max_workers=args.jobs) as pool:
        results = pool.map(lambda p: run(args.onnxopt, p, args.timeout, exact, args.again, args.ort), paths)
        for path, (outcome, text) in zip(paths, results):
            outcomes[outcome] = outcomes.get(outcome, 0) + 1
            if outcome == "ok, not stable":
                unstable.append((path, text))
            elif not outcome.startswith(("ok", "refused", "rounding amplified")):
                findings.append((path, outcome, text))
    for path, text in unstable:
        print(f"NOT STABLE: {os.path.basename(path)}: a second run: {text}")
        if args.findings:
            folder = os.path.join(args.findings, "unstable")
            os.makedirs(folder, exist_ok=True)
            shutil.copy(path, folder)
    for path, outcome, text in findings:
        print(f"FINDING {outcome}: {os.path.basename(path)}")
        for line in text.strip().splitlines()[:6]:
            print(f"        {line}")
        if args.findings:
            os.makedirs(args.findings, exist_ok=True)
            shutil.copy(path, args.findings)
            with open(os.path.join(args.findings, os.path.basename(path) + ".txt"), "w") as out:
                out.write(f"{outcome}\n{text}")
    summary = ", ".join(f"{n} {outcome}" for outcome, n in sorted(outcomes.items(), key=lambda kv: -kv[1]))
    print(f"{what}: {summary}")
    return 1 if findings else 0


if __name__ == "__main__":
    sys.exit(main())
