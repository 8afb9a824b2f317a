/**
 * JSON as the field servers parse it, keeping what JavaScript's JSON.parse loses: whether a number
 * was written as an integer (`bigint`) or with a fraction/exponent (`JsonFloat`), and key order.
 *
 * - `python` mode follows CPython's json.loads (the C scanner): NaN/Infinity accepted, integers of
 *   any size, lone surrogates kept, and the exact error texts (`Expecting value: line 1 column 1
 *   (char 0)`), since phosphor-rest-server answers 400 with str(exception).
 * - `strict` mode follows nlohmann::json::parse as bmcweb calls it: RFC 8259 only; integers beyond
 *   [-2^63, 2^64-1] become floats. Error texts do not matter there (bmcweb answers a fixed text).
 *
 * The parser is iterative: a deeply nested body cannot exhaust the stack. In python mode nesting
 * past the interpreter's recursion limit raises RecursionError (not a ValueError), as CPython does.
 */
import { JsonFloat } from './wire.js';

export { JsonFloat };

export class JsonObject {
  constructor(readonly map: Map<string, TypedJson> = new Map()) {}
  get(key: string): TypedJson | undefined {
    return this.map.get(key);
  }
  has(key: string): boolean {
    return this.map.has(key);
  }
}

export type TypedJson = string | bigint | JsonFloat | boolean | null | TypedJson[] | JsonObject;

/** A Python exception the simulated server raises: its type name and message. */
export class PyException extends Error {
  constructor(
    readonly type: string,
    readonly text: string,
  ) {
    super(`${type}: ${text}`);
  }
}

/** json.JSONDecodeError: str() is "<msg>: line L column C (char P)". */
export class JsonDecodeError extends PyException {
  constructor(msg: string, doc: string, pos: number) {
    let line = 1;
    let lastNewline = -1;
    for (let i = 0; i < pos && i < doc.length; i++) {
      if (doc.charCodeAt(i) === 10) {
        line++;
        lastNewline = i;
      }
    }
    super('JSONDecodeError', `${msg}: line ${line} column ${pos - lastNewline} (char ${pos})`);
  }
}

/** Python's recursion limit less the frames bottle and the plugins already use. */
const PY_NESTING_LIMIT = 950;

const WS = new Set([0x20, 0x09, 0x0a, 0x0d]);
const NUMBER = /-?(?:0|[1-9]\d*)(\.\d+)?([eE][-+]?\d+)?/y;
const INT64_MIN = -(2n ** 63n);
const UINT64_MAX = 2n ** 64n - 1n;

type Frame = { array: TypedJson[] } | { object: Map<string, TypedJson>; key: string };

export function parseTypedJson(text: string, mode: 'python' | 'strict'): TypedJson {
  const python = mode === 'python';
  const fail = (msg: string, pos: number): never => {
    throw new JsonDecodeError(msg, text, pos);
  };
  let i = 0;
  if (text.charCodeAt(0) === 0xfeff) {
    if (python) fail('Unexpected UTF-8 BOM (decode using utf-8-sig)', 0);
    i = 1; // nlohmann skips a byte order mark
  }
  const ws = (at: number): number => {
    while (at < text.length && WS.has(text.charCodeAt(at))) at++;
    return at;
  };
  const key = (at: number): number => {
    if (text[at] !== '"') fail('Expecting property name enclosed in double quotes', at);
    return at;
  };
  const stack: Frame[] = [];
  const open = (): void => {
    if (python && stack.length >= PY_NESTING_LIMIT) {
      const what = text[i] === '[' ? 'array' : 'object';
      throw new PyException('RecursionError', `maximum recursion depth exceeded while decoding a JSON ${what} from a unicode string`);
    }
  };
  i = ws(i);
  let value: TypedJson;
  for (;;) {
    // A value starts at i.
    const c = text[i];
    if (c === '[') {
      open();
      i = ws(i + 1);
      if (text[i] === ']') {
        value = [];
        i++;
      } else {
        stack.push({ array: [] });
        continue;
      }
    } else if (c === '{') {
      open();
      i = ws(i + 1);
      if (text[i] === '}') {
        value = new JsonObject();
        i++;
      } else {
        const [k, end] = readString(text, key(i) + 1, python);
        i = ws(end);
        if (text[i] !== ':') fail("Expecting ':' delimiter", i);
        i = ws(i + 1);
        stack.push({ object: new Map(), key: k });
        continue;
      }
    } else if (c === '"') {
      [value, i] = readString(text, i + 1, python);
    } else if (text.startsWith('null', i)) {
      value = null;
      i += 4;
    } else if (text.startsWith('true', i)) {
      value = true;
      i += 4;
    } else if (text.startsWith('false', i)) {
      value = false;
      i += 5;
    } else if (python && text.startsWith('NaN', i)) {
      value = new JsonFloat(NaN);
      i += 3;
    } else if (python && text.startsWith('Infinity', i)) {
      value = new JsonFloat(Infinity);
      i += 8;
    } else if (python && text.startsWith('-Infinity', i)) {
      value = new JsonFloat(-Infinity);
      i += 9;
    } else {
      NUMBER.lastIndex = i;
      const m = NUMBER.exec(text);
      if (!m) return fail('Expecting value', i);
      value = numberValue(m[0], m[1] !== undefined || m[2] !== undefined, python);
      i += m[0].length;
    }
    // The value is complete: hand it to its container, closing containers as they end.
    for (;;) {
      const top = stack[stack.length - 1];
      if (!top) {
        i = ws(i);
        if (i !== text.length) fail('Extra data', i);
        return value;
      }
      i = ws(i);
      if ('array' in top) {
        top.array.push(value);
        if (text[i] === ',') {
          i = ws(i + 1);
          break;
        }
        if (text[i] !== ']') fail("Expecting ',' delimiter", i);
        i++;
        value = top.array;
      } else {
        top.object.set(top.key, value);
        if (text[i] === ',') {
          i = ws(i + 1);
          const [k, end] = readString(text, key(i) + 1, python);
          i = ws(end);
          if (text[i] !== ':') fail("Expecting ':' delimiter", i);
          i = ws(i + 1);
          top.key = k;
          break;
        }
        if (text[i] !== '}') fail("Expecting ',' delimiter", i);
        i++;
        value = new JsonObject(top.object);
      }
      stack.pop();
    }
  }
}

function numberValue(literal: string, isFloat: boolean, python: boolean): TypedJson {
  if (isFloat) return new JsonFloat(Number(literal));
  const big = BigInt(literal);
  if (!python && (big < INT64_MIN || big > UINT64_MAX)) return new JsonFloat(Number(literal));
  return big;
}

const ESCAPES: Record<string, string> = { '"': '"', '\\': '\\', '/': '/', b: '\b', f: '\f', n: '\n', r: '\r', t: '\t' };

/** Reads a string body starting after its opening quote; returns the value and the index after the closing quote. */
function readString(text: string, start: number, python: boolean): [string, number] {
  const begin = start - 1;
  const fail = (msg: string, pos: number): never => {
    throw new JsonDecodeError(msg, text, pos);
  };
  let out = '';
  let i = start;
  for (;;) {
    if (i >= text.length) fail('Unterminated string starting at', begin);
    const code = text.charCodeAt(i);
    if (code === 0x22) return [out, i + 1];
    if (code < 0x20) fail('Invalid control character at', i);
    if (code !== 0x5c) {
      out += text[i];
      i++;
      continue;
    }
    const esc = text[i + 1];
    if (esc === undefined) return fail('Unterminated string starting at', begin);
    if (esc !== 'u') {
      const plain = ESCAPES[esc];
      if (plain === undefined) fail('Invalid \\escape', i);
      out += plain;
      i += 2;
      continue;
    }
    const unit = (at: number): number => {
      const hex = text.slice(at, at + 4);
      if (!/^[0-9a-fA-F]{4}$/.test(hex)) fail('Invalid \\uXXXX escape', at - 1);
      return parseInt(hex, 16);
    };
    const cp = unit(i + 2);
    i += 6;
    if (cp >= 0xd800 && cp <= 0xdbff) {
      if (text[i] === '\\' && text[i + 1] === 'u') {
        const low = unit(i + 2);
        if (low >= 0xdc00 && low <= 0xdfff) {
          out += String.fromCharCode(cp, low);
          i += 6;
          continue;
        }
      }
      if (!python) fail('Invalid surrogate', i);
    } else if (!python && cp >= 0xdc00 && cp <= 0xdfff) {
      fail('Invalid surrogate', i);
    }
    out += String.fromCharCode(cp);
  }
}

const utf8 = new TextDecoder('utf-8', { fatal: true });

/** bytes.decode('utf-8') with CPython's UnicodeDecodeError text on failure. */
export function decodeUtf8Python(buf: Buffer): string {
  try {
    return utf8.decode(buf);
  } catch {
    throw new PyException('UnicodeDecodeError', utf8ErrorText(buf));
  }
}

/** Strict UTF-8 decoding; undefined when the bytes are not UTF-8. */
export function decodeUtf8(buf: Buffer): string | undefined {
  try {
    return utf8.decode(buf);
  } catch {
    return undefined;
  }
}

function utf8ErrorText(b: Buffer): string {
  const say = (start: number, end: number, reason: string): string =>
    end - start === 1
      ? `'utf-8' codec can't decode byte 0x${b.readUInt8(start).toString(16).padStart(2, '0')} in position ${start}: ${reason}`
      : `'utf-8' codec can't decode bytes in position ${start}-${end - 1}: ${reason}`;
  let i = 0;
  while (i < b.length) {
    const c = b.readUInt8(i);
    if (c < 0x80) {
      i++;
      continue;
    }
    let need: number;
    let lo = 0x80;
    let hi = 0xbf;
    if (c >= 0xc2 && c <= 0xdf) need = 1;
    else if (c >= 0xe0 && c <= 0xef) {
      need = 2;
      if (c === 0xe0) lo = 0xa0;
      if (c === 0xed) hi = 0x9f;
    } else if (c >= 0xf0 && c <= 0xf4) {
      need = 3;
      if (c === 0xf0) lo = 0x90;
      if (c === 0xf4) hi = 0x8f;
    } else return say(i, i + 1, 'invalid start byte');
    for (let k = 1; k <= need; k++) {
      const cc = b[i + k];
      if (cc === undefined) return say(i, b.length, 'unexpected end of data');
      const low = k === 1 ? lo : 0x80;
      const high = k === 1 ? hi : 0xbf;
      if (cc < low || cc > high) return say(i, i + k, 'invalid continuation byte');
    }
    i += need + 1;
  }
  return 'invalid data';
}
