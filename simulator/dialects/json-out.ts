/**
 * JSON text as the field servers write it. Both pretty-print responses with two-space indents and
 * sorted keys (bottle's JSONPlugin configured with indent=2, sort_keys=True; nlohmann dump(2, ' ',
 * true) over std::map objects) and escape everything outside printable ASCII as \uXXXX.
 * phosphor-rest's events are plain json.dumps (', ' and ': ' separators, insertion order).
 */
import { floatText } from './py.js';
import { JsonFloat, JsonObject } from './typed-json.js';

export interface JsonStyle {
  /** Indent width; undefined for one line. */
  indent?: number;
  sortKeys: boolean;
  /** One-line separators between items and after keys. */
  itemSeparator: string;
  keySeparator: string;
  floats: 'python' | 'nlohmann';
}

export const PY_PRETTY: JsonStyle = { indent: 2, sortKeys: true, itemSeparator: ', ', keySeparator: ': ', floats: 'python' };
export const PY_COMPACT: JsonStyle = { sortKeys: false, itemSeparator: ', ', keySeparator: ': ', floats: 'python' };
export const NLOHMANN_PRETTY: JsonStyle = { indent: 2, sortKeys: true, itemSeparator: ',', keySeparator: ': ', floats: 'nlohmann' };

const SHORT: Record<string, string> = { '"': '\\"', '\\': '\\\\', '\n': '\\n', '\r': '\\r', '\t': '\\t', '\b': '\\b', '\f': '\\f' };

/** A JSON string literal with ensure_ascii escaping (UTF-16 code units, so astral characters become pairs). */
export function asciiString(s: string): string {
  let out = '"';
  for (let i = 0; i < s.length; i++) {
    const ch = s.charAt(i);
    const code = s.charCodeAt(i);
    const short = SHORT[ch];
    if (short) out += short;
    else if (code < 0x20 || code >= 0x7f) out += `\\u${code.toString(16).padStart(4, '0')}`;
    else out += ch;
  }
  return out + '"';
}

function floatJson(x: number, style: JsonStyle): string {
  if (!Number.isFinite(x)) {
    if (style.floats === 'nlohmann') return 'null';
    return Number.isNaN(x) ? 'NaN' : x > 0 ? 'Infinity' : '-Infinity';
  }
  return floatText(x, style.floats);
}

export function dumpJson(value: unknown, style: JsonStyle): string {
  const out: string[] = [];
  write(value, style, 0, out);
  return out.join('');
}

function entriesOf(v: object): [string, unknown][] {
  if (v instanceof JsonObject) return [...v.map];
  return Object.entries(v).filter(([, item]) => item !== undefined);
}

function write(v: unknown, style: JsonStyle, depth: number, out: string[]): void {
  if (v === null || v === undefined) {
    out.push('null');
    return;
  }
  switch (typeof v) {
    case 'string':
      out.push(asciiString(v));
      return;
    case 'boolean':
      out.push(v ? 'true' : 'false');
      return;
    case 'bigint':
      out.push(v.toString());
      return;
    case 'number':
      out.push(Number.isInteger(v) ? String(v) : floatJson(v, style));
      return;
    case 'object':
      break;
    default:
      out.push('null');
      return;
  }
  if (v instanceof JsonFloat) {
    out.push(floatJson(v.value, style));
    return;
  }
  const isArray = Array.isArray(v);
  const items: [string | undefined, unknown][] = isArray ? (v as unknown[]).map((item) => [undefined, item]) : entriesOf(v as object);
  if (!isArray && style.sortKeys) items.sort(([a], [b]) => (a! < b! ? -1 : a! > b! ? 1 : 0));
  const [openBracket, closeBracket] = isArray ? ['[', ']'] : ['{', '}'];
  if (items.length === 0) {
    out.push(openBracket + closeBracket);
    return;
  }
  const pretty = style.indent !== undefined;
  const pad = pretty ? '\n' + ' '.repeat(style.indent! * (depth + 1)) : '';
  const sep = pretty ? ',' : style.itemSeparator;
  out.push(openBracket);
  items.forEach(([key, item], n) => {
    if (n > 0) out.push(sep);
    out.push(pad);
    if (key !== undefined) out.push(asciiString(key), style.keySeparator);
    write(item, style, depth + 1, out);
  });
  out.push(pretty ? '\n' + ' '.repeat(style.indent! * depth) : '', closeBracket);
}
