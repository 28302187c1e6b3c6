#!/usr/bin/env bash
# `onnxopt memory` on graphs where it was once quadratic or worse in a count: synthetic
# decoders (copies deleted), KV-cache updates (in-place writers), chains of calls of a
# function holding a copy, a value with many copies, many writers, many copies at the end of
# a chain of views (bench/make_decoder.py,
# make_copy_graphs.py, make_memory_scale.py). Results: bench/RESULTS-memory.md.
#
# Usage: bench/memory_scale.sh NAME=ONNXOPT [NAME=ONNXOPT ...]
#   e.g. bench/memory_scale.sh old=/tmp/old/build/onnxopt new=build/onnxopt
# Environment:
#   MEMORY_SCALE_REPS     repetitions (default 3); the table shows medians
#   MEMORY_SCALE_LAYERS   decoder sizes (default "8 64 400")
#   MEMORY_SCALE_KV       KV-cache layers (default "800 3200")
#   MEMORY_SCALE_COUNTS   counts of make_memory_scale.py (default "500 2000")
#   (set one of these three empty to leave its models out)
#   MEMORY_SCALE_TIMEOUT  seconds a run may take (default 600); a run killed shows "> T"
#   ONNXOPT_PYTHON        (default /usr/bin/python3)
# Each repetition runs every binary on the model back to back (the order rotating with the
# repetition), so machine noise hits them alike. The plans (--json) of all binaries must be
# byte-identical (exit 1 otherwise). The ratio column is each binary's time over the
# first one's.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
python=${ONNXOPT_PYTHON:-/usr/bin/python3}
reps=${MEMORY_SCALE_REPS:-3}
timeout_s=${MEMORY_SCALE_TIMEOUT:-600}
[ $# -ge 1 ] || { echo "usage: $0 NAME=ONNXOPT [NAME=ONNXOPT ...]" >&2; exit 2; }
names=() exes=()
for arg in "$@"; do names+=("${arg%%=*}"); exes+=("${arg#*=}"); done

dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
models=()
for layers in ${MEMORY_SCALE_LAYERS-8 64 400}; do
  "$python" "$here/make_decoder.py" --layers "$layers" "$dir/decoder_$layers.onnx" >/dev/null
  models+=("$dir/decoder_$layers.onnx")
done
for layers in ${MEMORY_SCALE_KV-800 3200}; do
  "$python" "$here/make_copy_graphs.py" "$dir/kv_$layers" --layers "$layers" >/dev/null
  mv "$dir/kv_$layers/kv_cache_scatternd.onnx" "$dir/kv_cache_$layers.onnx"
  models+=("$dir/kv_cache_$layers.onnx")
done
counts=()
for count in ${MEMORY_SCALE_COUNTS-500 2000}; do counts+=(--count "$count"); done
[ ${#counts[@]} -eq 0 ] || "$python" "$here/make_memory_scale.py" "$dir" "${counts[@]}" >/dev/null
for count in ${MEMORY_SCALE_COUNTS-500 2000}; do
  models+=("$dir/calls_$count.onnx" "$dir/fanout_$count.onnx" "$dir/writers_$count.onnx" "$dir/viewchain_$count.onnx")
done

header="| model | nodes | copies deleted | writers in place |"
rule="|---|---|---|---|"
for name in "${names[@]}"; do header+=" $name (s) |"; rule+="---|"; done
for name in "${names[@]:1}"; do header+=" $name / ${names[0]} |"; rule+="---|"; done
echo "$header"
echo "$rule"
status=0
for model in "${models[@]}"; do
  base=$(basename "$model" .onnx)
  declare -A times=()
  for ((r = 0; r < reps; r++)); do
    for ((k = 0; k < ${#exes[@]}; k++)); do
      i=$(((k + r) % ${#exes[@]}))
      start=$(date +%s%N)
      if timeout "$timeout_s" "${exes[$i]}" memory "$model" --json > "$dir/$base.$i.json"; then
        times[$i]+="$(( ($(date +%s%N) - start) / 1000000 )) "
      else
        times[$i]+="killed "
      fi
    done
  done
  # The plans of the binaries that finished must be one, but for the work the pass counts
  # (its keys, and their accounting, differ between versions); the counts come from the
  # first.
  plan= plan_name=
  for ((i = 0; i < ${#exes[@]}; i++)); do
    [[ ${times[$i]} == *killed* ]] && continue
    sed -E 's/,"work_steps":[0-9]+,"work_limit":[0-9]+,"work_limited":(true|false)//' "$dir/$base.$i.json" \
      > "$dir/$base.$i.plan"
    if [[ -z $plan ]]; then plan="$dir/$base.$i.json" plan_name=${names[$i]}; continue; fi
    if ! cmp -s "${plan%.json}.plan" "$dir/$base.$i.plan"; then
      echo "$base: the plans of $plan_name and ${names[$i]} differ" >&2
      status=1
    fi
  done
  nodes=$("$python" -c "import onnx,sys; print(len(onnx.load(sys.argv[1]).graph.node))" "$model")
  deleted=? writers=?
  if [[ -n $plan ]]; then
    deleted=$({ grep -o '"verdict":"DELETED"' "$plan" || true; } | wc -l)
    writers=$(grep -o '"writers_in_place":[0-9]*' "$plan" | cut -d: -f2)
  fi
  row="| $base | $nodes | $deleted | $writers |"
  # Median in ms; "killed" when a run was.
  medians=()
  for ((i = 0; i < ${#exes[@]}; i++)); do
    if [[ ${times[$i]} == *killed* ]]; then medians+=(killed); continue; fi
    medians+=("$(echo ${times[$i]} | tr ' ' '\n' | sort -n | sed -n "$(( (reps + 1) / 2 ))p")")
  done
  for median in "${medians[@]}"; do
    if [[ $median == killed ]]; then row+=" > $timeout_s |"; else row+=" $(awk -v ms="$median" 'BEGIN { printf "%.2f", ms / 1000 }') |"; fi
  done
  for ((i = 1; i < ${#exes[@]}; i++)); do
    if [[ ${medians[0]} == killed || ${medians[$i]} == killed || ${medians[0]} == 0 ]]; then row+=" – |"
    else row+=" $(awk -v a="${medians[$i]}" -v b="${medians[0]}" 'BEGIN { printf "%.3f", a / b }') |"; fi
  done
  echo "$row"
  unset times
done
exit $status
