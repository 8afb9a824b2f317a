/**
 * Whole requests: method, path, body, content type and whether the session goes with it, drawn
 * from families that the run's profile allows. Requests that could change the target are built so
 * that they cannot land on a real object unless the profile says changes are accepted:
 *
 * - read-only: GET, HEAD and other non-changing methods anywhere; junk logins (never valid);
 * - safe: also PUT of anything on the declared writable attributes (restored afterwards), changing
 *   methods below a sentinel path that names nothing (mutated only in ways that cannot normalise
 *   onto a real path), and actions with made-up names;
 * - destructive: also the real actions with a wrong arity or wrong types, and changing methods on
 *   real paths when they are sent without credentials.
 */
import fc from 'fast-check';
import { profileAllows, type Profile, type WritableAttribute } from '../../runner/config.js';
import { bodyArb, contentTypeArb, junkBodyArb, jsonValueArb, renderBody, type BodyCase } from './bodies.js';
import { loginCaseArb, renderLogin, type Credentials, type LoginCase } from './login.js';
import type { TargetModel } from './model.js';
import { mutationsArb, nameArb, readPathArb, renderPath, sentinelPathArb, type Suffix } from './paths.js';

export interface FuzzRequest {
  /** Which family made it (reports and statistics). */
  family: string;
  method: string;
  /** Sent verbatim (the client percent-encodes only bytes a request line cannot carry). */
  path: string;
  body?: string | Buffer;
  contentType?: string;
  /** Send the session cookie. */
  credentials: boolean;
  /** For login bodies: the body with $PASSWORD expansions, for the printed reproduction. */
  template?: { text: string; expansions: string[] };
  /** A login body naming the real user: a failed attempt that may count against the account. */
  namesUser?: boolean;
}

/** Methods that change nothing. GET first: shrinking prefers it. */
export const READ_METHODS = ['GET', 'HEAD', 'OPTIONS', 'TRACE', 'get', 'FOO', 'PROPFIND'] as const;
export const WRITE_METHODS = ['PUT', 'POST', 'DELETE', 'PATCH'] as const;

export interface RequestOptions {
  model: TargetModel;
  profile: Profile;
  who: Credentials;
  writable: readonly WritableAttribute[];
  /** Reset (factory reset) may be aimed at, with wrong arguments (--allow-factory-reset). */
  allowReset?: boolean;
  /**
   * The target's enumerate costs seconds (runner/read-costs.ts): the plain reads, each served, leave
   * it out. Their answers are the same the run's enumerates of real nodes get (EP-7, the stability
   * property, the stateful views), each judged by the answers oracle; the generated and fixed
   * boundary cases still enumerate odd paths.
   */
  enumerateCostly?: boolean;
}

function withBody(
  method: string,
  path: string,
  body: BodyCase,
  contentType: string | undefined,
): Omit<FuzzRequest, 'family' | 'credentials'> {
  return { method, path, body: renderBody(body), contentType };
}

/** GET/HEAD/… on any path of the tree, mutated; sometimes with a body a GET should not have. */
export function readFamily(model: TargetModel, credentials: boolean): fc.Arbitrary<FuzzRequest> {
  return fc
    .record({
      method: fc.oneof(
        { withCrossShrink: true },
        { weight: 8, arbitrary: fc.constant('GET') },
        { weight: 3, arbitrary: fc.constantFrom(...READ_METHODS) },
      ),
      path: readPathArb(model),
      // A body on a GET now and then (fc.option's freq is the odds of *no* value: 1 in freq).
      body: fc.oneof(
        { withCrossShrink: true },
        { weight: 7, arbitrary: fc.constant(null) },
        { weight: 1, arbitrary: fc.tuple(junkBodyArb(), fc.constantFrom<string | undefined>('application/json', undefined, 'text/plain')) },
      ),
    })
    .map(({ method, path, body }) => ({
      family: 'read',
      method,
      path: renderPath(path),
      ...(body ? { body: body[0], contentType: body[1] } : {}),
      credentials,
    }));
}

/**
 * GET (sometimes HEAD) of real objects, listings and attributes, unmutated: the successful answers;
 * `withEnumerate` false: no enumerate among them.
 */
export function plainReadFamily(model: TargetModel, withEnumerate = true): fc.Arbitrary<FuzzRequest> {
  const suffixes: Suffix[] = [
    { kind: 'none' },
    { kind: 'slash' },
    { kind: 'list' },
    ...(withEnumerate ? [{ kind: 'enumerate' } as const] : []),
  ];
  const node = fc.record({ base: fc.constantFrom(...model.nodes), suffix: fc.constantFrom(...suffixes) });
  const attr =
    model.attrPairs.length > 0
      ? fc.constantFrom(...model.attrPairs).map(([base, name]) => ({ base, suffix: { kind: 'attr', name } as Suffix }))
      : node;
  return fc
    .record({
      method: fc.oneof({ weight: 6, arbitrary: fc.constant('GET') }, { weight: 1, arbitrary: fc.constant('HEAD') }),
      target: fc.oneof(node, attr),
    })
    .map(({ method, target }) => ({ family: 'plain-read', method, path: renderPath({ ...target, mutations: [] }), credentials: true }));
}

/** POST /login (and near spellings of it) with bodies that are never a valid login. */
export function loginFamily(who: Credentials): fc.Arbitrary<FuzzRequest> {
  return fc
    .record({
      path: fc.oneof(
        { withCrossShrink: true },
        { weight: 6, arbitrary: fc.constant('/login') },
        { weight: 1, arbitrary: fc.constantFrom('/login/', '/LOGIN', '/login?x=1', '//login', '/login%00', '/Login') },
      ),
      login: loginCaseArb(who),
    })
    .map(({ path, login }) => loginRequest(path, login, who));
}

export function loginRequest(path: string, login: LoginCase, who: Credentials): FuzzRequest {
  const r = renderLogin(login, who);
  return {
    family: 'login',
    method: 'POST',
    path,
    body: r.body,
    contentType: login.contentType,
    credentials: false,
    template: r.template,
    namesUser: r.namesUser,
  };
}

/** Changing methods below the sentinel: whatever the body, nothing real can be touched. */
export function sentinelFamily(model: TargetModel, credentials: boolean): fc.Arbitrary<FuzzRequest> {
  return fc
    .record({
      method: fc.constantFrom(...WRITE_METHODS),
      path: sentinelPathArb(model),
      body: fc.option(bodyArb(), { freq: 6, nil: undefined }),
      contentType: contentTypeArb(),
    })
    .map(({ method, path, body, contentType }) => ({
      family: 'sentinel',
      ...(body && method !== 'DELETE' ? withBody(method, renderPath(path), body, contentType) : { method, path: renderPath(path) }),
      credentials,
    }));
}

/** PUT of anything on an attribute the user declared safe to write (the property restores it). */
export function writableFamily(writable: readonly WritableAttribute[], credentials: boolean): fc.Arbitrary<FuzzRequest> | undefined {
  if (writable.length === 0) return undefined;
  return fc
    .record({
      attr: fc.constantFrom(...writable),
      // Mostly the real name; now and then a near miss (a case-insensitive server writes it too).
      name: fc.oneof(
        { withCrossShrink: true },
        { weight: 4, arbitrary: fc.constant(null) },
        { weight: 1, arbitrary: nameArb(writable.map((w) => w.name)) },
      ),
      body: bodyArb(),
      contentType: contentTypeArb(),
    })
    .map(({ attr, name, body, contentType }) => ({
      family: 'writable',
      ...withBody('PUT', `${attr.path}/attr/${name ?? attr.name}`, body, contentType),
      credentials,
    }));
}

/** POST of made-up methods on real objects: a conforming target refuses every one (rule 4). */
export function bogusActionFamily(model: TargetModel, credentials: boolean): fc.Arbitrary<FuzzRequest> {
  const names = fc.oneof(
    fc.constantFrom('BmcConformanceFuzz', 'NoSuchMethod', 'Create', 'New'),
    fc.stringMatching(/^BmcConformanceFuzz[A-Za-z0-9_]{0,8}$/),
  );
  return fc
    .record({
      base: fc.constantFrom(...model.nodes),
      name: names,
      body: bodyArb(fc.array(jsonValueArb(1), { maxLength: 4 })),
      contentType: contentTypeArb(),
    })
    .map(({ base, name, body, contentType }) => ({
      family: 'bogus-action',
      ...withBody('POST', `${base}/action/${name}`, body, contentType),
      credentials,
    }));
}

/** The spec's actions with a wrong arity or wrong argument types: refused, never performed. */
export function wrongArityFamily(model: TargetModel, credentials: boolean, allowReset = false): fc.Arbitrary<FuzzRequest> | undefined {
  const actions = model.actions.filter(([, method]) => allowReset || method !== 'Reset');
  if (actions.length === 0) return undefined;
  return fc
    .record({
      action: fc.constantFrom(...actions),
      args: fc.oneof(fc.array(jsonValueArb(1), { maxLength: 4 }), jsonValueArb(1)),
      body: bodyArb(fc.constant(null)),
      contentType: contentTypeArb(),
    })
    .filter(({ action: [, , arity], args }) => !plausibleArgs(args, arity))
    .map(({ action: [path, method], args, body, contentType }) => ({
      family: 'wrong-arity',
      ...withBody('POST', `${path}/action/${method}`, { ...body, value: args }, contentType),
      credentials,
    }));
}

/**
 * Arguments a lenient target might act on: the right count of strings (or of anything, for
 * methods without parameters an empty array). Those are never sent.
 */
export function plausibleArgs(args: unknown, arity: number): boolean {
  if (!Array.isArray(args)) return arity === 0 && (args === null || (typeof args === 'object' && Object.keys(args).length === 0));
  if (args.length !== arity) return false;
  return args.every((a) => typeof a === 'string');
}

/** Changing methods on real paths, for requests without credentials in the destructive profile. */
export function anonymousWriteFamily(model: TargetModel): fc.Arbitrary<FuzzRequest> {
  return fc
    .record({
      method: fc.constantFrom(...WRITE_METHODS),
      path: fc.record({
        base: fc.constantFrom(...model.bases.filter((b) => b !== '/login')),
        suffix: fc.constant({ kind: 'none' as const }),
        mutations: mutationsArb(false),
      }),
      body: bodyArb(),
      contentType: contentTypeArb(),
    })
    .filter(({ path }) => !/^\/log(in|out)\b/i.test(renderPath(path)))
    .map(({ method, path, body, contentType }) => ({
      family: 'anonymous-write',
      ...withBody(method, renderPath(path), body, contentType),
      credentials: false,
    }));
}

type Weighted = { weight: number; arbitrary: fc.Arbitrary<FuzzRequest> };

function present(list: Array<{ weight: number; arbitrary: fc.Arbitrary<FuzzRequest> | undefined }>): Weighted[] {
  return list.filter((w): w is Weighted => w.arbitrary !== undefined);
}

/** Any request the profile allows, with and without the session: for the envelope and 5xx properties. */
export function anyRequestArb(o: RequestOptions): fc.Arbitrary<FuzzRequest> {
  const safe = profileAllows(o.profile, 'safe');
  const destructive = profileAllows(o.profile, 'destructive');
  const families = present([
    { weight: 4, arbitrary: plainReadFamily(o.model, !o.enumerateCostly) },
    { weight: 10, arbitrary: readFamily(o.model, true) },
    { weight: 3, arbitrary: readFamily(o.model, false) },
    { weight: 3, arbitrary: loginFamily(o.who) },
    { weight: safe ? 3 : 0, arbitrary: safe ? sentinelFamily(o.model, true) : undefined },
    { weight: safe ? 3 : 0, arbitrary: safe ? writableFamily(o.writable, true) : undefined },
    { weight: safe ? 1 : 0, arbitrary: safe ? bogusActionFamily(o.model, true) : undefined },
    { weight: safe ? 1 : 0, arbitrary: safe ? sentinelFamily(o.model, false) : undefined },
    { weight: destructive ? 1 : 0, arbitrary: destructive ? wrongArityFamily(o.model, true, o.allowReset) : undefined },
    { weight: destructive ? 1 : 0, arbitrary: destructive ? anonymousWriteFamily(o.model) : undefined },
  ]);
  return fc.oneof({ withCrossShrink: true }, ...families);
}

/** Requests without credentials, of every kind the profile allows: for the refusal property. */
export function anonymousRequestArb(o: RequestOptions): fc.Arbitrary<FuzzRequest> {
  const safe = profileAllows(o.profile, 'safe');
  const destructive = profileAllows(o.profile, 'destructive');
  const read = readFamily(o.model, false).filter((r) => !/^\/+log(in|out)\b/i.test(r.path));
  const families = present([
    { weight: 10, arbitrary: read },
    { weight: safe ? 2 : 0, arbitrary: safe ? sentinelFamily(o.model, false) : undefined },
    { weight: safe ? 2 : 0, arbitrary: safe ? writableFamily(o.writable, false) : undefined },
    { weight: safe ? 1 : 0, arbitrary: safe ? bogusActionFamily(o.model, false) : undefined },
    { weight: destructive ? 1 : 0, arbitrary: destructive ? wrongArityFamily(o.model, false, o.allowReset) : undefined },
    { weight: destructive ? 2 : 0, arbitrary: destructive ? anonymousWriteFamily(o.model) : undefined },
  ]);
  return fc.oneof({ withCrossShrink: true }, ...families);
}
