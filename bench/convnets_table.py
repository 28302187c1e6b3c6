#!/usr/bin/python3
"""Node counts and onnxruntime latency of the convolution networks (issue 17, Done when 4).

    /usr/bin/python3 bench/convnets_table.py ONNXOPT_EXE [--runs 20]

For the networks of make_convnets.py (generated into a temporary directory) and the three
PP-OCR models: nodes before -> onnxopt (default patterns) -> onnxruntime 'basic' ->
onnxruntime 'extended' (tests/ort/ort_optimized_model.js), and the median latency of
onnxruntime at level 'disabled' on the original and on onnxopt's output (bench/time_ort.js,
one session each, after one warm-up run), with the symbolic input dims fixed as below.
Prints a Markdown table.
"""
import argparse
import json
import os
import subprocess
import sys
import tempfile

import onnx

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
OCR = os.path.join(ROOT, "node_modules", "@gutenye", "ocr-models", "assets")
# Static input shapes for timing (the dims of tests/corpus/CMakeLists.txt for PP-OCR).
SHAPES = {
    "ch_PP-OCRv4_det_infer": [1, 3, 64, 96],
    "ch_PP-OCRv4_rec_infer": [2, 3, 48, 160],
    "ch_ppocr_mobile_v2.0_cls_infer": [2, 3, 48, 192],
}
NET_SHAPE = [1, 3, 32, 32]


def count(path):
    return len(onnx.load(path).graph.node)


def with_static_input(path, shape, out):
    model = onnx.load(path)
    dims = model.graph.input[0].type.tensor_type.shape.dim
    for dim, value in zip(dims, shape):
        dim.Clear()
        dim.dim_value = value
    onnx.save(model, out)
    return out


def latency(path, runs):
    result = subprocess.run(["node", os.path.join(ROOT, "bench", "time_ort.js"), path, "--runs", str(runs),
                             "--threads", "1"], check=True, capture_output=True, text=True)
    return json.loads(result.stdout)["median_ms"]


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("onnxopt")
    parser.add_argument("--runs", type=int, default=20)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        nets = os.path.join(tmp, "nets")
        subprocess.run([sys.executable, os.path.join(ROOT, "bench", "make_convnets.py"), nets], check=True,
                       capture_output=True)
        models = [(name, os.path.join(nets, name + ".onnx"), NET_SHAPE)
                  for name in ["resnet", "densenet", "inception", "mobilenet", "resnet_ir3"]]
        models += [(name, os.path.join(OCR, name + ".onnx"), shape) for name, shape in SHAPES.items()]
        print("| model | nodes before | onnxopt | ORT basic | ORT extended | ORT latency original (ms) "
              "| ORT latency onnxopt (ms) |")
        print("|---|---|---|---|---|---|---|")
        for name, path, shape in models:
            ours = os.path.join(tmp, name + ".onnxopt.onnx")
            subprocess.run([args.onnxopt, "optimize", path, "-o", ours, "-q"], check=True)
            levels = {}
            for level in ["basic", "extended"]:
                out = os.path.join(tmp, f"{name}.{level}.onnx")
                subprocess.run(["node", os.path.join(ROOT, "tests", "ort", "ort_optimized_model.js"), path, out,
                                "--level", level], check=True, capture_output=True)
                levels[level] = count(out)
            before_ms = latency(with_static_input(path, shape, os.path.join(tmp, name + ".static.onnx")), args.runs)
            after_ms = latency(with_static_input(ours, shape, os.path.join(tmp, name + ".opt.static.onnx")),
                               args.runs)
            print(f"| {name} | {count(path)} | {count(ours)} | {levels['basic']} | {levels['extended']} "
                  f"| {before_ms:.3f} | {after_ms:.3f} |", flush=True)


if __name__ == "__main__":
    main()
