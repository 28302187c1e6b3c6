#!/usr/bin/env bash
# Optimizes one corpus model and proves with onnxruntime that the result computes what
# the original computes.
#
# Usage: check_cleanup_with_ort.sh ONNXOPT_EXE MODEL [--no-ort REASON] [COMPARE_ARGS...]
#   1. if the model has unseeded random operators (Dropout with training_mode, Random*),
#      a copy with seed=0 on them is used instead (onnxruntime would otherwise draw a
#      new seed per session and two runs of the *same* model would disagree);
#   2. with ONNXOPT_PATTERNS=none (the cleanup test):
#        onnxopt optimize MODEL -o TMP/out.onnx --patterns none --no-fold   (must exit 0)
#      with any other selection:
#        onnxopt optimize MODEL -o TMP/out/optimized.onnx --patterns SELECTION
#                --record TMP/out/rewrites                                  (must exit 0)
#        onnxopt replay MODEL TMP/out/rewrites -o TMP/out.onnx              (must exit 0)
#        cmp TMP/out/optimized.onnx TMP/out.onnx       (the replay is byte-identical)
#      and, the default selection keeping results (no pattern of numerical class
#      "approximate"; folding uses the evaluator's own kernels):
#        onnxopt verify MODEL TMP/out.onnx --seed 0 --atol 0 --rtol 0 [--dim/--float-range
#                of COMPARE_ARGS]                     (the outputs are equal, exit 0)
#      (without --atol 0 --rtol 0 when a pattern of class "rounding" applied: the
#      --report-json of optimize says which applied, `onnxopt patterns --json` their class)
#   3. prints node counts before and after;
#   4. node tests/ort/compare_models.js MODEL TMP/out.onnx --seed 0 [--atol 0 --rtol 0]
#      COMPARE_ARGS...
#      must exit 0: the *replayed* model is the one compared with the original. Exit 3
#      (an input type onnxruntime-node cannot feed) is a failure: such a model must be
#      registered with --no-ort.
#   With --no-ort REASON: step 4 is replaced by `onnxopt info TMP/out.onnx` (the
#   optimized model must still load) and the reason is printed.
# Environment: ONNXOPT_NODE (node executable, default: node), ONNXOPT_PYTHON (default
# /usr/bin/python3), ONNXOPT_PATTERNS (the --patterns selection, default: none).
set -euo pipefail

if (($# < 2)); then
  echo "usage: $0 ONNXOPT_EXE MODEL [--no-ort REASON] [COMPARE_ARGS...]" >&2
  exit 2
fi
exe=$1
model=$2
shift 2
no_ort=""
if [[ ${1:-} == --no-ort ]]; then
  no_ort=${2:?--no-ort needs a reason}
  shift 2
fi
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
python=${ONNXOPT_PYTHON:-/usr/bin/python3}
patterns=${ONNXOPT_PATTERNS:-none}
node=${ONNXOPT_NODE:-node}
name=$(basename "$model")

tmp=$(mktemp -d "${TMPDIR:-/tmp}/onnxopt-corpus-ort.XXXXXX")
trap 'rm -rf "$tmp"' EXIT

source_model=$model
seeded=$("$python" "$root/tests/ort/seed_random_ops.py" "$model" "$tmp/seeded.onnx")
if [[ $seeded != 0 ]]; then
  echo "note: $name has $seeded unseeded random node(s); using a copy with seed=0 on them"
  source_model=$tmp/seeded.onnx
else
  rm -f "$tmp/seeded.onnx"
fi

echo "before: $("$python" "$here/model_stats.py" "$source_model")"
mkdir "$tmp/out"
status=0
if [[ $patterns == none ]]; then
  # Cleanup passes only: no pattern, no folding (the comparison below is exact).
  "$exe" optimize "$source_model" -o "$tmp/out/out.onnx" --patterns none --no-fold || status=$?
  if ((status != 0)); then
    echo "FAIL: onnxopt optimize $name exited with $status"
    exit 1
  fi
else
  mkdir "$tmp/optimized"
  # Same file name in both folders, so that external data (if any) has the same name.
  "$exe" optimize "$source_model" -o "$tmp/optimized/out.onnx" --patterns "$patterns" \
    --record "$tmp/rewrites" --report-json "$tmp/report.json" || status=$?
  if ((status != 0)); then
    echo "FAIL: onnxopt optimize --record $name exited with $status"
    exit 1
  fi
  "$exe" replay "$source_model" "$tmp/rewrites" -o "$tmp/out/out.onnx" || status=$?
  if ((status != 0)); then
    echo "FAIL: onnxopt replay $name exited with $status"
    exit 1
  fi
  if ! cmp "$tmp/optimized/out.onnx" "$tmp/out/out.onnx"; then
    echo "FAIL: $name: the replayed model differs from the optimized one"
    exit 1
  fi
  echo "replay: identical to the optimized model ($(wc -c <"$tmp/rewrites") bytes of rewrites)"
  # The evaluator computes every float16 operation exactly as the model says (no casts of
  # its own), so equality here proves that the selection kept the results.
  verify_args=()
  for ((i = 1; i <= $#; ++i)); do
    if [[ ${!i} == --dim || ${!i} == --float-range ]]; then
      next=$((i + 1))
      verify_args+=("${!i}" "${!next}")
    fi
  done
  # Exact patterns keep every bit; a pattern of numerical class "rounding" (in the default
  # selection: float arithmetic reassociated in the same types) may change the last bits,
  # so when one applied, verify uses its default tolerances instead.
  rounding=$("$exe" patterns --json | "$python" -c '
import json, sys
classes = {p["name"]: p["numerics"] for p in json.load(sys.stdin)}
report = json.load(open(sys.argv[1]))
print(",".join(p["name"] for p in report["patterns"] if p["applied"] and classes.get(p["name"]) == "rounding"))
' "$tmp/report.json")
  verify_tolerance=(--atol 0 --rtol 0)
  if [[ -n $rounding ]]; then
    echo "note: rounding patterns applied ($rounding): onnxopt verify uses its default tolerances"
    verify_tolerance=()
  fi
  "$exe" verify "$source_model" "$tmp/out/out.onnx" --seed 0 "${verify_tolerance[@]}" "${verify_args[@]}" || status=$?
  if ((status != 0)); then
    echo "FAIL: $name: onnxopt verify finds that --patterns $patterns changed the outputs (exit $status)"
    exit 1
  fi
fi
echo "after:  $("$python" "$here/model_stats.py" "$tmp/out/out.onnx")"

if [[ -n $no_ort ]]; then
  echo "onnxruntime comparison skipped for $name: $no_ort"
  status=0
  "$exe" info "$tmp/out/out.onnx" >"$tmp/info.txt" 2>&1 || status=$?
  if ((status != 0)); then
    cat "$tmp/info.txt"
    echo "FAIL: onnxopt info cannot load the optimized $name (exit $status)"
    exit 1
  fi
  echo "PASS: optimized $name loads (onnxopt info)"
  exit 0
fi

status=0
# Cleanup passes only remove nodes and initializers and redirect uses: the arithmetic is
# unchanged, so the comparison is exact (--atol 0 --rtol 0; onnxruntime runs with one
# thread, hence deterministically). Other selections fold constants with onnxopt's own
# kernels, whose float results may differ from onnxruntime's in the last bits: they use
# the harness's default tolerances. Per-model arguments come after and can relax either.
tolerance=(--atol 0 --rtol 0)
[[ $patterns == none ]] || tolerance=()
"$node" "$root/tests/ort/compare_models.js" "$source_model" "$tmp/out/out.onnx" --seed 0 "${tolerance[@]}" "$@" || status=$?
case $status in
  0) echo "PASS: $name: onnxruntime finds the optimized model equivalent" ;;
  1) echo "FAIL: $name: the optimized model is not equivalent"; exit 1 ;;
  3) echo "FAIL: $name: onnxruntime-node cannot feed this model's input types; register it with --no-ort and a reason"; exit 1 ;;
  *) echo "FAIL: $name: the comparison could not run (exit $status)"; exit 1 ;;
esac
