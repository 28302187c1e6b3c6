#!/usr/bin/env node
// Runs the rewrites the C++ tests exported (ONNXOPT_EXPORT_REWRITES, see
// tests/onnx_extensions/patterns/pattern_test_util.cc) in onnxruntime, an implementation
// independent of our evaluator, and judges each twice:
//   rewrite    onnxruntime's outputs of the graph after the rewrite against its outputs of
//              the graph before, on the inputs the test used: a pattern and our kernels
//              could share a misreading of the spec, onnxruntime does not share it;
//   evaluator  onnxruntime's outputs of the graph before against what our evaluator
//              computed for it in the test.
//
//   node tests/ort/compare_rewrites.js FOLDER [--non-finite] [--allow FILE] [--json]
//
// FOLDER holds one folder per comparison: before.onnx, after.onnx, case.json (test name,
// numerical class, tolerance, inputs and expected outputs as raw little-endian files).
//
// Tolerances: integer and bool outputs must be identical; float outputs match as in
// `onnxopt verify` (per element type), widened to the test's own tolerance when it has one.
// onnxruntime's kernels round differently from ours (and a rewrite may put a fused kernel
// where there were two), so "exact" patterns are not held to bitwise equality here; how
// many cases were bitwise identical is reported.
//
// A case onnxruntime cannot run before the rewrite (an operator or domain it does not
// have, an opset it does not know, a type onnxruntime-node cannot exchange) is counted
// with the first line of onnxruntime's message, not judged. If it can run the graph before
// but not the graph after, the rewrite fails: the user's runtime would refuse the result.
//
// --non-finite: every third element of each float input becomes, in turn, NaN, +inf, -inf,
// -0, 0 or 1.5, and only the rewrite is judged: a pattern of the default set (exact or
// rounding) keeps NaN and infinities where they were; approximate patterns are not judged.
//
// --allow FILE: lines "<case folder or its test name> <why>" for known differences (say, a
// place where onnxruntime departs from the spec); an allowed difference that no longer
// occurs is reported so that the list stays true.
//
// Exit codes: 0 every judged case agrees; 1 a difference or a graph after that fails;
// 2 usage error or nothing to judge.
'use strict';

const fs = require('fs');
const path = require('path');
const { floatToHalfBits } = require('./float16');
const { compareOutput, fmt, tolerancesFor } = require('./output_comparison');

// onnxruntime-node's element type names by ONNX TensorProto.DataType.
const ORT_TYPES = {
  1: 'float32', 2: 'uint8', 3: 'int8', 4: 'uint16', 5: 'int16', 6: 'int32', 7: 'int64', 9: 'bool',
  10: 'float16', 11: 'float64', 12: 'uint32', 13: 'uint64',
};
const TYPED_ARRAYS = {
  float32: Float32Array, uint8: Uint8Array, int8: Int8Array, uint16: Uint16Array, int16: Int16Array,
  int32: Int32Array, int64: BigInt64Array, bool: Uint8Array, float16: Uint16Array, float64: Float64Array,
  uint32: Uint32Array, uint64: BigUint64Array,
};

class UsageError extends Error {}

function parseArgs(argv) {
  const opts = { folder: null, allow: null, json: false, nonFinite: false };
  for (let i = 0; i < argv.length; ++i) {
    const arg = argv[i];
    if (arg === '--json') opts.json = true;
    else if (arg === '--non-finite') opts.nonFinite = true;
    else if (arg === '--allow') {
      opts.allow = argv[++i];
      if (!opts.allow) throw new UsageError('--allow needs a file');
    } else if (arg.startsWith('--')) throw new UsageError(`unknown option '${arg}'`);
    else if (opts.folder === null) opts.folder = arg;
    else throw new UsageError('expected one folder');
  }
  if (opts.folder === null) throw new UsageError('expected a folder');
  return opts;
}

// "<case or test> <why>" lines; # starts a comment.
function readAllowList(file) {
  const allowed = new Map();
  if (!file) return allowed;
  for (const raw of fs.readFileSync(file, 'utf8').split('\n')) {
    const line = raw.replace(/#.*/, '').trim();
    if (!line) continue;
    const space = line.search(/\s/);
    if (space < 0) throw new UsageError(`${file}: "${line}" has no reason`);
    allowed.set(line.slice(0, space), line.slice(space).trim());
  }
  return allowed;
}

// The tensors of case.json (inputs or expected outputs) as onnxruntime tensors, or null
// when one has a type onnxruntime-node cannot exchange.
function readTensors(ort, dir, entries) {
  const tensors = {};
  for (const entry of entries) {
    const type = ORT_TYPES[entry.elem_type];
    if (!type) return null;
    const bytes = fs.readFileSync(path.join(dir, entry.file));
    const ArrayType = TYPED_ARRAYS[type];
    const copy = new Uint8Array(bytes.length);
    copy.set(bytes);
    tensors[entry.name] = new ort.Tensor(type, new ArrayType(copy.buffer, 0, bytes.length / ArrayType.BYTES_PER_ELEMENT),
                                         entry.dims);
  }
  return tensors;
}

// onnxruntime's message without what varies from run to run or says nothing (the model's
// path, the source location of the check).
function firstLine(err) {
  const text = String(err && err.message ? err.message : err);
  return text.split('\n')[0]
      .replace(/^Load model from \S+ failed:/, '')
      .replace(/^\/onnxruntime_src\/\S+ .*?\(\) /, '')
      .replace(/^.*?\] /, '')
      .slice(0, 200);
}

// --non-finite: every third element of each float input becomes, in turn, one of these.
const NON_FINITE_CYCLE = [NaN, Infinity, -Infinity, -0, 0, 1.5];

function withNonFiniteValues(ort, inputs) {
  const out = {};
  for (const [name, tensor] of Object.entries(inputs)) {
    const replace = { float32: (x) => x, float64: (x) => x, float16: floatToHalfBits }[tensor.type];
    if (!replace) {
      out[name] = tensor;
      continue;
    }
    const data = tensor.data.slice();
    for (let i = 0; i < data.length; i += 3) data[i] = replace(NON_FINITE_CYCLE[(i / 3) % NON_FINITE_CYCLE.length]);
    out[name] = new ort.Tensor(tensor.type, data, tensor.dims);
  }
  return out;
}

async function run(ort, file, feeds) {
  const session = await ort.InferenceSession.create(file, {
    graphOptimizationLevel: 'disabled', executionProviders: ['cpu'], logSeverityLevel: 4,
    intraOpNumThreads: 1, interOpNumThreads: 1, executionMode: 'sequential', enableCpuMemArena: false,
  });
  try {
    const wanted = {};
    for (const name of session.inputNames) wanted[name] = feeds[name];
    return await session.run(wanted);
  } finally {
    if (session.release) await session.release();
  }
}

// Compares output maps `a` (reference) and `b`; returns the problems ([] when they agree)
// and whether every output was bitwise identical.
function compareAll(a, b, tolerance) {
  const problems = [];
  let identical = true;
  for (const name of Object.keys(a)) {
    if (!(name in b)) {
      problems.push(`output ${name} is missing`);
      continue;
    }
    // The element type's tolerances of `onnxopt verify`, widened to the test's own.
    const usual = tolerancesFor(a[name].type, {});
    const rec = compareOutput(name, a[name], b[name],
                              { atol: Math.max(tolerance, usual.atol), rtol: Math.max(tolerance, usual.rtol) });
    if (!rec.ok) problems.push(`output ${name} (${rec.type}): ${rec.reason}, max |diff| ${fmt(rec.maxAbsDiff)}`);
    if (rec.maxAbsDiff !== 0 || rec.mismatches) identical = false;
  }
  return { problems, identical };
}

async function judge(ort, dir, opts) {
  const spec = JSON.parse(fs.readFileSync(path.join(dir, 'case.json'), 'utf8'));
  const result = { case: path.basename(dir), test: spec.test, numerics: spec.numerics };
  if (opts.nonFinite && spec.numerics === 'approximate') return { ...result, status: 'approximate' };
  let inputs = readTensors(ort, dir, spec.inputs);
  if (inputs && opts.nonFinite) inputs = withNonFiniteValues(ort, inputs);
  const expected = readTensors(ort, dir, spec.expected);
  if (!inputs) return { ...result, status: 'skipped', why: 'an input type onnxruntime-node cannot exchange' };
  let before;
  try {
    before = await run(ort, path.join(dir, 'before.onnx'), inputs);
  } catch (err) {
    return { ...result, status: 'skipped', why: firstLine(err) };
  }
  let after;
  try {
    after = await run(ort, path.join(dir, 'after.onnx'), inputs);
  } catch (err) {
    return { ...result, status: 'failed', problems: [`onnxruntime runs the graph before but not after: ${firstLine(err)}`] };
  }
  const rewrite = compareAll(before, after, spec.tolerance);
  result.identical = rewrite.identical;
  result.problems = rewrite.problems.map((p) => `rewrite: ${p}`);
  // Our evaluator's outputs, for the outputs onnxruntime-node can hand over (computed on
  // the test's inputs: not with --non-finite).
  if (expected && !opts.nonFinite) {
    const evaluator = compareAll(before, expected, 0);
    result.evaluatorProblems = evaluator.problems.map((p) => `evaluator: ${p}`);
  } else {
    result.evaluatorProblems = [];
  }
  result.status = result.problems.length ? 'failed' : 'agreed';
  return result;
}

async function main() {
  const opts = parseArgs(process.argv.slice(2));
  const ort = require('onnxruntime-node');
  const allowed = readAllowList(opts.allow);
  const cases = fs.existsSync(opts.folder)
    ? fs.readdirSync(opts.folder).filter((name) => fs.existsSync(path.join(opts.folder, name, 'case.json'))).sort()
    : [];
  if (!cases.length) throw new UsageError(`no exported case in ${opts.folder}`);
  const results = [];
  for (const name of cases) results.push(await judge(ort, path.join(opts.folder, name), opts));

  const allowedSeen = new Set();
  let failed = 0;
  for (const r of results) {
    const differs = r.status === 'failed' || (r.status === 'agreed' && r.evaluatorProblems.length);
    const key = allowed.has(r.case) ? r.case : allowed.has(r.test) ? r.test : null;
    if (differs && key) {
      allowedSeen.add(key);
      r.status = 'allowed';
    } else if (differs) {
      r.status = 'failed';
      ++failed;
    }
  }
  const staleAllowances = [...allowed.keys()].filter((key) => !allowedSeen.has(key));

  const count = (status) => results.filter((r) => r.status === status).length;
  const skippedWhy = new Map();  // reason -> cases
  for (const r of results.filter((r) => r.status === 'skipped')) {
    if (!skippedWhy.has(r.why)) skippedWhy.set(r.why, []);
    skippedWhy.get(r.why).push(r.case);
  }
  if (opts.json) {
    console.log(JSON.stringify({ results, staleAllowances }, null, 1));
  } else {
    for (const r of results.filter((r) => r.status === 'failed')) {
      console.log(`FAILED  ${r.case}`);
      for (const p of [...(r.problems || []), ...(r.evaluatorProblems || [])]) console.log(`        ${p}`);
    }
    for (const key of staleAllowances) console.log(`STALE   ${key}: allowed in ${opts.allow}, but agrees now`);
    console.log(`skipped (onnxruntime cannot run the graph before the rewrite): ${count('skipped')}`);
    for (const [why, skipped] of [...skippedWhy].sort((x, y) => y[1].length - x[1].length)) {
      console.log(`  ${String(skipped.length).padStart(4)}  ${why}`);
      for (const name of skipped) console.log(`          ${name}`);
    }
    const agreed = results.filter((r) => r.status === 'agreed');
    if (opts.nonFinite) console.log(`not judged on non-finite inputs (approximate patterns): ${count('approximate')}`);
    const judged = results.length - count('skipped') - count('approximate');
    console.log(`judged ${judged} of ${results.length} exported rewrites${opts.nonFinite ? ' on non-finite inputs' : ''}: ` +
                `${agreed.length} agree (${agreed.filter((r) => r.identical).length} bitwise), ${failed} fail; ` +
                `${count('allowed')} known difference(s) allowed`);
  }
  return failed || staleAllowances.length ? 1 : 0;
}

main().then(
    (code) => { process.exitCode = code; },
    (err) => {
      console.error(`compare_rewrites: ${err instanceof UsageError ? err.message : err && err.stack ? err.stack : err}`);
      process.exitCode = 2;
    });
