/**
 * One comparison of D-Bus values as targets render them, for every check that compares a value
 * across endpoints (attr, object, enumerate, events) or against a written value.
 *
 * - A D-Bus boolean may travel as `true`/`false` or as `0`/`1` (one field server renders both,
 *   depending on the endpoint): the same value, in another encoding.
 * - Integers compare losslessly (uint64 above 2^53 parse to bigint).
 * - Doubles compare numerically.
 */

/** `equal`: same value, same encoding; `encoding`: same value, rendered differently; `different`. */
export type ValueMatch = 'equal' | 'encoding' | 'different';

type Scalar = 'boolean' | 'bit' | 'number' | 'other';

function integerOf(v: unknown): bigint | undefined {
  if (typeof v === 'bigint') return v;
  if (typeof v === 'number' && Number.isInteger(v)) return BigInt(v);
  return undefined;
}

function numericEqual(a: number | bigint, b: number | bigint): boolean {
  const x = integerOf(a);
  const y = integerOf(b);
  if (x !== undefined && y !== undefined) return x === y;
  return Number(a) === Number(b);
}

function isNumeric(v: unknown): v is number | bigint {
  return typeof v === 'bigint' || (typeof v === 'number' && !Number.isNaN(v));
}

function bitOf(v: unknown): 0 | 1 | undefined {
  if (v === true || v === 1 || v === 1n) return 1;
  if (v === false || v === 0 || v === 0n) return 0;
  return undefined;
}

/** A JSON object: not null, not an array. */
export function isMap(v: unknown): v is Record<string, unknown> {
  return v !== null && typeof v === 'object' && !Array.isArray(v);
}

function worst(a: ValueMatch, b: ValueMatch): ValueMatch {
  if (a === 'different' || b === 'different') return 'different';
  return a === 'encoding' || b === 'encoding' ? 'encoding' : 'equal';
}

/** How two rendered values relate: equal, the same value in another encoding, or different. */
export function compareValues(a: unknown, b: unknown): ValueMatch {
  if (a === b) return 'equal';
  if (isNumeric(a) && isNumeric(b)) return numericEqual(a, b) ? 'equal' : 'different';
  if (typeof a === 'boolean' || typeof b === 'boolean') {
    // Only a boolean against 0 or 1 is the same D-Bus value in another encoding.
    const x = bitOf(a);
    return x !== undefined && x === bitOf(b) && typeof a !== typeof b ? 'encoding' : 'different';
  }
  if (Array.isArray(a) || Array.isArray(b)) {
    if (!Array.isArray(a) || !Array.isArray(b) || a.length !== b.length) return 'different';
    return a.reduce<ValueMatch>((m, item, i) => (m === 'different' ? m : worst(m, compareValues(item, b[i]))), 'equal');
  }
  if (isMap(a) && isMap(b)) {
    const keys = Object.keys(a);
    if (keys.length !== Object.keys(b).length || !keys.every((k) => Object.hasOwn(b, k))) return 'different';
    return keys.reduce<ValueMatch>((m, k) => (m === 'different' ? m : worst(m, compareValues(a[k], b[k]))), 'equal');
  }
  return 'different';
}

/** The same D-Bus value, whatever the encoding. */
export function sameValue(a: unknown, b: unknown): boolean {
  return compareValues(a, b) !== 'different';
}

function kindOf(v: unknown): Scalar {
  if (typeof v === 'boolean') return 'boolean';
  if (v === 0 || v === 1) return 'bit';
  return isNumeric(v) ? 'number' : 'other';
}

/** "1 (an integer) and true (a JSON boolean)": for a WARN naming both encodings. */
export function describeEncodings(a: unknown, b: unknown): string {
  const name = (v: unknown) => {
    const text = typeof v === 'bigint' ? v.toString() : JSON.stringify(v);
    const k = kindOf(v);
    return k === 'boolean' ? `${text} (a JSON boolean)` : k === 'bit' ? `${text} (an integer)` : text;
  };
  return `${name(a)} and ${name(b)}`;
}
