// mulberry32: a small, fast, seedable 32-bit PRNG, deterministic across platforms, shared
// by the onnxruntime harnesses so that a seed means the same inputs everywhere.
'use strict';

function mulberry32(seed) {
  let a = seed >>> 0;
  return function next() {
    a = (a + 0x6D2B79F5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

module.exports = { mulberry32 };
