/**
 * Assertions shared by the suites. Each failure message names the request and what the target
 * answered, so a FAIL in the report reads as evidence on its own.
 */
import { STATUS_CODES } from 'node:http';
import type { BmcResponse } from '../../client/http.js';
import { sameValue } from '../../client/values.js';
import { envelopeOf, show } from '../../client/answer.js';

// The judging of one answer lives in client/ so that load runs judge their own traffic the same way.
export { descriptionOf, envelopeOf, envelopeProblems, errorDataProblem, show, type Envelope, type Problem } from '../../client/answer.js';

/** A check's verdict: the target broke `requirement` (default: the first the check names). */
export class CheckFailure extends Error {
  // Named as an assertion so that test reports (Allure) show a finding as failed, not broken.
  override readonly name = 'AssertionError';
  constructor(
    message: string,
    readonly requirement?: string,
  ) {
    super(message);
  }
}

/**
 * The check cannot judge its requirement because another requirement's deviation stands in the
 * way (the message names it): NOT_TESTED, never a FAIL.
 */
export class NotJudged extends Error {
  override readonly name = 'NotJudged';
}

export function notJudged(message: string): never {
  throw new NotJudged(message);
}

export function fail(message: string, requirement?: string): never {
  throw new CheckFailure(message, requirement);
}

export function ensure(condition: unknown, message: string, requirement?: string): asserts condition {
  if (!condition) fail(message, requirement);
}

export function describeResponse(res: BmcResponse): string {
  const env = envelopeOf(res);
  const msg = env ? ` ${show(env.message)}` : '';
  return `${res.status}${msg}${env ? '' : ` body ${show(res.text, 120)}`}`;
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

/**
 * A successful answer (2xx; whether it is exactly 200 is ERR-4's concern). `requirement` is the one
 * the answer belongs to (default: the check's first); a failure of a requirement the check does not
 * name makes it NOT_TESTED (see check.ts).
 */
export function expectSuccess(res: BmcResponse, what: string, requirement?: string): void {
  ensure(res.status >= 200 && res.status < 300, `${what}: expected 200 OK, got ${describeResponse(res)}`, requirement);
}

/**
 * A successful answer and its data. Without a JSON body or a data member the check cannot judge
 * the value (ENV-4 and ENV-1 own those): NOT_TESTED.
 */
export function expectOk(res: BmcResponse, what: string, requirement?: string): unknown {
  expectSuccess(res, what, requirement);
  const env = envelopeOf(res);
  if (!env) notJudged(`${what}: the ${res.status} answer is not a JSON envelope (see ENV-4, ENV-1): ${show(res.text, 120)}`);
  if (!('data' in env)) notJudged(`${what}: the ${res.status} answer has no data member (see ENV-1)`);
  return env.data;
}

/** An error answer with the given status (when known); the shape of error bodies is ERR-1's. */
export function expectError(res: BmcResponse, what: string, status?: number): void {
  if (status !== undefined)
    ensure(res.status === status, `${what}: expected ${status} ${STATUS_CODES[status]}, got ${describeResponse(res)}`);
  else ensure(res.status >= 400, `${what}: expected an error status, got ${describeResponse(res)}`);
}

/** The same D-Bus value (see client/values.ts): a boolean read back as 1 is still the value written. */
export function expectEqual(actual: unknown, expected: unknown, what: string, requirement?: string): void {
  ensure(sameValue(actual, expected), `${what}: got ${show(actual)}, expected ${show(expected)}`, requirement);
}

export function asObject(value: unknown, what: string, requirement?: string): Record<string, unknown> {
  ensure(
    value !== null && typeof value === 'object' && !Array.isArray(value),
    `${what}: expected a JSON object, got ${show(value)}`,
    requirement,
  );
  return value as Record<string, unknown>;
}

export function asStringArray(value: unknown, what: string, requirement?: string): string[] {
  ensure(
    Array.isArray(value) && value.every((v) => typeof v === 'string'),
    `${what}: expected an array of strings, got ${show(value)}`,
    requirement,
  );
  return value as string[];
}

/** Compare path collections as sets: nothing promises an order. */
export function setDifference(a: Iterable<string>, b: Iterable<string>): string[] {
  const bs = new Set(b);
  return [...new Set(a)].filter((x) => !bs.has(x));
}
