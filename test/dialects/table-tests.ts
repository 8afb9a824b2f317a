/**
 * The tests every dialect's table gets (one file per dialect, so they run side by side). One run,
 * as a lab would make it: `run --dialect X --expectations profiles/X.json`.
 */
import { join } from 'node:path';
import { beforeAll, expect, test } from 'vitest';
import { REQUIREMENTS } from '../../catalogue/requirements.js';
import { loadExpectations } from '../../runner/expectations.js';
import { packageRoot } from '../../runner/package-root.js';
import type { RunOutcome } from '../../runner/run.js';
import type { DialectName } from '../../simulator/index.js';
import { dialectRun } from './run.js';
import type { Expected } from './tables.js';
import { hangAfter } from '../support/hang.js';

export function dialectTableTests(dialect: DialectName, table: Readonly<Record<string, Expected>>, profile: string): void {
  const file = join(packageRoot(), profile);
  let run: RunOutcome;
  beforeAll(async () => {
    run = await dialectRun(dialect, { expectations: file });
  }, hangAfter(240_000));

  test('every requirement gets the verdict of the table (a FAIL the profile expects shows as XFAIL)', () => {
    const got = Object.fromEntries(run.results.requirements.map((r) => [r.id, r.verdict === 'XFAIL' ? 'FAIL' : r.verdict]));
    const want = Object.fromEntries(REQUIREMENTS.map((r) => [r.id, table[r.id]?.verdict ?? 'PASS']));
    const differences = Object.keys(want)
      .filter((id) => got[id] !== want[id])
      .map((id) => `${id}: ${got[id]} (${run.results.requirements.find((r) => r.id === id)?.reason ?? ''}), expected ${want[id]}`);
    expect(differences).toEqual([]);
  });

  test('the shipped profile names exactly the FAILs of the table, each with a reason and a source', async () => {
    const expectations = await loadExpectations(file);
    const fails = Object.entries(table)
      .filter(([, e]) => e.verdict === 'FAIL')
      .map(([id]) => id)
      .sort();
    expect(Object.keys(expectations.expected).sort()).toEqual(fails);
    for (const reason of Object.values(expectations.expected)) expect(reason).toMatch(/\S.*\[.+\]$/);
  });

  test('with the shipped profile the run exits 0: every FAIL is an XFAIL, none an XPASS', () => {
    expect(run.exitCode).toBe(0);
    expect(
      run.results.requirements.filter((r) => r.verdict === 'FAIL' || r.verdict === 'XPASS').map((r) => `${r.id}: ${r.reason}`),
    ).toEqual([]);
  });
}
