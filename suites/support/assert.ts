/**
 * Assertions shared by the suites. Each failure message names the request and what the target
 * answered, so a FAIL in the report reads as evidence on its own.
 */
import { STATUS_CODES } from 'node:http';
import type { BmcResponse } from '../../client/http.js';
import { jsonEqual } from '../../client/json.js';
import { requestTarget } from '../../client/transport.js';
import type { CheckContext } from './check.js';

export class CheckFailure extends Error {
  override readonly name = 'CheckFailure';
}

export function fail(message: string): never {
  throw new CheckFailure(message);
}

export function ensure(condition: unknown, message: string): asserts condition {
  if (!condition) fail(message);
}

export function show(value: unknown, max = 200): string {
  const text = typeof value === 'string' ? JSON.stringify(value) : safeStringify(value);
  return text.length > max ? `${text.slice(0, max)}…` : text;
}

function safeStringify(value: unknown): string {
  try {
    return JSON.stringify(value, (_k, v: unknown) => (typeof v === 'bigint' ? `${v}n` : v)) ?? String(value);
  } catch {
    return String(value);
  }
}

export function describeResponse(res: BmcResponse): string {
  const env = envelopeOf(res);
  const msg = env ? ` ${show(env.message)}` : '';
  return `${res.status}${msg}${env ? '' : ` body ${show(res.text, 120)}`}`;
}

export interface Envelope {
  data: unknown;
  message: unknown;
  status: unknown;
}

export function envelopeOf(res: BmcResponse): Envelope | undefined {
  const j = res.json;
  if (j && typeof j === 'object' && !Array.isArray(j)) return j as Envelope;
  return undefined;
}

/** ENV-1..3 in one place: the envelope exists, message is this response's status line, status agrees. */
export function envelopeProblems(res: BmcResponse): string[] {
  const problems: string[] = [];
  const env = envelopeOf(res);
  if (!env) return [`the body is not a JSON object: ${show(res.text, 120)}`];
  for (const member of ['data', 'message', 'status'] as const) {
    if (!(member in env)) problems.push(`the envelope lacks "${member}"`);
  }
  if ('message' in env) {
    const m = typeof env.message === 'string' ? /^(\d{3}) (.+)$/.exec(env.message) : null;
    if (!m) problems.push(`message ${show(env.message)} is not "<code> <reason>"`);
    else if (Number(m[1]) !== res.status) problems.push(`message ${show(env.message)} does not match the HTTP status ${res.status}`);
  }
  if ('status' in env) {
    const expected = res.status >= 200 && res.status < 300 ? 'ok' : 'error';
    if (env.status !== expected) problems.push(`status ${show(env.status)} on HTTP ${res.status} (expected "${expected}")`);
  }
  return problems;
}

/** The reason phrase differs from the standard one: allowed by "<code> <reason>", worth a warning. */
export function reasonPhraseNote(res: BmcResponse): string | undefined {
  const env = envelopeOf(res);
  if (!env || typeof env.message !== 'string') return undefined;
  const standard = STATUS_CODES[res.status];
  const reason = env.message.replace(/^\d{3} /, '');
  if (standard && reason.toLowerCase() !== standard.toLowerCase()) {
    return `message reason "${reason}" differs from the standard "${standard}"`;
  }
  return undefined;
}

/** A successful JSON exchange: 200, an envelope with status ok. Returns data. */
export function expectOk(res: BmcResponse, what: string): unknown {
  ensure(res.status === 200, `${what}: expected 200 OK, got ${describeResponse(res)}`);
  const env = envelopeOf(res);
  ensure(env, `${what}: the 200 response is not a JSON envelope: ${show(res.text, 120)}`);
  ensure(env.status === 'ok', `${what}: status is ${show(env.status)}, expected "ok"`);
  ensure('data' in env, `${what}: the envelope has no data member`);
  return env.data;
}

/** An error answer with the given status (when known) and the spec's error envelope. */
export function expectError(res: BmcResponse, what: string, status?: number): void {
  if (status !== undefined) ensure(res.status === status, `${what}: expected ${status} ${STATUS_CODES[status]}, got ${describeResponse(res)}`);
  else ensure(res.status >= 400, `${what}: expected an error status, got ${describeResponse(res)}`);
  const problems = errorEnvelopeProblems(res);
  ensure(problems.length === 0, `${what}: ${problems.join('; ')}`);
}

/** ERR-1: status "error", message the status line, data.description a string. */
export function errorEnvelopeProblems(res: BmcResponse): string[] {
  const problems = envelopeProblems(res);
  const env = envelopeOf(res);
  if (!env) return problems;
  const data = env.data as { description?: unknown } | null;
  if (!data || typeof data !== 'object' || typeof data.description !== 'string') {
    problems.push(`data is ${show(env.data)}, expected a map with a description string`);
  }
  return problems;
}

/** A refused request: not 2xx, and nothing of the tree in the body (`path`: the one requested). */
export function expectRefused(res: BmcResponse, what: string, t: CheckContext, path?: string): void {
  ensure(res.status < 200 || res.status >= 300, `${what}: expected a refusal without credentials, got ${describeResponse(res)}`);
  const leak = leakedData(res, t.root, path);
  ensure(!leak, `${what}: the refusal (${res.status}) carries object data: ${leak}`);
}

/**
 * Removes from a body the paths of the tree that are only our own request path (or a prefix of
 * it) echoed back, in any of its spellings, as in "Path /xyz/…/missing not found".
 */
function withoutEcho(text: string, path: string, root: string): string {
  const spellings = new Set([path, path.split('?')[0]!, requestTarget('', path)]);
  for (const p of [...spellings]) {
    try {
      spellings.add(decodeURIComponent(p));
    } catch {
      /* not decodable: the raw spelling is enough */
    }
    try {
      spellings.add(encodeURI(p));
    } catch {
      /* a lone surrogate cannot be encoded */
    }
  }
  const token = new RegExp(`${escapeRegExp(root)}/[^\\s"'<>,\\]\\[{}]*`, 'g');
  return text.replace(token, (m) => ([...spellings].some((s) => s.includes(m)) ? '' : m));
}

function escapeRegExp(s: string): string {
  return s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}

const ERROR_MEMBERS = new Set(['description', 'error', 'message', 'code', 'detail', 'details', 'reason', 'status']);

/**
 * Object data in a body: an object path of the tree, or a data member that is not an error map.
 * An echo of the requested path (some servers name it in the description) tells nothing new.
 */
export function leakedData(res: BmcResponse, root: string, requested?: string): string | undefined {
  const text = requested ? withoutEcho(res.text, requested, root) : res.text;
  if (text.includes(`${root}/`)) return `the body names paths under ${root}/`;
  const env = envelopeOf(res);
  if (!env || env.data === undefined || env.data === null) return undefined;
  const data = env.data;
  if (typeof data === 'object' && !Array.isArray(data)) {
    // An error map may say more than its description; object data is anything else, or nested.
    const other = Object.entries(data).filter(([k, v]) => !ERROR_MEMBERS.has(k.toLowerCase()) || (v !== null && typeof v === 'object'));
    if (other.length === 0) return undefined;
    return `data has members ${show(other.map(([k]) => k))}`;
  }
  if (Array.isArray(data) && data.length === 0) return undefined;
  // A scalar in an error answer is an error text, not object data (ERR-1 judges its shape).
  if (res.status >= 400 && typeof data !== 'object') return undefined;
  return `data is ${show(data)}`;
}

export function expectEqual(actual: unknown, expected: unknown, what: string): void {
  ensure(jsonEqual(actual, expected), `${what}: got ${show(actual)}, expected ${show(expected)}`);
}

export function asObject(value: unknown, what: string): Record<string, unknown> {
  ensure(value !== null && typeof value === 'object' && !Array.isArray(value), `${what}: expected a JSON object, got ${show(value)}`);
  return value as Record<string, unknown>;
}

export function asStringArray(value: unknown, what: string): string[] {
  ensure(Array.isArray(value) && value.every((v) => typeof v === 'string'), `${what}: expected an array of strings, got ${show(value)}`);
  return value as string[];
}

/** Compare path collections as sets: nothing promises an order. */
export function setDifference(a: Iterable<string>, b: Iterable<string>): string[] {
  const bs = new Set(b);
  return [...new Set(a)].filter((x) => !bs.has(x));
}
