#!/usr/bin/env node
// Runs one model with onnxopt's reference evaluator (`onnxopt run`) and with
// onnxruntime-node on the same seeded random inputs, and compares every output.
//
//   node tests/eval/compare_with_ort.js ONNXOPT_EXE MODEL [--seed N] [--dim name=value ...]
//        [--float-range R] [--int-max M] [--atol 1e-4] [--rtol 1e-3] [--max-rel T] [--threads 1]
//        [--disable-training-dropout]
//
// Inputs follow tests/ort/compare_models.js (mulberry32 from tests/ort/prng.js, floats
// uniform in [-R, R), integers in [0, M), bool fair, symbolic dims from --dim else 2).
// They are written as .npy files and given to `onnxopt run --input NAME=FILE`, whose
// --output-dir files (names escaped: bytes outside [A-Za-z0-9._-] as %XX) are read back.
// onnxruntime runs with graphOptimizationLevel 'disabled'.
// Comparison: same output names, element types and shapes; floats within
// |a - b| <= atol + rtol * |b| (b from onnxruntime; float16 outputs with at least
// atol 1e-2, rtol 1e-2), NaN equal to NaN; other types identical. --max-rel T also
// accepts |a - b| <= T * max|b| over the output (the output's scale: sums that cancel
// leave small elements whose relative differences say nothing about the kernels). The
// report gives each output's largest difference relative to its largest magnitude.
// --disable-training-dropout: both run a copy whose training-mode Dropouts are switched
// to inference mode (disable_training_dropout.py, Debian's python3-onnx; ONNXOPT_PYTHON
// overrides /usr/bin/python3): a random mask cannot be reproduced.
// Exit: 0 match, 1 mismatch or onnxopt fails, 2 usage error or onnxruntime fails.
'use strict';

const fs = require('fs');
const os = require('os');
const path = require('path');
const { spawnSync } = require('child_process');
const { mulberry32 } = require('../ort/prng');
const { floatToHalfBits, halfBitsToFloat } = require('../ort/float16');

function fail(code, message) {
  const err = new Error(message);
  err.exitCode = code;
  throw err;
}

function parseArgs(argv) {
  const opts = { seed: 0, dims: new Map(), floatRange: 1, intMax: 16, atol: 1e-4, rtol: 1e-3, maxRel: 0, threads: 1,
    dropout: false, positional: [] };
  for (let i = 0; i < argv.length; ++i) {
    const arg = argv[i];
    const num = () => {
      const v = Number(argv[++i]);
      if (!Number.isFinite(v) || v < 0) fail(2, `${arg}: invalid value '${argv[i]}'`);
      return v;
    };
    switch (arg) {
      case '--seed': opts.seed = num(); break;
      case '--float-range': opts.floatRange = num(); break;
      case '--int-max': opts.intMax = num(); break;
      case '--atol': opts.atol = num(); break;
      case '--rtol': opts.rtol = num(); break;
      case '--max-rel': opts.maxRel = num(); break;
      case '--threads': opts.threads = num(); break;
      case '--disable-training-dropout': opts.dropout = true; break;
      case '--dim': {
        const m = /^([^=]+)=(\d+)$/.exec(argv[++i] || '');
        if (!m) fail(2, `--dim: expected name=value, got '${argv[i]}'`);
        opts.dims.set(m[1], Number(m[2]));
        break;
      }
      default:
        if (arg.startsWith('--')) fail(2, `unknown option '${arg}'`);
        opts.positional.push(arg);
    }
  }
  if (opts.positional.length !== 2) fail(2, 'usage: compare_with_ort.js ONNXOPT_EXE MODEL [options]');
  return opts;
}

// --- .npy -------------------------------------------------------------------------
const NPY_DTYPES = {
  float32: ['<f4', Float32Array], float64: ['<f8', Float64Array], float16: ['<f2', Uint16Array],
  int8: ['|i1', Int8Array], int16: ['<i2', Int16Array], int32: ['<i4', Int32Array], int64: ['<i8', BigInt64Array],
  uint8: ['|u1', Uint8Array], uint16: ['<u2', Uint16Array], uint32: ['<u4', Uint32Array], uint64: ['<u8', BigUint64Array],
  bool: ['|b1', Uint8Array],
};

function writeNpy(file, type, dims, data) {
  const entry = NPY_DTYPES[type];
  if (!entry) fail(2, `cannot write a .npy file of type ${type}`);
  const shape = dims.length === 1 ? `(${dims[0]},)` : `(${dims.join(', ')})`;
  let header = `{'descr': '${entry[0]}', 'fortran_order': False, 'shape': ${shape}, }`;
  while ((10 + header.length + 1) % 64) header += ' ';
  header += '\n';
  const prefix = Buffer.alloc(10);
  Buffer.from('\x93NUMPY', 'latin1').copy(prefix);
  prefix[6] = 1;
  prefix[7] = 0;
  prefix.writeUInt16LE(header.length, 8);
  const body = Buffer.from(data.buffer, data.byteOffset, data.byteLength);
  fs.writeFileSync(file, Buffer.concat([prefix, Buffer.from(header, 'latin1'), body]));
}

function readNpy(file) {
  const bytes = fs.readFileSync(file);
  if (bytes.toString('latin1', 0, 6) !== '\x93NUMPY') fail(1, `${file}: not a .npy file`);
  const major = bytes[6];
  const headerLen = major === 1 ? bytes.readUInt16LE(8) : bytes.readUInt32LE(8);
  const start = major === 1 ? 10 : 12;
  const header = bytes.toString('latin1', start, start + headerLen);
  const descr = /'descr': '([^']+)'/.exec(header)[1];
  const shape = /'shape': \(([^)]*)\)/.exec(header)[1].split(',').map((s) => s.trim()).filter((s) => s).map(Number);
  const type = Object.keys(NPY_DTYPES).find((t) => NPY_DTYPES[t][0] === descr && t !== 'bool') ||
      (descr === '|b1' ? 'bool' : null);
  if (!type) fail(1, `${file}: unexpected dtype ${descr}`);
  const Ctor = NPY_DTYPES[type][1];
  const raw = bytes.subarray(start + headerLen);
  const copy = new Uint8Array(raw.length);
  copy.set(raw);
  return { type, dims: shape, data: new Ctor(copy.buffer, 0, raw.length / Ctor.BYTES_PER_ELEMENT) };
}

function escapeFileName(name) {
  if (name === '.' || name === '..') return [...Buffer.from(name)].map((b) => `%${b.toString(16).toUpperCase()}`).join('');
  let out = '';
  for (const b of Buffer.from(name, 'utf8')) {
    const c = String.fromCharCode(b);
    out += /[A-Za-z0-9._-]/.test(c) ? c : `%${b.toString(16).toUpperCase().padStart(2, '0')}`;
  }
  return out;
}

// --- inputs (the conventions of tests/ort/compare_models.js) ------------------------
function resolveShape(meta, opts, symbols) {
  return meta.shape.map((d) => {
    if (typeof d === 'number' && d >= 0) return d;
    const name = typeof d === 'string' && d.length ? d : null;
    if (name === null) return 2;
    if (!symbols.has(name)) symbols.set(name, opts.dims.has(name) ? opts.dims.get(name) : 2);
    return symbols.get(name);
  });
}

function makeData(type, size, rand, opts) {
  const r = opts.floatRange;
  switch (type) {
    case 'float32': case 'float64': {
      const data = type === 'float32' ? new Float32Array(size) : new Float64Array(size);
      for (let i = 0; i < size; ++i) data[i] = (rand() * 2 - 1) * r;
      return data;
    }
    case 'float16': {
      const data = new Uint16Array(size);
      for (let i = 0; i < size; ++i) data[i] = floatToHalfBits((rand() * 2 - 1) * r);
      return data;
    }
    case 'int64': case 'uint64': {
      const data = type === 'int64' ? new BigInt64Array(size) : new BigUint64Array(size);
      for (let i = 0; i < size; ++i) data[i] = BigInt(Math.floor(rand() * opts.intMax));
      return data;
    }
    case 'bool': {
      const data = new Uint8Array(size);
      for (let i = 0; i < size; ++i) data[i] = rand() < 0.5 ? 1 : 0;
      return data;
    }
    default: {
      const Ctor = NPY_DTYPES[type] && NPY_DTYPES[type][1];
      if (!Ctor) fail(2, `unsupported input type ${type}`);
      const data = new Ctor(size);
      for (let i = 0; i < size; ++i) data[i] = Math.floor(rand() * opts.intMax);
      return data;
    }
  }
}

// --- comparison -------------------------------------------------------------------
function compare(name, ours, ref, opts) {
  if (ours.type !== ref.type) return `type ${ours.type} (onnxopt) vs ${ref.type} (onnxruntime)`;
  if (ours.dims.length !== ref.dims.length || ours.dims.some((d, i) => d !== ref.dims[i])) {
    return `shape [${ours.dims}] (onnxopt) vs [${ref.dims}] (onnxruntime)`;
  }
  const isFloat = ['float32', 'float64', 'float16'].includes(ref.type);
  const half = ref.type === 'float16';
  const atol = half ? Math.max(opts.atol, 1e-2) : opts.atol;
  const rtol = half ? Math.max(opts.rtol, 1e-2) : opts.rtol;
  let bad = 0;
  let first = null;
  let maxDiff = 0;
  let maxRef = 0;
  if (isFloat) {
    for (let i = 0; i < ref.data.length; ++i) {
      const b = half ? halfBitsToFloat(ref.data[i]) : ref.data[i];
      if (Number.isFinite(b)) maxRef = Math.max(maxRef, Math.abs(b));
    }
  }
  for (let i = 0; i < ref.data.length; ++i) {
    let a = ours.data[i];
    let b = ref.data[i];
    if (half) {
      a = halfBitsToFloat(a);
      b = halfBitsToFloat(b);
    }
    if (a === b || (isFloat && Number.isNaN(a) && Number.isNaN(b))) continue;
    const diff = typeof a === 'bigint' ? Math.abs(Number(a - b)) : Math.abs(Number(a) - Number(b));
    maxDiff = Number.isNaN(diff) ? Infinity : Math.max(maxDiff, diff);
    if (!isFloat || !(diff <= atol + rtol * Math.abs(Number(b)) || diff <= opts.maxRel * maxRef)) {
      if (bad++ === 0) first = { i, a: String(a), b: String(b) };
    }
  }
  // The largest difference relative to the output's largest magnitude: differences where
  // values cancel are large element by element and small against the output's scale.
  const relative = maxRef > 0 ? ` = ${(maxDiff / maxRef).toExponential(2)} of max|ort| ${maxRef.toPrecision(3)}` : '';
  const summary = `max_abs_diff=${maxDiff.toExponential(3)}${relative}`;
  if (!bad) return { ok: true, summary };
  return `${bad}/${ref.data.length} elements differ (${summary}), first at ${first.i}: ${first.a} (onnxopt) vs ${first.b} (onnxruntime)`;
}

async function main() {
  const opts = parseArgs(process.argv.slice(2));
  const [exe, originalModel] = opts.positional;
  const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'onnxopt-eval-ort-'));
  try {
    return await compareModel(opts, exe, originalModel, tmp);
  } finally {
    fs.rmSync(tmp, { recursive: true, force: true });
  }
}

async function compareModel(opts, exe, originalModel, tmp) {
  let model = originalModel;
  if (opts.dropout) {
    model = path.join(tmp, 'model.onnx');
    const python = process.env.ONNXOPT_PYTHON || '/usr/bin/python3';
    const prep = spawnSync(python, [path.join(__dirname, 'disable_training_dropout.py'), originalModel, model],
        { encoding: 'utf8' });
    if (prep.status !== 0) fail(2, `disable_training_dropout.py failed: ${prep.stderr}`);
    console.log(`note: ${prep.stdout.trim()} training-mode Dropout node(s) switched to inference mode`);
  }
  let ort;
  try {
    ort = require('onnxruntime-node');
  } catch (err) {
    fail(2, `cannot load onnxruntime-node: ${err.message}`);
  }
  const session = await ort.InferenceSession.create(path.resolve(model), {
    graphOptimizationLevel: 'disabled', executionProviders: ['cpu'], logSeverityLevel: 3,
    intraOpNumThreads: opts.threads, interOpNumThreads: 1, executionMode: 'sequential', enableCpuMemArena: false,
  });
  {
    const rand = mulberry32(opts.seed);
    const symbols = new Map();
    const feeds = {};
    const args = ['run', model, '--output-dir', path.join(tmp, 'out'), '-q'];
    session.inputMetadata.forEach((meta, index) => {
      const dims = resolveShape(meta, opts, symbols);
      const size = dims.reduce((a, b) => a * b, 1);
      const data = makeData(meta.type, size, rand, opts);
      feeds[meta.name] = new ort.Tensor(meta.type, data, dims);
      const file = path.join(tmp, `input_${index}.npy`);
      writeNpy(file, meta.type, dims, data);
      args.push('--input', `${meta.name}=${file}`);
    });
    if (symbols.size) console.log(`symbolic dims: ${[...symbols].map(([k, v]) => `${k}=${v}`).join(' ')}`);

    let t0 = Date.now();
    const run = spawnSync(exe, args, { encoding: 'utf8', maxBuffer: 1 << 26 });
    const oursMs = Date.now() - t0;
    if (run.status !== 0) {
      process.stdout.write(run.stdout || '');
      process.stdout.write(run.stderr || '');
      fail(1, `onnxopt run failed (exit ${run.status}${run.signal ? `, signal ${run.signal}` : ''})`);
    }
    t0 = Date.now();
    let results;
    try {
      results = await session.run(feeds);
    } catch (err) {
      fail(2, `onnxruntime fails to run the model: ${err.message}`);
    }
    const ortMs = Date.now() - t0;
    let ok = true;
    for (const name of session.outputNames) {
      const ref = results[name];
      const file = path.join(tmp, 'out', `${escapeFileName(name)}.npy`);
      if (!fs.existsSync(file)) {
        console.log(`MISMATCH ${name}: onnxopt wrote no ${path.basename(file)}`);
        ok = false;
        continue;
      }
      const ours = readNpy(file);
      const verdict = compare(name, ours, { type: ref.type, dims: ref.dims, data: ref.data }, opts);
      if (verdict.ok) {
        console.log(`ok       ${name} ${ref.type}[${ref.dims.join(',')}] ${verdict.summary}`);
      } else {
        console.log(`MISMATCH ${name} ${ref.type}[${ref.dims.join(',')}]: ${verdict}`);
        ok = false;
      }
    }
    console.log(`${ok ? 'MATCH' : 'DIFFERENT'}: ${session.outputNames.length} outputs, onnxopt run ${oursMs} ms ` +
        `(process), onnxruntime ${ortMs} ms (atol ${opts.atol}, rtol ${opts.rtol}${opts.maxRel ? `, max-rel ${opts.maxRel}` : ''})`);
    return ok ? 0 : 1;
  }
}

main().then((code) => { process.exitCode = code; }, (err) => {
  console.error(`compare_with_ort: ${err.message}`);
  process.exitCode = err.exitCode || 2;
});
