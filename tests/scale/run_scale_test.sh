#!/usr/bin/env bash
# Scale test: optimizes a model with more than 4 GiB of external float32 weights and
# checks that onnxopt's peak memory stays within 1.5x the weight bytes.
#
# Usage: tests/scale/run_scale_test.sh [GiB]      (default 4.2)
# Environment:
#   ONNXOPT           the onnxopt executable (default: build/onnxopt)
#   ONNXOPT_SCALE_DIR where the temporary folder goes (default: $TMPDIR or /tmp); it
#                     needs 2.5x GiB free (input model + output model + margin)
#   ONNXOPT_PYTHON    Python with python3-onnx and numpy (default: /usr/bin/python3)
#   MAX_RSS_RATIO     the limit (default 1.5)
# Needs GNU time (/usr/bin/time, Debian package `time`). Not part of `make test`: it
# writes ~2 x GiB to disk. Run by hand: `make test-scale`.
set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
gib=${1:-4.2}
onnxopt=${ONNXOPT:-$root/build/onnxopt}
python=${ONNXOPT_PYTHON:-/usr/bin/python3}
max_ratio=${MAX_RSS_RATIO:-1.5}
parent=${ONNXOPT_SCALE_DIR:-${TMPDIR:-/tmp}}

die() { echo "scale test: $*" >&2; exit 1; }

[[ $gib =~ ^[0-9]+([.][0-9]+)?$ ]] || die "GiB must be a number, got '$gib'"
[[ -x $onnxopt ]] || die "onnxopt executable not found: $onnxopt (build it, or set ONNXOPT)"
[[ -x /usr/bin/time ]] || die "/usr/bin/time not found: install the Debian package 'time'"
"$python" -c 'import onnx, numpy' 2>/dev/null || die "$python lacks onnx/numpy (Debian python3-onnx python3-numpy)"

need_kib=$(awk -v g="$gib" 'BEGIN { printf "%d", g * 2.5 * 1024 * 1024 }')
free_kib=$(df -Pk "$parent" | awk 'NR == 2 { print $4 }')
if ((free_kib < need_kib)); then
  die "not enough disk space in $parent: $((free_kib / 1024 / 1024)) GiB free, need 2.5 x $gib GiB = $((need_kib / 1024 / 1024)) GiB (set ONNXOPT_SCALE_DIR)"
fi

tmp=$(mktemp -d "$parent/onnxopt-scale.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
mkdir "$tmp/in" "$tmp/out"

echo "scale test: writing a model with $gib GiB of external weights to $tmp/in"
start=$(date +%s)
summary=$("$python" "$here/make_large_model.py" "$tmp/in" "$gib" 20)
echo "  $summary ($(($(date +%s) - start)) s)"
weight_bytes=$("$python" -c 'import json, sys; print(json.loads(sys.argv[1])["weight_bytes"])' "$summary")
tensor_bytes=$("$python" -c 'import json, sys; print(json.loads(sys.argv[1])["tensor_bytes"])' "$summary")
((weight_bytes > 4 * 1024 * 1024 * 1024)) || echo "  note: weights are below 4 GiB ($weight_bytes bytes)"
sync

echo "scale test: onnxopt optimize --patterns none --external-data-threshold 1024"
status=0
/usr/bin/time -v "$onnxopt" optimize "$tmp/in/large.onnx" -o "$tmp/out/out.onnx" --patterns none \
  --external-data-threshold 1024 >"$tmp/optimize.log" 2>&1 || status=$?
if ((status != 0)); then
  cat "$tmp/optimize.log"
  die "onnxopt optimize exited with $status"
fi
rss_kib=$(sed -n 's/^[[:space:]]*Maximum resident set size (kbytes): //p' "$tmp/optimize.log")
elapsed=$(sed -n 's/^[[:space:]]*Elapsed (wall clock) time (h:mm:ss or m:ss): //p' "$tmp/optimize.log")
user=$(sed -n 's/^[[:space:]]*User time (seconds): //p' "$tmp/optimize.log")
sys=$(sed -n 's/^[[:space:]]*System time (seconds): //p' "$tmp/optimize.log")
[[ -n $rss_kib ]] || { cat "$tmp/optimize.log"; die "cannot read the peak RSS from /usr/bin/time -v"; }
grep -v '^[[:space:]]' "$tmp/optimize.log" | grep -v 'Command being timed' | sed 's/^/  onnxopt: /' || true

ratio=$(awk -v r="$rss_kib" -v w="$weight_bytes" 'BEGIN { printf "%.3f", r * 1024 / w }')
echo "  weight bytes:   $weight_bytes ($(awk -v w="$weight_bytes" 'BEGIN { printf "%.2f", w / 2^30 }') GiB)"
echo "  peak RSS:       $((rss_kib * 1024)) bytes ($(awk -v r="$rss_kib" 'BEGIN { printf "%.2f", r / 2^20 }') GiB)"
echo "  RSS / weights:  $ratio (limit $max_ratio)"
echo "  elapsed:        $elapsed (user ${user} s, system ${sys} s)"

failures=0
check() {  # check CONDITION_STATUS MESSAGE
  if [[ $1 == 0 ]]; then echo "  ok:   $2"; else echo "  FAIL: $2"; failures=$((failures + 1)); fi
}
awk -v r="$ratio" -v m="$max_ratio" 'BEGIN { exit !(r <= m) }'; check $? "peak RSS <= $max_ratio x weight bytes"
[[ -s $tmp/out/out.onnx ]]; check $? "output model written ($(stat -c %s "$tmp/out/out.onnx" 2>/dev/null || echo 0) bytes)"
data_files=("$tmp"/out/*.data)
[[ -s ${data_files[0]} ]]; check $? "external data file written: $(basename "${data_files[0]}") ($(stat -c %s "${data_files[0]}" 2>/dev/null || echo 0) bytes)"
out_protobuf=$(stat -c %s "$tmp/out/out.onnx" 2>/dev/null || echo 0)
((out_protobuf < 1024 * 1024)); check $? "the weights are outside the protobuf"

# The cleanup removed what the generator planted: Identity nodes, the duplicate nodes,
# the dead Neg and one initializer of the duplicate pair (its bytes are not written).
stats=$("$python" - "$tmp/out/out.onnx" <<'PY'
import collections, sys
import onnx
m = onnx.load(sys.argv[1], load_external_data=False)
ops = collections.Counter(n.op_type for n in m.graph.node)
print(len(m.graph.node), len(m.graph.initializer), ops.get("Identity", 0), ops.get("Neg", 0), ops.get("ReduceSum", 0))
PY
)
read -r nodes inits identities negs reduces <<<"$stats"
echo "  output graph:   $nodes nodes, $inits initializers, $identities Identity, $reduces ReduceSum"
((identities == 0 && negs == 0)); check $? "Identity nodes and the dead node removed"
((reduces == 19)); check $? "duplicate ReduceSum nodes merged (19 left)"
((inits == 19)); check $? "the duplicate initializer pair merged (19 initializers)"
data_size=$(stat -c %s "${data_files[0]}" 2>/dev/null || echo 0)
((data_size >= 19 * tensor_bytes && data_size < weight_bytes)); check $? "output data holds the 19 distinct weights"

# Every output initializer holds exactly the bytes of the input initializer of the same
# name (streamed comparison, one chunk at a time).
status=0
"$python" - "$tmp/in/large.onnx" "$tmp/out/out.onnx" <<'PY' || status=$?
import os, sys
import onnx

def tensors(path):
    m = onnx.load(path, load_external_data=False)
    out = {}
    for t in m.graph.initializer:
        if t.data_location != onnx.TensorProto.EXTERNAL:
            out[t.name] = (None, t.raw_data)
            continue
        info = {e.key: e.value for e in t.external_data}
        out[t.name] = (os.path.join(os.path.dirname(path), info["location"]),
                       (int(info.get("offset", 0)), int(info["length"])))
    return out

def chunks(entry, size=16 << 20):
    path, where = entry
    if path is None:
        yield where
        return
    offset, length = where
    with open(path, "rb") as f:
        f.seek(offset)
        while length:
            block = f.read(min(size, length))
            if not block:
                raise SystemExit(f"external data of {path} ends early")
            length -= len(block)
            yield block

src, dst = tensors(sys.argv[1]), tensors(sys.argv[2])
for name, entry in dst.items():
    if name not in src:
        raise SystemExit(f"output initializer {name} is not in the input")
    for x, y in zip(chunks(src[name]), chunks(entry)):
        if x != y:
            raise SystemExit(f"initializer {name}: bytes differ")
    if src[name][0] and entry[0] and src[name][1][1] != entry[1][1]:
        raise SystemExit(f"initializer {name}: length differs")
print(f"{len(dst)} initializers compared")
PY
check $status "output weights are byte-identical to the input weights"

status=0
/usr/bin/time -v "$onnxopt" info "$tmp/out/out.onnx" >"$tmp/info.log" 2>&1 || status=$?
info_rss=$(sed -n 's/^[[:space:]]*Maximum resident set size (kbytes): //p' "$tmp/info.log")
[[ $status == 0 ]]; check $? "the output reloads (onnxopt info, peak RSS $(awk -v r="${info_rss:-0}" 'BEGIN { printf "%.2f", r / 2^20 }') GiB)"
((status == 0)) || grep -v '^[[:space:]]' "$tmp/info.log" | head -20

if ((failures)); then
  echo "scale test: $failures check(s) failed"
  exit 1
fi
echo "scale test: passed"
