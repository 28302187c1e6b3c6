#!/usr/bin/env bash
# Benchmark of the transpose optimizer: converter-style chains and residual ladders
# (bench/transpose_models.py) of 1k, 10k and 100k ops, the pass run alone by
# bench/transpose_tool. Prints, per model, the pass time, load+save time, their ratio,
# and the growth of the pass time per x10 ops.
#
# Usage: bench/transpose_bench.sh [BUILD_DIR] [REPEATS]   (default build, 3: the best time
#        of REPEATS runs is kept). TRANSPOSE_TOOL=path runs another transpose_tool binary
#        (e.g. a copy built from an older commit, to compare before/after in one session).
set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
build=${1:-$here/../build}
repeats=${2:-3}
python=${ONNXOPT_PYTHON:-/usr/bin/python3}
tool=${TRANSPOSE_TOOL:-$build/bench/transpose_tool}

tmp=$(mktemp -d "${TMPDIR:-/tmp}/onnxopt-transpose-bench.XXXXXX")
trap 'rm -rf "$tmp"' EXIT

printf '%-8s %8s %8s %10s %10s %10s %8s %8s\n' kind ops nodes pass_s load_s save_s ratio x10
for kind in chain ladder; do
  previous=""
  for size in 1000 10000 100000; do
    model=$tmp/$kind-$size.onnx
    "$python" "$here/transpose_models.py" "$kind" "$model" --size "$size" >/dev/null
    best=""
    for _ in $(seq "$repeats"); do
      line=$("$tool" "$model" "$tmp/out.onnx")
      best=$("$python" -c '
import json, sys
new = json.loads(sys.argv[1])
old = json.loads(sys.argv[2]) if sys.argv[2] else None
print(json.dumps(new if old is None or new["pass"] < old["pass"] else old))' "$line" "$best")
    done
    "$python" -c '
import json, sys
r = json.loads(sys.argv[1])
prev = float(sys.argv[4]) if sys.argv[4] else None
io = r["load"] + r["save"]
growth = "%.1f" % (r["pass"] / prev) if prev else "-"
print("%-8s %8d %8d %10.4f %10.4f %10.4f %8.3f %8s" % (sys.argv[2], int(sys.argv[3]), r["nodes"], r["pass"], r["load"], r["save"], r["pass"] / io, growth))' \
      "$best" "$kind" "$size" "$previous"
    previous=$("$python" -c 'import json, sys; print(json.loads(sys.argv[1])["pass"])' "$best")
  done
done
