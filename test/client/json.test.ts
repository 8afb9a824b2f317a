import { describe, expect, test } from 'vitest';
import { jsonEqual, parseJson, stringifyJson } from '../../client/json.js';

describe('lossless JSON', () => {
  test('integers beyond 2^53 become bigint; others stay numbers', () => {
    const v = parseJson('{"a": 9007199254740993, "b": 9007199254740991, "c": -9007199254740993, "d": 1.5, "e": 1e3, "f": 0}') as Record<
      string,
      unknown
    >;
    expect(v).toEqual({ a: 9007199254740993n, b: 9007199254740991, c: -9007199254740993n, d: 1.5, e: 1000, f: 0 });
  });

  test('2^53+1 and 2^64-1 round-trip exactly', () => {
    for (const text of ['{"data":9007199254740993}', '[18446744073709551615,-1,0.25]']) {
      expect(stringifyJson(parseJson(text))).toBe(text);
    }
  });

  test('duplicate keys keep the last value, __proto__ stays a plain member', () => {
    expect(parseJson('{"a":1,"a":2}')).toEqual({ a: 2 });
    const v = parseJson('{"__proto__":{"polluted":true}}') as Record<string, unknown>;
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
    expect(Object.keys(v)).toEqual(['__proto__']);
  });

  test('text with no run of 16 digits parses as the lossless parser parses it', () => {
    // A string of 16 digits sends the same object through the lossless parser.
    const objects = [
      '"a": 123456789012345, "b": -0, "c": 1e400, "d": [1.25e-7, "9007199254740993"], "a": 2',
      '"__proto__":{"polluted":true},"x":"\\ud800 é","y":[true, false, null, {}, [], ""]',
    ];
    for (const members of objects) {
      const fast = parseJson(`{${members}}`);
      const { pad, ...lossless } = parseJson(`{${members}, "pad": "1234567890123456"}`) as Record<string, unknown>;
      expect(pad).toBe('1234567890123456');
      expect(fast).toStrictEqual(lossless);
    }
  });

  test('invalid JSON throws', () => {
    expect(() => parseJson('{"data":')).toThrow(SyntaxError);
  });

  test('jsonEqual treats bigint and number of the same value as equal', () => {
    expect(jsonEqual({ a: [1n, 2], b: null }, { b: null, a: [1, 2n] })).toBe(true);
    expect(jsonEqual(9007199254740993n, 9007199254740992)).toBe(false);
    expect(jsonEqual({ a: 1 }, { a: 1, b: undefined })).toBe(false);
    expect(jsonEqual([1, 2], [2, 1])).toBe(false);
    expect(jsonEqual(1.5, 1.5)).toBe(true);
    expect(jsonEqual('1', 1)).toBe(false);
    expect(jsonEqual({}, [])).toBe(false);
  });
});
