/**
 * The fuzzing properties. Each takes a FuzzEnv (client, model, credentials, profile) rather than a
 * test context, so the throughput bench can run the very same generation and checks.
 */
import fc from 'fast-check';
import type { BmcClient, BmcResponse } from '../../../client/http.js';
import { isLosslessNumber, parse as losslessParse } from 'lossless-json';
import { parseJson } from '../../../client/json.js';
import { requestTarget } from '../../../client/transport.js';
import type { Profile, WritableAttribute } from '../../../runner/config.js';
import { envelopeOf, envelopeProblems, setDifference, show, type Problem } from '../assert.js';
import { leakIn, type SentRequest } from '../leak.js';
import { interfaceKeys } from '../tree.js';
import { sameValue } from '../../../client/values.js';
import { contentTypeArb, malformArb, renderBody, shapeArb, type BodyCase } from './bodies.js';
import { loginCaseArb, type Credentials, type LoginCase } from './login.js';
import { kindOf, type TargetModel, type ValueKind } from './model.js';
import { FuzzViolation, clip, type Sent } from './repro.js';
import { anonymousRequestArb, anyRequestArb, loginRequest, type FuzzRequest } from './requests.js';
import type { FuzzProperty, Judge } from './runner.js';
import { needsSideClient, sendFuzz, type FuzzStats, type Outcome } from './send.js';

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
  /** The target is the simulator: whole-tree enumerations are cheap. */
  onSimulator?: boolean;
  /** Reset may be aimed at with wrong arguments (the run allows a factory reset). */
  allowReset?: boolean;
  /**
   * Writes the target accepted with a body that is not {"data": …} JSON (invalid UTF-8 or JSON, no
   * data member). The spec leaves the answer open: recorded, never failed.
   */
  acceptedMalformed: string[];
}

// --- helpers ------------------------------------------------------------------------------------

const asSent = (r: FuzzRequest): Sent[] => [r];

/** A judge that judges nothing: reads whose failures belong to other checks. */
const unjudged: Judge = { violation: () => undefined };

/**
 * Sends a generated request through the client that suits it. A junk login naming the real user
 * counts against the lockout guard; past it, the request is not sent.
 */
async function send(env: FuzzEnv, req: FuzzRequest): Promise<Outcome> {
  if (req.namesUser && !takeLoginFailure(env)) return { kind: 'not-sent', reason: 'lockout guard: enough failed logins for the user' };
  const client = env.sideClient && needsSideClient(req) ? env.sideClient : env.client;
  return sendFuzz(client, req, env.stats);
}

/** One more failed login naming the real user may be made (the guard is shared by the run). */
function takeLoginFailure(env: FuzzEnv): boolean {
  if (env.loginFailures.left <= 0) {
    env.loginFailures.skipped++;
    return false;
  }
  env.loginFailures.left--;
  return true;
}

/** Method and path as sent on the wire (invisible and non-ASCII characters percent-encoded). */
function line(req: Pick<FuzzRequest, 'method' | 'path'>): string {
  return `${req.method} ${clip(requestTarget('', req.path), 90)}`;
}

function statusText(res: BmcResponse): string {
  const env = envelopeOf(res);
  return `${res.status}${env && typeof env.message === 'string' ? ` ${show(env.message, 40)}` : ''}`;
}

function isSuccess(status: number): boolean {
  return status >= 200 && status < 300;
}

/** AUTH-5: a refusal without credentials carries nothing of the tree the request did not carry. */
export function anonymousLeak(res: BmcResponse, req: SentRequest, model: TargetModel): string | undefined {
  return leakIn(res, req, model.knowledge);
}

const API_METHODS = new Set(['GET', 'PUT', 'POST', 'DELETE', 'PATCH']);

/** The members a JSON body has of {data, message, status}. */
function envelopeMembers(res: BmcResponse): number {
  const env = envelopeOf(res);
  if (!env) return 0;
  return ['data', 'message', 'status'].filter((m) => m in env).length;
}

/**
 * ENV-1..4 for any answer: a spec envelope whose message is this status line and whose status
 * agrees with the code, or, for a refusal, a body that is no envelope at all (bmcweb refuses with
 * an empty body). HEAD answers have no body by definition. Leaks are the anonymous property's.
 */
export function envelopeVerdict(req: FuzzRequest, res: BmcResponse): Problem[] {
  if (req.method.toUpperCase() === 'HEAD') return [];
  // Methods outside the interface (OPTIONS, TRACE, …) may be answered by the HTTP layer itself
  // (an Allow list, an echo): only a body meant as an envelope is held to the envelope rules.
  const apiMethod = API_METHODS.has(req.method);
  const refusal = !isSuccess(res.status) || !apiMethod;
  if (res.text.trim() === '') {
    return refusal ? [] : [{ requirement: 'ENV-1', problem: 'a successful answer with an empty body, not an envelope' }];
  }
  if (res.json === undefined) {
    return refusal ? [] : [{ requirement: 'ENV-4', problem: `a successful answer that is not JSON: ${show(res.text, 80)}` }];
  }
  // Two or more envelope members: meant as an envelope, so it must be a correct one.
  if (refusal && envelopeMembers(res) < 2) return [];
  return envelopeProblems(res);
}

/** Any request the profile allows, built from what the target has. */
function requestsOf(env: FuzzEnv) {
  return anyRequestArb({ model: env.model, profile: env.profile, who: env.who, writable: env.writable, allowReset: env.allowReset });
}

// --- ENV-1 ENV-2 ENV-3 (+AUTH-5) -----------------------------------------------------------------

export function envelopeProperty(env: FuzzEnv): FuzzProperty<FuzzRequest> {
  return {
    key: 'env',
    requirements: ['ENV-1', 'ENV-2', 'ENV-3', 'ENV-4'],
    requestsPerRun: 1,
    arbitrary: requestsOf(env),
    reproOf: asSent,
    predicate: async (req, judge) => {
      const o = await send(env, req);
      if (o.kind !== 'answered') return; // dropped connections are ERR-5's to judge
      for (const p of envelopeVerdict(req, o.res)) judge.violation(p.requirement, `${line(req)} answered ${statusText(o.res)}: ${p.problem}`, [req]);
    },
  };
}

// --- ERR-5 -------------------------------------------------------------------------------------

export function describeDrop(o: Extract<Outcome, { kind: 'dropped' }>): string {
  return o.error.message.replace(/\s+/g, ' ');
}

/**
 * Whose failure a server error is: a well-formed {"data": value} PUT of an attribute is WR-1's
 * when the value has another type than the attribute shows (EP-8's when it has the same); any
 * other input is ERR-5's.
 */
function serverErrorOwner(model: TargetModel, req: FuzzRequest): string {
  const m = req.method === 'PUT' ? /^(.*)\/attr\/([^/]+)$/.exec(req.path) : null;
  const eff = m && req.body !== undefined ? effectiveData(req.body) : undefined;
  if (!m || !eff) return 'ERR-5';
  const kind = model.kinds.get(`${m[1]}\u0000${m[2]}`);
  if (!kind) return 'WR-1';
  return typedAs(kind, eff, { path: m[1]!, name: m[2]! }) === 'right' ? 'EP-8' : 'WR-1';
}

export function serverErrorProperty(env: FuzzEnv): FuzzProperty<FuzzRequest> {
  return {
    key: 'err5',
    requirements: ['ERR-5', 'WR-1', 'EP-8'],
    requestsPerRun: 1,
    arbitrary: requestsOf(env),
    reproOf: asSent,
    predicate: async (req, judge) => {
      const o = await send(env, req);
      const owner = serverErrorOwner(env.model, req);
      if (o.kind === 'dropped') judge.violation(owner, `${line(req)} got no answer: ${describeDrop(o)}`, [req]);
      if (o.kind === 'answered' && o.res.status >= 500) judge.violation(owner, `${line(req)} answered ${statusText(o.res)}: a server error`, [req]);
    },
  };
}

// --- AUTH-1 AUTH-5 -----------------------------------------------------------------------------

export function anonymousProperty(env: FuzzEnv): FuzzProperty<FuzzRequest> {
  return {
    key: 'auth1',
    requirements: ['AUTH-1', 'AUTH-5'],
    requestsPerRun: 1,
    arbitrary: anonymousRequestArb({ model: env.model, profile: env.profile, who: env.who, writable: env.writable, allowReset: env.allowReset }),
    reproOf: asSent,
    predicate: async (req, judge) => {
      const o = await send(env, req);
      if (o.kind !== 'answered') return;
      // OPTIONS, TRACE and the like may be answered by the HTTP layer (Allow, an echo): for them
      // only object data counts; a request of the interface must be refused outright.
      if (isSuccess(o.res.status) && API_METHODS.has(req.method)) {
        judge.violation('AUTH-1', `${line(req)} without credentials answered ${statusText(o.res)}: not refused`, [req]);
        return; // what a success carries is AUTH-1's failure, not a leak of a refusal
      }
      const leak = anonymousLeak(o.res, req, env.model);
      if (leak) judge.violation('AUTH-5', `${line(req)} without credentials answered ${o.res.status} and ${leak}`, [req]);
    },
  };
}

// --- EP-4 EP-6 EP-7 RULE-1: GET is stable -------------------------------------------------------

export type StableCase =
  | { kind: 'attr'; path: string; name: string }
  | { kind: 'list'; node: string; pick: number }
  | { kind: 'enumerate'; node: string; pick: number };

const get = (path: string): FuzzRequest => ({ family: 'stable', method: 'GET', path, credentials: true });

async function read(env: FuzzEnv, judge: Judge, path: string): Promise<{ res: BmcResponse; data: unknown } | undefined> {
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
async function readOk(env: FuzzEnv, judge: Judge, path: string, rule: string): Promise<unknown> {
  const r = await read(env, judge, path);
  if (!r || r.res.status === 404) return undefined;
  // Whether the envelope's status says "ok" is ENV-3's concern, judged for every answer.
  if (r.res.status !== 200) {
    judge.violation(rule, `GET ${clip(path, 90)} answered ${statusText(r.res)}`, [get(path)]);
    return undefined;
  }
  return r.data;
}

function isMap(v: unknown): v is Record<string, unknown> {
  return v !== null && typeof v === 'object' && !Array.isArray(v);
}

function strings(v: unknown): string[] | undefined {
  return Array.isArray(v) && v.every((x) => typeof x === 'string') ? (v as string[]) : undefined;
}

function isNumeric(v: unknown): v is number | bigint {
  return typeof v === 'bigint' || (typeof v === 'number' && Number.isFinite(v));
}

function between(a: number | bigint, b: number | bigint, c: number | bigint): boolean {
  const n = (v: number | bigint) => (typeof v === 'bigint' || Number.isInteger(v) ? BigInt(v) : v);
  const [x, y, z] = [n(a), n(b), n(c)];
  const lo = x < z ? x : z;
  const hi = x < z ? z : x;
  return lo <= y && y <= hi;
}

export type Agreement = 'agree' | 'moving' | 'disagree';

/**
 * Two routes that must show the same value, read in turn: X once, Y once, then X again and, if
 * needed, Y again. They agree when a reading of one is the same value as the neighbouring reading
 * of the other (in any encoding: see client/values.ts), or, for a number moving under us (a counter
 * such as Elapsed), when the other route's reading lies between two readings of the moving one. A
 * non-numeric value that keeps changing cannot be judged.
 */
export async function compareRoutes(x1: unknown, y1: unknown, readX: () => Promise<unknown>, readY: () => Promise<unknown>): Promise<Agreement> {
  if (sameValue(x1, y1)) return 'agree';
  const x2 = await readX();
  if (sameValue(y1, x2)) return 'agree';
  if (!sameValue(x1, x2)) {
    if (isNumeric(x1) && isNumeric(y1) && isNumeric(x2)) return between(x1, y1, x2) ? 'agree' : 'disagree';
    return 'moving';
  }
  const y2 = await readY();
  if (sameValue(y2, x2)) return 'agree';
  if (!sameValue(y1, y2)) {
    if (isNumeric(y1) && isNumeric(x2) && isNumeric(y2)) return between(y1, x2, y2) ? 'agree' : 'moving';
    return 'moving';
  }
  return 'disagree';
}

/** An object's map keyed by attribute names; keyed by interfaces it is EP-3's failure, and nothing to compare. */
function attributeShaped(judge: Judge, path: string, map: Record<string, unknown>): boolean {
  const interfaces = interfaceKeys(map);
  if (interfaces.length === 0) return true;
  judge.violation('EP-3', `GET ${clip(path, 90)} maps interface names (${show(interfaces.slice(0, 2), 100)}), not attribute names`, [get(path)]);
  return false;
}

async function attrStable(env: FuzzEnv, judge: Judge, path: string, name: string): Promise<void> {
  const attrPath = `${path}/attr/${name}`;
  const map1 = await readOk(env, judge, path, 'EP-3');
  if (!isMap(map1) || !attributeShaped(judge, path, map1) || !(name in map1)) return;
  const r = await read(env, judge, attrPath);
  if (!r) return;
  if (r.res.status !== 200) {
    judge.violation('EP-4', `GET ${clip(attrPath, 100)} answered ${statusText(r.res)}, yet GET ${clip(path, 80)} has ${name}`, [get(attrPath)]);
    return;
  }
  let lastMap: unknown = map1[name];
  let lastAttr: unknown = r.data;
  const verdict = await compareRoutes(
    map1[name],
    r.data,
    async () => {
      const m = await readOk(env, judge, path, 'EP-3');
      lastMap = isMap(m) ? m[name] : undefined;
      return lastMap;
    },
    async () => (lastAttr = (await read(env, judge, attrPath))?.data),
  );
  if (verdict !== 'disagree') return;
  judge.violation('EP-4', `attr/${clip(name, 40)} answers ${show(lastAttr, 70)} but GET ${clip(path, 80)} has ${show(lastMap, 70)} (read twice)`, [get(attrPath)]);
}

async function listStable(env: FuzzEnv, judge: Judge, node: string, pick: number): Promise<void> {
  const listPath = `${node}/list`;
  const l1 = await readOk(env, judge, listPath, 'EP-6');
  if (l1 === undefined) return;
  const listed = strings(l1);
  if (!listed) {
    judge.violation('EP-6', `GET ${clip(listPath, 100)} is not an array of paths: ${show(l1, 80)}`, [get(listPath)]);
    return;
  }
  const outside = listed.filter((p) => !p.startsWith(`${node}/`));
  if (outside.length > 0) {
    judge.violation('EP-6', `GET ${clip(listPath, 100)} names paths that are not descendants: ${show(outside.slice(0, 3), 120)}`, [get(listPath)]);
    return;
  }
  const candidates = [node, ...[...listed].sort()];
  const parent = candidates[pick % candidates.length]!;
  const childPath = `${parent}/`;
  const kids = strings(await readOk(env, judge, childPath, 'EP-5'));
  if (!kids) return;
  const strays = kids.filter((k) => !k.startsWith(childPath));
  if (strays.length > 0) {
    judge.violation('EP-5', `GET ${clip(childPath, 90)} names ${show(strays.slice(0, 2), 120)}, not absolute paths below it`, [get(childPath)]);
    return;
  }
  if (setDifference(kids, listed).length === 0) return;
  // Transient objects: read both again before judging.
  const again = strings(await readOk(env, judge, listPath, 'EP-6')) ?? [];
  const kids2 = strings(await readOk(env, judge, childPath, 'EP-5')) ?? [];
  const missing = setDifference(kids2, again);
  if (missing.length === 0) return;
  judge.violation('EP-6', `GET ${clip(listPath, 90)} lacks ${show(missing.slice(0, 2), 120)}, listed as children by GET ${clip(childPath, 90)}`, [get(listPath)]);
}

async function enumerateStable(env: FuzzEnv, judge: Judge, node: string, pick: number): Promise<void> {
  const enumPath = `${node}/enumerate`;
  const listPath = `${node}/list`;
  const e1 = await readOk(env, judge, enumPath, 'EP-7');
  if (e1 === undefined) return;
  if (!isMap(e1)) {
    judge.violation('EP-7', `GET ${clip(enumPath, 100)} is not a map: ${show(e1, 80)}`, [get(enumPath)]);
    return;
  }
  const listed = strings(await readOk(env, judge, listPath, 'EP-6'));
  if (!listed) return;
  if (setDifference(Object.keys(e1), listed).length > 0) {
    const e2 = await readOk(env, judge, enumPath, 'EP-7');
    const l2 = strings(await readOk(env, judge, listPath, 'EP-6')) ?? [];
    const extra = isMap(e2) ? setDifference(Object.keys(e2), l2) : [];
    const notBelow = extra.filter((p) => !p.startsWith(`${node}/`));
    if (notBelow.length > 0) {
      judge.violation('EP-7', `GET ${clip(enumPath, 90)} names ${show(notBelow.slice(0, 2), 120)}, which are not descendants of ${clip(node, 80)}`, [get(enumPath)]);
    } else if (extra.length > 0) {
      // One of the two is wrong: list, when the path enumerate names exists; enumerate, when not.
      const real = (await read(env, unjudged, extra[0]!))?.res.status === 200;
      if (real) judge.violation('EP-6', `GET ${clip(listPath, 90)} lacks ${show(extra.slice(0, 2), 120)}, which exists and GET ${clip(enumPath, 90)} names`, [get(listPath)]);
      else judge.violation('EP-7', `GET ${clip(enumPath, 90)} names ${show(extra.slice(0, 2), 120)}, which does not exist`, [get(enumPath)]);
    }
  }
  const keys = Object.keys(e1).sort();
  if (keys.length === 0) return;
  const key = keys[pick % keys.length]!;
  const attrs1 = e1[key];
  if (!isMap(attrs1)) {
    judge.violation('EP-7', `GET ${clip(enumPath, 100)} maps ${key} to ${show(attrs1, 60)}, not an attribute map`, [get(enumPath)]);
    return;
  }
  const direct1 = await readOk(env, judge, key, 'EP-3');
  if (!isMap(direct1) || !attributeShaped(judge, key, direct1)) return;
  const names = [...new Set([...Object.keys(attrs1), ...Object.keys(direct1)])].filter((n) => !sameValue(attrs1[n], direct1[n]));
  // Re-reads are shared by the attributes that differ: each route is read at most twice more.
  let e2: Promise<Record<string, unknown>> | undefined;
  let d2: Promise<Record<string, unknown>> | undefined;
  const enumAgain = () =>
    (e2 ??= readOk(env, judge, enumPath, 'EP-7').then((e) => (isMap(e) && isMap(e[key]) ? (e[key] as Record<string, unknown>) : {})));
  const directAgain = () => (d2 ??= readOk(env, judge, key, 'EP-3').then((d) => (isMap(d) ? d : {})));
  for (const n of names) {
    const verdict = await compareRoutes(attrs1[n], direct1[n], async () => (await enumAgain())[n], async () => (await directAgain())[n]);
    if (verdict !== 'disagree') continue;
    const shown = (await enumAgain())[n];
    const what = shown === undefined ? 'lacks it' : `says ${show(shown, 50)}`;
    judge.violation('EP-7', `for ${clip(key, 80)} ${n}, GET ${clip(enumPath, 80)} ${what}, GET ${clip(key, 80)} has ${show((await directAgain())[n] ?? direct1[n], 50)} (read twice)`, [get(enumPath)]);
    return;
  }
}

/**
 * Cases of the stability property. On hardware the namespace root is not enumerated (a whole-tree
 * enumeration takes minutes there; the model already did one).
 */
export function stableCaseArb(model: TargetModel, enumerateRoot = true): fc.Arbitrary<StableCase> {
  const parents = model.parents.length > 0 ? model.parents : [model.root];
  const enumerable = enumerateRoot || parents.length === 1 ? parents : parents.filter((p) => p !== model.root);
  const cases: Array<fc.WeightedArbitrary<StableCase>> = [
    { weight: 2, arbitrary: fc.record({ kind: fc.constant('list' as const), node: fc.constantFrom(...parents), pick: fc.nat() }) },
    { weight: 2, arbitrary: fc.record({ kind: fc.constant('enumerate' as const), node: fc.constantFrom(...enumerable), pick: fc.nat() }) },
  ];
  if (model.attrPairs.length > 0) {
    cases.unshift({
      weight: 3,
      arbitrary: fc.constantFrom(...model.attrPairs).map(([path, name]): StableCase => ({ kind: 'attr', path, name })),
    });
  }
  return fc.oneof(...cases);
}

export function stabilityProperty(env: FuzzEnv): FuzzProperty<StableCase> {
  return {
    key: 'stable',
    requirements: STABILITY_REQUIREMENTS,
    requestsPerRun: 2.5,
    arbitrary: stableCaseArb(env.model, env.onSimulator ?? true),
    predicate: async (c, judge) => {
      if (c.kind === 'attr') await attrStable(env, judge, c.path, c.name);
      else if (c.kind === 'list') await listStable(env, judge, c.node, c.pick);
      else await enumerateStable(env, judge, c.node, c.pick);
    },
  };
}

/** What the stability property judges (a read that drops its connection is ERR-5's). */
export const STABILITY_REQUIREMENTS = ['EP-3', 'EP-4', 'EP-5', 'EP-6', 'EP-7', 'ERR-5'] as const;

// --- WR-1 EP-8: wrong types refused, accepted values read back ------------------------------------

export interface WriteCase {
  target: number;
  body: BodyCase;
  contentType: string | undefined;
}

export type Expectation = 'right' | 'wrong' | 'either';

/** Whether a value has the attribute's type, judged from the value its GET shows. */
export function expectation(kind: ValueKind, value: unknown, attr: WritableAttribute): Expectation {
  const isInt = (typeof value === 'number' && Number.isInteger(value)) || typeof value === 'bigint';
  switch (kind) {
    case 'string':
      return typeof value === 'string' ? 'right' : 'wrong';
    case 'enum':
      if (typeof value !== 'string') return 'wrong';
      // Without the declared values, no string but the current one is known to be allowed.
      return attr.values?.some((v) => v === value) ? 'right' : 'either';
    case 'integer':
      if (isInt && Number(value) >= 0 && Number(value) <= 65_535) return 'right';
      return typeof value === 'number' || typeof value === 'bigint' || typeof value === 'boolean' ? 'either' : 'wrong';
    case 'bool01':
      // 0 or 1 may be a D-Bus boolean or an integer that holds 0 or 1 now: only 0 and 1 are sure.
      if (value === 0 || value === 1) return 'right';
      return typeof value === 'number' || typeof value === 'bigint' || typeof value === 'boolean' ? 'either' : 'wrong';
    case 'boolean':
      if (value === 0 || value === 1 || value === true || value === false) return 'right';
      return typeof value === 'number' || typeof value === 'bigint' ? 'either' : 'wrong';
    case 'float':
      if (typeof value === 'number') return 'right';
      return typeof value === 'bigint' || typeof value === 'boolean' ? 'either' : 'wrong';
    default:
      return 'either';
  }
}

function rightValueArb(t: WriteTarget): fc.Arbitrary<unknown> {
  switch (t.kind) {
    case 'string':
      return fc.oneof(fc.string({ unit: 'grapheme', maxLength: 40 }), fc.constantFrom('', ' ', 'é✓😀', 'a'.repeat(64), 'bmc-conformance-fuzz'));
    case 'enum':
      return t.attr.values && t.attr.values.length > 0 ? fc.constantFrom(...t.attr.values) : fc.constant(t.original);
    case 'integer':
      return fc.integer({ min: 0, max: 65_535 });
    case 'bool01':
    case 'boolean':
      return fc.constantFrom<unknown>(0, 1, true, false);
    case 'float':
      return fc.double({ min: -1000, max: 1000, noNaN: true });
    default:
      return fc.constant(t.original);
  }
}

function edgeValueArb(t: WriteTarget): fc.Arbitrary<unknown> {
  switch (t.kind) {
    case 'enum':
      return fc.oneof(
        fc.string({ maxLength: 12 }),
        fc.constantFrom(...(t.attr.values ?? [String(t.original)])).map((v) => `${String(v)}x`),
        fc.constantFrom(...(t.attr.values ?? [String(t.original)])).map((v) => String(v).toLowerCase()),
      );
    case 'integer':
      return fc.constantFrom<unknown>(-1, 2 ** 31, 2 ** 32 - 1, 2 ** 32, 2 ** 53 + 2, 2n ** 64n, -(2n ** 63n) - 1n, 0.5, 1e300, true);
    case 'bool01':
    case 'boolean':
      return fc.constantFrom<unknown>(2, -1, 0.5, 255, 256, 2n ** 64n);
    default:
      return fc.constantFrom<unknown>(1e308, -0);
  }
}

function wrongValueArb(t: WriteTarget): fc.Arbitrary<unknown> {
  const numeric = t.kind === 'integer' || t.kind === 'bool01' || t.kind === 'boolean' || t.kind === 'float';
  const others: Array<fc.Arbitrary<unknown>> = [
    fc.constant(null),
    fc.array(fc.oneof(fc.integer(), fc.string({ maxLength: 6 })), { maxLength: 3 }),
    fc.dictionary(fc.string({ maxLength: 6 }), fc.integer(), { maxKeys: 2 }),
  ];
  if (numeric) others.unshift(fc.oneof(fc.constantFrom('0', '1', '600', '', 'true', '1e3'), fc.string({ maxLength: 8 })));
  else others.unshift(fc.oneof(fc.integer(), fc.constantFrom(0, 1, -1, 1.5, 2n ** 64n)), fc.boolean());
  return fc.oneof(...others);
}

export function writeCaseArb(targets: readonly WriteTarget[]): fc.Arbitrary<WriteCase> {
  const perTarget = targets.map((t, i) =>
    fc.record({
      target: fc.constant(i),
      body: fc.record({
        shape: fc.oneof({ withCrossShrink: true }, { weight: 8, arbitrary: fc.constant('data' as const) }, { weight: 1, arbitrary: shapeArb() }),
        value: fc.oneof({ weight: 4, arbitrary: wrongValueArb(t) }, { weight: 3, arbitrary: rightValueArb(t) }, { weight: 2, arbitrary: edgeValueArb(t) }),
        malform: fc.oneof({ withCrossShrink: true }, { weight: 8, arbitrary: fc.constant({ kind: 'none' as const }) }, { weight: 1, arbitrary: malformArb() }),
      }),
      contentType: fc.oneof({ withCrossShrink: true }, { weight: 8, arbitrary: fc.constant<string | undefined>('application/json') }, { weight: 1, arbitrary: contentTypeArb() }),
    }),
  );
  return fc.oneof(...perTarget);
}

/** The `data` a lenient server could take from the body, if the body is JSON with a data member. */
/**
 * The `data` a lenient server could take from the body, if the body is JSON with a data member;
 * `fraction` when that data is a number written with a fraction or exponent (1.0 is a float in
 * JSON text, not the integer 1 a D-Bus boolean or integer takes).
 */
export function effectiveData(body: string | Buffer): { value: unknown; fraction: boolean } | undefined {
  try {
    const text = (typeof body === 'string' ? body : new TextDecoder('utf-8', { fatal: true }).decode(body)).replace(/^\ufeff/, '');
    let parsed: unknown;
    let raw: unknown;
    try {
      parsed = parseJson(text);
      raw = (losslessParse(text, null, { onDuplicateKey: ({ newValue }) => newValue }) as Record<string, unknown>).data;
    } catch (err) {
      // Valid JSON too deep for the lossless parser (thousands of nested arrays) is still JSON.
      if (!(err instanceof RangeError)) throw err;
      parsed = JSON.parse(text);
    }
    if (!isMap(parsed) || !('data' in parsed)) return undefined;
    return { value: parsed.data, fraction: isLosslessNumber(raw) && /[.eE]/.test(raw.value) };
  } catch {
    /* not JSON: no value can be taken from it */
  }
  return undefined;
}

/** Whether a write's value has the attribute's type: a number with a fraction is no integer. */
function typedAs(kind: ValueKind, eff: { value: unknown; fraction: boolean }, attr: WritableAttribute): Expectation {
  const judged = expectation(kind, eff.value, attr);
  return judged === 'right' && eff.fraction && kind !== 'float' ? 'either' : judged;
}

export function writeRequest(t: WriteTarget, c: WriteCase): FuzzRequest {
  return {
    family: 'write',
    method: 'PUT',
    path: `${t.attr.path}/attr/${t.attr.name}`,
    body: renderBody(c.body),
    contentType: c.contentType,
    credentials: true,
  };
}

export function writeProperty(env: FuzzEnv, targets: readonly WriteTarget[]): FuzzProperty<WriteCase> {
  return {
    key: 'wr1',
    requirements: ['WR-1', 'EP-8', 'ERR-5'],
    requestsPerRun: 3,
    arbitrary: writeCaseArb(targets),
    reproOf: (c) => [writeRequest(targets[c.target]!, c)],
    predicate: async (c, judge) => {
      const t = targets[c.target]!;
      // Values are read from the object's map (endpoint 3): a lying attr/ route is EP-4's concern.
      const valueOf = async () => {
        const map = await readOk(env, unjudged, t.attr.path, 'EP-8');
        return isMap(map) ? map[t.attr.name] : undefined;
      };
      const before = await valueOf();
      if (before === undefined) return;
      const req = writeRequest(t, c);
      const o = await send(env, req);
      if (o.kind === 'not-sent') return;
      // Only a body that is {"data": value} JSON says what value was meant: a body that is not
      // (invalid UTF-8 or JSON, no data member) can break nothing but surviving bad input (ERR-5).
      const eff = effectiveData(req.body!);
      const typed = eff === undefined ? undefined : typedAs(t.kind, eff, t.attr);
      const owner = typed === undefined ? 'ERR-5' : typed === 'right' ? 'EP-8' : 'WR-1';
      if (o.kind === 'dropped') {
        judge.violation(owner, `${line(req)} got no answer: ${describeDrop(o)}`, [req]);
        return;
      }
      const res = o.res;
      if (res.status >= 500) {
        judge.violation(owner, `${line(req)} answered ${statusText(res)}: a server error`, [req]);
        return;
      }
      const after = await valueOf();
      if (eff === undefined || typed === undefined) {
        if (isSuccess(res.status) || !sameValue(after, before)) noteMalformed(env, req, res, before, after);
        return;
      }
      if (!isSuccess(res.status)) {
        if (!sameValue(after, before)) {
          judge.violation(owner, `${line(req)} was refused (${res.status}) but ${t.attr.name} changed from ${show(before, 50)} to ${show(after, 50)}`, [req]);
        }
        return;
      }
      if (typed === 'wrong') {
        judge.violation('WR-1', `${line(req)} with ${show(eff.value, 50)} (not ${/^[aeiou]/.test(t.kind) ? 'an' : 'a'} ${t.kind} value) answered ${statusText(res)}; ${t.attr.name} reads ${show(after, 50)}`, [req]);
        return;
      }
      if (sameValue(eff.value, after)) return;
      // A value of uncertain type (out of range, another number type) taken and stored as another
      // value is WR-1's case; if the value did not move at all, the write may have been ignored
      // (EP-8's) or coerced into the value it had: that cannot be told apart, so it is not judged.
      if (typed === 'either' && sameValue(after, before)) return;
      judge.violation(owner, `${line(req)} with ${show(eff.value, 50)} answered ${res.status} but ${t.attr.name} reads back ${show(after, 50)}`, [req]);
    },
  };
}

/** Keeps the first few accepted malformed writes for the observation. */
function noteMalformed(env: FuzzEnv, req: FuzzRequest, res: BmcResponse, before: unknown, after: unknown): void {
  if (env.acceptedMalformed.length >= 5) return;
  const changed = sameValue(before, after) ? 'unchanged' : `changed from ${show(before, 40)} to ${show(after, 40)}`;
  env.acceptedMalformed.push(`${line(req)} with ${show(bodyText(req.body), 60)} answered ${res.status}; value ${changed}`);
}

function bodyText(body: string | Buffer | undefined): string {
  if (body === undefined) return '';
  return typeof body === 'string' ? body : body.toString('utf8');
}

/** Write targets: the declared writable attributes that answer, with the kind their value shows. */
export async function writeTargets(env: Pick<FuzzEnv, 'client' | 'writable' | 'stats'>): Promise<WriteTarget[]> {
  const targets: WriteTarget[] = [];
  for (const attr of env.writable) {
    const res = await env.client.get(`${attr.path}/attr/${attr.name}`);
    if (res.status !== 200) continue;
    const original = envelopeOf(res)?.data;
    targets.push({ attr, original, kind: attr.values ? 'enum' : kindOf(original) });
  }
  return targets;
}

// --- AUTH-4: no login body but the right one opens a session ---------------------------------------

/** Cookie header made of every cookie a response set, whatever its status. */
function cookiesOf(res: BmcResponse): string | undefined {
  const raw = res.headers['set-cookie'];
  const all = raw === undefined ? [] : Array.isArray(raw) ? raw : [raw];
  const pairs = all.map((c) => c.split(';')[0]!.trim()).filter((p) => p.includes('=') && !/=\s*$/.test(p));
  return pairs.length > 0 ? pairs.join('; ') : undefined;
}

export function loginRequestOf(who: Credentials, c: LoginCase): FuzzRequest {
  return loginRequest('/login', c, who);
}

export function loginProperty(env: FuzzEnv, loginClient: BmcClient): FuzzProperty<LoginCase> {
  return {
    key: 'auth4',
    requirements: ['AUTH-4'],
    requestsPerRun: 1.2,
    arbitrary: loginCaseArb(env.who),
    reproOf: (c) => [loginRequestOf(env.who, c)],
    predicate: async (c, judge) => {
      const req = loginRequestOf(env.who, c);
      if (req.namesUser && !takeLoginFailure(env)) return;
      const o = await sendFuzz(loginClient, req, env.stats);
      if (o.kind !== 'answered') return;
      const res = o.res;
      if (isSuccess(res.status)) {
        judge.violation('AUTH-4', `POST /login with a wrong or malformed body answered ${statusText(res)}`, [req]);
        return;
      }
      const cookie = cookiesOf(res);
      const data = envelopeOf(res)?.data;
      const token = isMap(data) && typeof data.token === 'string' ? data.token : undefined;
      if (!cookie && !token) return;
      const headers: Record<string, string> = {};
      if (cookie) headers.cookie = cookie;
      if (token) headers['x-auth-token'] = token;
      const probe = await loginClient.request('GET', env.knownGood, { auth: false, relogin: false, headers });
      env.stats.sent++;
      if (isSuccess(probe.status) || anonymousLeak(probe, { path: env.knownGood }, env.model)) {
        judge.violation('AUTH-4', `POST /login was refused (${res.status}) but the ${cookie ? 'cookie' : 'token'} it handed out reads GET ${env.knownGood} (${probe.status})`, [req]);
      }
    },
  };
}
