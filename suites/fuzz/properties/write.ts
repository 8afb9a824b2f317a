/**
 * WR-1 EP-8 ERR-5: a write of a declared writable attribute with a value of another type is refused
 * (WR-1), an accepted value reads back (EP-8), and no write makes a server error or drops the
 * connection (ERR-5 for a body that is not {"data": value} JSON, else WR-1's or EP-8's).
 */
import fc from 'fast-check';
import type { BmcResponse } from '../../../client/http.js';
import { sameValue } from '../../../client/values.js';
import { envelopeOf, show } from '../../harness/assert.js';
import { contentTypeArb, malformArb, renderBody, shapeArb, type BodyCase } from '../bodies.js';
import { kindOf } from '../model.js';
import type { FuzzRequest } from '../requests.js';
import type { FuzzProperty } from '../runner.js';
import { describeDrop, isMap, isSuccess, line, readOk, send, statusText, unjudged, type FuzzEnv, type WriteTarget } from './common.js';
import { effectiveData, typedAs } from './value-type.js';
import { digestOf } from '../../../client/plan.js';

export interface WriteCase {
  target: number;
  body: BodyCase;
  contentType: string | undefined;
}

function rightValueArb(t: WriteTarget): fc.Arbitrary<unknown> {
  switch (t.kind) {
    case 'string':
      return fc.oneof(
        fc.string({ unit: 'grapheme', maxLength: 40 }),
        fc.constantFrom('', ' ', 'é✓😀', 'a'.repeat(64), 'bmc-conformance-fuzz'),
      );
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
        shape: fc.oneof(
          { withCrossShrink: true },
          { weight: 8, arbitrary: fc.constant('data' as const) },
          { weight: 1, arbitrary: shapeArb() },
        ),
        value: fc.oneof(
          { weight: 4, arbitrary: wrongValueArb(t) },
          { weight: 3, arbitrary: rightValueArb(t) },
          { weight: 2, arbitrary: edgeValueArb(t) },
        ),
        malform: fc.oneof(
          { withCrossShrink: true },
          { weight: 8, arbitrary: fc.constant({ kind: 'none' as const }) },
          { weight: 1, arbitrary: malformArb() },
        ),
      }),
      contentType: fc.oneof(
        { withCrossShrink: true },
        { weight: 8, arbitrary: fc.constant<string | undefined>('application/json') },
        { weight: 1, arbitrary: contentTypeArb() },
      ),
    }),
  );
  return fc.oneof(...perTarget);
}

/** A named value at a boundary of a writable's type. */
export interface TypeBoundary {
  name: string;
  value: unknown;
}

const NOT_A_NUMBER = 'bmc-conformance-not-a-number';

/**
 * The boundaries of a writable's type: empty, zero, the extremes, beyond the type's range and a
 * value of another type. Each is a value the seeded cases may already write (rightValueArb,
 * edgeValueArb, wrongValueArb): the boundaries only make them certain.
 */
export function typeBoundaries(t: WriteTarget): TypeBoundary[] {
  const b = (name: string, value: unknown): TypeBoundary => ({ name, value });
  switch (t.kind) {
    case 'string':
      return [b('empty', ''), b('long', 'a'.repeat(255)), b('non-ascii', 'é✓😀'), b('other type', 600)];
    case 'enum': {
      const members = (t.attr.values ?? []).filter((v): v is string => typeof v === 'string');
      const first = members[0] ?? String(t.original);
      return [
        ...members.map((m, i) => b(`member ${i + 1}`, m)),
        b('empty', ''),
        b('case', first.toLowerCase() === first ? first.toUpperCase() : first.toLowerCase()),
        b('beyond', 'BmcConformanceNoSuchMember'),
        b('other type', 600),
      ];
    }
    case 'integer':
      return [
        b('zero', 0),
        b('max 16-bit', 65_535),
        b('max int32', 2 ** 31 - 1),
        b('beyond uint32', 2 ** 32),
        b('beyond 64-bit', 2n ** 64n),
        b('negative', -1),
        b('fraction', 0.5),
        b('other type', NOT_A_NUMBER),
      ];
    case 'bool01':
    case 'boolean':
      return [b('zero', 0), b('one', 1), b('false', false), b('true', true), b('beyond', 2), b('negative', -1), b('other type', 'true')];
    case 'float':
      return [
        b('zero', 0),
        b('max', Number.MAX_VALUE),
        b('min', -Number.MAX_VALUE),
        b('smallest', Number.MIN_VALUE),
        b('other type', NOT_A_NUMBER),
      ];
    case 'array':
      return [b('empty', []), b('other type', 600)];
    case 'object':
      return [b('empty', {}), b('other type', 600)];
    default:
      return [b('other type', 600)];
  }
}

/**
 * The boundaries every run writes first, whatever the seed: each writable with each boundary of its
 * type, so that what the target answers to them (and the answer's own envelope) is judged at every
 * seed. The property's restore puts each writable back afterwards.
 */
export function writeBoundaries(targets: readonly WriteTarget[]): WriteCase[] {
  return targets.flatMap((t, target) =>
    typeBoundaries(t).map(({ value }): WriteCase => ({
      target,
      body: { shape: 'data', value, malform: { kind: 'none' } },
      contentType: 'application/json',
    })),
  );
}

/** The write boundaries' part of the coverage plan: writables, cases and a digest of what they are. */
export function writeBoundaryPlan(targets: readonly WriteTarget[]): { writables: number; cases: number; digest: string } {
  const lines = targets.flatMap((t) => typeBoundaries(t).map((b) => `${t.attr.path}/attr/${t.attr.name} ${t.kind} ${b.name}`));
  return { writables: targets.length, cases: lines.length, digest: digestOf(lines) };
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
    examples: writeBoundaries(targets),
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
          judge.violation(
            owner,
            `${line(req)} was refused (${res.status}) but ${t.attr.name} changed from ${show(before, 50)} to ${show(after, 50)}`,
            [req],
          );
        }
        return;
      }
      if (typed === 'wrong') {
        judge.violation(
          'WR-1',
          `${line(req)} with ${show(eff.value, 50)} (not ${/^[aeiou]/.test(t.kind) ? 'an' : 'a'} ${t.kind} value) answered ${statusText(res)}; ${t.attr.name} reads ${show(after, 50)}`,
          [req],
        );
        return;
      }
      if (sameValue(eff.value, after)) return;
      // A value of uncertain type (out of range, another number type) taken and stored as another
      // value is WR-1's case; if the value did not move at all, the write may have been ignored
      // (EP-8's) or coerced into the value it had: that cannot be told apart, so it is not judged.
      if (typed === 'either' && sameValue(after, before)) return;
      judge.violation(
        owner,
        `${line(req)} with ${show(eff.value, 50)} answered ${res.status} but ${t.attr.name} reads back ${show(after, 50)}`,
        [req],
      );
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
