#!/bin/sh
# Writes the crafted models of validity_cases.cc and checks what onnxruntime-node does with
# each (check_refusals_with_ort.js).
#   check_refusals_with_ort.sh VALIDITY_CASES_DUMP [NODE]
set -eu
dump=$1
node=${2:-node}
here=$(cd "$(dirname "$0")" && pwd)
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
"$dump" "$dir"
"$node" "$here/check_refusals_with_ort.js" "$dir"
