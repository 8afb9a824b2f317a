/**
 * The tests every dialect's table gets (one file per dialect, so they run side by side): runs as a
 * lab would make them, `run --dialect X` with and without `--expectations profiles/X.json`, at
 * several seeds. Every run must give the table's verdicts: a verdict may depend on the target only,
 * never on the seed or the profile (a FAIL the profile expects shows as XFAIL).
 *
 * `npm test` makes two runs per dialect (the usual seed with the profile, another seed without);
 * `npm run seed-matrix` (BMC_SEED_MATRIX=N) makes N seeds each with and without the profile.
 */
import { join } from 'node:path';
import { beforeAll, describe, expect, test } from 'vitest';
import { REQUIREMENTS } from '../../catalogue/requirements.js';
import { loadExpectations } from '../../runner/expectations.js';
import { packageRoot } from '../../client/package-root.js';
import type { RunOutcome } from '../../runner/run.js';
import type { DialectName } from '../../simulator/index.js';
import { dialectRun } from './run.js';
import type { Expected } from './tables.js';
import { hangAfter } from '../support/hang.js';

/** Runs of one dialect at a time, each with its own simulator and suites' thread. */
const RUNS_AT_ONCE = 2;

interface Variant {
  seed: number;
  profile: boolean;
}

/** The runs to make: the seed matrix when asked for, else two that differ in both seed and profile. */
function variants(): Variant[] {
  const n = Number(process.env.BMC_SEED_MATRIX);
  if (!(n > 0))
    return [
      { seed: 20261123, profile: true },
      { seed: 7, profile: false },
    ];
  const seeds = Array.from({ length: n }, (_, i) => 20261123 + i * 7919);
  return seeds.flatMap((seed) => [
    { seed, profile: true },
    { seed, profile: false },
  ]);
}

export function dialectTableTests(dialect: DialectName, table: Readonly<Record<string, Expected>>, profile: string): void {
  const file = join(packageRoot(), profile);
  const fails = Object.entries(table)
    .filter(([, e]) => e.verdict === 'FAIL')
    .map(([id]) => id)
    .sort();

  test('the shipped profile names exactly the FAILs of the table, each with a reason and a source', async () => {
    const expectations = await loadExpectations(file);
    expect(Object.keys(expectations.expected).sort()).toEqual(fails);
    for (const reason of Object.values(expectations.expected)) expect(reason).toMatch(/\S.*\[.+\]$/);
  });

  const all = variants();
  /**
   * Two runs at a time, each against a simulator of its own: a run spends most of its time waiting
   * on its simulator's event windows. Started by the first variant that needs its run.
   */
  let runs: Array<Promise<RunOutcome>> | undefined;
  const runOf = (v: Variant): Promise<RunOutcome> => {
    runs ??= startRuns();
    return runs[all.indexOf(v)]!;
  };
  const startRuns = (): Array<Promise<RunOutcome>> => {
    const started: Array<Promise<RunOutcome>> = [];
    all.forEach((v, i) => {
      const turn = i >= RUNS_AT_ONCE ? started[i - RUNS_AT_ONCE]!.catch(() => undefined) : Promise.resolve();
      const run = turn.then(() => dialectRun(dialect, { seed: v.seed, ...(v.profile && { expectations: file }) }));
      // Awaited by its variant's beforeAll; until then a failure must not count as unhandled.
      run.catch(() => undefined);
      started.push(run);
    });
    return started;
  };

  describe.each(all)('seed $seed, profile $profile', (v) => {
    let run: RunOutcome;
    beforeAll(async () => {
      run = await runOf(v);
    }, hangAfter(240_000));

    test('every requirement gets the verdict of the table', () => {
      const got = Object.fromEntries(run.results.requirements.map((r) => [r.id, v.profile && r.verdict === 'XFAIL' ? 'FAIL' : r.verdict]));
      const want = Object.fromEntries(REQUIREMENTS.map((r) => [r.id, table[r.id]?.verdict ?? 'PASS']));
      const differences = Object.keys(want)
        .filter((id) => got[id] !== want[id])
        .map((id) => `${id}: ${got[id]} (${run.results.requirements.find((r) => r.id === id)?.reason ?? ''}), expected ${want[id]}`);
      expect(differences).toEqual([]);
    });

    test(
      v.profile
        ? 'with the shipped profile the run exits 0: every FAIL an XFAIL, none an XPASS'
        : 'without a profile the run exits 1 on exactly the FAILs of the table',
      () => {
        if (v.profile) {
          expect(
            run.results.requirements.filter((r) => r.verdict === 'FAIL' || r.verdict === 'XPASS').map((r) => `${r.id}: ${r.reason}`),
          ).toEqual([]);
          expect(run.exitCode).toBe(0);
        } else {
          expect(run.results.requirements.filter((r) => r.verdict === 'XFAIL' || r.verdict === 'XPASS')).toEqual([]);
          expect(run.exitCode).toBe(fails.length > 0 ? 1 : 0);
        }
      },
    );
  });
}
