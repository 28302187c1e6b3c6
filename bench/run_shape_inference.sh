#!/usr/bin/env bash
# Shape-inference scaling benchmark (issue 3, "Done when" 4).
#
# Usage: bench/run_shape_inference.sh [BENCH_EXE]
#   BENCH_EXE: shape_inference_bench (default: build/bench/shape_inference_bench)
# Environment: BENCH_LAYERS (default "40 400": ~10k and ~100k nodes), BENCH_MIN_TIME
# (Google Benchmark --benchmark_min_time, default 2 seconds), ONNXOPT_PYTHON
# (default /usr/bin/python3), BENCH_DIR (where the models go; default a temporary folder).
#
# Generates LLaMA-style decoders with bench/make_decoder.py (254 nodes a layer), times
# core::shapes::InferGraph and GraphBuilder::InferShapes on each (model loading not
# timed), prints ms, ns per node, and the growth ratio
#   ratio = (time_large / time_small) / (nodes_large / nodes_small)
# which is ~1 for linear growth (> 1.5 would mean super-linear).
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/.." && pwd)
exe=${1:-$root/build/bench/shape_inference_bench}
python=${ONNXOPT_PYTHON:-/usr/bin/python3}
layers=${BENCH_LAYERS:-40 400}
min_time=${BENCH_MIN_TIME:-2}
if [[ ! -x $exe ]]; then
  echo "no benchmark executable at $exe (cmake --build build --target shape_inference_bench)" >&2
  exit 2
fi
if [[ -n ${BENCH_DIR:-} ]]; then
  dir=$BENCH_DIR
  mkdir -p "$dir"
else
  dir=$(mktemp -d "${TMPDIR:-/tmp}/onnxopt-bench.XXXXXX")
  trap 'rm -rf "$dir"' EXIT
fi
models=()
for l in $layers; do
  m=$dir/decoder_$l.onnx
  [[ -f $m ]] || "$python" "$here/make_decoder.py" --layers "$l" "$m" >/dev/null
  models+=("$m")
done
# Google Benchmark 1.7 takes --benchmark_min_time as a number of seconds.
"$exe" --benchmark_min_time="$min_time" --benchmark_format=json --benchmark_out="$dir/result.json" \
  --benchmark_out_format=json "${models[@]}" >/dev/null
"$python" - "$dir/result.json" <<'PY'
import json, sys
res = json.load(open(sys.argv[1]))
ctx = res["context"]
print(f"# {ctx.get('date')} host={ctx.get('host_name')} cpus={ctx.get('num_cpus')} "
      f"mhz={ctx.get('mhz_per_cpu')} libbenchmark={ctx.get('library_build_type')}")
rows = {}
print(f"{'benchmark':58} {'nodes':>8} {'iters':>6} {'ms':>10} {'ns/node':>9}")
for b in res["benchmarks"]:
    if b.get("run_type") == "aggregate":
        continue
    name = b["name"].removesuffix("/real_time")
    kind, model = name.split("/", 1)
    ms = b["real_time"] if b["time_unit"] == "ms" else b["real_time"] / 1e6
    nodes = b["nodes"]
    rows.setdefault(kind, []).append((nodes, ms))
    print(f"{name:58} {int(nodes):8d} {b['iterations']:6d} {ms:10.2f} {ms * 1e6 / nodes:9.0f}")
for kind, pts in rows.items():
    pts.sort()
    if len(pts) >= 2:
        (n0, t0), (n1, t1) = pts[0], pts[-1]
        ratio = (t1 / t0) / (n1 / n0)
        verdict = "linear" if ratio < 1.5 else "SUPER-LINEAR"
        print(f"{kind}: {int(n0)} -> {int(n1)} nodes ({n1 / n0:.1f}x), time {t0:.2f} -> {t1:.2f} ms "
              f"({t1 / t0:.1f}x): ratio {ratio:.2f} ({verdict})")
PY
