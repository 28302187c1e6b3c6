#!/usr/bin/python3
"""Table of bench/run: medians over repetitions of onnxopt (optimizer_bench RESULT lines)
and onnxruntime (bench/ort_optimize_time.js JSON lines), node counts after both
optimizers, peak memory. Usage: bench_table.py RESULTS.tsv"""
import json
import re
import statistics
import sys


def kv(text):
    return dict(item.split("=", 1) for item in text.split() if "=" in item)


def med(xs):
    return statistics.median(xs) if xs else float("nan")


def main():
    results = sys.argv[1]
    rows = {}
    for line in open(results):
        l, side, _rep, payload = line.rstrip("\n").split("\t", 3)
        row = rows.setdefault(int(l), {"onnxopt": [], "baseline": [], "ort": [], "cli": None})
        if side in ("onnxopt", "baseline"):
            row[side].append(kv(payload.removeprefix("RESULT ")))
        elif side == "ort":
            row["ort"].append(json.loads(payload))
        else:
            row["cli"] = payload
    print("| L | nodes | load+save ms | InferShapes ms | onnxopt Optimize ms | Replay ms "
          "| ORT phase disabled ms | ORT phase extended ms | ORT optimization ms (ext - dis) "
          "| ORT whole session ext - dis ms | Optimize / ORT optimization | Optimize / load+save "
          "| nodes after onnxopt | nodes after ORT extended | peak MB onnxopt | peak MB ORT (node) |")
    print("|" + "---:|" * 16)
    notes = []
    for l in sorted(rows):
        row = rows[l]
        o = row["onnxopt"]
        f = lambda key: med([float(x[key]) for x in o])
        ls, opt = f("load_save_ms"), f("optimize_ms")
        ort = row["ort"]
        cli = kv(row["cli"] or "")
        found = re.search(r"nodes: \d+ -> (\d+)", row["cli"] or "")
        cli_nodes = found.group(1) if found else "?"
        if cli_nodes != o[0]["nodes_after"]:
            notes.append(f"L={l}: `onnxopt optimize` left {cli_nodes} nodes, optimizer_bench {o[0]['nodes_after']}")
        if any(x["replay"] != "OK" for x in o):
            notes.append(f"L={l}: Replay differs from the optimized graph")
        peak_cli = float(cli.get("peak_kb", "nan")) / 1024
        common = f"| {l} | {o[0]['nodes']} | {ls:.1f} | {f('infer_shapes_ms'):.1f} | {opt:.1f} | {f('replay_ms'):.1f} "
        if not ort:  # BENCH_ORT_MAX_LAYERS: the onnxopt side only
            print(common + f"| — | — | — | — | — | {opt / ls:.2f} | {o[0]['nodes_after']} | — | {peak_cli:.0f} | — |")
            notes.append(f"L={l}: {len(o)} onnxopt repetitions; onnxruntime not run (BENCH_ORT_MAX_LAYERS)")
            continue
        dis = med([x for r in ort for x in r["disabled_ms"]])
        ext = med([x for r in ort for x in r["optimized_ms"]])
        diff = med([x for r in ort for x in r["diff_ms"]])
        ratio_ort = f"{opt / diff:.2f}" if diff > 0 else "n/a (diff < 0)"
        whole = [x for r in ort for x in r.get("whole_diff_ms", [])]
        whole_diff = f"{med(whole):.1f}" if whole else "—"
        ort_nodes = {r["nodes_optimized"] for r in ort}
        if len(ort_nodes) != 1 or None in ort_nodes:
            notes.append(f"L={l}: onnxruntime's logged node counts after optimization: {ort_nodes}")
        ort_nodes = "?" if None in ort_nodes else str(max(ort_nodes))
        peak_ort = max(r["max_rss_kb"] for r in ort) / 1024
        base_ort = min(r["baseline_rss_kb"] for r in ort) / 1024
        print(common + f"| {dis:.1f} | {ext:.1f} | {diff:.1f} | {whole_diff} | {ratio_ort} | {opt / ls:.2f} "
              f"| {o[0]['nodes_after']} | {ort_nodes} | {peak_cli:.0f} | {peak_ort:.0f} (base {base_ort:.0f}) |")
        notes.append(f"L={l}: {len(o)} onnxopt repetitions, {len(ort)} onnxruntime pairs; per-pair ORT "
                     f"ext - dis (ms): {', '.join(f'{x:.1f}' for r in ort for x in r['diff_ms'])}"
                     + (f"; whole sessions: {', '.join(f'{x:.1f}' for x in whole)}" if whole else ""))
    baseline_table(rows)
    print()
    for n in notes:
        print("- " + n)


def baseline_table(rows):
    """This build next to BENCH_BASELINE's, when the run had one (same repetitions)."""
    if not any(row["baseline"] for row in rows.values()):
        return
    print()
    print("| L | Optimize / load+save | baseline Optimize / load+save | Optimize ms | baseline Optimize ms "
          "| nodes after | baseline nodes after |")
    print("|" + "---:|" * 7)
    for l in sorted(rows):
        o, b = rows[l]["onnxopt"], rows[l]["baseline"]
        if not b:
            continue
        f = lambda xs, key: med([float(x[key]) for x in xs])
        print(f"| {l} | {f(o, 'optimize_ms') / f(o, 'load_save_ms'):.2f} | {f(b, 'optimize_ms') / f(b, 'load_save_ms'):.2f} "
              f"| {f(o, 'optimize_ms'):.1f} | {f(b, 'optimize_ms'):.1f} | {o[0]['nodes_after']} | {b[0]['nodes_after']} |")


if __name__ == "__main__":
    main()
