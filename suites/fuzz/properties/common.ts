/**
 * What the fuzzing properties share: the environment a property runs in (FuzzEnv), sending a
 * generated request through the client that suits it, the one-line wording of a request and an
 * answer, and the authenticated reads the stability and write properties judge by.
 */
import type { BmcClient, BmcResponse } from '../../../client/http.js';
import { requestTarget } from '../../../client/transport.js';
import type { Profile, WritableAttribute } from '../../../runner/config.js';
import { envelopeOf, show } from '../../harness/assert.js';
import type { Credentials } from '../login.js';
import type { TargetModel, ValueKind } from '../model.js';
import { clip, type Sent } from '../repro.js';
import { anyRequestArb, type FuzzRequest } from '../requests.js';
import { boundaryRequests } from '../boundaries.js';
import type { Judge } from '../runner.js';
import { needsSideClient, sendFuzz, type FuzzStats, type Outcome } from '../send.js';

export interface WriteTarget {
  attr: WritableAttribute;
  /** The value before the property ran (restored afterwards by the caller). */
  original: unknown;
  kind: ValueKind;
}

export interface FuzzEnv {
  client: BmcClient;
  /** Same session, own connection pool: for requests that spoil a pool (see needsSideClient). */
  sideClient?: BmcClient;
  model: TargetModel;
  who: Credentials;
  profile: Profile;
  writable: readonly WritableAttribute[];
  stats: FuzzStats;
  /** An object path whose GET answers 200 with a session. */
  knownGood: string;
  /**
   * Failed logins naming the real user still allowed (accounts lock after repeated failures on
   * some BMCs). Cases beyond it are not sent; `skipped` counts them. One object for the run.
   */
  loginFailures: { left: number; skipped: number };
  /** The target is the simulator: whole-tree enumerations are cheap, unless `enumerateCostly` says otherwise. */
  onSimulator?: boolean;
  /** The target's root enumerate was measured at a second or more (runner/read-costs.ts). */
  enumerateCostly?: boolean;
  /** Reset may be aimed at with wrong arguments (the run allows a factory reset). */
  allowReset?: boolean;
  /**
   * Writes the target accepted with a body that is not {"data": …} JSON (invalid UTF-8 or JSON, no
   * data member). The spec leaves the answer open: recorded, never failed.
   */
  acceptedMalformed: string[];
}

export const asSent = (r: FuzzRequest): Sent[] => [r];

/** A judge that judges nothing: reads whose failures belong to other checks. */
export const unjudged: Judge = { violation: () => undefined };

/**
 * Sends a generated request through the client that suits it. A junk login naming the real user
 * counts against the lockout guard; past it, the request is not sent.
 */
export async function send(env: FuzzEnv, req: FuzzRequest): Promise<Outcome> {
  if (req.namesUser && !takeLoginFailure(env)) return { kind: 'not-sent', reason: 'lockout guard: enough failed logins for the user' };
  const client = env.sideClient && needsSideClient(req) ? env.sideClient : env.client;
  return sendFuzz(client, req, env.stats);
}

/** One more failed login naming the real user may be made (the guard is shared by the run). */
export function takeLoginFailure(env: FuzzEnv): boolean {
  if (env.loginFailures.left <= 0) {
    env.loginFailures.skipped++;
    return false;
  }
  env.loginFailures.left--;
  return true;
}

/** Method and path as sent on the wire (invisible and non-ASCII characters percent-encoded). */
export function line(req: Pick<FuzzRequest, 'method' | 'path'>): string {
  return `${req.method} ${clip(requestTarget('', req.path), 90)}`;
}

export function statusText(res: BmcResponse): string {
  const env = envelopeOf(res);
  return `${res.status}${env && typeof env.message === 'string' ? ` ${show(env.message, 40)}` : ''}`;
}

export function isSuccess(status: number): boolean {
  return status >= 200 && status < 300;
}

/** The methods of the interface; others (OPTIONS, TRACE, …) may be answered by the HTTP layer itself. */
export const API_METHODS = new Set(['GET', 'PUT', 'POST', 'DELETE', 'PATCH']);

/** The boundary cases every run sends first (boundaries.ts). */
export function boundariesOf(env: FuzzEnv): FuzzRequest[] {
  return boundaryRequests({ model: env.model, profile: env.profile, who: env.who, writable: env.writable, allowReset: env.allowReset });
}

/** Any request the profile allows, built from what the target has. */
export function requestsOf(env: FuzzEnv) {
  return anyRequestArb({
    model: env.model,
    profile: env.profile,
    who: env.who,
    writable: env.writable,
    allowReset: env.allowReset,
    enumerateCostly: env.enumerateCostly,
  });
}

/** The error of a dropped connection, on one line. */
export function describeDrop(o: Extract<Outcome, { kind: 'dropped' }>): string {
  return o.error.message.replace(/\s+/g, ' ');
}

/** An authenticated GET of a path, as the reads below send it. */
export const get = (path: string): FuzzRequest => ({ family: 'stable', method: 'GET', path, credentials: true });

export async function read(env: FuzzEnv, judge: Judge, path: string): Promise<{ res: BmcResponse; data: unknown } | undefined> {
  const req = get(path);
  const o = await send(env, req);
  if (o.kind === 'dropped') {
    judge.violation('ERR-5', `${line(req)} got no answer: ${describeDrop(o)}`, [req]);
    return undefined;
  }
  if (o.kind === 'not-sent') return undefined;
  return { res: o.res, data: envelopeOf(o.res)?.data };
}

/** A 200 read, or undefined for a 404 (an object can vanish between listing and reading) or a broken rule. */
export async function readOk(env: FuzzEnv, judge: Judge, path: string, rule: string): Promise<unknown> {
  const r = await read(env, judge, path);
  if (!r || r.res.status === 404) return undefined;
  // Whether the envelope's status says "ok" is ENV-3's concern, judged for every answer.
  if (r.res.status !== 200) {
    judge.violation(rule, `GET ${clip(path, 90)} answered ${statusText(r.res)}`, [get(path)]);
    return undefined;
  }
  return r.data;
}

export { isMap } from '../../../client/values.js';
