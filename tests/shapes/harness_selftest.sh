#!/usr/bin/env bash
# Self-test of check_shapes_with_ort.js, without onnxopt: the claims come from
# make_fake_shapes.py (onnx's own shape inference in onnxopt's JSON format), first as
# they are (the checker must pass), then with one corruption each (it must fail, and name
# the corrupted value). Models: a corpus model with a symbolic `batch` dim and a
# 2-layer synthetic decoder (bench/make_decoder.py, symbolic `batch` and `seq`), the
# decoder also with the values fetched through probes (--chunk-mb 0).
#
# With OPSET17_MODEL, the same for check_shapes_with_onnx.py on that model (opset <= 17):
# the uncorrupted claims agree with onnx, every corruption is a disagreement.
#
# Usage: harness_selftest.sh CORPUS_DIR [OPSET17_MODEL]
# Environment: ONNXOPT_NODE (default node), ONNXOPT_PYTHON (default /usr/bin/python3).
set -euo pipefail
corpus=${1:?usage: $0 CORPUS_DIR [OPSET17_MODEL]}
opset17_model=${2:-}
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
python=${ONNXOPT_PYTHON:-/usr/bin/python3}
node=${ONNXOPT_NODE:-node}
tmp=$(mktemp -d "${TMPDIR:-/tmp}/onnxopt-shapes-selftest.XXXXXX")
trap 'rm -rf "$tmp"' EXIT

# The evaluator of onnxopt's dim expressions agrees with Python on random expressions.
"$node" "$here/sym_expr_selftest.js"

"$python" "$root/bench/make_decoder.py" --layers 2 "$tmp/decoder.onnx" >/dev/null
failures=0
check() {  # MODEL KIND EXPECTED_EXIT SETTINGS...
  local model=$1 kind=$2 expected=$3
  shift 3
  local target status=0
  target=$("$python" "$here/make_fake_shapes.py" "$model" "$tmp/fake.json" --corrupt "$kind")
  "$node" "$here/check_shapes_with_ort.js" "$model" --shapes-json "$tmp/fake.json" "$@" >"$tmp/out.txt" 2>&1 || status=$?
  local ok=1
  [[ $status == "$expected" ]] || ok=0
  # --chunk-mb 0 puts every value in a chunk of its own: the run must go through probes.
  if [[ " $* " == *" --chunk-mb 0 "* ]] && ! grep -q "fetched through probes" "$tmp/out.txt"; then
    ok=0
  fi
  # the corrupted value must be named: "MISMATCH NAME[axis]: ..." or "MISSING NAME: ..."
  if [[ $expected == 1 ]] && ! awk '$1 == "MISMATCH" || $1 == "MISSING" { sub(/[\[:].*/, "", $2); print $2 }' "$tmp/out.txt" |
      grep -Fx -- "$target" >/dev/null; then
    ok=0
  fi
  if ((ok)); then
    echo "ok: $(basename "$model") corruption '$kind' -> exit $status ${target:+(value $target)}"
  else
    echo "FAIL: $(basename "$model") corruption '$kind': exit $status, expected $expected ${target:+naming $target}"
    cat "$tmp/out.txt"
    failures=$((failures + 1))
  fi
}
for spec in "$corpus/llama_export_dynamic.onnx|--setting batch=2 --setting batch=3" \
            "$tmp/decoder.onnx|--setting batch=2,seq=5 --setting batch=3,seq=7" \
            "$tmp/decoder.onnx|--setting batch=2,seq=5 --setting batch=3,seq=7 --chunk-mb 0"; do
  model=${spec%%|*}
  read -r -a settings <<<"${spec#*|}"
  check "$model" none 0 "${settings[@]}"
  check "$model" expr 0 "${settings[@]}"
  for kind in dim symbol rank elem_type missing fresh; do
    check "$model" "$kind" 1 "${settings[@]}"
  done
done
if [[ -n $opset17_model ]]; then
  for kind in none dim symbol rank elem_type; do
    "$python" "$here/make_fake_shapes.py" "$opset17_model" "$tmp/fake.json" --corrupt "$kind" >/dev/null
    status=0
    "$python" "$here/check_shapes_with_onnx.py" "$opset17_model" --shapes-json "$tmp/fake.json" >"$tmp/out.txt" 2>&1 || status=$?
    expected=1
    [[ $kind == none ]] && expected=0
    if [[ $status == "$expected" ]]; then
      echo "ok: check_shapes_with_onnx.py $(basename "$opset17_model") corruption '$kind' -> exit $status"
    else
      echo "FAIL: check_shapes_with_onnx.py $(basename "$opset17_model") corruption '$kind': exit $status, expected $expected"
      cat "$tmp/out.txt"
      failures=$((failures + 1))
    fi
  done
fi
if ((failures)); then
  echo "FAIL: $failures self-test case(s)"
  exit 1
fi
echo "PASS: the shape checkers catch every corruption"
