#!/usr/bin/env bash
# Installs everything onnxopt needs to build, test and run its demo, idempotently:
# Debian packages (only those missing; apt-get needs root) and the npm test oracle
# (onnxruntime-node, pinned by package-lock.json).
set -euo pipefail
cd "$(dirname "$0")/.."

debian_packages=(
  build-essential cmake ninja-build ccache pkg-config
  libonnx-dev libprotobuf-dev protobuf-compiler
  libgtest-dev libgmock-dev libbenchmark-dev
  libre2-dev
  libmimalloc-dev  # the allocator of the executables (CMakeLists.txt, ONNXOPT_ALLOCATOR)
  pybind11-dev python3-dev python3-onnx python3-numpy python3-pytest
  libjpeg62-turbo-dev libpng-dev
  clang-14 libclang-rt-14-dev
  lld  # links the test executables ~3x faster than GNU ld (CMakeLists.txt, ONNXOPT_USE_LLD)
  nodejs npm time
  chromium  # renders the HTML report of `onnxopt optimize --report-html` in a test
)

missing=()
for package in "${debian_packages[@]}"; do
  dpkg-query -W -f='${Status}' "$package" 2>/dev/null | grep -q "install ok installed" || missing+=("$package")
done
# nodejs/npm may come from elsewhere than Debian (the machine image has its own): accept
# any working node and npm on PATH.
if command -v node >/dev/null && command -v npm >/dev/null; then
  filtered=()
  for package in "${missing[@]}"; do
    [[ "$package" == nodejs || "$package" == npm ]] || filtered+=("$package")
  done
  missing=("${filtered[@]+"${filtered[@]}"}")
fi

if ((${#missing[@]})); then
  echo "install-deps: installing Debian packages: ${missing[*]}"
  sudo_cmd=()
  [[ $(id -u) -eq 0 ]] || sudo_cmd=(sudo)
  "${sudo_cmd[@]}" apt-get update -qq
  DEBIAN_FRONTEND=noninteractive "${sudo_cmd[@]}" apt-get install -y -qq --no-install-recommends "${missing[@]}"
fi

# The onnxruntime-node oracle. --ignore-scripts: its install script would try to download
# GPU libraries we do not use; the CPU binaries ship inside the package.
# A worktree whose node_modules is a symbolic link to the main checkout's shares it: never
# run npm ci through the link (it would empty the main checkout's copy).
stamp=node_modules/.package-lock.json
if [[ ! -L node_modules && ( ! -f "$stamp" || package-lock.json -nt "$stamp" ) ]]; then
  echo "install-deps: npm ci (onnxruntime-node)"
  npm ci --ignore-scripts --no-audit --no-fund --loglevel=error
fi
