#!/bin/sh
# No valid model refused: `onnxopt optimize` (load with the graph and signature checks,
# shape inference with the type constraints and operator rules, folding, the default
# patterns) must succeed on every model given, and `onnxopt verify` must then load the
# result (the optimized model is checked again).
#   check_models_accepted.sh ONNXOPT LABEL MODEL...
# Prints the refused models with onnxopt's message and "LABEL: N of M models accepted";
# exit 1 when one is refused.
set -u
onnxopt=$1
label=$2
shift 2
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
total=0
accepted=0
for model in "$@"; do
  total=$((total + 1))
  if "$onnxopt" optimize "$model" -o "$tmp/out.onnx" -q >"$tmp/log" 2>&1 &&
     "$onnxopt" info "$tmp/out.onnx" >>"$tmp/log" 2>&1; then
    accepted=$((accepted + 1))
  else
    echo "REFUSED $model:"
    sed 's/^/  /' "$tmp/log" | head -5
  fi
  rm -f "$tmp/out.onnx" "$tmp/out.onnx.data"
done
echo "$label: $accepted of $total models accepted"
[ "$accepted" -eq "$total" ]
