#!/usr/bin/env node
// Self-test of sym_expr.js: random expressions (integers, symbols -- plain, dotted and
// backquoted --, + - * / // %, unary minus, parentheses) evaluated at random points must
// give what Python gives (/usr/bin/python3, or ONNXOPT_PYTHON), including the errors
// (division by zero, inexact exact division). Exit 0 on agreement, 1 otherwise.
'use strict';
const { spawnSync } = require('child_process');
const symExpr = require('./sym_expr.js');

function mulberry32(seed) {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6D2B79F5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}
const rand = mulberry32(7);
const pick = (xs) => xs[Math.floor(rand() * xs.length)];
// text in the expression, Python identifier used for evaluation
const SYMS = [['a', 'a'], ['b', 'b'], ['p2o.D.0', 'c'], ['`x y`', 'd'], ['`q``r`', 'e']];
// Each case: [our text, Python text]. In the Python text integers are I(n) -- an int
// subclass whose operators keep the class -- and exact division is `@` (same precedence
// and associativity as * // %; I.__matmul__ divides exactly), so both sides parse the
// same expression with the same precedence.
function gen(depth) {
  if (depth === 0 || rand() < 0.3) {
    if (rand() < 0.5) {
      const n = String(Math.floor(rand() * 10));
      return [n, `I(${n})`];
    }
    return pick(SYMS);
  }
  const r = rand();
  const [t, p] = gen(depth - 1);
  if (r < 0.1) return [`-${t}`, `-${p}`];
  if (r < 0.25) return [`(${t})`, `(${p})`];
  const op = pick(['+', '-', '*', '//', '%', '/']);
  const [t2, p2] = gen(depth - 1);
  return [`${t}${op}${t2}`, `${p}${op === '/' ? '@' : op}${p2}`];
}
const cases = [];
for (let i = 0; i < 3000; ++i) {
  const [text, py] = gen(4);
  const values = { a: Math.floor(rand() * 15) - 5, b: Math.floor(rand() * 9) + 1,
    c: Math.floor(rand() * 11) - 3, d: Math.floor(rand() * 20), e: Math.floor(rand() * 7) - 3 };
  cases.push({ text, py, values });
}
const script = `
import json, sys
class Inexact(Exception): pass
class I(int):
    def __add__(s, o): return I(int(s) + int(o))
    __radd__ = __add__
    def __sub__(s, o): return I(int(s) - int(o))
    def __rsub__(s, o): return I(int(o) - int(s))
    def __mul__(s, o): return I(int(s) * int(o))
    __rmul__ = __mul__
    def __floordiv__(s, o): return I(int(s) // int(o))
    def __rfloordiv__(s, o): return I(int(o) // int(s))
    def __mod__(s, o): return I(int(s) % int(o))
    def __rmod__(s, o): return I(int(o) % int(s))
    def __neg__(s): return I(-int(s))
    def __pos__(s): return s
    def __matmul__(s, o):
        a, b = int(s), int(o)
        if b == 0: raise ZeroDivisionError
        if a % b: raise Inexact
        return I(a // b)
    def __rmatmul__(s, o): return I(o) @ s
out = []
for c in json.load(sys.stdin):
    env = {k: I(v) for k, v in c["values"].items()}
    env["I"] = I
    try: out.append(str(int(eval(c["py"], env))))
    except (ZeroDivisionError, Inexact): out.append(None)
json.dump(out, sys.stdout)
`;
const python = process.env.ONNXOPT_PYTHON || '/usr/bin/python3';
const filtered = cases;  // every case
const r = spawnSync(python, ['-c', script], { input: JSON.stringify(filtered), encoding: 'utf8' });
if (r.status !== 0) {
  console.error(`python failed: ${r.stderr}`);
  process.exit(2);
}
const expected = JSON.parse(r.stdout);
const names = new Map([['a', 'a'], ['b', 'b'], ['c', 'p2o.D.0'], ['d', 'x y'], ['e', 'q`r']]);
let bad = 0;
let errors = 0;
filtered.forEach((c, i) => {
  const values = new Map(Object.entries(c.values).map(([k, v]) => [names.get(k), v]));
  const got = symExpr.evaluate(symExpr.parse(c.text), values);
  const want = expected[i];
  if (want === null) {
    errors++;
    if (got.ok) { bad++; if (bad < 10) console.log(`expected an error: ${c.text} at ${JSON.stringify(c.values)}, got ${got.value}`); }
  } else if (!got.ok || String(got.value) !== want) {
    bad++;
    if (bad < 10) console.log(`${c.text} at ${JSON.stringify(c.values)}: python ${want}, got ${got.ok ? got.value : got.reason}`);
  }
});
console.log(`sym_expr: ${filtered.length} expressions (${errors} errors expected), ${bad} disagreement(s)`);
process.exit(bad ? 1 : 0);
