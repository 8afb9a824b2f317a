/**
 * The suites' self-test: every simulator fault must turn the requirement it breaks into a FAIL
 * (recall) and FAIL nothing else but its declared knock-ons (precision); the clean simulator must
 * pass with no FAIL and no WARN. In `npm test` each fault runs the tests judging its requirement and
 * knock-ons; `npm run mutation` runs this alone with every area in every run.
 */
import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { availableParallelism } from 'node:os';
import { beforeAll, describe, expect, test } from 'vitest';
import { FAULTS } from '../../simulator/faults.js';
import { formatMutationReport, runMutation, type MutationReport } from '../../runner/mutation/mutation.js';
import { packageRoot } from '../../client/package-root.js';
import { sampledSitePairs, sitePairs } from '../../runner/mutation/site-runs.js';
import { hangAfter } from '../support/hang.js';

let report: MutationReport;

/** `BMC_MUTATION_FAULTS=a,b`: only those faults (and the clean simulator), while working on them. */
const only = process.env.BMC_MUTATION_FAULTS?.split(',').filter(Boolean);
/** `BMC_MUTATION_SCOPE=all` (`npm run mutation`): every area in every fault's run, for precision across the run. */
const scope = process.env.BMC_MUTATION_SCOPE === 'all' ? 'all' : 'judging';
/** The answer and event faults at their sites: every pair in `npm run mutation`; in `npm test` one per answer site and six event pairs. */
const pairs = sitePairs().filter((p) => (only ? only.includes(p.name) : scope === 'all' || sampledSitePairs().includes(p.name)));
const chosen = [...FAULTS.filter((f) => !only || only.includes(f.name)), ...pairs];

beforeAll(
  async () => {
    // Two runs per core: a run waits on its simulator's event windows about half the time.
    report = await runMutation({
      concurrency: 2 * availableParallelism(),
      scope,
      sites: pairs.map((p) => p.name),
      ...(only && { faults: only }),
    });
    const dir = join(packageRoot(), 'reports', 'mutation');
    await mkdir(dir, { recursive: true });
    const text = formatMutationReport(report);
    await writeFile(join(dir, 'mutation-report.md'), `${text}\n`);
    await writeFile(join(dir, 'mutation-report.json'), `${JSON.stringify(report, null, 2)}\n`);
    process.stdout.write(`${text}\n`);
  },
  // Only a hang is caught: on two busy cores the judging scope has taken 6.5 minutes beside the other files.
  hangAfter(scope === 'all' ? 3_600_000 : 1_800_000),
);

describe('mutation self-test', () => {
  test('the clean simulator passes with no FAIL and no WARN', () => {
    expect(report.clean.fails).toEqual([]);
    expect(report.clean.warns).toEqual([]);
    expect(report.clean.exitCode).toBe(0);
  });

  test.skipIf(only)('every MUST and SAFETY requirement has a fault that breaks it', () => {
    expect(report.uncovered).toEqual([]);
  });

  test.each(chosen.map((f) => [f.name, f.verdict ?? 'FAIL', f.requirement]))(
    'fault %s is caught as a %s of %s, and FAILs nothing undeclared',
    (name) => {
      const outcome = report.outcomes.find((o) => o.fault === name);
      expect(outcome, `no outcome for ${name}`).toBeDefined();
      expect(outcome!.killed, `${name} survived as ${outcome!.verdict}: ${outcome!.reason ?? ''}`).toBe(true);
      expect(outcome!.undeclared, `${name} also FAILs requirements it does not declare`).toEqual([]);
    },
  );

  test('every FAIL that kills a fault carries evidence: the requests or subscriptions that show it', () => {
    expect(report.outcomes.filter((o) => o.killed && o.expected === 'FAIL' && o.bare).map((o) => `${o.fault} (${o.requirement})`)).toEqual(
      [],
    );
  });

  test.skipIf(only || scope !== 'all')(
    'every answer and event fault runs at every site it applies to: a row of the report for each pair',
    () => {
      const rows = new Set(report.outcomes.map((o) => o.fault));
      expect(sitePairs().filter((p) => !rows.has(p.name))).toEqual([]);
      expect(sitePairs().length).toBeGreaterThanOrEqual(250);
    },
  );

  test('recall and precision are 100 %', () => {
    expect(report.recall).toBe(1);
    expect(report.precision).toBe(1);
  });
});
