#!/usr/bin/env bash
# The transpose optimizer against onnxruntime's own on channels-last CNNs written the way
# converters write them (bench/transpose_models.py: resnet, unet, inception, chain,
# ladder). For each model: onnxopt's pass must leave at most as many Transposes as
# onnxruntime's 'basic' optimized model (tests/ort/ort_optimized_model.js), and the
# optimized model must compute what the original computes (tests/ort/compare_models.js).
#
# Usage: tests/ort/transpose_cnn_vs_ort.sh ONNXOPT
#   ONNXOPT  the onnxopt executable: each model is optimized with
#            `onnxopt optimize --patterns transpose --record`, and `onnxopt replay` must give
#            the same file
# Needs node with onnxruntime-node, /usr/bin/python3 with python3-onnx.
set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
onnxopt=${1:?usage: transpose_cnn_vs_ort.sh ONNXOPT}
python=${ONNXOPT_PYTHON:-/usr/bin/python3}
node=${ONNXOPT_NODE:-node}

tmp=$(mktemp -d "${TMPDIR:-/tmp}/onnxopt-transpose-ort.XXXXXX")
trap 'rm -rf "$tmp"' EXIT

count_transposes() {
  "$python" -c 'import onnx, sys; print(sum(n.op_type == "Transpose" for n in onnx.load(sys.argv[1]).graph.node))' "$1"
}

failures=0
for spec in resnet:3 unet:0 inception:0 chain:200 ladder:120; do
  kind=${spec%%:*}
  size=${spec##*:}
  model=$tmp/$kind.onnx
  "$python" "$root/bench/transpose_models.py" "$kind" "$model" --size "$size" >/dev/null
  "$onnxopt" optimize "$model" -o "$tmp/$kind.onnxopt.onnx" --patterns transpose --record "$tmp/$kind.rec" >/dev/null
  "$onnxopt" replay "$model" "$tmp/$kind.rec" -o "$tmp/$kind.replay.onnx" >/dev/null
  "$node" "$here/ort_optimized_model.js" "$model" "$tmp/$kind.ort.onnx" --level basic
  before=$(count_transposes "$model")
  ours=$(count_transposes "$tmp/$kind.onnxopt.onnx")
  theirs=$(count_transposes "$tmp/$kind.ort.onnx")
  verdict=PASS
  if ! cmp -s "$tmp/$kind.onnxopt.onnx" "$tmp/$kind.replay.onnx"; then
    echo "      | replay does not reproduce the optimized model"
    verdict=FAIL
    failures=$((failures + 1))
  fi
  if [[ $ours -gt $theirs ]]; then
    verdict=FAIL
    failures=$((failures + 1))
  fi
  if ! "$node" "$here/compare_models.js" "$model" "$tmp/$kind.onnxopt.onnx" >"$tmp/$kind.compare.txt" 2>&1; then
    verdict=FAIL
    failures=$((failures + 1))
    sed 's/^/      | /' "$tmp/$kind.compare.txt"
  fi
  echo "$verdict  $kind: Transposes $before -> onnxopt $ours, onnxruntime basic $theirs"
done
if [[ $failures -gt 0 ]]; then
  echo "$failures failure(s)"
  exit 1
fi
