/** The tests every dialect's table gets (one file per dialect, so they run side by side). */
import { join } from 'node:path';
import { beforeAll, expect, test } from 'vitest';
import { REQUIREMENTS } from '../../catalogue/requirements.js';
import { loadExpectations } from '../../runner/expectations.js';
import { packageRoot } from '../../runner/package-root.js';
import type { RunOutcome } from '../../runner/run.js';
import type { DialectName } from '../../simulator/index.js';
import { dialectRun } from './run.js';
import type { Expected } from './tables.js';

export function dialectTableTests(dialect: DialectName, table: Readonly<Record<string, Expected>>, profile: string): void {
  const file = join(packageRoot(), profile);
  let plain: RunOutcome;
  let withProfile: RunOutcome;
  beforeAll(async () => {
    plain = await dialectRun(dialect);
    withProfile = await dialectRun(dialect, { expectations: file });
  }, 240_000);

  test('every requirement gets the verdict of the table', () => {
    const got = Object.fromEntries(plain.results.requirements.map((r) => [r.id, r.verdict]));
    const want = Object.fromEntries(REQUIREMENTS.map((r) => [r.id, table[r.id]?.verdict ?? 'PASS']));
    const differences = Object.keys(want).filter((id) => got[id] !== want[id])
      .map((id) => `${id}: ${got[id]} (${plain.results.requirements.find((r) => r.id === id)?.reason ?? ''}), expected ${want[id]}`);
    expect(differences).toEqual([]);
  });

  test('the shipped profile names exactly the FAILs of the table, each with a reason and a source', async () => {
    const expectations = await loadExpectations(file);
    const fails = Object.entries(table).filter(([, e]) => e.verdict === 'FAIL').map(([id]) => id).sort();
    expect(Object.keys(expectations.expected).sort()).toEqual(fails);
    for (const reason of Object.values(expectations.expected)) expect(reason).toMatch(/\S.*\[.+\]$/);
  });

  test('with the shipped profile the run exits 0: every FAIL is an XFAIL', () => {
    expect(withProfile.exitCode).toBe(0);
    const xfails = withProfile.results.requirements.filter((r) => r.verdict === 'XFAIL').map((r) => r.id).sort();
    expect(xfails).toEqual(Object.entries(table).filter(([, e]) => e.verdict === 'FAIL').map(([id]) => id).sort());
    expect(withProfile.results.requirements.filter((r) => r.verdict === 'FAIL' || r.verdict === 'XPASS')).toEqual([]);
  });
}
