#!/usr/bin/env node
// Times onnxruntime's session.run on a single-input float32 model (bench/kernels_vs_ort.sh,
// issue 4, "Done when" 4).
//
// Usage: node bench/time_ort.js MODEL [--threads N] [--runs R]
//   --threads N  intraOpNumThreads (default 0 = onnxruntime's default, one per core)
//   --runs R     timed runs after one warm-up run (default 5)
// Session: CPU execution provider, graphOptimizationLevel 'disabled', sequential
// execution, interOpNumThreads 1. The input X is uniform in [-1, 1) (fixed seed). Only
// session.run is timed (the session and the input tensor are created before).
// Prints one JSON line: {"model", "threads", "runs", "median_ms", "min_ms", "times_ms"}.
'use strict';
const path = require('path');
const ort = require(path.join(__dirname, '..', 'node_modules', 'onnxruntime-node'));

function parseArgs(argv) {
  const a = { model: null, threads: 0, runs: 5 };
  for (let i = 0; i < argv.length; i++) {
    if (argv[i] === '--threads') a.threads = Number(argv[++i]);
    else if (argv[i] === '--runs') a.runs = Number(argv[++i]);
    else if (!a.model) a.model = argv[i];
    else throw new Error(`unexpected argument ${argv[i]}`);
  }
  if (!a.model || !(a.runs >= 1) || !(a.threads >= 0)) {
    console.error('usage: node bench/time_ort.js MODEL [--threads N] [--runs R]');
    process.exit(1);
  }
  return a;
}

function median(xs) {
  const s = [...xs].sort((x, y) => x - y);
  const m = s.length >> 1;
  return s.length % 2 ? s[m] : (s[m - 1] + s[m]) / 2;
}

async function main() {
  const args = parseArgs(process.argv.slice(2));
  const opts = {
    executionProviders: ['cpu'],
    graphOptimizationLevel: 'disabled',
    executionMode: 'sequential',
    interOpNumThreads: 1,
  };
  if (args.threads > 0) opts.intraOpNumThreads = args.threads;
  const session = await ort.InferenceSession.create(args.model, opts);
  const meta = session.inputMetadata ? session.inputMetadata[0] : null;
  let dims = meta && meta.shape ? meta.shape : null;
  if (!dims || dims.some((d) => typeof d !== 'number')) {
    throw new Error('the model input needs a static shape');
  }
  const n = dims.reduce((p, d) => p * d, 1);
  const data = new Float32Array(n);
  let s = 0x9e3779b9 >>> 0; // xorshift32
  for (let i = 0; i < n; i++) {
    s ^= s << 13; s >>>= 0; s ^= s >>> 17; s ^= s << 5; s >>>= 0;
    data[i] = (s / 4294967296) * 2 - 1;
  }
  const feeds = { [session.inputNames[0]]: new ort.Tensor('float32', data, dims) };
  await session.run(feeds); // warm-up (allocations, weight prepacking)
  const times = [];
  for (let r = 0; r < args.runs; r++) {
    const t0 = process.hrtime.bigint();
    await session.run(feeds);
    times.push(Number(process.hrtime.bigint() - t0) / 1e6);
  }
  console.log(JSON.stringify({
    model: path.basename(args.model), threads: args.threads, runs: args.runs,
    median_ms: median(times), min_ms: Math.min(...times), times_ms: times,
  }));
}

main().catch((e) => { console.error(e.stack || String(e)); process.exit(3); });
