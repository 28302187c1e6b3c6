#!/usr/bin/env bash
# Usage: scripts/check-disk-space.sh BUILD_DIR FULL_SIZE_GB
#
# Fails, saying why, when the file system of BUILD_DIR lacks the space a complete build
# there takes (FULL_SIZE_GB, measured on a clean clone; see the Makefile) minus what
# BUILD_DIR already holds. A full disk otherwise shows up deep in the build as a linker
# killed by SIGBUS ("ld terminated with signal 7"), which says nothing about disk space.
# ONNXOPT_SKIP_DISK_CHECK=1 skips the check.
set -euo pipefail

if (($# != 2)); then
  echo "usage: $0 BUILD_DIR FULL_SIZE_GB" >&2
  exit 2
fi
build_dir=$1
full_size_gb=$2
[[ "${ONNXOPT_SKIP_DISK_CHECK:-0}" == 1 ]] && exit 0

mkdir -p "$build_dir"
kib_per_gb=$((1024 * 1024))
needed_kib=$((full_size_gb * kib_per_gb))
held_kib=$(du -sk "$build_dir" | cut -f1)
free_kib=$(df -Pk "$build_dir" | awk 'NR == 2 { print $4 }')
missing_kib=$((needed_kib - held_kib - free_kib))
if ((missing_kib > 0)); then
  to_gb() { awk -v kib="$1" -v per="$kib_per_gb" 'BEGIN { printf "%.1f GB", kib / per }'; }
  cat >&2 <<EOF
error: not enough disk space for a build in $build_dir:
  a complete build there takes about ${full_size_gb} GB; it holds $(to_gb "$held_kib"),
  and its file system has $(to_gb "$free_kib") free: $(to_gb "$missing_kib") short.
Free some space (or build elsewhere: make BUILD_DIR=... ASAN_DIR=...), or set
ONNXOPT_SKIP_DISK_CHECK=1 to build anyway.
EOF
  exit 1
fi
