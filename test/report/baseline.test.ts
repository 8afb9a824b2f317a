import { existsSync } from 'node:fs';
import { mkdir, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, describe, expect, test } from 'vitest';
import { READ_PLAN_OBSERVATION, type Results } from '../../client/results.js';
import { UsageError } from '../../client/usage-error.js';
import { findBaseline } from '../../report/baseline.js';
import { prepareRun } from '../../report/outputs.js';
import { newlyFailing, newlyPassing, otherChanges, planText, samePlanAndTarget, verdictChanges } from '../../report/changes.js';
import { summaryMarkdown } from '../../report/summary/md.js';
import { formatSummary, formatTrend } from '../../report/console-summary.js';
import { coveragePlan, PLAN_OBSERVATIONS } from '../../client/plan.js';
import { resultsWith, temporaryFolders } from './fixture.js';

const folders = temporaryFolders();
afterAll(() => folders.removeAll());

describe('changes since a baseline', () => {
  test('newly failing, newly passing and other changes; unchanged verdicts are not listed', () => {
    const before = resultsWith({
      'EP-1': { verdict: 'PASS' },
      'EP-2': { verdict: 'FAIL' },
      'EP-3': { verdict: 'FAIL' },
      'EP-4': { verdict: 'NOT_TESTED' },
      'EP-5': { verdict: 'PASS' },
    });
    const after = resultsWith({
      'EP-1': { verdict: 'FAIL' },
      'EP-2': { verdict: 'PASS' },
      'EP-3': { verdict: 'NOT_TESTED' },
      'EP-4': { verdict: 'PASS' },
      'EP-5': { verdict: 'WARN' },
    });
    const changes = verdictChanges(before, after);
    expect(changes).toEqual([
      { id: 'EP-1', from: 'PASS', to: 'FAIL', kind: 'regression' },
      { id: 'EP-2', from: 'FAIL', to: 'PASS', kind: 'fix' },
      // A FAIL that is now not tested is no fix: nothing passed.
      { id: 'EP-3', from: 'FAIL', to: 'NOT_TESTED', kind: 'change' },
      { id: 'EP-4', from: 'NOT_TESTED', to: 'PASS', kind: 'fix' },
      { id: 'EP-5', from: 'PASS', to: 'WARN', kind: 'change' },
    ]);
    const trend = { source: 's', previousStartedAt: 't', changes, explicit: false };
    expect(newlyFailing(trend).map((c) => c.id)).toEqual(['EP-1']);
    expect(newlyPassing(trend).map((c) => c.id)).toEqual(['EP-2', 'EP-4']);
    expect(otherChanges(trend).map((c) => c.id)).toEqual(['EP-3', 'EP-5']);
  });

  test('a requirement only one run has is ABSENT in the other', () => {
    const before = resultsWith();
    const after = { ...before, requirements: before.requirements.filter((r) => r.id !== 'EP-1') };
    expect(verdictChanges(before, after)).toEqual([{ id: 'EP-1', from: 'PASS', to: 'ABSENT', kind: 'change' }]);
  });
});

describe('a verdict that changed while the plan and the target did not', () => {
  /** A run that recorded EP-4's read plan and, unless `readsOnly`, the fuzz area's path boundaries (24 of 70 ran). */
  const withPlan = (verdict: 'PASS' | 'FAIL', digest: string, firmware = '2.14.0', readsOnly = false): Results => {
    const r = resultsWith({ 'EP-4': { verdict } });
    const paths = { cases: 70, ran: 24, digest: 'pppp', detail: '5 routes × 14 boundaries of /x' };
    return {
      ...r,
      fingerprint: { firmware, objects: 55 },
      observations: [
        ...r.observations,
        {
          requirement: 'EP-4',
          key: READ_PLAN_OBSERVATION,
          value: { objects: 28, objectsInTree: 32, routes: 3, attributes: 96, strata: '24 of 24', digest },
          test: '[EP-4] x',
        },
        ...(readsOnly
          ? []
          : [
              { requirement: 'ENV-1', key: PLAN_OBSERVATIONS.paths, value: { ...paths, ran: 70 }, test: '[ENV-1] x' },
              { requirement: 'ERR-5', key: PLAN_OBSERVATIONS.paths, value: paths, test: '[ERR-5] x' },
            ]),
      ],
    };
  };

  test('is marked when both runs covered one plan of a target with one fingerprint, and only then', async () => {
    const before = withPlan('PASS', 'aaaa');
    const after = withPlan('FAIL', 'aaaa');
    const digest = coveragePlan(after.observations)!.digest;
    expect(digest).toMatch(/^[0-9a-f]{16}$/);
    expect(samePlanAndTarget(before, after)).toEqual({ digest });
    expect(samePlanAndTarget(before, withPlan('FAIL', 'bbbb'))).toBeUndefined();
    expect(samePlanAndTarget(before, withPlan('FAIL', 'aaaa', '2.15.0'))).toBeUndefined();
    // The same reads without the fuzz area's boundaries is another plan.
    expect(samePlanAndTarget(before, withPlan('FAIL', 'aaaa', '2.14.0', true))).toBeUndefined();
    expect(samePlanAndTarget(resultsWith(), resultsWith())).toBeUndefined();
    // How much ran: a part two checks send counts what the one that got least far sent.
    const text = `reads 28 of 32 objects × 3 routes, 96 attributes, 24 of 24 kinds; path boundaries 24 of 70 (5 routes × 14 boundaries of /x); digest ${digest}`;
    expect(planText(after)).toBe(text);
    expect(
      summaryMarkdown({ results: after, trend: undefined, tool: { name: 'bmc-conformance', version: '0', catalogue: 'c' } as never }),
    ).toContain(`plan: ${text}`);
    expect(formatSummary(after, [])).toContain(`plan: ${text}`);
    // results.json's own record wins over the observations (an older run has only these).
    expect(planText({ ...after, plan: { digest: 'rrrr', parts: {} } })).toBe('digest rrrr');
    expect(planText(resultsWith())).toBeUndefined();

    const dir = await folders.make('bmc-same-plan-');
    await writeFile(join(dir, 'before.json'), JSON.stringify(before));
    const baseline = await findBaseline(dir, after, join(dir, 'before.json'));
    expect(baseline?.trend.samePlanAndTarget).toEqual({ digest });
    const lines = formatTrend(baseline!.trend);
    expect(lines[1]).toMatch(/EP-4\s+PASS -> FAIL {2}\(newly failing\) {2}\(same plan, same target\)/);
    expect(lines.at(-1)).toContain(`both runs read plan ${digest} of a target with the same fingerprint`);
    const other = await findBaseline(dir, withPlan('FAIL', 'cccc'), join(dir, 'before.json'));
    expect(formatTrend(other!.trend).join('\n')).not.toContain('same plan');
  });
});

describe('the kept run', () => {
  /** A finished run's folder: every output, a rendered Allure report with its history, a load run beside it. */
  async function runFolder(results: Results = resultsWith({ 'RULE-4': { verdict: 'PASS' } })): Promise<string> {
    const dir = await folders.make('bmc-baseline-');
    await writeFile(join(dir, 'results.json'), JSON.stringify(results));
    for (const f of [
      'junit.xml',
      'summary.html',
      'summary.md',
      'changes.json',
      'summary.pdf',
      'attestation.intoto.json',
      'load.json',
      'load.html',
    ])
      await writeFile(join(dir, f), 'old');
    await mkdir(join(dir, 'allure-report', 'history'), { recursive: true });
    await writeFile(join(dir, 'allure-report', 'history', 'history-trend.json'), '[{"buildOrder":1}]');
    await mkdir(join(dir, 'allure-results'), { recursive: true });
    return dir;
  }

  test('a new run keeps the results it replaces with their Allure history, and clears every other output but the load run', async () => {
    const dir = await runFolder();
    // Left by a run that was killed while its replaced outputs were being removed.
    await mkdir(join(dir, '.replaced-1-2', 'allure-results'), { recursive: true });
    await writeFile(join(dir, '.replaced-1-2', 'allure-results', 'x-result.json'), '{}');
    const prepared = await prepareRun(dir);
    expect(JSON.parse(await readFile(join(dir, 'previous', 'results.json'), 'utf8')).requirements).toHaveLength(
      resultsWith().requirements.length,
    );
    // Gone from the folder at once, before their removal settles: the Allure report and the attestation
    // of the replaced run would read as the new run's.
    for (const gone of [
      'results.json',
      'junit.xml',
      'summary.html',
      'summary.md',
      'changes.json',
      'summary.pdf',
      'attestation.intoto.json',
      'allure-results',
      'allure-report',
    ])
      expect(existsSync(join(dir, gone)), gone).toBe(false);
    await prepared.removed;
    expect((await readdir(dir)).sort()).toEqual(['load.html', 'load.json', 'previous']);
    expect(await readFile(join(dir, 'previous', 'allure-history', 'history-trend.json'), 'utf8')).toBe('[{"buildOrder":1}]');
  });

  test('a run that was not rendered hands on the history it carried', async () => {
    const dir = await runFolder();
    await rm(join(dir, 'allure-report'), { recursive: true });
    await mkdir(join(dir, 'allure-results', 'history'));
    await writeFile(join(dir, 'allure-results', 'history', 'history-trend.json'), '[{"buildOrder":3}]');
    await (
      await prepareRun(dir)
    ).removed;
    expect(await readFile(join(dir, 'previous', 'allure-history', 'history-trend.json'), 'utf8')).toBe('[{"buildOrder":3}]');
  });

  test('an interrupted run never becomes the baseline: the earlier one stays, with its history', async () => {
    const dir = await runFolder();
    await (
      await prepareRun(dir)
    ).removed;
    const interrupted = { ...resultsWith(), startedAt: 'later', interrupted: { signal: 'SIGINT', at: 'later' } };
    await writeFile(join(dir, 'results.json'), JSON.stringify(interrupted));
    await mkdir(join(dir, 'allure-report', 'history'), { recursive: true });
    await writeFile(join(dir, 'allure-report', 'history', 'history-trend.json'), '[{"buildOrder":2}]');
    await (
      await prepareRun(dir)
    ).removed;
    expect(JSON.parse(await readFile(join(dir, 'previous', 'results.json'), 'utf8')).startedAt).toBe(resultsWith().startedAt);
    expect(await readFile(join(dir, 'previous', 'allure-history', 'history-trend.json'), 'utf8')).toBe('[{"buildOrder":1}]');
    expect((await readdir(dir)).sort()).toEqual(['load.html', 'load.json', 'previous']);
  });

  test('is the baseline unless one is named; its Allure history is the one kept beside it', async () => {
    const dir = await runFolder();
    await prepareRun(dir);
    const current = resultsWith({ 'RULE-4': { verdict: 'FAIL', reason: 'r' } });
    const kept = await findBaseline(dir, current);
    expect(kept?.trend).toMatchObject({ explicit: false, changes: [{ id: 'RULE-4', from: 'PASS', to: 'FAIL', kind: 'regression' }] });
    expect(kept?.trend.notComparable).toBeUndefined();
    expect(kept?.allureHistory).toBe(join(dir, 'previous', 'allure-history'));

    const other = await folders.make('bmc-baseline-named-');
    await writeFile(join(other, 'results.json'), JSON.stringify(current));
    const named = await findBaseline(dir, current, other);
    expect(named?.trend).toMatchObject({ explicit: true, changes: [], source: join(other, 'results.json') });
    expect(named?.allureHistory).toBeUndefined();
    expect((await findBaseline(dir, current, join(other, 'results.json')))?.trend.explicit).toBe(true);
  });

  test('a kept run of another target is not compared: no changes, no history carried, the reason said', async () => {
    const dir = await runFolder();
    await prepareRun(dir);
    const elsewhere = { ...resultsWith({ 'RULE-4': { verdict: 'FAIL', reason: 'r' } }), target: 'https://other.example' };
    const kept = await findBaseline(dir, elsewhere);
    expect(kept?.trend).toMatchObject({
      explicit: false,
      changes: [],
      notComparable: 'another target (https://bmc.example → https://other.example)',
    });
    expect(kept?.allureHistory).toBeUndefined();
  });

  test('no kept run, no baseline; a named one that is not there is a usage error', async () => {
    const dir = await folders.make('bmc-baseline-empty-');
    expect(await findBaseline(dir, resultsWith())).toBeUndefined();
    await expect(findBaseline(dir, resultsWith(), join(dir, 'nope'))).rejects.toThrow(/no earlier run/);
    await writeFile(join(dir, 'broken.json'), '{"not":"results"}');
    await expect(findBaseline(dir, resultsWith(), join(dir, 'broken.json'))).rejects.toThrow(/not a results.json/);
    // Lists where a run's are, but not a run's: no target, no tests.
    await writeFile(join(dir, 'hollow.json'), '{"requirements":[],"summary":{}}');
    await expect(findBaseline(dir, resultsWith(), join(dir, 'hollow.json'))).rejects.toThrow(UsageError);
  });
});
