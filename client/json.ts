/**
 * Lossless JSON for target payloads: D-Bus uint64 values can exceed 2^53, so integers beyond
 * Number.MAX_SAFE_INTEGER parse to `bigint` instead of silently losing digits.
 */
import { isInteger, parse, stringify } from 'lossless-json';

function parseNumber(text: string): number | bigint {
  if (isInteger(text)) {
    const value = Number(text);
    return Number.isSafeInteger(value) ? value : BigInt(text);
  }
  return Number(text);
}

/**
 * An integer of 15 digits or fewer is always safe (2^53 has 16), so text without a run of 16 digits
 * parses the same with JSON.parse, several times faster; invalid text takes the lossless parser,
 * whose error the findings quote.
 */
const MAYBE_UNSAFE_INTEGER = /\d{16}/;

/** Parses JSON text; throws SyntaxError on invalid JSON. Duplicate keys keep the last value, as JSON.parse does. */
export function parseJson(text: string): unknown {
  if (!MAYBE_UNSAFE_INTEGER.test(text)) {
    try {
      return JSON.parse(text) as unknown;
    } catch {
      // the lossless parser below throws its own SyntaxError
    }
  }
  return parse(text, null, {
    parseNumber,
    onDuplicateKey: ({ newValue }) => newValue,
  });
}

/** Serialises a value to JSON text, writing `bigint` values as plain integers. */
export function stringifyJson(value: unknown, indent?: number): string {
  const text = stringify(value, undefined, indent);
  if (text === undefined) throw new TypeError('Value cannot be written as JSON.');
  return text;
}

/** Deep equality of JSON values; a bigint equals a number of the same integer value. */
export function jsonEqual(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (typeof a === 'bigint' || typeof b === 'bigint') return numericEqual(a, b);
  if (a === null || b === null || typeof a !== 'object' || typeof b !== 'object') return false;
  if (Array.isArray(a) || Array.isArray(b)) {
    if (!Array.isArray(a) || !Array.isArray(b) || a.length !== b.length) return false;
    return a.every((item, i) => jsonEqual(item, b[i]));
  }
  const ra = a as Record<string, unknown>;
  const rb = b as Record<string, unknown>;
  const keys = Object.keys(ra);
  if (keys.length !== Object.keys(rb).length) return false;
  return keys.every((k) => Object.hasOwn(rb, k) && jsonEqual(ra[k], rb[k]));
}

function numericEqual(a: unknown, b: unknown): boolean {
  const toBig = (v: unknown): bigint | undefined => {
    if (typeof v === 'bigint') return v;
    if (typeof v === 'number' && Number.isInteger(v)) return BigInt(v);
    return undefined;
  };
  const x = toBig(a);
  const y = toBig(b);
  return x !== undefined && y !== undefined && x === y;
}
