#!/usr/bin/env bash
# No valid model refused (check_models_accepted.sh) on generated models:
#   check_generated_models_accepted.sh ONNXOPT decoders
#       the synthetic decoders of bench/ (bench/make_decoder.py: 1, 8 and 64 layers, and
#       2 layers with the weights as graph inputs)
#   check_generated_models_accepted.sh ONNXOPT backend DATA_DIR
#       every ONNX backend node test model, generated into DATA_DIR when missing
#       (tests/backend/generate_backend_tests.sh)
# Environment: ONNXOPT_PYTHON (default /usr/bin/python3).
set -euo pipefail
exe=${1:?usage: $0 ONNXOPT_EXE decoders|backend [DATA_DIR]}
kind=${2:?usage: $0 ONNXOPT_EXE decoders|backend [DATA_DIR]}
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
python=${ONNXOPT_PYTHON:-/usr/bin/python3}
case $kind in
  decoders)
    tmp=$(mktemp -d "${TMPDIR:-/tmp}/onnxopt-decoders.XXXXXX")
    trap 'rm -rf "$tmp"' EXIT
    for layers in 1 8 64; do
      "$python" "$root/bench/make_decoder.py" --layers "$layers" "$tmp/decoder_$layers.onnx" >/dev/null
    done
    "$python" "$root/bench/make_decoder.py" --layers 2 --weights-as-inputs "$tmp/decoder_2_inputs.onnx" >/dev/null
    "$here/check_models_accepted.sh" "$exe" decoders "$tmp"/*.onnx
    ;;
  backend)
    data=${3:?usage: $0 ONNXOPT_EXE backend DATA_DIR}
    "$root/tests/backend/generate_backend_tests.sh" "$data"
    "$here/check_models_accepted.sh" "$exe" backend "$data"/node/*/model.onnx
    ;;
  *)
    echo "unknown kind '$kind'" >&2
    exit 2
    ;;
esac
