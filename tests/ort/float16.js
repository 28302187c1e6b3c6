// IEEE float16 <-> float32 for the onnxruntime harnesses: onnxruntime-node exchanges
// float16 tensors as Uint16Array bit patterns.
'use strict';

// float32 -> IEEE half bits (round to nearest even).
const f32Buf = new Float32Array(1);
const u32Buf = new Uint32Array(f32Buf.buffer);
function floatToHalfBits(value) {
  f32Buf[0] = value;
  const x = u32Buf[0];
  const sign = (x >>> 16) & 0x8000;
  const exp = (x >>> 23) & 0xff;
  let mant = x & 0x7fffff;
  if (exp === 0xff) return sign | 0x7c00 | (mant ? 0x200 : 0);
  let e = exp - 127 + 15;
  if (e >= 0x1f) return sign | 0x7c00;
  if (e <= 0) {
    if (e < -10) return sign;
    mant |= 0x800000;
    const shift = 14 - e;
    let half = mant >>> shift;
    const rem = mant & ((1 << shift) - 1);
    const halfway = 1 << (shift - 1);
    if (rem > halfway || (rem === halfway && (half & 1))) half += 1;
    return sign | half;
  }
  let half = (e << 10) | (mant >>> 13);
  const rem = mant & 0x1fff;
  if (rem > 0x1000 || (rem === 0x1000 && (half & 1))) half += 1;  // may carry into exp: fine
  return sign | half;
}

function decodeHalfBits(h) {
  const sign = h & 0x8000 ? -1 : 1;
  const exp = (h >>> 10) & 0x1f;
  const mant = h & 0x3ff;
  if (exp === 0) return sign * mant * 2 ** -24;
  if (exp === 0x1f) return mant ? NaN : sign * Infinity;
  return sign * (1 + mant / 1024) * 2 ** (exp - 15);
}

// Every bit pattern decoded once: the comparisons read hundreds of millions of float16
// elements (llama_forward's outputs), and decoding each with a power took a minute.
const HALF_TO_FLOAT = new Float64Array(65536);
for (let h = 0; h < 65536; ++h) HALF_TO_FLOAT[h] = decodeHalfBits(h);

// IEEE half bits -> number.
function halfBitsToFloat(h) {
  return HALF_TO_FLOAT[h];
}

module.exports = { floatToHalfBits, halfBitsToFloat };
