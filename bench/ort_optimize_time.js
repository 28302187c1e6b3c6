#!/usr/bin/env node
// onnxruntime's own offline graph optimization, timed through onnxruntime-node (issue 6):
// the time to create an InferenceSession at graphOptimizationLevel 'extended' minus the
// time to create one at 'disabled', on the same model. bench/run drives it.
//
// Usage: node bench/ort_optimize_time.js MODEL [--reps N] [--level extended]
//                                        [--save OUT.onnx] [--memory]
//   --reps N    timed pairs (default 5). One untimed 'disabled' session is created first
//               (one-time initialization of onnxruntime: environment, kernel registries).
//               Then N pairs, alternating the order (disabled then optimized, optimized
//               then disabled, ...) so that a drift of machine load hits both levels.
//   --level L   the optimized level (default 'extended'; 'basic' or 'all' also work).
//   --save OUT  afterwards, one more (untimed) session at level L with
//               optimizedModelFilePath = OUT: onnxruntime writes the graph it optimized.
//               That file is then loaded back in a session at 'disabled' and run once
//               (every int64 input filled with small values, symbolic dims = 2), to
//               check that it only holds operators onnxruntime-node can load and run.
//   --save-in-timed  the first timed optimized session writes OUT (saves one session on
//               models where a session takes minutes; the write is then in its time).
//   --no-reload skip the load-back check of OUT.
//   --optimized-first  start the alternation with the optimized level.
//   --warmup M  create the untimed warm-up session on model M instead of MODEL.
//   --memory    instead of timing: create one session at level L, release it, and
//               report the process's peak resident memory (process.resourceUsage()
//               .maxRSS) and the resident memory before the session (Node.js +
//               onnxruntime loaded, no model): run it in a process of its own.
// Sessions: CPU execution provider, intraOpNumThreads 1, interOpNumThreads 1, sequential
// (the thread pools are the same at both levels; one thread keeps the noise low). Each
// session is released right after its creation is timed.
// Prints one JSON line. Timing: {"model", "reps", "level", "disabled_ms": [...],
// "optimized_ms": [...], "diff_ms": [...] (optimized - disabled, per pair),
// "median_disabled_ms", "median_optimized_ms", "median_diff_ms", "saved", "reload_ok",
// "reload_error", "max_rss_kb" (peak of the whole process: Node.js, onnxruntime, every
// session, one at a time), "baseline_rss_kb" (resident before any session)}. Memory: {"model", "level", "max_rss_kb",
// "baseline_rss_kb"}.
'use strict';
const path = require('path');
const ort = require(path.join(__dirname, '..', 'node_modules', 'onnxruntime-node'));

function parseArgs(argv) {
  const a = { model: null, reps: 5, level: 'extended', save: null, memory: false, warmup: null,
              saveInTimed: false, noReload: false, optimizedFirst: false };
  for (let i = 0; i < argv.length; i++) {
    if (argv[i] === '--reps') a.reps = Number(argv[++i]);
    else if (argv[i] === '--level') a.level = argv[++i];
    else if (argv[i] === '--save') a.save = argv[++i];
    else if (argv[i] === '--memory') a.memory = true;
    else if (argv[i] === '--warmup') a.warmup = argv[++i];
    else if (argv[i] === '--save-in-timed') a.saveInTimed = true;
    else if (argv[i] === '--no-reload') a.noReload = true;
    else if (argv[i] === '--optimized-first') a.optimizedFirst = true;
    else if (!a.model && !argv[i].startsWith('-')) a.model = argv[i];
    else throw new Error(`unexpected argument ${argv[i]}`);
  }
  if (!a.model || !(a.reps >= 1) || !['basic', 'extended', 'all'].includes(a.level)) {
    console.error('usage: node bench/ort_optimize_time.js MODEL [--reps N] [--level extended] ' +
                  '[--save OUT.onnx [--save-in-timed] [--no-reload]] [--warmup MODEL] [--optimized-first] [--memory]');
    process.exit(2);
  }
  return a;
}

function median(xs) {
  const s = [...xs].sort((x, y) => x - y);
  const m = s.length >> 1;
  return s.length % 2 ? s[m] : (s[m - 1] + s[m]) / 2;
}

function options(level, extra) {
  return {
    executionProviders: ['cpu'],
    graphOptimizationLevel: level,
    executionMode: 'sequential',
    intraOpNumThreads: 1,
    interOpNumThreads: 1,
    ...extra,
  };
}

async function timedCreate(model, level, extra) {
  const t0 = process.hrtime.bigint();
  const session = await ort.InferenceSession.create(model, options(level, extra));
  const ms = Number(process.hrtime.bigint() - t0) / 1e6;
  await session.release();
  return ms;
}

// Loads the optimized model back and runs it once on small inputs.
async function reload(file) {
  const session = await ort.InferenceSession.create(file, options('disabled'));
  try {
    const feeds = {};
    const meta = session.inputMetadata;
    session.inputNames.forEach((name, i) => {
      const m = meta ? meta[i] : null;
      const dims = (m && m.shape ? m.shape : [2, 2]).map((d) => (typeof d === 'number' && d >= 0 ? d : 2));
      const n = dims.reduce((p, d) => p * d, 1);
      const type = m && m.type ? m.type : 'int64';
      if (type === 'int64') feeds[name] = new ort.Tensor('int64', BigInt64Array.from({ length: n }, (_, k) => BigInt(k % 7)), dims);
      else if (type === 'float32') feeds[name] = new ort.Tensor('float32', Float32Array.from({ length: n }, (_, k) => ((k % 13) - 6) / 10), dims);
      else throw new Error(`input ${name}: type ${type} not handled by this check`);
    });
    await session.run(feeds);
  } finally {
    await session.release();
  }
}

async function main() {
  const args = parseArgs(process.argv.slice(2));
  if (args.memory) {
    const baseline = process.memoryUsage().rss / 1024;
    const session = await ort.InferenceSession.create(args.model, options(args.level));
    await session.release();
    console.log(JSON.stringify({
      model: path.basename(args.model), level: args.level,
      max_rss_kb: process.resourceUsage().maxRSS, baseline_rss_kb: Math.round(baseline),
    }));
    return;
  }
  const baseline = process.memoryUsage().rss / 1024;
  await timedCreate(args.warmup || args.model, 'disabled'); // warm-up, not counted
  const disabled = [], optimized = [], diff = [];
  for (let r = 0; r < args.reps; r++) {
    // --save-in-timed: the first optimized session of the loop writes the model.
    const extra = args.save && args.saveInTimed && r === 0 ? { optimizedModelFilePath: args.save } : {};
    let d, o;
    if ((r + (args.optimizedFirst ? 1 : 0)) % 2 === 0) {
      d = await timedCreate(args.model, 'disabled');
      o = await timedCreate(args.model, args.level, extra);
    } else {
      o = await timedCreate(args.model, args.level, extra);
      d = await timedCreate(args.model, 'disabled');
    }
    disabled.push(d);
    optimized.push(o);
    diff.push(o - d);
  }
  const result = {
    model: path.basename(args.model), reps: args.reps, level: args.level,
    disabled_ms: disabled, optimized_ms: optimized, diff_ms: diff,
    median_disabled_ms: median(disabled), median_optimized_ms: median(optimized),
    median_diff_ms: median(diff), saved: null, reload_ok: null, reload_error: null,
  };
  if (args.save) {
    if (!args.saveInTimed) {
      const session = await ort.InferenceSession.create(args.model, options(args.level, { optimizedModelFilePath: args.save }));
      await session.release();
    }
    result.saved = args.save;
    if (!args.noReload) try {
      await reload(args.save);
      result.reload_ok = true;
    } catch (e) {
      result.reload_ok = false;
      result.reload_error = String(e.message || e).split('\n')[0];
    }
  }
  result.max_rss_kb = process.resourceUsage().maxRSS;
  result.baseline_rss_kb = Math.round(baseline);
  console.log(JSON.stringify(result));
}

main().catch((e) => { console.error(e.stack || String(e)); process.exit(3); });
