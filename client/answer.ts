/**
 * The judging of one answer, as the suites judge it and as a load judges its own traffic
 * (load --verify): the envelope (ENV-1..4) and an error's data (ERR-1).
 */
import type { BmcResponse } from './http.js';

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

/** A problem of a response, and the requirement it breaks. */
export interface Problem {
  requirement: string;
  problem: string;
}

/**
 * ENV-1..4 in one place: the body is JSON (ENV-4), an object with the three members (ENV-1), its
 * message is this response's status line (ENV-2), its status agrees with the code (ENV-3).
 */
export function envelopeProblems(res: BmcResponse): Problem[] {
  if (res.json === undefined) return [{ requirement: 'ENV-4', problem: `the body is not JSON: ${show(res.text, 120)}` }];
  const env = envelopeOf(res);
  if (!env) return [{ requirement: 'ENV-1', problem: `the body is not a JSON object: ${show(res.text, 120)}` }];
  const problems: Problem[] = [];
  for (const member of ['data', 'message', 'status'] as const) {
    if (!(member in env)) problems.push({ requirement: 'ENV-1', problem: `the envelope lacks "${member}"` });
  }
  if ('message' in env) {
    const m = typeof env.message === 'string' ? /^(\d{3}) (.+)$/.exec(env.message) : null;
    if (!m) problems.push({ requirement: 'ENV-2', problem: `message ${show(env.message)} is not "<code> <reason>"` });
    else if (Number(m[1]) !== res.status)
      problems.push({ requirement: 'ENV-2', problem: `message ${show(env.message)} does not match the HTTP status ${res.status}` });
  }
  if ('status' in env) {
    const expected = res.status >= 200 && res.status < 300 ? 'ok' : 'error';
    if (env.status !== expected)
      problems.push({ requirement: 'ENV-3', problem: `status ${show(env.status)} on HTTP ${res.status} (expected "${expected}")` });
  }
  return problems;
}

/**
 * ERR-1: an error's data is a map with a description string. Its status and message are the
 * envelope's (ENV-1..3), judged for every answer.
 */
export function errorDataProblem(res: BmcResponse): string | undefined {
  const env = envelopeOf(res);
  if (!env) return undefined;
  const data = env.data as { description?: unknown } | null;
  if (!data || typeof data !== 'object' || typeof data.description !== 'string') {
    return `data is ${show(env.data)}, expected a map with a description string`;
  }
  return undefined;
}
/** The `data` member of a JSON answer, whatever its status; undefined when there is none. */
export function dataOf(res: BmcResponse): unknown {
  return (res.json as { data?: unknown } | undefined)?.data;
}

/** The `description` of an answer's data (an error's reason), when its data is a map that has one. */
export function descriptionOf(res: BmcResponse): unknown {
  return (dataOf(res) as { description?: unknown } | null | undefined)?.description;
}

/** The `data` of a 200 answer; undefined for any other answer, or none. */
export function okData(res: BmcResponse | undefined): unknown {
  return res?.status === 200 ? dataOf(res) : undefined;
}
