/**
 * One-line curl reproductions of requests, for failure reports. Credentials are never inlined:
 * the command refers to shell variables the reader sets from their own login.
 */
import { withoutTrailingSlashes } from './trim-end.js';
import { isUtf8 } from 'node:buffer';

export interface CurlOptions {
  body?: Buffer | string;
  /** A body as curl arguments already written for the shell (a file to read, a word that expands $PASSWORD). */
  shellBody?: readonly string[];
  contentType?: string;
  /** Include the session cookie placeholder: true (the default) for $COOKIE, or the shell variable to name. */
  auth?: boolean | string;
  /** Include the X-XSRF-TOKEN placeholder (bmcweb demands it on non-GET requests): true for $XSRF, or the variable. Default false. */
  xsrf?: boolean | string;
  headers?: Record<string, string>;
}

const SAFE = /^[A-Za-z0-9_\-+=/:.,@%]+$/;

/** Quotes a string for POSIX shells; non-printable text uses bash's $'…' form. */
export function shellQuote(text: string): string {
  if (text !== '' && SAFE.test(text)) return text;
  if (/^[\x20-\x7e]*$/.test(text)) return `'${text.replace(/'/g, `'\\''`)}'`;
  return ansiQuote(Buffer.from(text, 'utf8'));
}

function ansiQuote(bytes: Buffer): string {
  let out = "$'";
  for (const b of bytes) {
    if (b === 0x27) out += "\\'";
    else if (b === 0x5c) out += '\\\\';
    else if (b >= 0x20 && b <= 0x7e) out += String.fromCharCode(b);
    else out += `\\x${b.toString(16).padStart(2, '0')}`;
  }
  return `${out}'`;
}

/** Builds `curl -k …` for one request; the path is kept exactly (--path-as-is, no globbing). */
export function toCurl(method: string, baseUrl: string, path: string, opts: CurlOptions = {}): string {
  const parts = ['curl', '-k', '-sS', '-i', '--path-as-is', '-g', '-X', shellQuote(method)];
  if (opts.auth !== false) parts.push('-b', `"${typeof opts.auth === 'string' ? opts.auth : '$COOKIE'}"`);
  if (opts.xsrf) parts.push('-H', `"X-XSRF-TOKEN: ${typeof opts.xsrf === 'string' ? opts.xsrf : '$XSRF'}"`);
  parts.push('-H', shellQuote('Accept: application/json'));
  if (opts.contentType !== undefined) parts.push('-H', shellQuote(`Content-Type: ${opts.contentType}`));
  for (const [name, value] of Object.entries(opts.headers ?? {})) parts.push('-H', shellQuote(`${name}: ${value}`));
  if (opts.body !== undefined) parts.push(...bodyArgs(opts.body));
  parts.push(...(opts.shellBody ?? []));
  parts.push(shellQuote(withoutTrailingSlashes(baseUrl) + path));
  return parts.join(' ');
}

/** Text bodies go inline (--data-raw never reads files); bytes a shell argument cannot hold go through printf. */
function bodyArgs(body: Buffer | string): string[] {
  const bytes = typeof body === 'string' ? Buffer.from(body, 'utf8') : body;
  const printable = isUtf8(bytes) && !bytes.includes(0);
  if (printable) return ['--data-raw', shellQuote(bytes.toString('utf8'))];
  return ['--data-binary', `@<(printf '${printfEscape(bytes)}')`];
}

function printfEscape(bytes: Buffer): string {
  let out = '';
  for (const b of bytes) {
    const printable = b >= 0x20 && b <= 0x7e && b !== 0x27 && b !== 0x5c && b !== 0x25;
    out += printable ? String.fromCharCode(b) : `\\${b.toString(8).padStart(3, '0')}`;
  }
  return out;
}
