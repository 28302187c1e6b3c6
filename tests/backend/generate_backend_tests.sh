#!/usr/bin/env bash
# Generates the ONNX backend node tests (model.onnx + test_data_set_N/{input,output}_*.pb
# per test) from Debian's python3-onnx into OUTPUT_DIR, once: when OUTPUT_DIR/.complete
# exists, nothing is done. The generation writes into a temporary folder renamed at the
# end, so an interrupted run leaves no half-generated tree.
#
# Usage: generate_backend_tests.sh OUTPUT_DIR
# Environment: ONNXOPT_PYTHON (default /usr/bin/python3).
set -euo pipefail
if (($# != 1)); then
  echo "usage: $0 OUTPUT_DIR" >&2
  exit 2
fi
out=$1
python=${ONNXOPT_PYTHON:-/usr/bin/python3}
here=$(cd "$(dirname "$0")" && pwd)
if [[ -f $out/.complete ]]; then
  exit 0
fi
parent=$(dirname "$out")
mkdir -p "$parent"
tmp=$(mktemp -d "$parent/.backend-data.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
"$python" "$here/generate_backend_data.py" generate-data -o "$tmp" >"$tmp.log" 2>&1 || {
  cat "$tmp.log" >&2
  rm -f "$tmp.log"
  exit 1
}
rm -f "$tmp.log"
count=$(find "$tmp/node" -name model.onnx | wc -l)
echo "$count node tests generated" >"$tmp/.complete"
rm -rf "$out"
mv "$tmp" "$out"
trap - EXIT
echo "generated $count node tests in $out"
