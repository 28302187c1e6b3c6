#!/usr/bin/env bash
# Checks onnxopt's default optimization of one convolution network against onnxruntime:
#   1. onnxopt optimize MODEL -o TMP/onnxopt.onnx --record TMP/r           (must exit 0),
#      and onnxopt replay MODEL TMP/r gives the same bytes (IR-3 models included: replay
#      makes their initializer inputs constant as optimize did)
#   2. node tests/ort/ort_optimized_model.js MODEL TMP/ort.onnx --level basic
#   3. onnxopt's node count <= onnxruntime 'basic' node count, and the quantized
#      constants stay quantized: as many DequantizeLinear nodes read an initializer as in
#      MODEL (folding one would store its weights in float), and no Transpose, Reshape,
#      Flatten, Squeeze or Unsqueeze reads such a DequantizeLinear (the integers are stored
#      in the layout their reader wants: DequantizeLinearTransposePattern,
#      DequantizeLinearReshapePattern)
#   4. node tests/ort/compare_models.js MODEL TMP/onnxopt.onnx --seed 0
#        --atol 1e-4 --rtol 1e-3 COMPARE_ARGS...                         (must exit 0)
# Tolerances: folding BatchNormalization, Mul and Add into convolution weights rounds the
# weights once and changes the order of the roundings of every output element; on the
# generated networks and the PP-OCR cls and rec models the largest difference measured
# (seed 0) is 4.8e-7. atol 1e-4 + rtol 1e-3 (the harness's float32 defaults) leaves room
# for other seeds without hiding a wrong channel or a dropped bias, which change outputs by
# 1e-2 or more on these networks. A model may pass a tighter --atol (PP-OCR det does).
#
# Usage: check_convnet.sh ONNXOPT_EXE MODEL [COMPARE_ARGS...]
# Environment: ONNXOPT_NODE (node executable, default: node), ONNXOPT_PYTHON (default
# /usr/bin/python3).
set -euo pipefail

if (($# < 2)); then
  echo "usage: $0 ONNXOPT_EXE MODEL [COMPARE_ARGS...]" >&2
  exit 2
fi
exe=$1
model=$2
shift 2
root=$(cd "$(dirname "$0")/../.." && pwd)
python=${ONNXOPT_PYTHON:-/usr/bin/python3}
node=${ONNXOPT_NODE:-node}

tmp=$(mktemp -d "${TMPDIR:-/tmp}/onnxopt-convnet.XXXXXX")
trap 'rm -rf "$tmp"' EXIT

"$exe" optimize "$model" -o "$tmp/onnxopt.onnx" --record "$tmp/rewrites" -q
"$exe" replay "$model" "$tmp/rewrites" -o "$tmp/replayed.onnx" -q
if ! cmp -s "$tmp/onnxopt.onnx" "$tmp/replayed.onnx"; then
  echo "FAIL: replay does not reproduce the optimized model" >&2
  exit 1
fi
"$node" "$root/tests/ort/ort_optimized_model.js" "$model" "$tmp/ort.onnx" --level basic >/dev/null

# "NODES QUANTIZED RELAID" of each model given, one line each: its node count, how many
# DequantizeLinear nodes read an initializer, and how many layout nodes read one of those
# (one Python start for all of them).
counts() {
  "$python" -c 'import onnx, sys
layout = {"Transpose", "Reshape", "Flatten", "Squeeze", "Unsqueeze"}
for path in sys.argv[1:]:
    graph = onnx.load(path).graph
    constants = {i.name for i in graph.initializer}
    weights = {n.output[0] for n in graph.node if n.op_type == "DequantizeLinear" and n.input[0] in constants}
    relaid = sum(n.op_type in layout and n.input[0] in weights for n in graph.node)
    print(len(graph.node), len(weights), relaid)' "$@"
}
counted=$(counts "$model" "$tmp/onnxopt.onnx" "$tmp/ort.onnx")
{
  read -r before quantized_before _
  read -r ours quantized_after relaid_after
  read -r theirs _ _
} <<<"$counted"
echo "$(basename "$model"): nodes $before -> onnxopt $ours, onnxruntime basic $theirs"
if ((ours > theirs)); then
  echo "FAIL: onnxopt leaves more nodes than onnxruntime 'basic'" >&2
  exit 1
fi
if ((quantized_after < quantized_before)); then
  echo "FAIL: $quantized_before DequantizeLinear nodes read an initializer, $quantized_after after onnxopt" >&2
  exit 1
fi
if ((relaid_after > 0)); then
  echo "FAIL: after onnxopt $relaid_after Transpose, Reshape, Flatten, Squeeze or Unsqueeze nodes read a quantized weight" >&2
  exit 1
fi
"$node" "$root/tests/ort/compare_models.js" "$model" "$tmp/onnxopt.onnx" --seed 0 --atol 1e-4 --rtol 1e-3 "$@"
