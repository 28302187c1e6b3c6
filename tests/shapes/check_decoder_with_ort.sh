#!/usr/bin/env bash
# Generates a synthetic decoder (bench/make_decoder.py, symbolic batch and seq) and checks
# onnxopt's shapes on it with check_shapes_with_ort.js at batch=2,seq=5 and batch=3,seq=7.
# Usage: check_decoder_with_ort.sh ONNXOPT_EXE [LAYERS]
# Environment: ONNXOPT_NODE (default node), ONNXOPT_PYTHON (default /usr/bin/python3).
set -euo pipefail
exe=${1:?usage: $0 ONNXOPT_EXE [LAYERS]}
layers=${2:-2}
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
python=${ONNXOPT_PYTHON:-/usr/bin/python3}
node=${ONNXOPT_NODE:-node}
tmp=$(mktemp -d "${TMPDIR:-/tmp}/onnxopt-decoder.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
model=$tmp/decoder_$layers.onnx
echo "decoder: $("$python" "$root/bench/make_decoder.py" --layers "$layers" "$model") nodes, $layers layer(s)"
"$node" "$here/check_shapes_with_ort.js" "$model" --onnxopt "$exe" \
  --setting batch=2,seq=5 --setting batch=3,seq=7
