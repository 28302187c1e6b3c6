#!/usr/bin/env bash
# Copy elimination updates its analysis of the graph after each copy it removes instead of
# building it again (MemoryGraph::UpdateAfterCopyRemoval). On one model, in both visit
# orders, `onnxopt memory MODEL --json -o OUT`:
#   - with ONNXOPT_CHECK_INCREMENTAL=1 (each update compared with a rebuild; an internal
#     error, exit 3, on any difference) must exit 0, and
#   - must print the same plan and save the same model, byte for byte, as with
#     ONNXOPT_INCREMENTAL=0 (the analysis built again after each removal), but for the
#     work spent ("work_steps": the rebuilds an update avoids are not the pass's work).
#
# Usage: check_memory_incremental.sh ONNXOPT_EXE MODEL
set -euo pipefail
onnxopt=$1
model=$2
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
# Verdicts of one kind in a plan (grep fails when there is none).
count() { { grep -o "\"verdict\":\"$1\"" "$2" || true; } | wc -l; }

for order in reverse topological; do
  ONNXOPT_CHECK_INCREMENTAL=1 "$onnxopt" memory "$model" --json --visit-order "$order" \
    -o "$tmp/updated.onnx" > "$tmp/updated.json"
  ONNXOPT_INCREMENTAL=0 "$onnxopt" memory "$model" --json --visit-order "$order" \
    -o "$tmp/rebuilt.onnx" > "$tmp/rebuilt.json"
  for plan in updated rebuilt; do
    sed -E 's/"work_steps":[0-9]+,//' "$tmp/$plan.json" > "$tmp/$plan.plan"
    grep -q '"work_limited":false' "$tmp/$plan.json"
  done
  cmp "$tmp/updated.plan" "$tmp/rebuilt.plan"
  cmp "$tmp/updated.onnx" "$tmp/rebuilt.onnx"
  deleted=$(count DELETED "$tmp/updated.json")
  elided=$(count ELIDED "$tmp/updated.json")
  echo "$(basename "$model") ($order): $deleted copies deleted, $elided elided; same plan and model"
done
