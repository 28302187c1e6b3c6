#!/usr/bin/env bash
# Checks bench/ort_optimize_time.js, the onnxruntime side of bench/run, on 1- and 2-layer
# synthetic decoders: it must find onnxruntime's log markers at both levels, report the
# node count of the model it was given at 'disabled' and a smaller one at 'extended',
# give per-pair times whose differences are what it prints, phases shorter than the
# whole session creation that contains them (--whole-session), and fail with exit 3 and the
# model's name when a session cannot be created. A new onnxruntime-node whose log lines
# differ makes this test fail instead of the benchmark hanging or reporting nonsense.
# Usage: tests/ort/ort_optimize_time_selftest.sh   (needs node, onnxruntime-node in
# node_modules, /usr/bin/python3 with onnx and numpy)
set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
python=${ONNXOPT_PYTHON:-/usr/bin/python3}
node=${ONNXOPT_NODE:-node}
tmp=$(mktemp -d "${TMPDIR:-/tmp}/onnxopt-ort-time-selftest.XXXXXX")
trap 'rm -rf "$tmp"' EXIT

"$python" "$root/bench/make_decoder.py" --layers 1 "$tmp/warmup.onnx" >/dev/null
nodes=$("$python" "$root/bench/make_decoder.py" --layers 2 "$tmp/decoder.onnx")
"$node" "$root/bench/ort_optimize_time.js" "$tmp/decoder.onnx" --reps 2 \
  --warmup "$tmp/warmup.onnx" --whole-session >"$tmp/result.json"
cat "$tmp/result.json"
NODES=$nodes "$node" -e '
  const r = JSON.parse(require("fs").readFileSync(process.argv[1], "utf8"));
  const fail = (why) => { console.error("FAIL  " + why); process.exit(1); };
  const nodes = Number(process.env.NODES);
  if (r.nodes_disabled !== nodes) fail(`nodes at disabled: ${r.nodes_disabled}, the model has ${nodes}`);
  if (!(r.nodes_optimized > 0 && r.nodes_optimized < nodes))
    fail(`nodes at extended: ${r.nodes_optimized}, expected between 0 and ${nodes}`);
  for (const key of ["disabled_ms", "optimized_ms", "diff_ms"])
    if (r[key].length !== 2) fail(`${key} has ${r[key].length} values, not one per pair`);
  r.diff_ms.forEach((d, i) => {
    if (!(r.disabled_ms[i] > 0 && r.optimized_ms[i] > 0)) fail(`pair ${i}: a phase took no time`);
    if (Math.abs(d - (r.optimized_ms[i] - r.disabled_ms[i])) > 1e-9) fail(`pair ${i}: diff is not optimized - disabled`);
    // The phase is a part of the whole session creation.
    if (!(r.whole_disabled_ms[i] > r.disabled_ms[i] && r.whole_optimized_ms[i] > r.optimized_ms[i]))
      fail(`pair ${i}: a whole session took less time than its initialization phase`);
  });
  if (!(r.max_rss_kb > r.baseline_rss_kb && r.baseline_rss_kb > 0)) fail("memory figures missing");
  console.log("PASS  markers, node counts and times");
' "$tmp/result.json"

status=0
"$node" "$root/bench/ort_optimize_time.js" "$tmp/missing.onnx" --reps 1 >"$tmp/out.txt" 2>&1 || status=$?
if [[ $status -ne 3 ]] || ! grep -q "missing.onnx" "$tmp/out.txt"; then
  echo "FAIL  a model that does not exist: exit $status, expected 3 and a message naming it"
  sed 's/^/      | /' "$tmp/out.txt"
  exit 1
fi
echo "PASS  a model that does not exist gives exit 3 and names it"
