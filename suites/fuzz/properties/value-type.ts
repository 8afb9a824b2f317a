/**
 * Whether a written value has the attribute's type, for the write property (WR-1 or EP-8) and for
 * the server-error property's attribution of a failed write.
 */
import { isLosslessNumber, parse as losslessParse } from 'lossless-json';
import { parseJson } from '../../../client/json.js';
import type { WritableAttribute } from '../../../runner/config.js';
import type { ValueKind } from '../model.js';
import { isMap } from './common.js';

export type Expectation = 'right' | 'wrong' | 'either';

/** Whether a value has the attribute's type, judged from the value its GET shows. */
export function expectation(kind: ValueKind, value: unknown, attr: WritableAttribute): Expectation {
  const isInt = (typeof value === 'number' && Number.isInteger(value)) || typeof value === 'bigint';
  switch (kind) {
    case 'string':
      return typeof value === 'string' ? 'right' : 'wrong';
    case 'enum':
      if (typeof value !== 'string') return 'wrong';
      // Without the declared values, no string but the current one is known to be allowed.
      return attr.values?.some((v) => v === value) ? 'right' : 'either';
    case 'integer':
      if (isInt && Number(value) >= 0 && Number(value) <= 65_535) return 'right';
      return typeof value === 'number' || typeof value === 'bigint' || typeof value === 'boolean' ? 'either' : 'wrong';
    case 'bool01':
      // 0 or 1 may be a D-Bus boolean or an integer that holds 0 or 1 now: only 0 and 1 are sure.
      if (value === 0 || value === 1) return 'right';
      return typeof value === 'number' || typeof value === 'bigint' || typeof value === 'boolean' ? 'either' : 'wrong';
    case 'boolean':
      if (value === 0 || value === 1 || value === true || value === false) return 'right';
      return typeof value === 'number' || typeof value === 'bigint' ? 'either' : 'wrong';
    case 'float':
      if (typeof value === 'number') return 'right';
      return typeof value === 'bigint' || typeof value === 'boolean' ? 'either' : 'wrong';
    default:
      return 'either';
  }
}

/**
 * The `data` a lenient server could take from the body, if the body is JSON with a data member;
 * `fraction` when that data is a number written with a fraction or exponent (1.0 is a float in
 * JSON text, not the integer 1 a D-Bus boolean or integer takes).
 */
export function effectiveData(body: string | Buffer): { value: unknown; fraction: boolean } | undefined {
  try {
    const text = (typeof body === 'string' ? body : new TextDecoder('utf-8', { fatal: true }).decode(body)).replace(/^\ufeff/, '');
    let parsed: unknown;
    let raw: unknown;
    try {
      parsed = parseJson(text);
      raw = (losslessParse(text, null, { onDuplicateKey: ({ newValue }) => newValue }) as Record<string, unknown>).data;
    } catch (err) {
      // Valid JSON too deep for the lossless parser (thousands of nested arrays) is still JSON.
      if (!(err instanceof RangeError)) throw err;
      parsed = JSON.parse(text);
    }
    if (!isMap(parsed) || !('data' in parsed)) return undefined;
    return { value: parsed.data, fraction: isLosslessNumber(raw) && /[.eE]/.test(raw.value) };
  } catch {
    /* not JSON: no value can be taken from it */
  }
  return undefined;
}

/** Whether a write's value has the attribute's type: a number with a fraction is no integer. */
export function typedAs(kind: ValueKind, eff: { value: unknown; fraction: boolean }, attr: WritableAttribute): Expectation {
  const judged = expectation(kind, eff.value, attr);
  return judged === 'right' && eff.fraction && kind !== 'float' ? 'either' : judged;
}
