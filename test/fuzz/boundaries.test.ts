/** The boundary cases every fuzz run sends first, whatever its seed. */
import fc from 'fast-check';
import { describe, expect, test } from 'vitest';
import { MODEL, WHO } from './fixture.js';
import { boundaryRequests, RESERVED_CHARACTERS } from '../../suites/fuzz/boundaries.js';
import { runProperty, type FuzzProperty } from '../../suites/fuzz/runner.js';
import type { FuzzRequest } from '../../suites/fuzz/requests.js';

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
