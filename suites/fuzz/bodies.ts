/**
 * Request bodies: JSON values of every type (uint64 beyond 2^53 included), in and out of the
 * `{"data": …}` envelope, malformed and truncated JSON, bytes that are not UTF-8, and the content
 * types a server may or may not accept.
 */
import fc from 'fast-check';
import { stringifyJson } from '../../client/json.js';

/** Numbers as raw JSON text, which no JS number can carry. */
const RAW_NUMBERS = ['18446744073709551616', '-9223372036854775809', '1e400', '-0', '1.0', '0.1e-999', '1E2', '00', '0x10', '+1'] as const;

/** A JSON value of any type; bigints stand for integers beyond 2^53. */
export function jsonValueArb(maxDepth = 2): fc.Arbitrary<unknown> {
  const scalar = fc.oneof(
    { weight: 2, arbitrary: fc.constant(null) },
    { weight: 2, arbitrary: fc.boolean() },
    { weight: 3, arbitrary: fc.integer() },
    { weight: 1, arbitrary: fc.constantFrom(0, 1, -1, 2 ** 31, 2 ** 32, 2 ** 53, -(2 ** 53), Number.MAX_VALUE, 5e-324) },
    { weight: 1, arbitrary: fc.bigInt({ min: -(2n ** 70n), max: 2n ** 70n }) },
    { weight: 2, arbitrary: fc.double({ noNaN: true, noDefaultInfinity: true }) },
    { weight: 4, arbitrary: fc.string({ unit: 'grapheme', maxLength: 16 }) },
    {
      weight: 1,
      arbitrary: fc.constantFrom('', ' ', '\u0000', '0', 'true', 'null', '[]', '{}', 'xyz.mgmt_project.Fuzz', 'é✓😀', '\ud800'),
    },
  );
  return fc.letrec<{ value: unknown }>((tie) => ({
    value: fc.oneof(
      { depthSize: 'small', maxDepth, withCrossShrink: true },
      { weight: 5, arbitrary: scalar },
      { weight: 1, arbitrary: fc.array(tie('value'), { maxLength: 4 }) },
      { weight: 1, arbitrary: fc.dictionary(fc.string({ maxLength: 8 }), tie('value'), { maxKeys: 4 }) },
    ),
  })).value;
}

/** How a value is placed in the body. */
export type Shape = 'data' | 'bare' | 'data+extra' | 'nested' | 'empty-object';

export type Malform =
  | { kind: 'none' }
  /** Cut the text after `at` characters (modulo its length). */
  | { kind: 'truncate'; at: number }
  | { kind: 'append'; text: string }
  | { kind: 'prefix'; text: string }
  /** Replace the text by a fixed malformed document. */
  | { kind: 'raw'; text: string }
  /** Replace the text by bytes. */
  | { kind: 'bytes'; hex: string };

export interface BodyCase {
  shape: Shape;
  value: unknown;
  malform: Malform;
}

const RAW_DOCUMENTS = [
  '',
  '{',
  '}',
  '{"data": ',
  '{"data": [}',
  "{'data': 1}",
  '{"data": NaN}',
  '{"data": Infinity}',
  '{"data": undefined}',
  '{"data": [1,]}',
  '{"data": 1,}',
  '{"data": 1} {"data": 2}',
  '{"data": "\\u12"}',
  '{"data": "\\x41"}',
  '{"data": "a\nb"}',
  '{"data": 1 /* c */}',
  'null',
  '[]',
  '"data"',
  'data=1',
  '{"data":1,"data":[1]}',
  '{"data": 01}',
  '{"data": .5}',
  '{"data": 1e}',
  '{"data": -}',
  '{"data": tru}',
  '{"data": [[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]}',
  ...RAW_NUMBERS.map((n) => `{"data": ${n}}`),
];

const BYTES = [
  'fffe7b7d',
  'efbbbf7b2264617461223a317d',
  'c0af',
  '7b2264617461223a2280227d',
  '00',
  'feff007b007d',
  '7b226461746122ed',
] as const;

export function deepNesting(depth: number): string {
  return `{"data": ${'['.repeat(depth)}${']'.repeat(depth)}}`;
}

export function malformArb(): fc.Arbitrary<Malform> {
  return fc.oneof(
    { withCrossShrink: true },
    { weight: 6, arbitrary: fc.constant<Malform>({ kind: 'none' }) },
    { weight: 2, arbitrary: fc.nat({ max: 400 }).map((at): Malform => ({ kind: 'truncate', at })) },
    {
      weight: 1,
      arbitrary: fc.constantFrom('}', ',', ' x', '\u0000', ']', '"', '{"data":1}').map((text): Malform => ({ kind: 'append', text })),
    },
    { weight: 1, arbitrary: fc.constantFrom('\ufeff', ' ', ',', 'x', '[').map((text): Malform => ({ kind: 'prefix', text })) },
    { weight: 2, arbitrary: fc.constantFrom(...RAW_DOCUMENTS, deepNesting(5000)).map((text): Malform => ({ kind: 'raw', text })) },
    { weight: 1, arbitrary: fc.constantFrom(...BYTES).map((hex): Malform => ({ kind: 'bytes', hex })) },
  );
}

export function shapeArb(): fc.Arbitrary<Shape> {
  return fc.oneof(
    { withCrossShrink: true },
    { weight: 6, arbitrary: fc.constant<Shape>('data') },
    { weight: 1, arbitrary: fc.constantFrom<Shape>('bare', 'data+extra', 'nested', 'empty-object') },
  );
}

function shaped(shape: Shape, value: unknown): unknown {
  switch (shape) {
    case 'data':
      return { data: value };
    case 'bare':
      return value;
    case 'data+extra':
      return { data: value, message: '200 OK', status: 'ok', extra: 1 };
    case 'nested':
      return { data: { data: value } };
    case 'empty-object':
      return {};
  }
}

/** The JSON text of a well-formed body before any malformation. */
export function bodyJson(shape: Shape, value: unknown): string {
  return stringifyJson(shaped(shape, value));
}

export function renderBody(c: BodyCase): string | Buffer {
  const text = bodyJson(c.shape, c.value);
  switch (c.malform.kind) {
    case 'none':
      return text;
    case 'truncate':
      return text.slice(0, text.length <= 1 ? 0 : c.malform.at % text.length);
    case 'append':
      return text + c.malform.text;
    case 'prefix':
      return c.malform.text + text;
    case 'raw':
      return c.malform.text;
    case 'bytes':
      return Buffer.from(c.malform.hex, 'hex');
  }
}

/** True when the body is exactly `{"data": value}` as the spec wants it. */
export function isWellFormed(c: BodyCase): boolean {
  return c.shape === 'data' && c.malform.kind === 'none';
}

export function bodyArb(value: fc.Arbitrary<unknown> = jsonValueArb()): fc.Arbitrary<BodyCase> {
  return fc.record({ shape: shapeArb(), value, malform: malformArb() });
}

/** Content types; undefined sends no Content-Type header. The first is the right one. */
export const CONTENT_TYPES = [
  'application/json',
  undefined,
  'text/plain',
  'application/json; charset=utf-8',
  'APPLICATION/JSON',
  'application/xml',
  'application/x-www-form-urlencoded',
  'multipart/form-data; boundary=x',
  'application/octet-stream',
  '',
  '*/*',
  'application/jsonp',
  'application/json, text/plain',
  'application/json;charset=latin1',
  'application/merge-patch+json',
  'text/json',
  'application/json\u0000',
  'application/json\r\nX-Injected: 1',
] as const;

export function contentTypeArb(): fc.Arbitrary<string | undefined> {
  return fc.oneof(
    { withCrossShrink: true },
    { weight: 8, arbitrary: fc.constant<string | undefined>('application/json') },
    { weight: 3, arbitrary: fc.constantFrom<string | undefined>(...CONTENT_TYPES) },
  );
}

/** A short body of bytes that are not JSON at all, for methods that take none. */
export function junkBodyArb(): fc.Arbitrary<string> {
  return fc.oneof(fc.constantFrom('{"data": []}', 'x', '\u0000', '{"data": '), fc.string({ unit: 'grapheme', maxLength: 32 }));
}
