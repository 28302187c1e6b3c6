#!/usr/bin/env node
// Checks onnxopt's symbolic shape inference against onnxruntime (issue 3, "Done when" 1).
//
//   node tests/shapes/check_shapes_with_ort.js MODEL --onnxopt EXE
//        [--setting SPEC ...] [--seed N] [--threads 1] [--chunk-mb 1024] [--no-probes]
//        [--shapes-json FILE] [--report FILE] [--verbose]
//
// 1. tests/shapes/expose_values.py writes a copy of MODEL where every node output of the
//    main graph is a graph output. The added outputs carry a name and NO type:
//    onnxruntime accepts that (it types them with its own inference to allocate them),
//    and the checker only reads what the run returns -- the element type and the shape
//    of each tensor. So the oracle owes nothing to a static shape inference (neither
//    ours nor onnx's). Values of element types onnxruntime-node cannot hand to
//    JavaScript (bfloat16, float8, complex...: recognised from the session's output
//    metadata) are exposed through an added `Shape(value)` node instead: their shape is
//    still checked, not their element type. Nested-graph values are not exposed.
// 2. The exposed model runs at each setting of the symbolic dims of the inputs. All
//    values are outputs, but each run fetches only a chunk of them (at most --chunk-mb
//    of estimated output bytes), so that onnxruntime frees the rest as usual and the
//    memory stays near that of a plain run (llama_forward: ~5 GB). Same seed, same
//    inputs for every chunk of a setting. From opset 10, a model whose values need more
//    than one chunk runs once instead, fetching two small probes of each value (its
//    Shape, and an empty Slice of it that has its element type: expose_values.py
//    --probes); --no-probes fetches the chunks. A model with no symbolic or dynamic
//    input dim has a single setting.
//    Inputs: float in [-1, 1), integers in [0, 16), bool random (as compare_models.js).
// 3. `onnxopt info --shapes --json MODEL` (or --shapes-json FILE, for self-tests) gives
//    onnxopt's claims: {"values": {NAME: {"elem_type": INT, "shape": DIMS}}}, DIMS null
//    (unknown rank) or a list of int | null | expression string (tests/shapes/sym_expr.js).
// 4. Comparison, per setting, for every main-graph value (inputs: the fed tensors;
//    initializers: their dims in the file; node outputs: the runtime tensors):
//    - rank, when onnxopt's shape is a list;
//    - each dim that onnxopt reports as an integer, or as an expression whose symbols
//      all have a value at this setting: it must evaluate to the runtime dim (an
//      expression that cannot be evaluated -- inexact `/`, division by zero -- is a
//      mismatch);
//    - elem_type, when onnxopt reports one.
//    Symbol values: SPEC's values for the inputs' dim_params; besides, an input dim
//    that onnxopt reports as a bare symbol takes the fed size (so a renamed symbol is
//    still checked, and a symbol reported for two input dims of different sizes is a
//    mismatch). Symbols onnxopt invents (NonZero's count...) are not assigned by the
//    setting; but a bare occurrence binds one to the runtime size at its first
//    occurrence (in node order), and every other dim using it is then checked too
//    ("fresh-symbol checks": onnxopt claimed those dims equal).
//
// SPEC: comma-separated `symbol=value` (dim_param names of the inputs) and
// `input:axis=value` (an input dim without dim_param). Unassigned symbols get distinct
// defaults (setting k: 2+k, 3+k, 5+k, 7+k, ...; anonymous dims like symbols). Without
// --setting the two default settings are used (one when the model has no symbolic dim).
//
// Report: per setting the checks, then one line
//   SUMMARY <model> values=N fully_known=P% fully_checked=P% dims_checked=N
//           fresh_checked=N mismatches=N missing=N
// values: main-graph values observed at run time; fully_known: share of them whose shape
// onnxopt reports with a known rank and every dim known (integer or expression);
// fully_checked: share whose every dim was checked at every setting; missing: observed
// values absent from onnxopt's JSON (the format requires every value).
// --report FILE writes the same numbers and every mismatch as JSON.
//
// Exit codes: 0 no mismatch; 1 a mismatch, a value missing from onnxopt's JSON, or a
// dim onnxopt reports that cannot be parsed; 2 usage error, or the model or onnxopt
// cannot run.
'use strict';

const { mulberry32 } = require('../ort/prng');

const path = require('path');
const fs = require('fs');
const os = require('os');
const { spawnSync } = require('child_process');
const symExpr = require('./sym_expr.js');

const EXIT_OK = 0;
const EXIT_MISMATCH = 1;
const EXIT_USAGE = 2;

// onnxruntime-node type names -> ONNX TensorProto.DataType.
const ORT_TYPE_TO_ONNX = {
  float32: 1, uint8: 2, int8: 3, uint16: 4, int16: 5, int32: 6, int64: 7, string: 8, bool: 9,
  float16: 10, float64: 11, uint32: 12, uint64: 13,
};
const ELEM_SIZE = { 1: 4, 2: 1, 3: 1, 4: 2, 5: 2, 6: 4, 7: 8, 8: 16, 9: 1, 10: 2, 11: 8, 12: 4, 13: 8 };

class CheckError extends Error {
  constructor(code, message) {
    super(message);
    this.code = code;
  }
}

function usage(message) {
  const text = 'usage: node check_shapes_with_ort.js MODEL --onnxopt EXE [--setting SPEC ...] [--seed N]\n' +
      '       [--threads 1] [--chunk-mb 1024] [--no-probes] [--shapes-json FILE] [--report FILE] [--verbose]';
  return new CheckError(EXIT_USAGE, message ? `${message}\n${text}` : text);
}

function parseArgs(argv) {
  const opts = { model: null, onnxopt: null, settings: [], seed: 0, threads: 1, chunkMb: 1024,
    shapesJson: null, report: null, verbose: false, python: process.env.ONNXOPT_PYTHON || '/usr/bin/python3',
    keepTmp: false, noProbes: false };
  for (let i = 0; i < argv.length; ++i) {
    const arg = argv[i];
    const next = () => {
      if (i + 1 >= argv.length) throw usage(`${arg} needs a value`);
      return argv[++i];
    };
    switch (arg) {
      case '--onnxopt': opts.onnxopt = next(); break;
      case '--setting': opts.settings.push(parseSetting(next())); break;
      case '--seed': opts.seed = Number(next()); break;
      case '--threads': opts.threads = Number(next()); break;
      case '--chunk-mb': opts.chunkMb = Number(next()); break;
      case '--shapes-json': opts.shapesJson = next(); break;
      case '--report': opts.report = next(); break;
      case '--python': opts.python = next(); break;
      case '--keep-tmp': opts.keepTmp = true; break;
      case '--no-probes': opts.noProbes = true; break;
      case '--verbose': opts.verbose = true; break;
      case '-h': case '--help': throw usage();
      default:
        if (arg.startsWith('--')) throw usage(`unknown option '${arg}'`);
        if (opts.model) throw usage('expected one model');
        opts.model = arg;
    }
  }
  if (!opts.model) throw usage('no model');
  if (!opts.onnxopt && !opts.shapesJson) throw usage('--onnxopt EXE (or --shapes-json FILE) is required');
  for (const k of ['seed', 'threads', 'chunkMb']) {
    if (!Number.isFinite(opts[k]) || opts[k] < 0) throw usage(`invalid --${k}`);
  }
  return opts;
}

// "batch=2,seq=5,x:2=64" -> Map
function parseSetting(spec) {
  const m = new Map();
  for (const part of spec.split(',').filter((s) => s.length)) {
    const eq = part.lastIndexOf('=');
    if (eq <= 0 || !/^\d+$/.test(part.slice(eq + 1))) throw usage(`--setting: bad item '${part}'`);
    m.set(part.slice(0, eq), Number(part.slice(eq + 1)));
  }
  return m;
}


function makeTensor(ort, type, shape, rand) {
  const size = shape.reduce((a, b) => a * b, 1);
  switch (type) {
    case 'float32': case 'float64': {
      const data = type === 'float32' ? new Float32Array(size) : new Float64Array(size);
      for (let i = 0; i < size; ++i) data[i] = rand() * 2 - 1;
      return new ort.Tensor(type, data, shape);
    }
    case 'float16': {
      // Values in [-1, 1) as half bits: sign | exponent 0x3800-ish range; keep it simple:
      // random mantissa with exponents 10..14 (|x| in [2^-5, 1)).
      const data = new Uint16Array(size);
      for (let i = 0; i < size; ++i) {
        const exp = 10 + Math.floor(rand() * 5);
        data[i] = (rand() < 0.5 ? 0x8000 : 0) | (exp << 10) | Math.floor(rand() * 1024);
      }
      return new ort.Tensor('float16', data, shape);
    }
    case 'int64': case 'uint64': {
      const data = type === 'int64' ? new BigInt64Array(size) : new BigUint64Array(size);
      for (let i = 0; i < size; ++i) data[i] = BigInt(Math.floor(rand() * 16));
      return new ort.Tensor(type, data, shape);
    }
    case 'int32': case 'int16': case 'int8': case 'uint32': case 'uint16': case 'uint8': {
      const ctor = { int32: Int32Array, int16: Int16Array, int8: Int8Array, uint32: Uint32Array,
        uint16: Uint16Array, uint8: Uint8Array }[type];
      const data = new ctor(size);
      for (let i = 0; i < size; ++i) data[i] = Math.floor(rand() * 16);
      return new ort.Tensor(type, data, shape);
    }
    case 'bool': {
      const data = new Uint8Array(size);
      for (let i = 0; i < size; ++i) data[i] = rand() < 0.5 ? 1 : 0;
      return new ort.Tensor('bool', data, shape);
    }
    case 'string': {
      const data = new Array(size);
      for (let i = 0; i < size; ++i) data[i] = `s${Math.floor(rand() * 16)}`;
      return new ort.Tensor('string', data, shape);
    }
    default:
      throw new CheckError(EXIT_USAGE, `input type ${type} cannot be fed from JavaScript`);
  }
}

function runPython(opts, args) {
  const r = spawnSync(opts.python, [path.join(__dirname, 'expose_values.py'), ...args],
      { encoding: 'utf8', maxBuffer: 1 << 30 });
  if (r.status !== 0) {
    throw new CheckError(EXIT_USAGE, `expose_values.py failed (${r.status}): ${r.stderr || r.error}`);
  }
  return JSON.parse(r.stdout);
}

function readOnnxoptShapes(opts) {
  let text;
  if (opts.shapesJson) {
    text = fs.readFileSync(opts.shapesJson, 'utf8');
  } else {
    const t0 = Date.now();
    const r = spawnSync(opts.onnxopt, ['info', '--shapes', opts.model, '--json'],
        { encoding: 'utf8', maxBuffer: 1 << 30 });
    if (r.status !== 0) {
      throw new CheckError(EXIT_USAGE,
          `onnxopt info --shapes --json exited with ${r.status}${r.signal ? ` (${r.signal})` : ''}: ` +
          `${(r.stderr || String(r.error || '')).slice(0, 2000)}`);
    }
    text = r.stdout;
    console.log(`onnxopt info --shapes --json: ${Date.now() - t0} ms`);
  }
  let doc;
  try {
    doc = JSON.parse(text);
  } catch (err) {
    throw new CheckError(EXIT_MISMATCH, `onnxopt's output is not JSON: ${err.message}`);
  }
  if (!doc || typeof doc.values !== 'object' || doc.values === null) {
    throw new CheckError(EXIT_MISMATCH, 'onnxopt\'s JSON has no "values" object');
  }
  return doc;
}

// Symbol values for one setting: named dims from the spec or defaults.
const DEFAULT_BASE = [2, 3, 5, 7, 11, 13, 17, 19, 23, 29, 31, 37];
function resolveSetting(meta, spec, index) {
  const values = new Map();
  const shapes = new Map();
  let next = 0;
  const fallback = () => DEFAULT_BASE[next++ % DEFAULT_BASE.length] + index;
  for (const inp of meta.inputs) {
    if (inp.dims === null) throw new CheckError(EXIT_USAGE, `input '${inp.name}' has no shape: cannot choose its dims`);
    shapes.set(inp.name, inp.dims.map((d, axis) => {
      if (typeof d === 'number') return d;
      const key = typeof d === 'string' ? d : `${inp.name}:${axis}`;
      if (!values.has(key)) values.set(key, spec && spec.has(key) ? spec.get(key) : fallback());
      return values.get(key);
    }));
  }
  if (spec) {
    for (const k of spec.keys()) {
      if (!values.has(k)) throw new CheckError(EXIT_USAGE, `--setting: '${k}' is not a symbolic dim of an input`);
    }
  }
  return { values, shapes };
}

function estimateBytes(meta, settingValues) {
  if (!meta || !meta.isTensor || !Array.isArray(meta.shape)) return 64 << 20;
  let n = 1;
  for (const d of meta.shape) {
    if (typeof d === 'number' && d >= 0) n *= d;
    else if (typeof d === 'string' && settingValues.has(d)) n *= settingValues.get(d);
    else n *= 8;  // unknown (often a batch-like product): a guess, only for chunking
  }
  return n * (ELEM_SIZE[ORT_TYPE_TO_ONNX[meta.type]] || 8);
}

function fmtDim(d) {
  return d === null ? 'null' : typeof d === 'string' ? JSON.stringify(d) : String(d);
}

async function main() {
  const opts = parseArgs(process.argv.slice(2));
  const modelName = path.basename(opts.model);
  let ort;
  try {
    ort = require('onnxruntime-node');
  } catch (err) {
    throw new CheckError(EXIT_USAGE, `cannot load onnxruntime-node: ${err.message}`);
  }
  const tmp = fs.mkdtempSync(path.join(process.env.TMPDIR || os.tmpdir(), 'onnxopt-shapes-'));
  try {
    return await check(ort, opts, modelName, tmp);
  } finally {
    if (!opts.keepTmp) fs.rmSync(tmp, { recursive: true, force: true });
    else console.log(`kept ${tmp}`);
  }
}

async function createSession(ort, file, opts) {
  try {
    return await ort.InferenceSession.create(file, {
      graphOptimizationLevel: 'disabled', executionProviders: ['cpu'], logSeverityLevel: 3,
      intraOpNumThreads: opts.threads, interOpNumThreads: 1, executionMode: 'sequential',
      enableCpuMemArena: false,
    });
  } catch (err) {
    throw new CheckError(EXIT_USAGE, `onnxruntime cannot load the exposed model: ${err.message}`);
  }
}

async function check(ort, opts, modelName, tmp) {
  const exposedFile = path.join(tmp, 'exposed.onnx');
  let meta = runPython(opts, [opts.model, exposedFile]);
  let sess = await createSession(ort, exposedFile, opts);
  // Values onnxruntime-node cannot return: expose their Shape instead.
  const outMeta = new Map(sess.outputMetadata.map((m) => [m.name, m]));
  const nonTensor = [];
  const needShapeOf = [];
  for (const name of meta.values) {
    const m = outMeta.get(name);
    if (!m) continue;
    if (!m.isTensor) nonTensor.push(name);
    else if (!(m.type in ORT_TYPE_TO_ONNX)) needShapeOf.push(name);
  }
  if (needShapeOf.length) {
    console.log(`${needShapeOf.length} value(s) of types onnxruntime-node cannot return, checked through Shape(): ` +
        needShapeOf.slice(0, 10).join(', ') + (needShapeOf.length > 10 ? ', ...' : ''));
    await sess.release();
    meta = runPython(opts, [opts.model, exposedFile, ...needShapeOf.flatMap((n) => ['--shape-of', n])]);
    sess = await createSession(ort, exposedFile, opts);
  }
  if (nonTensor.length) console.log(`not checked (not tensors): ${nonTensor.join(', ')}`);
  const outMeta2 = new Map(sess.outputMetadata.map((m) => [m.name, m]));

  const claims = readOnnxoptShapes(opts);
  const nDiag = Array.isArray(claims.diagnostics) ? claims.diagnostics.length : 0;
  if (nDiag) console.log(`onnxopt reports ${nDiag} diagnostic(s)` + (opts.verbose ? `: ${JSON.stringify(claims.diagnostics)}` : ''));

  // Settings.
  const hasSymbolic = meta.inputs.some((i) => i.dims && i.dims.some((d) => typeof d !== 'number'));
  let specs = opts.settings;
  if (!specs.length) specs = hasSymbolic ? [new Map(), new Map()] : [new Map()];
  if (!hasSymbolic && specs.length > 1) {
    console.log('note: no symbolic or dynamic input dim: one setting is enough');
    specs = [specs[0]];
  }

  const stats = { model: modelName, values: 0, fully_known: 0, fully_checked: 0, dims_checked: 0,
    fresh_checked: 0, mismatches: 0, missing: 0, unparseable: 0, settings: [], problems: [] };
  const problem = (kind, text) => {
    if (kind === 'mismatch') stats.mismatches++;
    else if (kind === 'missing') stats.missing++;
    else stats.unparseable++;
    stats.problems.push({ kind, text });
    console.log(`${kind.toUpperCase()} ${text}`);
  };

  const initNames = new Set(meta.initializers.map((t) => t.name));
  const inputsNoInit = meta.inputs.filter((i) => !initNames.has(i.name));
  const fetchable = meta.values.filter((n) => !nonTensor.includes(n));
  const perValueChecked = new Map();  // name -> every dim checked at every setting so far
  let valueNames = null;

  // Parsed claims, cached.
  const parsed = new Map();
  function claimDims(name) {
    if (parsed.has(name)) return parsed.get(name);
    const c = claims.values[name];
    let res = null;
    if (c && Array.isArray(c.shape)) {
      res = c.shape.map((d, axis) => {
        if (d === null) return { text: null };
        if (typeof d === 'number') return { text: d, ast: { kind: 'int', value: BigInt(d) } };
        try {
          return { text: d, ast: symExpr.parse(d) };
        } catch (err) {
          problem('unparseable', `${name}[${axis}]: onnxopt's dim ${JSON.stringify(d)}: ${err.message}`);
          return { text: d, bad: true };
        }
      });
    }
    parsed.set(name, res);
    return res;
  }

  // Settings and their inputs (same seed: same inputs for every chunk).
  const settings = specs.map((spec, si) => {
    const setting = resolveSetting({ inputs: inputsNoInit }, spec, si);
    setting.label = hasSymbolic ? [...setting.values].map(([k, v]) => `${k}=${v}`).join(',') : 'static';
    return setting;
  });
  const maxValues = new Map();
  for (const st of settings) {
    for (const [k, v] of st.values) maxValues.set(k, Math.max(v, maxValues.get(k) || 0));
  }
  // Chunks of node outputs, at most --chunk-mb of estimated bytes each (estimates from
  // onnxruntime's output metadata, only used to bound the memory).
  const budget = opts.chunkMb * 1024 * 1024;
  let chunks = [];
  {
    let cur = [];
    let curBytes = 0;
    for (const name of fetchable) {
      const fetchName = meta.shape_of[name] || name;
      const b = meta.shape_of[name] ? 64 : estimateBytes(outMeta2.get(fetchName), maxValues);
      if (cur.length && curBytes + b > budget) {
        chunks.push(cur);
        cur = [];
        curBytes = 0;
      }
      cur.push(name);
      curBytes += b;
    }
    if (cur.length) chunks.push(cur);
  }
  const shapeOfArgs = Object.keys(meta.shape_of).flatMap((n) => ['--shape-of', n]);
  // Values that do not fit in one chunk: from opset 10 (Slice with inputs), one run
  // fetches small probes of every value instead (expose_values.py --probes: its shape,
  // and an empty tensor of its element type), so that the model runs once instead of
  // once per chunk (llama_forward: 1 run instead of 6).
  const probing = chunks.length > 1 && meta.opset >= 10 && !opts.noProbes;
  if (probing) {
    chunks = [fetchable];
    await sess.release();
    const list = path.join(tmp, 'probes.txt');
    fs.writeFileSync(list, fetchable.join('\n') + '\n');
    meta = runPython(opts, [opts.model, exposedFile, '--probes', list, ...shapeOfArgs]);
    sess = await createSession(ort, exposedFile, opts);
  }
  const runtimes = settings.map(() => new Map());  // per setting: name -> { type, dims }
  const inputMeta = new Map(sess.inputMetadata.map((m) => [m.name, m]));
  const tRun = Date.now();
  for (let ci = 0; ci < chunks.length; ++ci) {
    // onnxruntime-node 1.23 labels the results of run(feeds, fetches) with the first
    // output names instead of the fetched ones: each chunk has its own model instead
    // (also without the non-tensor values, which onnxruntime-node cannot return).
    if (!probing && (chunks.length > 1 || nonTensor.length)) {
      await sess.release();
      const list = path.join(tmp, 'chunk.txt');
      fs.writeFileSync(list, chunks[ci].join('\n') + '\n');
      runPython(opts, [opts.model, exposedFile, '--only', list, ...shapeOfArgs]);
      sess = await createSession(ort, exposedFile, opts);
    }
    for (let si = 0; si < settings.length; ++si) {
      const setting = settings[si];
      const runtime = runtimes[si];
      const rand = mulberry32(opts.seed + si);
      const feeds = {};
      for (const inp of inputsNoInit) {
        const m = inputMeta.get(inp.name);
        if (!m) continue;  // an input onnxruntime does not list
        const shape = setting.shapes.get(inp.name);
        feeds[inp.name] = makeTensor(ort, m.type, shape, rand);
        runtime.set(inp.name, { type: ORT_TYPE_TO_ONNX[m.type] || inp.elem_type, dims: shape });
      }
      for (const t of meta.initializers) {
        if (!runtime.has(t.name)) runtime.set(t.name, { type: t.elem_type, dims: t.dims });
      }
      let res;
      try {
        res = await sess.run(feeds);
      } catch (err) {
        throw new CheckError(EXIT_USAGE, `onnxruntime fails to run ${modelName} at setting ${setting.label}: ${err.message}`);
      }
      for (const name of chunks[ci]) {
        const shapeOf = meta.shape_of[name];
        const probe = meta.probes && meta.probes[name];
        const t = res[shapeOf || (probe && probe.shape) || name];
        if (!t) continue;
        if (shapeOf) runtime.set(name, { type: null, dims: Array.from(t.data, (x) => Number(x)) });
        else if (probe) {
          const empty = res[probe.type];
          runtime.set(name, { type: (empty && ORT_TYPE_TO_ONNX[empty.type]) || null, dims: Array.from(t.data, (x) => Number(x)) });
        } else runtime.set(name, { type: ORT_TYPE_TO_ONNX[t.type] || null, dims: t.dims.slice() });
      }
      res = null;
    }
  }
  await sess.release();
  console.log(`onnxruntime: ${fetchable.length} values, ${settings.length} setting(s), ` +
      (probing ? 'fetched through probes, ' : `${chunks.length} chunk(s), `) +
      `${Date.now() - tRun} ms`);

  for (let si = 0; si < settings.length; ++si) {
    const setting = settings[si];
    const label = setting.label;
    const runtime = runtimes[si];
    console.log(`setting ${si}: ${label}`);
    if (valueNames === null) {
      valueNames = [...runtime.keys()];
      stats.values = valueNames.length;
      for (const name of valueNames) {
        const c = claims.values[name];
        if (!c) {
          problem('missing', `${name}: observed at run time, absent from onnxopt's JSON`);
          continue;
        }
        const dims = claimDims(name);
        if (dims && dims.every((d) => d.text !== null)) stats.fully_known++;
        perValueChecked.set(name, true);
      }
    }

    // Symbol bindings: the setting, then input dims that onnxopt reports as bare symbols.
    const bind = new Map(setting.values);
    const bindSource = new Map();
    const fresh = new Set();
    for (const inp of inputsNoInit) {
      const dims = claimDims(inp.name);
      const rt = runtime.get(inp.name);
      if (!dims || !rt || dims.length !== rt.dims.length) continue;
      dims.forEach((d, axis) => {
        if (d.ast && d.ast.kind === 'sym' && !bind.has(d.ast.name)) {
          bind.set(d.ast.name, rt.dims[axis]);
          bindSource.set(d.ast.name, `${inp.name}[${axis}]`);
        }
      });
    }
    // Fresh symbols: bound at their first bare occurrence among node outputs.
    const bindingSites = new Set();
    for (const name of valueNames) {
      const dims = claimDims(name);
      const rt = runtime.get(name);
      if (!dims || !rt || dims.length !== rt.dims.length) continue;
      dims.forEach((d, axis) => {
        if (d.ast && d.ast.kind === 'sym' && !bind.has(d.ast.name)) {
          bind.set(d.ast.name, rt.dims[axis]);
          bindSource.set(d.ast.name, `${name}[${axis}]`);
          fresh.add(d.ast.name);
          bindingSites.add(`${name}\u0000${axis}`);
        }
      });
    }
    if (fresh.size && opts.verbose) {
      console.log(`  fresh symbols bound at run time: ${[...fresh].map((s) => `${s}=${bind.get(s)} (${bindSource.get(s)})`).join(', ')}`);
    }

    const srec = { label, dims_checked: 0, fresh_checked: 0, mismatches: 0 };
    const before = stats.mismatches;
    for (const name of valueNames) {
      const c = claims.values[name];
      const rt = runtime.get(name);
      if (!c) continue;
      if (c.elem_type !== undefined && c.elem_type !== null && rt.type !== null && c.elem_type !== rt.type) {
        problem('mismatch', `${name}: elem_type onnxopt ${c.elem_type}, runtime ${rt.type} (setting ${label})`);
      }
      const dims = claimDims(name);
      if (!dims) {
        perValueChecked.set(name, false);
        continue;
      }
      if (dims.length !== rt.dims.length) {
        problem('mismatch', `${name}: rank onnxopt ${dims.length} [${dims.map((d) => fmtDim(d.text)).join(', ')}], ` +
            `runtime ${rt.dims.length} [${rt.dims.join(', ')}] (setting ${label})`);
        perValueChecked.set(name, false);
        continue;
      }
      let all = true;
      dims.forEach((d, axis) => {
        if (!d.ast) {
          all = false;
          return;
        }
        if (bindingSites.has(`${name}\u0000${axis}`)) {
          all = false;
          return;
        }
        const r = symExpr.evaluate(d.ast, bind);
        if (!r.ok && r.reason === 'unassigned') {
          all = false;
          return;
        }
        const usesFresh = [...symExpr.symbols(d.ast)].some((s) => fresh.has(s));
        if (usesFresh) {
          stats.fresh_checked++;
          srec.fresh_checked++;
        } else {
          stats.dims_checked++;
          srec.dims_checked++;
        }
        if (!r.ok) {
          problem('mismatch', `${name}[${axis}]: onnxopt ${fmtDim(d.text)} cannot be evaluated (${r.reason}), ` +
              `runtime ${rt.dims[axis]} (setting ${label})`);
        } else if (r.value !== BigInt(rt.dims[axis])) {
          const how = usesFresh ? ` [fresh symbols bound at ${[...symExpr.symbols(d.ast)].filter((s) => fresh.has(s))
              .map((s) => `${s}: ${bindSource.get(s)}=${bind.get(s)}`).join(', ')}]` : '';
          problem('mismatch', `${name}[${axis}]: onnxopt ${fmtDim(d.text)} = ${r.value}, runtime ${rt.dims[axis]} ` +
              `(setting ${label})${how}`);
        }
        if (usesFresh) all = false;
      });
      if (!all) perValueChecked.set(name, false);
    }
    srec.mismatches = stats.mismatches - before;
    stats.settings.push(srec);
    console.log(`  checked ${srec.dims_checked} dims (+${srec.fresh_checked} through fresh symbols), ` +
        `${srec.mismatches} mismatch(es)`);
  }

  stats.fully_checked = [...perValueChecked.values()].filter((v) => v).length;
  const pct = (n) => (stats.values ? (100 * n / stats.values).toFixed(1) : '0.0');
  const extra = Object.keys(claims.values).filter((n) => !valueNames.includes(n));
  if (extra.length) {
    console.log(`note: ${extra.length} name(s) in onnxopt's JSON are not observed main-graph values: ` +
        extra.slice(0, 10).join(', ') + (extra.length > 10 ? ', ...' : ''));
  }
  console.log(`SUMMARY ${modelName} values=${stats.values} fully_known=${pct(stats.fully_known)}% ` +
      `fully_checked=${pct(stats.fully_checked)}% dims_checked=${stats.dims_checked} ` +
      `fresh_checked=${stats.fresh_checked} mismatches=${stats.mismatches} missing=${stats.missing}` +
      (stats.unparseable ? ` unparseable=${stats.unparseable}` : ''));
  if (opts.report) fs.writeFileSync(opts.report, JSON.stringify(stats, null, 1));
  const ok = stats.mismatches === 0 && stats.missing === 0 && stats.unparseable === 0;
  console.log(ok ? `PASS: ${modelName}` : `FAIL: ${modelName}`);
  return ok ? EXIT_OK : EXIT_MISMATCH;
}

main().then(
    (code) => { process.exitCode = code; },
    (err) => {
      if (err instanceof CheckError) {
        console.error(`check_shapes_with_ort: ${err.message}`);
        process.exitCode = err.code;
      } else {
        console.error(`check_shapes_with_ort: internal error: ${err && err.stack ? err.stack : err}`);
        process.exitCode = EXIT_USAGE;
      }
    });
