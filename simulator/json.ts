/**
 * JSON text in and out without losing uint64 precision: integers beyond 2^53 travel as bigint
 * inside the simulator and are written back as their exact digits.
 */
import { parse } from 'lossless-json';

const INTEGER = /^-?\d+$/;

function parseNumber(text: string): number | bigint {
  if (INTEGER.test(text)) {
    const n = Number(text);
    return Number.isSafeInteger(n) ? n : BigInt(text);
  }
  return Number(text);
}

/** Parses JSON text; integers outside the safe range become bigint. Throws SyntaxError. */
export function parseJson(text: string): unknown {
  return parse(text, null, parseNumber);
}

/** Serialises plain data; bigint becomes its exact decimal digits. */
export function stringifyJson(value: unknown): string {
  const parts: string[] = [];
  write(value, parts);
  return parts.join('');
}

function write(v: unknown, out: string[]): void {
  switch (typeof v) {
    case 'string':
      out.push(JSON.stringify(v));
      return;
    case 'number':
      out.push(Number.isFinite(v) ? String(v) : 'null');
      return;
    case 'bigint':
      out.push(v.toString());
      return;
    case 'boolean':
      out.push(v ? 'true' : 'false');
      return;
    case 'object':
      if (v === null) {
        out.push('null');
        return;
      }
      if (Array.isArray(v)) {
        out.push('[');
        for (let i = 0; i < v.length; i++) {
          if (i > 0) out.push(',');
          write(v[i] === undefined ? null : v[i], out);
        }
        out.push(']');
        return;
      }
      {
        out.push('{');
        let first = true;
        for (const key of Object.keys(v)) {
          const item = (v as Record<string, unknown>)[key];
          if (item === undefined) continue;
          if (!first) out.push(',');
          first = false;
          out.push(JSON.stringify(key), ':');
          write(item, out);
        }
        out.push('}');
      }
      return;
    default:
      out.push('null');
  }
}
