#!/usr/bin/env bash
# The demo behind `make demo`: build a small LLaMA-style layer, optimize it, and check
# with onnxruntime that the optimized model computes the same outputs.
#
# usage: examples/demo/run_demo.sh [ONNXOPT_EXE]
set -euo pipefail
cd "$(dirname "$0")/../.."
exe=${1:-build/onnxopt}
work=build/demo
mkdir -p "$work"

echo "== demo model: a LLaMA-style decoder layer written the way exporters write it"
/usr/bin/python3 examples/demo/make_demo_model.py "$work/tiny_llama.onnx"
"$exe" info "$work/tiny_llama.onnx"

echo
echo "== onnxopt optimize (the default patterns, constant folding and cleanup)"
"$exe" optimize "$work/tiny_llama.onnx" -o "$work/tiny_llama.opt.onnx" --record "$work/tiny_llama.rewrites"

echo
echo "== onnxopt replay: the recorded rewrites give the same model again, without matching"
"$exe" replay "$work/tiny_llama.onnx" "$work/tiny_llama.rewrites" -o "$work/tiny_llama.replayed.onnx" -q
cmp "$work/tiny_llama.opt.onnx" "$work/tiny_llama.replayed.onnx" && echo "replayed model: identical bytes"

echo
echo "== onnxopt verify: onnxopt's evaluator on the same random inputs"
"$exe" verify "$work/tiny_llama.onnx" "$work/tiny_llama.opt.onnx" --dim batch=2 --dim seq=7

echo
echo "== onnxruntime: original and optimized models on the same random inputs"
if [[ -d node_modules/onnxruntime-node ]]; then
  node tests/ort/compare_models.js "$work/tiny_llama.onnx" "$work/tiny_llama.opt.onnx" --dim batch=2 --dim seq=7
else
  echo "onnxruntime-node is not installed (scripts/install-deps.sh installs it): check skipped"
fi
