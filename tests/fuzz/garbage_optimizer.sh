#!/bin/sh
# Stands in for onnxopt in the self-test of mutate_pattern_graphs.py --ort: "optimizes" a
# model into a file no runtime can load, and says it checked it (exit 0), so that only
# onnxruntime can tell. Any other command fails.
if [ "$1" = optimize ] && [ "$3" = -o ]; then
  echo "not a model" > "$4"
  exit 0
fi
exit 1
