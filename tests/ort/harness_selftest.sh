#!/usr/bin/env bash
# Shows that tests/ort/compare_models.js passes on equivalent models and fails on
# non-equivalent ones, with the documented exit codes:
#   0 equivalent, 1 mismatch, 2 usage/load error, 3 unsupported input type.
# Usage: tests/ort/harness_selftest.sh [CORPUS_DIR]     (needs node, onnxruntime-node in
# node_modules, /usr/bin/python3 with python3-onnx)
set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
corpus=${1:-$root/../shared/corpus}
python=${ONNXOPT_PYTHON:-/usr/bin/python3}
compare=("${ONNXOPT_NODE:-node}" "$here/compare_models.js")

tmp=$(mktemp -d "${TMPDIR:-/tmp}/onnxopt-harness-selftest.XXXXXX")
trap 'rm -rf "$tmp"' EXIT

failures=0
# expect CODE DESCRIPTION ARGS... : runs the harness and checks its exit code.
expect() {
  local want=$1 what=$2
  shift 2
  local got=0
  "${compare[@]}" "$@" >"$tmp/out.txt" 2>&1 || got=$?
  if [[ $got -eq $want ]]; then
    echo "PASS  $what (exit $got)"
  else
    echo "FAIL  $what: expected exit $want, got $got"
    sed 's/^/      | /' "$tmp/out.txt"
    failures=$((failures + 1))
  fi
}
# expect_output PATTERN DESCRIPTION : the last harness output contains PATTERN.
expect_output() {
  if grep -q -- "$1" "$tmp/out.txt"; then
    echo "PASS  $2"
  else
    echo "FAIL  $2: output lacks '$1'"
    sed 's/^/      | /' "$tmp/out.txt"
    failures=$((failures + 1))
  fi
}

"$python" "$here/make_selftest_models.py" "$tmp/m"
m=$tmp/m

expect 0 "a model equals itself" "$m/ref.onnx" "$m/ref.onnx"
expect 0 "a model equals itself over 3 seeds" "$m/ref.onnx" "$m/ref.onnx" --runs 3 --seed 7
expect 1 "Add replaced by Sub is a mismatch" "$m/ref.onnx" "$m/sub.onnx"
expect_output "MISMATCH z " "the mismatching output is named"
expect 0 "a 1e-7 difference is within tolerance" "$m/ref.onnx" "$m/eps_small.onnx"
expect 1 "a 1e-2 difference is outside the default tolerance" "$m/ref.onnx" "$m/eps_large.onnx"
expect 0 "a 1e-2 difference is inside --atol 0.05" "$m/ref.onnx" "$m/eps_large.onnx" --atol 0.05
expect 1 "a finite output does not match +inf" "$m/ref.onnx" "$m/eps_inf.onnx"
expect 1 "+inf does not match a finite output" "$m/eps_inf.onnx" "$m/ref.onnx"
expect 1 "+inf does not match -inf" "$m/eps_inf.onnx" "$m/eps_minus_inf.onnx"
expect 0 "+inf matches +inf" "$m/eps_inf.onnx" "$m/eps_inf.onnx"
expect 1 "different output names are a mismatch" "$m/ref.onnx" "$m/renamed.onnx"
expect_output "outputs only in model A: z" "the missing output is named"
expect 0 "a symbolic dim shared by two inputs gets one value (--dim batch=3)" "$m/ref.onnx" "$m/ref.onnx" --dim batch=3 --json
expect_output '"symbols":{"batch":3}' "--dim sets the symbol"
expect_output '"shape":\[3,4\]' "the output has the requested batch"
expect 0 "float16 outputs are judged with float16 tolerances by default" "$m/half_ref.onnx" "$m/half_near.onnx"
expect 1 "the same difference fails float32's tolerances when they are asked for" "$m/half_ref.onnx" "$m/half_near.onnx" \
  --atol 1e-4 --rtol 1e-3
expect 1 "a float16 difference beyond float16's tolerances is a mismatch" "$m/half_ref.onnx" "$m/half_far.onnx"
expect 3 "a bfloat16 input is reported as unsupported" "$m/bf16.onnx" "$m/bf16.onnx"
expect_output "unsupported input type" "the unsupported type is explained"
expect 2 "a missing model is a load error" "$m/ref.onnx" "$m/does_not_exist.onnx"
expect_output "does_not_exist.onnx" "the load error names the model"
expect 2 "a corrupt model is a load error" "$m/broken.onnx" "$m/ref.onnx"
expect_output "broken.onnx" "the load error names the corrupt model"
expect 2 "one model only is a usage error" "$m/ref.onnx"
expect 2 "an unknown option is a usage error" "$m/ref.onnx" "$m/ref.onnx" --bogus
expect 2 "a malformed --dim is a usage error" "$m/ref.onnx" "$m/ref.onnx" --dim batch

# Real models: one with a symbolic batch and com.microsoft ops, one with float16 inputs.
dyn=$corpus/llama_export_dynamic.onnx
if [[ -f $dyn ]]; then
  expect 0 "corpus llama_export_dynamic equals itself" "$dyn" "$dyn"
  "$python" "$here/alter_model.py" "$dyn" "$tmp/dyn_altered.onnx" Add Sub >/dev/null
  expect 1 "corpus llama_export_dynamic with one Add turned into Sub is a mismatch" "$dyn" "$tmp/dyn_altered.onnx"
else
  echo "FAIL  corpus model $dyn not found"
  failures=$((failures + 1))
fi
fp16=$corpus/dort-pres-plug_1.onnx
if [[ -f $fp16 ]]; then
  expect 0 "corpus dort-pres-plug_1 (float16 inputs) equals itself" "$fp16" "$fp16" --float-range 0.1
  "$python" "$here/alter_model.py" "$fp16" "$tmp/fp16_altered.onnx" Mul Add >/dev/null
  expect 1 "corpus dort-pres-plug_1 with one Mul turned into Add is a mismatch" "$fp16" "$tmp/fp16_altered.onnx" --float-range 0.1
else
  echo "FAIL  corpus model $fp16 not found"
  failures=$((failures + 1))
fi

if ((failures)); then
  echo "harness_selftest: $failures check(s) failed"
  exit 1
fi
echo "harness_selftest: all checks passed"
