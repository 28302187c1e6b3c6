// How the onnxruntime harnesses compare two outputs (onnxruntime-node tensors): the rule of
// `onnxopt verify`, shared by compare_models.js and compare_rewrites.js.
'use strict';

const { halfBitsToFloat } = require('./float16');

// The rule of `onnxopt verify`, symmetric in x and y: NaN matches NaN only, an infinity
// the same infinity only (a tolerance relative to an infinite side would accept
// anything), finite numbers when |x - y| <= atol + rtol * max(|x|, |y|).
function floatsMatch(x, y, atol, rtol) {
  if (Number.isNaN(x) || Number.isNaN(y)) return Number.isNaN(x) && Number.isNaN(y);
  if (!Number.isFinite(x) || !Number.isFinite(y)) return x === y;
  return Math.abs(x - y) <= atol + rtol * Math.max(Math.abs(x), Math.abs(y));
}

function isFloatType(type) {
  return type === 'float32' || type === 'float64' || type === 'float16';
}

let halfTable = null;  // float16 bits -> value
function toNumbers(tensor) {
  if (tensor.type === 'float16' && tensor.data instanceof Uint16Array) {
    if (!halfTable) {
      halfTable = new Float32Array(65536);
      for (let h = 0; h < 65536; ++h) halfTable[h] = halfBitsToFloat(h);
    }
    const bits = tensor.data;
    return { length: bits.length, at: (i) => halfTable[bits[i]], bits };
  }
  return tensor.data;
}

// True when two typed arrays hold the same bytes (fast path for identical outputs).
function sameBytes(x, y) {
  if (!ArrayBuffer.isView(x) || !ArrayBuffer.isView(y) || x.byteLength !== y.byteLength) return false;
  return Buffer.from(x.buffer, x.byteOffset, x.byteLength)
      .equals(Buffer.from(y.buffer, y.byteOffset, y.byteLength));
}

function fmt(x) {
  return Number.isFinite(x) ? x.toExponential(3) : String(x);
}

// The tolerances for an output of element type `type` (see the header).
const DEFAULT_TOLERANCES = { float32: [1e-4, 1e-3], float64: [1e-4, 1e-3], float16: [1e-3, 2e-3] };
function tolerancesFor(type, opts) {
  const [atol, rtol] = DEFAULT_TOLERANCES[type] || DEFAULT_TOLERANCES.float32;
  return { atol: opts.atol ?? atol, rtol: opts.rtol ?? rtol };
}

function describeTolerances(opts) {
  if (opts.atol !== undefined && opts.rtol !== undefined) return `atol ${opts.atol}, rtol ${opts.rtol}`;
  const f32 = tolerancesFor('float32', opts), f16 = tolerancesFor('float16', opts);
  return `atol ${f32.atol}, rtol ${f32.rtol}; float16 atol ${f16.atol}, rtol ${f16.rtol}`;
}

// Compares one output; returns a record { name, ok, maxAbsDiff, mismatches, firstBad, reason }.
function compareOutput(name, ta, tb, opts) {
  const { atol, rtol } = tolerancesFor(ta.type, opts);
  const rec = { name, type: ta.type, shape: ta.dims.slice(), ok: true, maxAbsDiff: 0, mismatches: 0, reason: '' };
  if (ta.type !== tb.type) {
    return { ...rec, ok: false, reason: `type ${ta.type} vs ${tb.type}` };
  }
  if (ta.dims.length !== tb.dims.length || ta.dims.some((d, i) => d !== tb.dims[i])) {
    return { ...rec, ok: false, reason: `shape [${ta.dims}] vs [${tb.dims}]` };
  }
  const a = toNumbers(ta);
  const b = toNumbers(tb);
  if (isFloatType(ta.type)) {
    // How informative the reference output is: a comparison of NaNs, or of values all
    // below atol, cannot see a difference.
    const half = a.bits !== undefined;
    let nonFinite = 0;
    let maxAbs = 0;
    for (let i = 0; i < a.length; ++i) {
      const x = half ? halfTable[a.bits[i]] : a[i];
      if (!Number.isFinite(x)) nonFinite++;
      else if (Math.abs(x) > maxAbs) maxAbs = Math.abs(x);
    }
    rec.nonFinite = nonFinite;
    rec.maxAbs = maxAbs;
    if (a.length > 0 && nonFinite === a.length) rec.warning = 'every element is NaN or infinite';
    else if (a.length > 0 && maxAbs <= atol) rec.warning = `every finite element is within atol of 0 (max |a| ${fmt(maxAbs)})`;
    else if (nonFinite > 0) rec.warning = `${nonFinite}/${a.length} elements are NaN or infinite`;
  }
  if (sameBytes(ta.data, tb.data)) return rec;
  if (isFloatType(ta.type)) {
    const half = a.bits !== undefined;
    for (let i = 0; i < a.length; ++i) {
      const x = half ? halfTable[a.bits[i]] : a[i];
      const y = half ? halfTable[b.bits[i]] : b[i];
      if (x === y) continue;
      if (Number.isNaN(x) && Number.isNaN(y)) continue;
      const diff = Math.abs(x - y);
      const bad = !floatsMatch(x, y, atol, rtol);
      if (Number.isNaN(diff) || diff === Infinity) rec.maxAbsDiff = Infinity;
      else if (diff > rec.maxAbsDiff) rec.maxAbsDiff = diff;
      if (bad) {
        if (rec.mismatches === 0) rec.firstBad = { index: i, a: x, b: y };
        rec.mismatches++;
      }
    }
  } else {
    for (let i = 0; i < a.length; ++i) {
      if (a[i] === b[i]) continue;
      const diff = typeof a[i] === 'bigint' ? Number(a[i] - b[i]) : Math.abs(Number(a[i]) - Number(b[i]));
      if (!Number.isNaN(diff) && Math.abs(diff) > rec.maxAbsDiff) rec.maxAbsDiff = Math.abs(diff);
      if (rec.mismatches === 0) rec.firstBad = { index: i, a: String(a[i]), b: String(b[i]) };
      rec.mismatches++;
    }
  }
  if (rec.mismatches) {
    rec.ok = false;
    const fb = rec.firstBad;
    rec.reason = `${rec.mismatches}/${a.length} elements differ, first at ${fb.index}: ${fb.a} vs ${fb.b}`;
  }
  return rec;
}


module.exports = { floatsMatch, isFloatType, tolerancesFor, describeTolerances, compareOutput, fmt };
