#!/usr/bin/env bash
# Tests scripts/check-disk-space.sh with stand-in `du` and `df` on PATH, so that the space a
# build directory holds and the space its file system has free are fixed numbers:
#   held 2 GB, free 3 GB: a build of 5 GB fits, one of 6 GB is 1.0 GB short.
set -euo pipefail
script="$(cd "$(dirname "$0")/../.." && pwd)/scripts/check-disk-space.sh"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

gib_kib=$((1024 * 1024))
mkdir -p "$work/bin" "$work/build"
cat >"$work/bin/du" <<STUB
#!/bin/sh
printf '%s\t%s\n' $((2 * gib_kib)) "\$2"
STUB
cat >"$work/bin/df" <<STUB
#!/bin/sh
echo "Filesystem 1024-blocks Used Available Capacity Mounted on"
echo "/dev/test 100000000 0 $((3 * gib_kib)) 0% /"
STUB
chmod +x "$work/bin/du" "$work/bin/df"

failures=0
expect() {  # expect EXIT_CODE TEXT_IN_STDERR -- COMMAND...  (empty TEXT: stderr must be empty)
  local want_code=$1 want_text=$2 code=0 stderr_ok=1
  shift 3
  "$@" 2>"$work/stderr" || code=$?
  if [[ -z $want_text ]]; then
    [[ -s "$work/stderr" ]] && stderr_ok=0
  else
    grep -qF -- "$want_text" "$work/stderr" || stderr_ok=0
  fi
  if [[ $code != "$want_code" ]] || ((!stderr_ok)); then
    echo "FAIL: $* -> exit $code (want $want_code), stderr:" >&2
    cat "$work/stderr" >&2
    failures=$((failures + 1))
  fi
}

stubbed=(env "PATH=$work/bin:$PATH")
expect 0 "" -- "${stubbed[@]}" "$script" "$work/build" 5
expect 1 "1.0 GB short" -- "${stubbed[@]}" "$script" "$work/build" 6
expect 1 "it holds 2.0 GB" -- "${stubbed[@]}" "$script" "$work/build" 6
expect 1 "has 3.0 GB free" -- "${stubbed[@]}" "$script" "$work/build" 6
expect 0 "" -- "${stubbed[@]}" ONNXOPT_SKIP_DISK_CHECK=1 "$script" "$work/build" 6
expect 2 "usage:" -- "$script" "$work/build"
# The directory is created when it does not exist yet (a fresh build directory).
expect 0 "" -- "${stubbed[@]}" "$script" "$work/new/build" 1
[[ -d "$work/new/build" ]] || { echo "FAIL: $work/new/build not created" >&2; failures=$((failures + 1)); }

if ((failures)); then
  echo "$failures check(s) failed" >&2
  exit 1
fi
echo "check-disk-space: all checks passed"
