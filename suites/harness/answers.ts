/**
 * Every answer of the run judged as an answer: whichever area sent a JSON request, an answer that
 * is no envelope at all (an empty 200, a plain-text body) is noted here as it arrives, and the
 * envelope checks (the envelope area's, the fuzz area's) take what was noted since they last looked.
 * Only what needs no parsing is looked at first, so that judging every answer costs next to nothing:
 * a body that opens as a JSON object is an envelope whose members the envelope checks judge.
 */
import type { Exchange } from '../../client/evidence.js';
import { redactText } from '../../client/evidence.js';
import { forgetEachRun } from '../../client/run-scoped.js';

export type AnswerRequirement = 'ENV-1' | 'ENV-4';

interface Noted {
  requirement: AnswerRequirement;
  /** Not yet redacted: redacted when taken. */
  message: string;
}

/** Notes kept per requirement; beyond it only the count grows. */
const KEPT = 50;
const API_METHODS = new Set(['GET', 'PUT', 'POST', 'DELETE', 'PATCH']);

const noted: Noted[] = [];
const counts: Record<AnswerRequirement, number> = { 'ENV-1': 0, 'ENV-4': 0 };
const taken: Record<AnswerRequirement, number> = { 'ENV-1': 0, 'ENV-4': 0 };
forgetEachRun(() => {
  noted.length = 0;
  for (const id of ['ENV-1', 'ENV-4'] as const) counts[id] = taken[id] = 0;
});

function header(headers: Readonly<Record<string, unknown>>, name: string): string | undefined {
  for (const [k, v] of Object.entries(headers)) if (k.toLowerCase() === name) return Array.isArray(v) ? v.join(', ') : String(v);
  return undefined;
}

/** A request of the interface that asks for JSON and sends JSON or nothing (uploads send images). */
export function isJsonRequest(x: Pick<Exchange, 'method' | 'url' | 'requestHeaders' | 'requestBody'>): boolean {
  if (!API_METHODS.has(x.method.toUpperCase())) return false;
  if ((x.url.split('?')[0] ?? '') === '/subscribe') return false;
  const accept = header(x.requestHeaders, 'accept');
  if (accept !== undefined && !/application\/json/i.test(accept)) return false;
  const type = header(x.requestHeaders, 'content-type');
  if (x.requestBody === undefined || x.requestBody === '') return type === undefined || /^application\/json\b/i.test(type);
  return type !== undefined && /^application\/json\b/i.test(type);
}

function parses(text: string): { ok: true; value: unknown } | { ok: false } {
  try {
    return { ok: true, value: JSON.parse(text) as unknown };
  } catch {
    return { ok: false };
  }
}

/**
 * What is wrong with the answer to a JSON request when it is no envelope at all: a success must be
 * a JSON object (empty or not JSON: ENV-4; JSON but no object: ENV-1); a refusal (4xx) may come
 * without a body, but a body it has must be JSON (ENV-4). Server errors are ERR-5's.
 */
export function answerProblem(x: Readonly<Exchange>): { requirement: AnswerRequirement; problem: string } | undefined {
  if (x.status === undefined || x.error !== undefined || !isJsonRequest(x)) return undefined;
  const success = x.status >= 200 && x.status < 300;
  if (!success && (x.status < 400 || x.status >= 500)) return undefined;
  const body = x.responseBody ?? '';
  const text = body.trim();
  if (text.startsWith('{')) return undefined;
  if (text === '') return success ? { requirement: 'ENV-4', problem: 'an empty body: no JSON, no envelope' } : undefined;
  const parsed = parses(text);
  const excerpt = JSON.stringify(text.slice(0, 80)) + (text.length > 80 ? '…' : '');
  if (!parsed.ok) return { requirement: 'ENV-4', problem: `a body that is not JSON: ${excerpt}` };
  return success
    ? {
        requirement: 'ENV-1',
        problem: `a JSON ${Array.isArray(parsed.value) ? 'array' : typeof parsed.value}, not an envelope: ${excerpt}`,
      }
    : undefined;
}

/** The listener on the run's evidence log (suites/harness/session.ts). */
export function noteAnswer(x: Readonly<Exchange>): void {
  const found = answerProblem(x);
  if (!found) return;
  counts[found.requirement]++;
  if (noted.filter((n) => n.requirement === found.requirement).length >= KEPT) return;
  const target = x.url.length > 100 ? `${x.url.slice(0, 100)}…` : x.url;
  noted.push({ requirement: found.requirement, message: `${x.method} ${target} answered ${x.status}: ${found.problem}` });
}

/**
 * The answers of `requirement` noted since it was last taken, redacted with `secrets`, and how many
 * there were in all (more than those kept).
 */
export function takeAnswerProblems(requirement: AnswerRequirement, secrets: readonly string[]): { messages: string[]; count: number } {
  const mine = noted.filter((n) => n.requirement === requirement);
  const count = counts[requirement] - taken[requirement];
  taken[requirement] = counts[requirement];
  for (const n of mine) noted.splice(noted.indexOf(n), 1);
  return { messages: mine.map((n) => redactText(n.message, secrets)), count };
}
