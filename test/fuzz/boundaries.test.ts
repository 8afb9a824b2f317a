/** The boundary cases every fuzz run sends first, whatever its seed. */
import fc from 'fast-check';
import { describe, expect, test } from 'vitest';
import { MODEL, WHO } from './fixture.js';
import { boundaryRequests, RESERVED_CHARACTERS } from '../../suites/fuzz/boundaries.js';
import { runProperty, type FuzzProperty } from '../../suites/fuzz/runner.js';
import type { FuzzRequest } from '../../suites/fuzz/requests.js';
import { PATH_BOUNDARIES, pathBoundaryPlan, READ_ROUTES, routePath } from '../../suites/fuzz/path-boundaries.js';
import { typeBoundaries, writeBoundaries, writeBoundaryPlan } from '../../suites/fuzz/properties/write.js';
import { serverErrorProperty } from '../../suites/fuzz/properties/server-error.js';
import { envelopeProperty } from '../../suites/fuzz/properties/envelope.js';
import { writeProperty, writeTargets } from '../../suites/fuzz/properties/write.js';
import type { WriteTarget } from '../../suites/fuzz/properties/common.js';
import { fuzzTarget } from './target.js';

const opts = { model: MODEL, who: WHO, writable: [] } as const;

describe('boundary requests', () => {
  test('the deepest path, the longest URL, an empty segment, every reserved character and the largest body', () => {
    const reqs = boundaryRequests({ ...opts, profile: 'read-only' });
    const depth = (p: string) => p.split('/').length;
    const deepest = Math.max(...MODEL.nodes.map(depth));
    expect(reqs.some((r) => depth(r.path) === deepest && MODEL.nodes.includes(r.path))).toBe(true);
    expect(Math.max(...reqs.map((r) => r.path.length))).toBeGreaterThan(20_000);
    expect(reqs.some((r) => r.path.slice(1).includes('//'))).toBe(true);
    const object = MODEL.attrPairs[0]![0];
    for (const ch of RESERVED_CHARACTERS) expect(reqs.some((r) => r.path.includes(ch) && r.path.length <= object.length + 1)).toBe(true);
    expect(reqs.some((r) => typeof r.body === 'string' && r.body.length > 10_000)).toBe(true);
    // Read-only: nothing but reads; a changing method goes to the sentinel only where the profile allows it.
    expect(reqs.every((r) => r.method === 'GET')).toBe(true);
    const safe = boundaryRequests({ ...opts, profile: 'safe' }).filter((r) => r.method !== 'GET');
    expect(safe.map((r) => [r.method, r.path])).toEqual([['PUT', MODEL.sentinel]]);
  });

  test('a property runs them first under every seed, besides its generated cases', async () => {
    const examples = boundaryRequests({ ...opts, profile: 'read-only' });
    for (const runSeed of [1, 2, 3]) {
      const seen: string[] = [];
      const p: FuzzProperty<FuzzRequest> = {
        key: 'boundary-test',
        requirements: ['ENV-1'],
        arbitrary: fc.constant({ family: 'x', method: 'GET', path: '/generated', credentials: true }),
        requestsPerRun: 1,
        examples,
        predicate: async (r) => void seen.push(r.path),
      };
      const report = await runProperty(p, { numRuns: 4, runSeed, timeLimitMs: 60_000 });
      expect(report.numRuns).toBe(examples.length + 4);
      expect(seen.slice(0, examples.length)).toEqual(examples.map((r) => r.path));
      expect(seen.slice(examples.length)).toEqual(['/generated', '/generated', '/generated', '/generated']);
    }
  });
});

describe('path boundaries', () => {
  test('every read route with every boundary of its last segment, on an object of the tree', () => {
    const plan = pathBoundaryPlan(MODEL);
    // No object of the fixture has both attributes and children: the first with attributes.
    expect(plan.object).toBe('/xyz/mgmt_project/inventory/system');
    expect(plan.requests).toHaveLength(READ_ROUTES.length * PATH_BOUNDARIES.length);
    expect(plan.requests.every((r) => r.method === 'GET' && r.credentials)).toBe(true);
    // The boundaries of the brief: NUL and control characters, case, leading and trailing space and
    // slash, percent-encoding, an overlong segment, non-ASCII.
    const paths = plan.requests.map((r) => r.path);
    for (const needle of [
      '\u0000',
      '\t',
      '\n',
      '\r',
      '/ system',
      'system ',
      'system//',
      '//system',
      '%73ystem',
      'é',
      'SYSTEM',
      'ENUMERATE',
      'LIST',
    ])
      expect(
        paths.some((p) => p.includes(needle)),
        needle,
      ).toBe(true);
    expect(Math.max(...paths.map((p) => p.length))).toBeGreaterThan(300);
    // Each route keeps its shape: the children route ends with its slash, attr/ names the attribute.
    expect(routePath('/xyz/a/b', 'Name', 'children', 'upper')).toBe('/xyz/a/B/');
    expect(routePath('/xyz/a/b', 'Name', 'attr', 'nul-end')).toBe('/xyz/a/b/attr/Name\u0000');
    expect(routePath('/xyz/a/b', 'Name', 'enumerate', 'slash-start')).toBe('/xyz/a/b//enumerate');
    // One tree, one plan: its digest is the same at every call, another tree's differs.
    expect(pathBoundaryPlan(MODEL).digest).toBe(plan.digest);
    expect(pathBoundaryPlan({ ...MODEL, attrPairs: MODEL.attrPairs.slice(2) }).digest).not.toBe(plan.digest);
  });

  test('they are sent among the boundary cases whatever the profile', () => {
    const paths = new Set(boundaryRequests({ ...opts, profile: 'read-only' }).map((r) => r.path));
    for (const r of pathBoundaryPlan(MODEL).requests) expect(paths.has(r.path)).toBe(true);
  });

  test('crash-on-unicode-path fails ERR-5 from the boundary cases alone, at every seed; a clean simulator passes them', async () => {
    for (const faults of [['crash-on-unicode-path'], []]) {
      const target = await fuzzTarget({ faults });
      try {
        for (const runSeed of [1, 2, 3]) {
          const r = await runProperty(serverErrorProperty(target.env), { numRuns: 0, runSeed, timeLimitMs: 20_000 });
          expect(r.failed).toBe(faults.length > 0);
          if (faults.length > 0) expect(r.violation?.requirement).toBe('ERR-5');
        }
        const env = await runProperty(envelopeProperty(target.env), { numRuns: 0, runSeed: 1, timeLimitMs: 20_000 });
        expect(env.failed).toBe(false);
      } finally {
        await target.close();
      }
    }
  });
});

describe('write boundaries', () => {
  const target = (kind: WriteTarget['kind'], values?: string[]): WriteTarget => ({
    attr: { path: '/xyz/mgmt_project/x', name: 'A', ...(values && { values }) },
    original: kind === 'enum' ? values?.[0] : 0,
    kind,
  });

  test('each type with its empty, zero, extreme, beyond-range and other-type values', () => {
    const names = (t: WriteTarget) => typeBoundaries(t).map((b) => b.name);
    expect(names(target('string'))).toEqual(['empty', 'long', 'non-ascii', 'other type']);
    expect(names(target('integer'))).toEqual([
      'zero',
      'max 16-bit',
      'max int32',
      'beyond uint32',
      'beyond 64-bit',
      'negative',
      'fraction',
      'other type',
    ]);
    expect(names(target('boolean'))).toEqual(['zero', 'one', 'false', 'true', 'beyond', 'negative', 'other type']);
    expect(names(target('float'))).toEqual(['zero', 'max', 'min', 'smallest', 'other type']);
    expect(names(target('enum', ['xyz.a.B.On', 'xyz.a.B.Off']))).toEqual(['member 1', 'member 2', 'empty', 'case', 'beyond', 'other type']);
    expect(names(target('array'))).toEqual(['empty', 'other type']);
    const all = [target('string'), target('integer')];
    expect(writeBoundaries(all)).toHaveLength(12);
    expect(writeBoundaryPlan(all)).toMatchObject({ writables: 2, cases: 12 });
    expect(writeBoundaryPlan(all).digest).not.toBe(writeBoundaryPlan([target('string')]).digest);
  });

  test('string-cut-at-63 fails EP-8 from the boundary writes alone, at every seed; a clean simulator passes them', async () => {
    for (const faults of [['string-cut-at-63'], []]) {
      const t = await fuzzTarget({ faults });
      try {
        const targets = await writeTargets(t.env);
        for (const runSeed of [1, 2, 3]) {
          const r = await runProperty(writeProperty(t.env, targets), { numRuns: 0, runSeed, timeLimitMs: 20_000 });
          expect(r.failed, r.violation?.problem).toBe(faults.length > 0);
          if (faults.length > 0) expect(r.violation?.requirement).toBe('EP-8');
        }
      } finally {
        await t.close();
      }
    }
  });
});
