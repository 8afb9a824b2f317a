/**
 * D-Bus type signatures and value checking.
 *
 * Stored values are canonical so that equality is a plain deep compare:
 * - 64-bit integers (`x`, `t`) are always `bigint` (uint64 values exceed 2^53);
 * - the other integer types and `d` are `number`;
 * - `b` is a JS boolean (shown on the wire as 0/1, see `toWire`);
 * - arrays are JS arrays, dicts (`a{..}`) are plain objects with string keys.
 */
import { zip } from './tuples.js';

export type DbusValue = string | number | bigint | boolean | DbusValue[] | { [key: string]: DbusValue };

export type TypeNode =
  | { kind: 'basic'; code: string }
  | { kind: 'variant' }
  | { kind: 'array'; item: TypeNode }
  | { kind: 'dict'; key: TypeNode; value: TypeNode }
  | { kind: 'struct'; fields: TypeNode[] };

const BASIC = new Set(['y', 'n', 'q', 'i', 'u', 'x', 't', 'd', 'b', 's', 'o', 'g', 'h']);

const INT_RANGES: Record<string, [bigint, bigint]> = {
  y: [0n, 255n],
  n: [-32768n, 32767n],
  q: [0n, 65535n],
  i: [-2147483648n, 2147483647n],
  u: [0n, 4294967295n],
  h: [0n, 4294967295n],
  x: [-(2n ** 63n), 2n ** 63n - 1n],
  t: [0n, 2n ** 64n - 1n],
};

const cache = new Map<string, TypeNode>();

/** Parses one complete D-Bus signature (a single complete type). */
export function parseSignature(sig: string): TypeNode {
  const hit = cache.get(sig);
  if (hit) return hit;
  const [node, rest] = parseOne(sig, 0);
  if (rest !== sig.length) throw new Error(`signature ${sig} is not a single complete type`);
  cache.set(sig, node);
  return node;
}

function parseOne(sig: string, at: number): [TypeNode, number] {
  const c = sig[at];
  if (c === undefined) throw new Error(`truncated signature ${sig}`);
  if (BASIC.has(c)) return [{ kind: 'basic', code: c }, at + 1];
  if (c === 'v') return [{ kind: 'variant' }, at + 1];
  if (c === 'a') {
    if (sig[at + 1] === '{') {
      const [key, afterKey] = parseOne(sig, at + 2);
      const [value, afterValue] = parseOne(sig, afterKey);
      if (sig[afterValue] !== '}') throw new Error(`bad dict entry in ${sig}`);
      return [{ kind: 'dict', key, value }, afterValue + 1];
    }
    const [item, after] = parseOne(sig, at + 1);
    return [{ kind: 'array', item }, after];
  }
  if (c === '(') {
    const fields: TypeNode[] = [];
    let i = at + 1;
    while (sig[i] !== ')') {
      const [f, next] = parseOne(sig, i);
      fields.push(f);
      i = next;
    }
    return [{ kind: 'struct', fields }, i + 1];
  }
  throw new Error(`unknown type code ${c} in ${sig}`);
}

export class TypeMismatch extends Error {}

/**
 * Converts a parsed JSON value (numbers may be bigint when above 2^53) into the canonical stored
 * form for `sig`, or throws TypeMismatch. `b` accepts true/false/0/1 because GET shows 0/1 and a
 * GET body must be writable back (rule 2).
 */
export function coerce(sig: string, input: unknown): DbusValue {
  return coerceNode(parseSignature(sig), input, sig);
}

function coerceNode(t: TypeNode, v: unknown, sig: string): DbusValue {
  switch (t.kind) {
    case 'basic':
      return coerceBasic(t.code, v);
    case 'variant':
      return coerceVariant(v);
    case 'array':
      if (!Array.isArray(v)) throw new TypeMismatch(`expected an array for ${sig}`);
      return v.map((item) => coerceNode(t.item, item, sig));
    case 'dict': {
      if (v === null || typeof v !== 'object' || Array.isArray(v)) {
        throw new TypeMismatch(`expected an object for ${sig}`);
      }
      const out: { [k: string]: DbusValue } = {};
      for (const [k, item] of Object.entries(v)) {
        // JSON keys are strings; integer-keyed dicts take the decimal text.
        if (t.key.kind === 'basic' && t.key.code !== 's' && t.key.code !== 'o') {
          if (!/^-?\d+$/.test(k)) throw new TypeMismatch(`dict key ${k} is not an integer`);
          coerceBasic(t.key.code, BigInt(k));
        }
        out[k] = coerceNode(t.value, item, sig);
      }
      return out;
    }
    case 'struct':
      if (!Array.isArray(v) || v.length !== t.fields.length) {
        throw new TypeMismatch(`expected a ${t.fields.length}-element array for ${sig}`);
      }
      return t.fields.map((f, i) => coerceNode(f, v[i], sig));
  }
}

function coerceBasic(code: string, v: unknown): DbusValue {
  if (code === 's') {
    if (typeof v !== 'string') throw new TypeMismatch('expected a string');
    return v;
  }
  if (code === 'o') {
    if (typeof v !== 'string' || !/^\/$|^(\/[A-Za-z0-9_]+)+$/.test(v)) {
      throw new TypeMismatch('expected an object path');
    }
    return v;
  }
  if (code === 'g') {
    if (typeof v !== 'string') throw new TypeMismatch('expected a signature string');
    return v;
  }
  if (code === 'b') {
    if (v === true || v === 1) return true;
    if (v === false || v === 0) return false;
    if (v === 1n) return true;
    if (v === 0n) return false;
    throw new TypeMismatch('expected true, false, 0 or 1');
  }
  if (code === 'd') {
    if (typeof v === 'bigint') return Number(v);
    if (typeof v !== 'number' || !Number.isFinite(v)) throw new TypeMismatch('expected a number');
    return v;
  }
  const range = INT_RANGES[code];
  if (!range) throw new TypeMismatch(`unsupported type ${code}`);
  let big: bigint;
  if (typeof v === 'bigint') big = v;
  else if (typeof v === 'number' && Number.isInteger(v)) big = BigInt(v);
  else throw new TypeMismatch('expected an integer');
  if (big < range[0] || big > range[1]) throw new TypeMismatch('integer out of range');
  return code === 'x' || code === 't' ? big : Number(big);
}

function coerceVariant(v: unknown): DbusValue {
  if (typeof v === 'string' || typeof v === 'boolean' || typeof v === 'bigint') return v;
  if (typeof v === 'number' && Number.isFinite(v)) return v;
  if (Array.isArray(v)) return v.map(coerceVariant);
  if (v !== null && typeof v === 'object') {
    const out: { [k: string]: DbusValue } = {};
    for (const [k, item] of Object.entries(v)) out[k] = coerceVariant(item);
    return out;
  }
  throw new TypeMismatch('a variant cannot hold null');
}

/** The value as shown in responses and events: D-Bus booleans become 0/1 (the spec's tables). */
export function toWire(sig: string, value: DbusValue): unknown {
  return wireNode(parseSignature(sig), value);
}

function wireNode(t: TypeNode, v: DbusValue): unknown {
  switch (t.kind) {
    case 'basic':
      return t.code === 'b' ? (v ? 1 : 0) : v;
    case 'variant':
      return v;
    case 'array':
      return (v as DbusValue[]).map((item) => wireNode(t.item, item));
    case 'dict': {
      const out: Record<string, unknown> = {};
      for (const [k, item] of Object.entries(v as Record<string, DbusValue>)) {
        out[k] = wireNode(t.value, item);
      }
      return out;
    }
    case 'struct':
      return zip(t.fields, v as DbusValue[]).map(([f, item]) => wireNode(f, item));
  }
}

/** Deep equality of canonical values. */
export function sameValue(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (typeof a !== typeof b) return false;
  if (Array.isArray(a)) {
    if (!Array.isArray(b) || a.length !== b.length) return false;
    return a.every((x, i) => sameValue(x, b[i]));
  }
  if (a !== null && b !== null && typeof a === 'object' && typeof b === 'object') {
    const ka = Object.keys(a);
    const kb = Object.keys(b);
    if (ka.length !== kb.length) return false;
    return ka.every((k) => Object.hasOwn(b, k) && sameValue((a as Record<string, unknown>)[k], (b as Record<string, unknown>)[k]));
  }
  return false;
}
