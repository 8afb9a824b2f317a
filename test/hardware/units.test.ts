/** The pieces of a hardware-grade run on their own: the learned pace, the trace comparison, profiles. */
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, test } from 'vitest';
import type { BmcClient } from '../../client/http.js';
import { loadTargetProfile } from '../../runner/target-profile.js';
import { compareSnapshots } from '../../runner/trace.js';
// One module per test file: the pace starts with no event seen, as a run does.
import * as pace from '../../suites/harness/pace.js';
import { tempDirs } from '../support/temp-dirs.js';

describe('the quiet window learned from the run', () => {
  test("starts at the configured window or the profile's estimate, follows the slowest event, stays within bounds", () => {
    expect(pace.quietWindow({ quietWindowMs: 6000, eventLatency: {} })).toBe(6000);
    expect(pace.quietWindow({ quietWindowMs: 6000, eventLatency: { expectedMs: 2000 } })).toBe(3250);
    pace.recordLatency(3);
    expect(pace.quietWindow({ quietWindowMs: 6000, eventLatency: {} })).toBe(255);
    pace.recordLatency(1800);
    expect(pace.quietWindow({ quietWindowMs: 6000, eventLatency: {} })).toBe(2950);
    expect(pace.quietWindow({ quietWindowMs: 2000, eventLatency: {} })).toBe(2000);
    expect(pace.quietWindow({ quietWindowMs: 6000, eventLatency: { maxMs: 1000 } })).toBe(1000);
  });
});

describe('what a run left behind', () => {
  const before = { objects: { '/a': { Tag: 'x', Elapsed: 1, Reading: 10 }, '/gone': { Tag: 'y' } } };
  const after = { objects: { '/a': { Tag: 'x-changed', Elapsed: 99, Reading: 11 }, '/new': { Tag: 'z' } } };
  // Re-reads after the run: Reading keeps moving (a sensor), Tag stays where the run left it.
  let reads = 0;
  const client = {
    get: async () => ({ status: 200, json: { data: { Tag: 'x-changed', Elapsed: 100, Reading: 12 + reads++ } } }),
  } as unknown as BmcClient;

  test('values left changed, objects added and removed; clocks and moving readings are not', async () => {
    const report = await compareSnapshots(client, before, after, 1);
    expect(report.changed).toEqual([{ path: '/a', attribute: 'Tag', before: 'x', after: 'x-changed' }]);
    expect(report.added).toEqual(['/new']);
    expect(report.removed).toEqual(['/gone']);
    expect(report.volatile).toEqual(['/a Reading']);
  });
});

const tempDir = tempDirs('bmc-tp-');

describe('target profiles', () => {
  async function file(doc: unknown): Promise<string> {
    const f = join(await tempDir(), 'p.json');
    await writeFile(f, typeof doc === 'string' ? doc : JSON.stringify(doc));
    return f;
  }

  test('the shipped profiles load', async () => {
    for (const name of ['simulator', 'phosphor-rest-server', 'bmcweb', 'bmcweb-2023']) {
      const p = await loadTargetProfile(join(process.cwd(), 'profiles', `${name}.json`));
      expect(p.writable.length).toBeGreaterThan(0);
    }
  });

  test.each([
    [{ rps: 0 }, /"rps" must be >= 1/],
    [{ timeouts: { requestMs: 'slow' } }, /"timeouts.requestMs" must be integer/],
    [{ writable: [{ path: 'nope', name: 'X' }] }, /"writable.0" must be PATH:ATTR/],
    [{ expected: { 'EP-99': 'x' } }, /unknown requirement EP-99/],
    [{ colour: 'blue' }, /unknown member "colour"/],
  ])('%j is refused in one sentence', async (doc, message) => {
    await expect(loadTargetProfile(await file(doc))).rejects.toThrow(message);
  });
});
