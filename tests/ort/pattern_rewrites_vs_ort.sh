#!/usr/bin/env bash
# Every rewrite the C++ tests check with the evaluator (ExpectSameOutputs: the pattern and
# transpose tests), judged again by onnxruntime: runs each test executable with
# ONNXOPT_EXPORT_REWRITES, then tests/ort/compare_rewrites.js on what they exported: on the
# tests' inputs, then on the same with NaN and infinities (known differences with their
# reasons in non_finite_differences.txt). Then the same graphs through `onnxopt optimize`
# with the default selection: every pattern, pass, folding and cleanup at once, where the
# tests apply one pattern (patterns meet there: one match may remove what another reads).
#
# Usage: tests/ort/pattern_rewrites_vs_ort.sh ONNXOPT TEST_EXECUTABLE...
# Environment: ONNXOPT_NODE (default node); onnxruntime-node in the project's node_modules.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
if (($# < 2)); then
  echo "usage: $0 ONNXOPT TEST_EXECUTABLE..." >&2
  exit 2
fi
onnxopt=$1
shift
node=${ONNXOPT_NODE:-node}
tmp=$(mktemp -d "${TMPDIR:-/tmp}/onnxopt-rewrites-vs-ort.XXXXXX")
trap 'rm -rf "$tmp"' EXIT

cases=$tmp/cases
mkdir -p "$cases"
for exe in "$@"; do
  before=$(find "$cases" -mindepth 1 -maxdepth 1 | wc -l)
  if ! ONNXOPT_EXPORT_REWRITES=$cases "$exe" --gtest_brief=1 >"$tmp/log" 2>&1; then
    echo "FAILED  $(basename "$exe") (its own tests fail; see its ctest entries)"
    tail -n 20 "$tmp/log"
    exit 1
  fi
  exported=$(($(find "$cases" -mindepth 1 -maxdepth 1 | wc -l) - before))
  echo "$(basename "$exe"): $exported rewrites exported"
  # Each executable given compares outputs somewhere: none exported means the hook broke.
  if ((exported == 0)); then
    echo "FAILED  $(basename "$exe") exported nothing"
    exit 1
  fi
done

# judge FOLDER: both passes of compare_rewrites.js; 1 when one fails.
judge() {
  local status=0
  echo "== on the tests' inputs"
  "$node" "$here/compare_rewrites.js" "$1" || status=1
  # The default patterns keep NaN and infinities where they were: the same inputs with
  # every third float element NaN, an infinity or a zero.
  echo "== with NaN and infinities in the inputs"
  "$node" "$here/compare_rewrites.js" "$1" --non-finite --allow "$here/non_finite_differences.txt" || status=1
  return $status
}

status=0
echo "==== each test's pattern alone"
judge "$cases" || status=1

echo "==== the default optimization of the graphs before"
default=$tmp/default
mkdir -p "$default"
refused=0
for dir in "$cases"/*/; do
  name=$(basename "$dir")
  out=$default/$name
  mkdir -p "$out"
  cp "$dir"/*.bin "$dir/before.onnx" "$out/"
  # The default selection holds no approximate pattern: every case is judged.
  sed 's/"numerics":"[a-z]*"/"numerics":"rounding"/' "$dir/case.json" >"$out/case.json"
  code=0
  "$onnxopt" optimize "$out/before.onnx" -o "$out/after.onnx" -q >"$tmp/log" 2>&1 || code=$?
  if ((code == 2)); then  # a graph onnxopt refuses as invalid (onnxruntime refuses it too)
    echo "refused by onnxopt: $name: $(head -c 200 "$tmp/log")"
    refused=$((refused + 1))
    rm -rf "$out"
  elif ((code != 0)); then
    echo "FAILED  onnxopt optimize $name (exit $code):"
    sed 's/^/        /' "$tmp/log"
    status=1
    rm -rf "$out"
  fi
done
echo "onnxopt refused $refused graph(s) as invalid"
judge "$default" || status=1
exit $status
