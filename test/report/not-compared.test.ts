/**
 * A baseline that is not comparable (another target, profile or selection; an interrupted run):
 * every output says so in one line and lists no change, and changes.json does not outlive it.
 */
import { existsSync } from 'node:fs';
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, describe, expect, test } from 'vitest';
import type { Trend } from '../../report/changes.js';
import { CHANGES_JSON } from '../../report/changes-json.js';
import { formatTrend } from '../../report/console-summary.js';
import { junitText } from '../../report/junit-xml.js';
import { reportContext, writeReports } from '../../report/outputs.js';
import { summaryPage } from '../../report/summary/html.js';
import { summaryMarkdown } from '../../report/summary/md.js';
import { context, resultsWith, temporaryFolders } from './fixture.js';

const folders = temporaryFolders();
afterAll(() => folders.removeAll());

const WHY = 'another target (https://a.example → https://b.example)';
const results = resultsWith({ 'RULE-4': { verdict: 'FAIL', reason: 'r' } });
const notCompared: Trend = {
  source: 'a/results.json',
  previousStartedAt: '2026-01-01T00:00:00.000Z',
  changes: [],
  explicit: false,
  notComparable: WHY,
};

describe('a baseline that is not compared', () => {
  test('the console says why in one line', () => {
    expect(formatTrend(notCompared)).toEqual([`not compared with the baseline (a/results.json): ${WHY}`]);
  });

  test('summary.md, summary.html and junit.xml say why and list no change', () => {
    const md = summaryMarkdown(context(results, { trend: notCompared }));
    expect(md).toContain(`Not compared with the run of 2026-01-01T00:00:00.000Z: ${WHY}.`);
    expect(md).not.toMatch(/No verdict changed|Newly failing/);
    const page = summaryPage(context(results, { trend: notCompared }));
    expect(page).toContain(`Not compared with the run of 2026-01-01T00:00:00.000Z: ${WHY}.`);
    expect(page).toContain(`<dd>2026-01-01T00:00:00.000Z (a/results.json), not compared: ${WHY}</dd>`);
    expect(page).not.toMatch(/No verdict changed/);
    const xml = junitText(context(results, { trend: notCompared }));
    expect(xml).toContain(`name="baseline" value="a/results.json (2026-01-01T00:00:00.000Z), not compared: ${WHY}"`);
    expect(xml).not.toContain('name="change"');
  });

  test('an earlier changes.json goes: no list is better than the last comparison read as this one', async () => {
    const dir = await folders.make('bmc-not-compared-');
    await writeFile(join(dir, CHANGES_JSON), '[{"id":"RULE-4","from":"PASS","to":"FAIL","kind":"regression"}]');
    const ctx = await reportContext({ dir, results, baseline: { trend: notCompared }, secrets: [] });
    await writeReports(ctx);
    expect(existsSync(join(dir, CHANGES_JSON))).toBe(false);
  });

  test('new firmware on the same target is compared, and said', () => {
    const trend: Trend = { ...notCompared, notComparable: undefined, firmware: '2.14.0 → 2.15.0', changes: [] };
    expect(formatTrend(trend)).toEqual(['no verdict changed since the baseline (a/results.json; firmware 2.14.0 → 2.15.0)']);
    expect(summaryMarkdown(context(results, { trend }))).toContain(
      'No verdict changed since the run of 2026-01-01T00:00:00.000Z (firmware 2.14.0 → 2.15.0).',
    );
  });
});
