#!/usr/bin/env bash
# MatMul / Conv throughput: onnxopt's evaluator vs onnxruntime (issue 4, "Done when" 4).
#
# Usage: bench/kernels_vs_ort.sh [ONNXOPT]
#   ONNXOPT: the onnxopt executable (default: build/onnxopt)
# Environment: ONNXOPT_PYTHON (default /usr/bin/python3, needs onnx + numpy),
#   BENCH_DIR (where the models go; default a temporary folder, removed at the end),
#   BENCH_ONLY (comma-separated case names of bench/make_kernel_models.py),
#   BENCH_REPEAT (extra node copies R in the K-node models; default per case),
#   BENCH_OO_RUNS (onnxopt runs per model, median taken; default 3),
#   BENCH_ORT_RUNS (timed onnxruntime runs after a warm-up, median taken; default 5).
#
# Models: bench/make_kernel_models.py, one MatMul or Conv node (NAME.onnx) and the same
# node K = R+1 times reading the same input and weight (NAME_xK.onnx).
# onnxopt: `onnxopt run MODEL --random-inputs --seed 0 -q` is timed as a whole process
#   (wall clock, median of BENCH_OO_RUNS, the two models alternated); the time of one
#   node is (t(NAME_xK) - t(NAME)) / R, which removes process start, model loading and
#   input drawing. The evaluator is single-threaded.
# onnxruntime (node_modules/onnxruntime-node, bench/time_ort.js): session.run on NAME.onnx
#   is timed in-process, median of BENCH_ORT_RUNS after a warm-up, graph optimizations
#   disabled, with intraOpNumThreads 1 and with the default (one thread per core).
# Prints a markdown table: GFLOP/s = 2 * multiply-adds / time; ratio = onnxopt GFLOP/s /
# onnxruntime 1-thread GFLOP/s (< 1: onnxopt is slower).
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/.." && pwd)
exe=${1:-$root/build/onnxopt}
python=${ONNXOPT_PYTHON:-/usr/bin/python3}
oo_runs=${BENCH_OO_RUNS:-3}
ort_runs=${BENCH_ORT_RUNS:-5}
if [[ ! -x $exe ]]; then
  echo "no onnxopt executable at $exe (cmake --build build --target onnxopt)" >&2
  exit 2
fi
if [[ -n ${BENCH_DIR:-} ]]; then
  dir=$BENCH_DIR
  mkdir -p "$dir"
else
  dir=$(mktemp -d "${TMPDIR:-/tmp}/onnxopt-kbench.XXXXXX")
  trap 'rm -rf "$dir"' EXIT
fi
gen_args=("$dir")
[[ -n ${BENCH_ONLY:-} ]] && gen_args+=(--only "$BENCH_ONLY")
[[ -n ${BENCH_REPEAT:-} ]] && gen_args+=(--repeat "$BENCH_REPEAT")
"$python" "$here/make_kernel_models.py" "${gen_args[@]}" >"$dir/cases.tsv"

# Wall time in ms of one `onnxopt run`.
time_onnxopt() {
  local t0 t1
  t0=$(date +%s%N)
  "$exe" run "$1" --random-inputs --seed 0 -q
  t1=$(date +%s%N)
  echo $(((t1 - t0) / 1000))
}
median() { sort -g | awk '{v[NR]=$1} END {print (NR%2 ? v[(NR+1)/2] : (v[NR/2]+v[NR/2+1])/2)}'; }
json_median() { sed -n 's/.*"median_ms":\([0-9.e+-]*\).*/\1/p'; }

echo "| case | GFLOP / node | onnxopt ms | onnxopt GFLOP/s | ORT 1 thread ms | ORT 1 thread GFLOP/s | ORT default ms | ORT default GFLOP/s | onnxopt / ORT 1 thread |"
echo "|---|---:|---:|---:|---:|---:|---:|---:|---:|"
while IFS=$'\t' read -r name flops k; do
  one=$dir/$name.onnx
  many=$dir/${name}_x$k.onnx
  : >"$dir/t1" && : >"$dir/tk"
  for ((i = 0; i < oo_runs; i++)); do
    time_onnxopt "$one" >>"$dir/t1"
    time_onnxopt "$many" >>"$dir/tk"
  done
  t1_us=$(median <"$dir/t1")
  tk_us=$(median <"$dir/tk")
  ort1=$(node "$here/time_ort.js" "$one" --threads 1 --runs "$ort_runs" | json_median)
  ortd=$(node "$here/time_ort.js" "$one" --threads 0 --runs "$ort_runs" | json_median)
  awk -v n="$name" -v f="$flops" -v k="$k" -v t1="$t1_us" -v tk="$tk_us" -v o1="$ort1" -v od="$ortd" 'BEGIN {
    oo = (tk - t1) / (k - 1) / 1000  # ms per node
    g = f / 1e9
    if (oo > 0) { ooms = sprintf("%.3f", oo); oog = sprintf("%.1f", g / (oo / 1000)) }
    else { ooms = "n/a (noise)"; oog = "n/a" }
    g1 = g / (o1 / 1000); gd = g / (od / 1000)
    ratio = (oo > 0) ? sprintf("%.2f", (g / (oo / 1000)) / g1) : "n/a"
    printf "| %s | %.3f | %s | %s | %.3f | %.1f | %.3f | %.1f | %s |\n", n, g, ooms, oog, o1, g1, od, gd, ratio
  }'
  echo "$name t1_us=$t1_us tk_us=$tk_us k=$k runs1=$(tr '\n' ' ' <"$dir/t1") runsk=$(tr '\n' ' ' <"$dir/tk")" >>"$dir/raw.txt"
done <"$dir/cases.tsv"
if [[ -n ${BENCH_VERBOSE:-} ]]; then
  echo
  echo "raw onnxopt process times (us):"
  cat "$dir/raw.txt"
fi
