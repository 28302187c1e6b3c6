#!/usr/bin/env bash
# Every rewrite the C++ tests check with the evaluator (ExpectSameOutputs: the pattern, fusion,
# transpose and memory tests), judged again by onnxruntime: runs each test executable with
# ONNXOPT_EXPORT_REWRITES, then tests/ort/compare_rewrites.js on what they exported: on the
# tests' inputs, then on the same with NaN and infinities (known differences with their
# reasons in non_finite_differences.txt).
#
# Usage: tests/ort/pattern_rewrites_vs_ort.sh TEST_EXECUTABLE...
# Environment: ONNXOPT_NODE (default node); onnxruntime-node in the project's node_modules.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
if (($# == 0)); then
  echo "usage: $0 TEST_EXECUTABLE..." >&2
  exit 2
fi
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
status=0
echo "== on the tests' inputs"
"${ONNXOPT_NODE:-node}" "$here/compare_rewrites.js" "$cases" || status=1
# The default patterns keep NaN and infinities where they were: the same inputs with every
# third float element NaN, an infinity or a zero.
echo "== with NaN and infinities in the inputs"
"${ONNXOPT_NODE:-node}" "$here/compare_rewrites.js" "$cases" --non-finite --allow "$here/non_finite_differences.txt" ||
  status=1
exit $status
