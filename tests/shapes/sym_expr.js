// Evaluator for the dimension expressions of `onnxopt info --shapes --json`:
// integers, symbol names, + - * // % and exact division /, unary minus, parentheses.
//
// Semantics are Python's: `//` floors, `%` takes the sign of the divisor; `/` is exact
// division (an error when the division leaves a remainder). Precedence as in Python:
// unary minus binds tighter than * / // %, which bind tighter than binary + -; all binary
// operators are left-associative. Arithmetic uses BigInt, so no overflow.
//
// Symbol names: [A-Za-z_][A-Za-z0-9_.]*, or any text between backquotes with a backquote
// inside doubled (onnxopt quotes names that are not identifiers, e.g. PaddlePaddle's
// "`p2o.DynamicDimension.0`"; unquoted dots are tolerated too).
//
//   parse(text)            -> AST (throws SyntaxError on bad input)
//   symbols(ast)           -> Set of symbol names
//   evaluate(ast, values)  -> { ok: true, value: BigInt } | { ok: false, reason }
//                             values: Map name -> BigInt | number; a missing symbol gives
//                             { ok: false, reason: 'unassigned', missing: [...] }
'use strict';

function tokenize(text) {
  const tokens = [];
  let i = 0;
  while (i < text.length) {
    const c = text[i];
    if (c === ' ' || c === '\t') { ++i; continue; }
    if (/[0-9]/.test(c)) {
      let j = i;
      while (j < text.length && /[0-9]/.test(text[j])) ++j;
      tokens.push({ kind: 'int', value: BigInt(text.slice(i, j)) });
      i = j;
      continue;
    }
    if (/[A-Za-z_]/.test(c)) {
      let j = i;
      while (j < text.length && /[A-Za-z0-9_.]/.test(text[j])) ++j;
      tokens.push({ kind: 'sym', name: text.slice(i, j) });
      i = j;
      continue;
    }
    if (c === '`') {
      // quoted name: any characters, a backquote inside is doubled
      let name = '';
      let j = i + 1;
      for (;;) {
        if (j >= text.length) throw new SyntaxError(`unterminated quoted name at ${i} in '${text}'`);
        if (text[j] === '`') {
          if (text[j + 1] === '`') { name += '`'; j += 2; continue; }
          break;
        }
        name += text[j++];
      }
      tokens.push({ kind: 'sym', name });
      i = j + 1;
      continue;
    }
    if (c === '/' && text[i + 1] === '/') { tokens.push({ kind: 'op', op: '//' }); i += 2; continue; }
    if ('+-*/%()'.includes(c)) { tokens.push({ kind: 'op', op: c }); ++i; continue; }
    throw new SyntaxError(`unexpected character '${c}' at ${i} in '${text}'`);
  }
  return tokens;
}

function parse(text) {
  if (typeof text !== 'string') throw new SyntaxError(`expression is not a string: ${JSON.stringify(text)}`);
  const tokens = tokenize(text);
  let pos = 0;
  const peek = () => tokens[pos];
  const isOp = (t, ops) => t && t.kind === 'op' && ops.includes(t.op);
  function primary() {
    const t = tokens[pos++];
    if (!t) throw new SyntaxError(`unexpected end of '${text}'`);
    if (t.kind === 'int') return { kind: 'int', value: t.value };
    if (t.kind === 'sym') return { kind: 'sym', name: t.name };
    if (isOp(t, ['('])) {
      const e = sum();
      if (!isOp(tokens[pos++], [')'])) throw new SyntaxError(`missing ')' in '${text}'`);
      return e;
    }
    throw new SyntaxError(`unexpected '${t.op}' in '${text}'`);
  }
  function unary() {
    if (isOp(peek(), ['-'])) { ++pos; return { kind: 'neg', arg: unary() }; }
    if (isOp(peek(), ['+'])) { ++pos; return unary(); }
    return primary();
  }
  function product() {
    let e = unary();
    while (isOp(peek(), ['*', '/', '//', '%'])) {
      const op = tokens[pos++].op;
      e = { kind: 'bin', op, a: e, b: unary() };
    }
    return e;
  }
  function sum() {
    let e = product();
    while (isOp(peek(), ['+', '-'])) {
      const op = tokens[pos++].op;
      e = { kind: 'bin', op, a: e, b: product() };
    }
    return e;
  }
  const e = sum();
  if (pos !== tokens.length) throw new SyntaxError(`trailing input in '${text}'`);
  return e;
}

function symbols(ast, out = new Set()) {
  switch (ast.kind) {
    case 'sym': out.add(ast.name); break;
    case 'neg': symbols(ast.arg, out); break;
    case 'bin': symbols(ast.a, out); symbols(ast.b, out); break;
    default: break;
  }
  return out;
}

class EvalError extends Error {}

function floorDiv(a, b) {
  // BigInt division truncates toward zero.
  const q = a / b;
  return (a % b !== 0n && ((a < 0n) !== (b < 0n))) ? q - 1n : q;
}

function pyMod(a, b) {
  const r = a % b;
  return (r !== 0n && ((r < 0n) !== (b < 0n))) ? r + b : r;
}

function evalNode(ast, values) {
  switch (ast.kind) {
    case 'int': return ast.value;
    case 'sym': return BigInt(values.get(ast.name));
    case 'neg': return -evalNode(ast.arg, values);
    case 'bin': {
      const a = evalNode(ast.a, values);
      const b = evalNode(ast.b, values);
      switch (ast.op) {
        case '+': return a + b;
        case '-': return a - b;
        case '*': return a * b;
        case '/':
          if (b === 0n) throw new EvalError('division by zero');
          if (a % b !== 0n) throw new EvalError(`inexact division ${a}/${b}`);
          return a / b;
        case '//':
          if (b === 0n) throw new EvalError('floor division by zero');
          return floorDiv(a, b);
        case '%':
          if (b === 0n) throw new EvalError('modulo by zero');
          return pyMod(a, b);
        default: throw new EvalError(`unknown operator ${ast.op}`);
      }
    }
    default: throw new EvalError(`bad node ${ast.kind}`);
  }
}

function evaluate(ast, values) {
  const missing = [...symbols(ast)].filter((s) => !values.has(s));
  if (missing.length) return { ok: false, reason: 'unassigned', missing };
  try {
    return { ok: true, value: evalNode(ast, values) };
  } catch (err) {
    if (err instanceof EvalError) return { ok: false, reason: err.message };
    throw err;
  }
}

module.exports = { parse, symbols, evaluate, floorDiv, pyMod };
