#!/bin/sh
# T60 benchmark: matching time of the declarative CastCast, TransposeTranspose and
# MatMulAdd rules against the hand-written patterns, on 64- and 400-layer decoders.
#   bench/declarative_bench.sh [BUILD_DIR] [REPS]
set -e
build=${1:-build}
reps=${2:-5}
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
for layers in 64 400; do
  /usr/bin/python3 "$(dirname "$0")/make_decoder.py" --layers "$layers" "$dir/decoder$layers.onnx" >/dev/null
done
"$build/bench/declarative_bench" --reps "$reps" "$dir/decoder64.onnx" "$dir/decoder400.onnx"
