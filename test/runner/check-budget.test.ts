/**
 * A check that runs out of its time budget while every request was answered (each has a time-out of
 * its own) met a slow target, which breaks no statement: NOT_TESTED naming the budget and what to
 * raise, never a FAIL.
 */
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, expect, test } from 'vitest';
import type { Results } from '../../client/results.js';
import { cli } from '../support/cli.js';

let dir: string;
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'bmc-budget-'));
});
afterAll(() => rm(dir, { recursive: true, force: true }));

test('an enumerate slower than a check budget allows: NOT_TESTED with the budget, not a FAIL', async () => {
  // A budget of 3 request time-outs and 2 event time-outs (4 s here) against an enumerate of 0.9 s,
  // which EP-7's check sends once per object it compares: it runs out, whatever the machine's pace.
  const out = join(dir, 'slow');
  const ran = await cli([
    'run',
    '--only',
    'listings',
    '--requirements',
    'EP-7',
    '--timeout',
    '1000',
    '--event-timeout',
    '500',
    '--route-latency',
    'enumerate=900',
    '--out',
    out,
  ]);
  const results = JSON.parse(await readFile(join(out, 'results.json'), 'utf8')) as Results;
  const ep7 = results.requirements.find((r) => r.id === 'EP-7')!;
  const budgeted = ep7.tests.filter((t) => /time budget/.test(t.reason ?? ''));
  expect(budgeted.length, JSON.stringify(ep7.tests.map((t) => [t.name, t.verdict, t.reason]))).toBeGreaterThan(0);
  for (const t of budgeted) {
    expect(t.verdict).toBe('NOT_TESTED');
    expect(t.reason).toMatch(/^not judged: the check ran out of its time budget \(\d+ s\).*raise --timeout/);
  }
  expect(ep7.verdict).not.toBe('FAIL');
  expect(ran.code, ran.stdout + ran.stderr).not.toBe(1);
}, 120_000);
