#!/usr/bin/env bash
# Pattern-optimizer benchmark (issue 5): one Optimize iteration with no match, the
# default Optimize and Replay, as ratios to load+save of the same model in the same run.
#
# Usage: bench/run_optimizer_bench.sh [BUILD_DIR]
#   BUILD_DIR: CMake build folder (default: build). Configured if it has no CMakeCache.txt
#   (Ninja when available; CMAKE_BUILD_TYPE from BENCH_BUILD_TYPE, default Release at -O2:
#   GCC 12 at -O3 reports false -Wrestrict/-Wstringop-overflow errors in this tree), then
#   only the optimizer_bench target is built, with BENCH_JOBS jobs (default 2).
# Environment: BENCH_LAYERS (default "40 400": ~10k and ~100k nodes), BENCH_REPS
# (repetitions per model, default 5), ONNXOPT_PYTHON (default /usr/bin/python3),
# BENCH_DIR (where the models go; default a temporary folder, removed at exit),
# BENCH_ARGS (more optimizer_bench options, e.g. --cleanup-breakdown).
#
# Generates LLaMA-style decoders with bench/make_decoder.py (254 nodes a layer, weights
# as initializers), runs optimizer_bench on all of them and prints its tables (median
# of BENCH_REPS repetitions; every phase of a repetition runs back to back).
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/.." && pwd)
build=${1:-$root/build}
python=${ONNXOPT_PYTHON:-/usr/bin/python3}
layers=${BENCH_LAYERS:-40 400}
reps=${BENCH_REPS:-5}
jobs=${BENCH_JOBS:-2}

if [[ ! -f $build/CMakeCache.txt ]]; then
  generator=()
  command -v ninja >/dev/null && generator=(-G Ninja)
  cmake -S "$root" -B "$build" "${generator[@]}" -DCMAKE_BUILD_TYPE="${BENCH_BUILD_TYPE:-Release}" \
    "-DCMAKE_CXX_FLAGS_RELEASE=-O2 -DNDEBUG" >/dev/null
fi
cmake --build "$build" -j"$jobs" --target optimizer_bench >/dev/null
exe=$build/bench/optimizer_bench

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
echo "# $(date -u '+%Y-%m-%d %H:%M UTC') $(nproc) cpus, $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2- | sed 's/^ *//')," \
  "build type $(sed -n 's/^CMAKE_BUILD_TYPE:STRING=//p' "$build/CMakeCache.txt"), sources at" \
  "$(git -C "$root" rev-parse --short HEAD 2>/dev/null || echo '?')$(git -C "$root" diff --quiet HEAD 2>/dev/null || echo '+changes')"
# shellcheck disable=SC2086
"$exe" --reps "$reps" ${BENCH_ARGS:-} "${models[@]}"
