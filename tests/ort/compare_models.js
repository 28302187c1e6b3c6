#!/usr/bin/env node
// Equivalence harness: runs two ONNX models with onnxruntime-node on the same seeded
// random inputs and compares every output.
//
//   node tests/ort/compare_models.js MODEL_A MODEL_B [--seed N] [--dim name=value ...]
//        [--atol A] [--rtol R] [--runs 1] [--threads 1] [--float-range R]
//        [--int-max 16] [--json]
//
// MODEL_A is the reference (usually the original model), MODEL_B the candidate (usually
// the optimized one). Both sessions run with graphOptimizationLevel 'disabled', so that
// onnxruntime's own rewrites cannot hide a difference.
//
// Inputs are read from MODEL_A's metadata (name, element type, shape):
//   float32/float64/float16  uniform in [-R, R) (R = --float-range, default 1)
//   int8..int64, uint*       uniform in [0, int-max) (default 16): small non-negative
//                            values, valid as indices into any axis of 16 or more
//   bool                     random
//   symbolic dims            --dim name=value, else 2; one value per symbol name, so
//                            inputs sharing a symbol (e.g. `batch`) agree; anonymous
//                            unknown dims get 2.
// Run r (0-based) uses seed N + r.
//
// Comparison: output names must be equal as sets; shapes and element types must match;
// float elements a and b match as in `onnxopt verify`: NaN matches NaN only, an
// infinity the same infinity only, finite numbers when |a - b| <= atol + rtol *
// max(|a|, |b|) (symmetric); integer and bool outputs must be identical. Without --atol
// and --rtol, the tolerances fit the output's element type, as in `onnxopt verify`:
// float32/float64 atol 1e-4, rtol 1e-3; float16 atol 1e-3, rtol 2e-3 (its last place is
// 2^-10 relative, so a rtol of 1e-3 would call one rounding step of a value a mismatch).
// --atol/--rtol apply to every float type (--atol 0 --rtol 0: equal values only).
//
// Exit codes:
//   0  every output matches
//   1  mismatch: values, shapes, types, output names, input names, or MODEL_B fails to run
//      while MODEL_A runs
//   2  usage error, a model cannot be loaded, or MODEL_A fails to run (message names the
//      model)
//   3  a model has an input or output type onnxruntime-node cannot exchange with
//      JavaScript (bfloat16, float8, complex...): "unsupported input type"; the caller
//      must handle such models explicitly
//
// Dependencies: onnxruntime-node only.
'use strict';

const { mulberry32 } = require('./prng');
const { floatToHalfBits } = require('./float16');
const { compareOutput, describeTolerances, fmt } = require('./output_comparison');

const path = require('path');
const fs = require('fs');

const EXIT_OK = 0;
const EXIT_MISMATCH = 1;
const EXIT_USAGE = 2;
const EXIT_UNSUPPORTED = 3;

// ONNX TensorProto.DataType numbers -> names (for messages about unsupported types).
const ONNX_TYPE_NAMES = {
  1: 'float32', 2: 'uint8', 3: 'int8', 4: 'uint16', 5: 'int16', 6: 'int32', 7: 'int64',
  8: 'string', 9: 'bool', 10: 'float16', 11: 'float64', 12: 'uint32', 13: 'uint64',
  14: 'complex64', 15: 'complex128', 16: 'bfloat16', 17: 'float8e4m3fn', 18: 'float8e4m3fnuz',
  19: 'float8e5m2', 20: 'float8e5m2fnuz', 21: 'uint4', 22: 'int4', 23: 'float4e2m1',
};

class HarnessError extends Error {
  constructor(code, message) {
    super(message);
    this.code = code;
  }
}

function usage(message) {
  const text =
      'usage: node compare_models.js MODEL_A MODEL_B [--seed N] [--dim name=value ...]\n' +
      '       [--atol A] [--rtol R] [--runs 1] [--threads 1] [--float-range 1]\n' +
      '       [--int-max 16] [--json]';
  return new HarnessError(EXIT_USAGE, message ? `${message}\n${text}` : text);
}

function parseNumber(flag, value, { integer = false, min = -Infinity } = {}) {
  if (value === undefined) throw usage(`${flag} needs a value`);
  const n = Number(value);
  if (!Number.isFinite(n) || (integer && !Number.isInteger(n)) || n < min) {
    throw usage(`${flag}: invalid value '${value}'`);
  }
  return n;
}

function parseArgs(argv) {
  const opts = {
    models: [], seed: 0, dims: new Map(), atol: undefined, rtol: undefined, runs: 1, threads: 1,
    floatRange: 1, intMax: 16, json: false,
  };
  for (let i = 0; i < argv.length; ++i) {
    const arg = argv[i];
    const next = () => argv[++i];
    switch (arg) {
      case '--seed': opts.seed = parseNumber(arg, next(), { integer: true, min: 0 }); break;
      case '--atol': opts.atol = parseNumber(arg, next(), { min: 0 }); break;
      case '--rtol': opts.rtol = parseNumber(arg, next(), { min: 0 }); break;
      case '--runs': opts.runs = parseNumber(arg, next(), { integer: true, min: 1 }); break;
      case '--threads': opts.threads = parseNumber(arg, next(), { integer: true, min: 0 }); break;
      case '--float-range': opts.floatRange = parseNumber(arg, next(), { min: 0 }); break;
      case '--int-max': opts.intMax = parseNumber(arg, next(), { integer: true, min: 1 }); break;
      case '--json': opts.json = true; break;
      case '--dim': {
        const spec = next();
        const m = spec === undefined ? null : /^([^=]+)=(\d+)$/.exec(spec);
        if (!m) throw usage(`--dim: expected name=value, got '${spec}'`);
        opts.dims.set(m[1], Number(m[2]));
        break;
      }
      case '-h': case '--help': throw usage();
      default:
        if (arg.startsWith('--')) throw usage(`unknown option '${arg}'`);
        opts.models.push(arg);
    }
  }
  if (opts.models.length !== 2) throw usage('expected exactly two models');
  return opts;
}


function modelLabel(which, file) {
  return `${which} (${file})`;
}

// Turns an onnxruntime error about an unknown element type into exit code 3.
function classifyLoadError(err, label) {
  const msg = String(err && err.message ? err.message : err);
  const m = /Unsupported data type: (\d+)/.exec(msg);
  if (m) {
    const name = ONNX_TYPE_NAMES[Number(m[1])] || `ONNX type ${m[1]}`;
    return new HarnessError(EXIT_UNSUPPORTED,
        `unsupported input type: model ${label} has an input or output of type ${name}, ` +
        'which onnxruntime-node cannot exchange with JavaScript');
  }
  return new HarnessError(EXIT_USAGE, `cannot load model ${label}: ${msg}`);
}

async function createSession(ort, file, label, opts) {
  if (!fs.existsSync(file)) throw new HarnessError(EXIT_USAGE, `cannot load model ${label}: no such file`);
  const options = {
    graphOptimizationLevel: 'disabled',
    executionProviders: ['cpu'],
    logSeverityLevel: 3,
    intraOpNumThreads: opts.threads,
    interOpNumThreads: 1,
    executionMode: 'sequential',
    enableCpuMemArena: false,
  };
  try {
    return await ort.InferenceSession.create(path.resolve(file), options);
  } catch (err) {
    throw classifyLoadError(err, label);
  }
}

function resolveShape(meta, opts, symbols) {
  return meta.shape.map((d) => {
    if (typeof d === 'number' && d >= 0) return d;
    const name = typeof d === 'string' && d.length ? d : null;
    if (name === null) return 2;
    if (!symbols.has(name)) symbols.set(name, opts.dims.has(name) ? opts.dims.get(name) : 2);
    return symbols.get(name);
  });
}

function makeInput(ort, meta, shape, rand, opts) {
  const size = shape.reduce((a, b) => a * b, 1);
  const intHi = opts.intMax;
  const r = opts.floatRange;
  switch (meta.type) {
    case 'float32': case 'float64': {
      const data = meta.type === 'float32' ? new Float32Array(size) : new Float64Array(size);
      for (let i = 0; i < size; ++i) data[i] = (rand() * 2 - 1) * r;
      return new ort.Tensor(meta.type, data, shape);
    }
    case 'float16': {
      const data = new Uint16Array(size);
      for (let i = 0; i < size; ++i) data[i] = floatToHalfBits((rand() * 2 - 1) * r);
      return new ort.Tensor('float16', data, shape);
    }
    case 'int64': case 'uint64': {
      const data = meta.type === 'int64' ? new BigInt64Array(size) : new BigUint64Array(size);
      for (let i = 0; i < size; ++i) data[i] = BigInt(Math.floor(rand() * intHi));
      return new ort.Tensor(meta.type, data, shape);
    }
    case 'int32': case 'int16': case 'int8': case 'uint32': case 'uint16': case 'uint8': {
      const ctor = { int32: Int32Array, int16: Int16Array, int8: Int8Array, uint32: Uint32Array,
        uint16: Uint16Array, uint8: Uint8Array }[meta.type];
      const data = new ctor(size);
      for (let i = 0; i < size; ++i) data[i] = Math.floor(rand() * intHi);
      return new ort.Tensor(meta.type, data, shape);
    }
    case 'bool': {
      const data = new Uint8Array(size);
      for (let i = 0; i < size; ++i) data[i] = rand() < 0.5 ? 1 : 0;
      return new ort.Tensor('bool', data, shape);
    }
    case 'string': {
      const data = new Array(size);
      for (let i = 0; i < size; ++i) data[i] = `s${Math.floor(rand() * intHi)}`;
      return new ort.Tensor('string', data, shape);
    }
    default:
      throw new HarnessError(EXIT_UNSUPPORTED,
          `unsupported input type: input '${meta.name}' has type ${meta.type}`);
  }
}

async function main() {
  const opts = parseArgs(process.argv.slice(2));
  let ort;
  try {
    ort = require('onnxruntime-node');
  } catch (err) {
    throw new HarnessError(EXIT_USAGE,
        `cannot load onnxruntime-node (run 'npm ci --ignore-scripts' in the repository): ${err.message}`);
  }
  const [fileA, fileB] = opts.models;
  const labelA = modelLabel('A', fileA);
  const labelB = modelLabel('B', fileB);
  const tLoad = Date.now();
  const sessA = await createSession(ort, fileA, labelA, opts);
  const sessB = await createSession(ort, fileB, labelB, opts);
  const loadMs = Date.now() - tLoad;

  const report = { modelA: fileA, modelB: fileB, seed: opts.seed, runs: [], ok: true, problems: [], warnings: [] };
  const say = (line) => { if (!opts.json) console.log(line); };
  const problem = (line) => { report.ok = false; report.problems.push(line); say(`MISMATCH ${line}`); };

  // Interfaces.
  const metaB = new Map(sessB.inputMetadata.map((m) => [m.name, m]));
  const namesA = new Set(sessA.inputNames);
  for (const m of sessA.inputMetadata) {
    if (!m.isTensor) throw new HarnessError(EXIT_UNSUPPORTED, `unsupported input type: input '${m.name}' of model ${labelA} is not a tensor`);
  }
  for (const name of sessB.inputNames) {
    if (!namesA.has(name)) problem(`input '${name}' of model B does not exist in model A`);
    else if (metaB.get(name).type !== sessA.inputMetadata.find((m) => m.name === name).type) {
      problem(`input '${name}' has type ${sessA.inputMetadata.find((m) => m.name === name).type} in A, ${metaB.get(name).type} in B`);
    }
  }
  for (const name of sessA.inputNames) {
    if (!metaB.has(name)) say(`note: input '${name}' of model A is not an input of model B (not fed to B)`);
  }
  const outA = new Set(sessA.outputNames);
  const outB = new Set(sessB.outputNames);
  const onlyA = [...outA].filter((n) => !outB.has(n));
  const onlyB = [...outB].filter((n) => !outA.has(n));
  if (onlyA.length) problem(`outputs only in model A: ${onlyA.join(', ')}`);
  if (onlyB.length) problem(`outputs only in model B: ${onlyB.join(', ')}`);
  if (!report.ok) return finish(report, opts);

  for (let run = 0; run < opts.runs; ++run) {
    const seed = opts.seed + run;
    const rand = mulberry32(seed);
    const symbols = new Map();
    const feeds = {};
    const tGen = Date.now();
    const shapes = {};
    for (const meta of sessA.inputMetadata) {
      const shape = resolveShape(meta, opts, symbols);
      shapes[meta.name] = shape;
      feeds[meta.name] = makeInput(ort, meta, shape, rand, opts);
    }
    const genMs = Date.now() - tGen;
    if (symbols.size) say(`run ${run} (seed ${seed}): symbolic dims ${[...symbols].map(([k, v]) => `${k}=${v}`).join(' ')}`);
    const feedsB = {};
    for (const name of sessB.inputNames) feedsB[name] = feeds[name];

    let resA;
    let resB;
    let t0 = Date.now();
    try {
      resA = await sessA.run(feeds);
    } catch (err) {
      throw new HarnessError(EXIT_USAGE, `model ${labelA} fails to run (seed ${seed}): ${err.message}`);
    }
    const timeA = Date.now() - t0;
    t0 = Date.now();
    try {
      resB = await sessB.run(feedsB);
    } catch (err) {
      problem(`model ${labelB} fails to run while model A runs (seed ${seed}): ${err.message}`);
      return finish(report, opts);
    }
    const timeB = Date.now() - t0;
    const runRec = { seed, symbols: Object.fromEntries(symbols), load_ms: loadMs, inputs_ms: genMs, timeA_ms: timeA, timeB_ms: timeB, outputs: [] };
    const tCmp = Date.now();
    for (const name of sessA.outputNames) {
      const rec = compareOutput(name, resA[name], resB[name], opts);
      runRec.outputs.push(rec);
      const line = `${rec.ok ? 'ok      ' : 'MISMATCH'} ${name} ${rec.type}[${rec.shape.join(',')}] max_abs_diff=${fmt(rec.maxAbsDiff)}` +
          (rec.ok ? '' : ` (${rec.reason})`);
      say(line + (rec.warning ? `  [warning: ${rec.warning}]` : ''));
      if (rec.warning) report.warnings.push(`seed ${seed}: output '${name}': ${rec.warning}`);
      if (!rec.ok) {
        report.ok = false;
        report.problems.push(`seed ${seed}: output '${name}': ${rec.reason}`);
      }
    }
    const cmpMs = Date.now() - tCmp;
    say(`run ${run} (seed ${seed}): load ${loadMs} ms, inputs ${genMs} ms, run A ${timeA} ms, run B ${timeB} ms, compare ${cmpMs} ms`);
    report.runs.push(runRec);
    // Let the outputs go before the next run.
    resA = resB = null;
  }
  return finish(report, opts);
}

function finish(report, opts) {
  if (opts.json) {
    console.log(JSON.stringify(report, (k, v) => (typeof v === 'bigint' ? String(v) : v === Infinity ? 'Infinity' : v)));
  } else {
    const nOut = report.runs.length ? report.runs[0].outputs.length : 0;
    if (report.warnings.length) {
      console.log(`warning: ${report.warnings.length} output comparison(s) are weak (NaN/infinite or tiny reference ` +
          'values); consider --float-range or --atol');
    }
    console.log(report.ok
        ? `EQUIVALENT: ${nOut} outputs match over ${report.runs.length} run(s) (${describeTolerances(opts)})`
        : `NOT EQUIVALENT: ${report.problems.length} problem(s)`);
  }
  return report.ok ? EXIT_OK : EXIT_MISMATCH;
}

main().then(
    (code) => { process.exitCode = code; },
    (err) => {
      if (err instanceof HarnessError) {
        console.error(`compare_models: ${err.message}`);
        process.exitCode = err.code;
      } else {
        console.error(`compare_models: internal error: ${err && err.stack ? err.stack : err}`);
        process.exitCode = EXIT_USAGE;
      }
    });
