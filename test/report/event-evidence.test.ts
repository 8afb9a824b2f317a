/**
 * An event FAIL shows what happened on the event channel: the subscriptions with their filters and
 * every message each received, the writes that should have caused events, as one timeline, and
 * the lines that replay it, in results.json, junit.xml, summary.html and the Allure results.
 */
import { readdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, expect, test, vi } from 'vitest';
import type { Results } from '../../client/results.js';
import { runConformance } from '../../runner/run.js';
import { temporaryFolders } from './fixture.js';
import { testRunOptions } from '../support/run-options.js';

const folders = temporaryFolders();
let dir: string;
let results: Results;

beforeAll(async () => {
  vi.stubEnv('GITHUB_STEP_SUMMARY', '');
  dir = await folders.make('bmc-event-evidence-');
  // filter-and: a filter with paths and interfaces admits only events matching both (EV-6 says either).
  ({ results } = await runConformance(testRunOptions(dir, { only: ['events'], faults: ['filter-and'], lean: false, seed: 3 })));
});
afterAll(() => folders.removeAll());

function failedTest() {
  const ev6 = results.requirements.find((r) => r.id === 'EV-6')!;
  expect(ev6.verdict).toBe('FAIL');
  return ev6.tests.find((t) => t.verdict === 'FAIL')!;
}

test('[EV-6] results.json keeps the subscriptions, each message with its arrival time, and the writes', () => {
  const evidence = failedTest().evidence ?? [];
  const subscriptions = evidence.filter((x) => x.url === '/subscribe');
  expect(subscriptions.length).toBeGreaterThan(1);
  expect(subscriptions.every((x) => x.requestBody !== undefined)).toBe(true);
  const frames = subscriptions.flatMap((x) => x.frames ?? []);
  expect(frames.length).toBeGreaterThan(0);
  expect(frames.every((f) => !Number.isNaN(Date.parse(f.at)))).toBe(true);
  expect(evidence.some((x) => x.method === 'PUT')).toBe(true);
});

test('junit.xml and summary.html show the timeline and the replay lines, with no credential', async () => {
  const junit = await readFile(join(dir, 'junit.xml'), 'utf8');
  expect(junit).toMatch(/--- timeline/);
  expect(junit).toMatch(/subscription 1 opened: filter/);
  expect(junit).toMatch(/websocat -k -H "Cookie: \$COOKIE"/);
  const page = await readFile(join(dir, 'summary.html'), 'utf8');
  expect(page).toMatch(/<summary>Timeline: the test's requests and event messages in time order<\/summary>/);
  expect(page).toMatch(/received \{&quot;event&quot;:&quot;PropertiesChanged&quot;/);
  for (const text of [junit, page]) expect(text).not.toContain('0penBmc');
});

test('the Allure result of the failed test carries the timeline and replay.sh', async () => {
  const results = join(dir, 'allure-results');
  const files = await readdir(results);
  const tests = await Promise.all(
    files
      .filter((f) => f.endsWith('-result.json'))
      .map(
        async (f) =>
          JSON.parse(await readFile(join(results, f), 'utf8')) as {
            name: string;
            status: string;
            steps: Array<{ name: string; attachments: Array<{ name: string; source: string }> }>;
          },
      ),
  );
  const failed = tests.find((t) => t.name.startsWith('[EV-6]') && t.status === 'failed');
  expect(failed).toBeDefined();
  // allure-vitest files an attachment made outside a step as a step of its own.
  const attachments = failed!.steps.flatMap((s) => s.attachments);
  expect(attachments.map((a) => a.name)).toEqual(expect.arrayContaining(['timeline', 'replay.sh']));
  const replay = await readFile(join(results, attachments.find((a) => a.name === 'replay.sh')!.source), 'utf8');
  expect(replay).toMatch(/^curl .*-X PUT -b "\$COOKIE"/m);
});
