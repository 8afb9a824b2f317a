import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, afterEach, describe, expect, test } from 'vitest';
import { REQUIREMENTS } from '../../catalogue/requirements.js';
import { verdictChanges } from '../../report/changes.js';
import { readLoadRun } from '../../report/load-figures.js';
import { summaryPage } from '../../report/summary/html.js';
import { summaryMarkdown, summaryMd } from '../../report/summary/md.js';
import { context, EXCHANGE, resultsWith, temporaryFolders } from './fixture.js';
import type { Results } from '../../client/results.js';

const folders = temporaryFolders();
afterAll(() => folders.removeAll());

const HOSTILE = '<script>alert(1)</script> [click](https://evil.example) | ![x](https://evil.example/x.png)';

const results = {
  ...resultsWith({
    'RULE-4': { verdict: 'FAIL', reason: 'expected 403 Forbidden, got 405', evidence: [EXCHANGE] },
    'ENV-2': { verdict: 'FAIL', reason: HOSTILE },
    'EP-6': { verdict: 'XFAIL', reason: 'lists too much', expected: 'known platform bug' },
    'EP-5': { verdict: 'NOT_TESTED', reason: 'needs the destructive profile' },
  }),
  fingerprint: { server: 'phosphor-rest/1.2', firmware: '2.14.0-dev', objects: 321 },
  expectations: { file: 'platform.json', platform: 'phosphor-rest-server' },
  observations: [
    { requirement: 'AUTH-6', key: 'cookie name', value: 'sid', test: '[AUTH-6] t' },
    { requirement: 'EP-1', key: 'login response data', value: { token: null }, test: '[EP-1] t' },
    { requirement: 'EP-1', key: 'login response data', value: { token: null }, test: '[EP-1] u' },
  ],
};
const previous = resultsWith({ 'EP-7': { verdict: 'FAIL', reason: 'old' } });
const trend = {
  source: 'old/results.json',
  previousStartedAt: '2026-01-01T00:00:00.000Z',
  changes: verdictChanges(previous, results),
  explicit: false,
};

describe('summary.html', () => {
  const page = summaryPage(context(results, { trend }));

  test('names the target, its fingerprint, the profile, the date, the tool and the catalogue', () => {
    for (const text of [
      'https://bmc.example:443',
      'phosphor-rest/1.2',
      '2.14.0-dev',
      '321',
      'safe',
      '2026-01-02T03:04:00.000Z',
      'bmc-conformance 0.1.0',
      `${REQUIREMENTS.length} requirements, digest`,
    ]) {
      expect(page).toContain(text);
    }
    expect(page).toContain('Does not conform: 2 requirements fail (ENV-2, RULE-4).');
  });

  test('renders without a fingerprint: it is optional', () => {
    const bare = summaryPage(context(resultsWith()));
    expect(bare).not.toContain('<dt>Server</dt>');
    expect(bare).toContain('No requirement fails.');
  });

  test('has a row per requirement, each linking to its evidence, and the evidence holds the exchange', () => {
    for (const r of REQUIREMENTS) expect(page).toContain(`<tr id="${r.id}" `);
    expect(page).toContain('<a href="#evidence-RULE-4">1 test</a>');
    const annex = page.slice(page.indexOf('id="evidence-RULE-4"'));
    expect(annex).toContain('POST /xyz/mgmt_project/created');
    expect(annex).toContain('HTTP 405 Method Not Allowed');
  });

  test('lists the requirements problems first: FAIL, then XPASS and WARN, XFAIL, NOT_TESTED, PASS last', () => {
    const table = page.slice(page.indexOf('<table class="requirements">'), page.indexOf('</table>'));
    const verdicts = [...table.matchAll(/<span class="badge v-([A-Z_]+)">/g)].map((m) => m[1]!);
    const rank = ['FAIL', 'XPASS', 'WARN', 'XFAIL', 'NOT_TESTED', 'PASS'];
    expect(verdicts.length).toBe(results.requirements.length);
    expect(verdicts[0]).toBe('FAIL');
    expect(verdicts.map((v) => rank.indexOf(v))).toEqual([...verdicts.map((v) => rank.indexOf(v))].sort((a, b) => a - b));
  });

  test('lists expected deviations, observations and what changed since the baseline', () => {
    const deviations = page.slice(page.indexOf('id="deviations"'), page.indexOf('id="observations"'));
    expect(deviations).toContain('phosphor-rest-server');
    expect(deviations).toContain('known platform bug');
    const observations = page.slice(page.indexOf('id="observations"'));
    // In catalogue order: EP-1 comes before AUTH-6.
    expect(observations.indexOf('login response data')).toBeLessThan(observations.indexOf('cookie name'));
    // A flat object reads as its members; the same observation from two tests is one row.
    expect(observations).toContain('<dl class="members"><dt>token</dt><dd>null</dd></dl>');
    expect(observations.match(/login response data/g)).toHaveLength(1);
    expect(observations).toContain('(2 tests)');
    const changes = page.slice(page.indexOf('id="changes"'), page.indexOf('id="requirements"'));
    const newlyFailing = changes.slice(changes.indexOf('Newly failing'), changes.indexOf('Newly passing'));
    expect(newlyFailing).toContain('<li><a href="#ENV-2">ENV-2</a>: PASS → <span class="badge v-FAIL">FAIL</span></li>');
    expect(newlyFailing).toContain('<li><a href="#RULE-4">RULE-4</a>: PASS → <span class="badge v-FAIL">FAIL</span></li>');
    expect(changes.slice(changes.indexOf('Newly passing'))).toContain(
      '<li><a href="#EP-7">EP-7</a>: FAIL → <span class="badge v-PASS">PASS</span></li>',
    );
  });

  test('escapes what the target answered: no markup of it survives', () => {
    expect(page).not.toContain('<script');
    expect(page).toContain('&lt;script&gt;alert(1)&lt;/script&gt;');
  });
});

describe('summary.html with a load run beside it', () => {
  test('shows the figures it can read and links the charts', async () => {
    const dir = await folders.make('bmc-load-');
    await writeFile(
      join(dir, 'load.json'),
      JSON.stringify({
        startedAt: '2026-01-02T04:00:00Z',
        scenarios: [
          { name: 'get-object', requestsPerSecond: 812.4, latencyMs: { p50: 2.1, p99: 9.8 }, requests: 2437 },
          { scenario: 'enumerate-root', rps: 31, p50: 40, p99: 120.5 },
          { requestsPerSecond: 5 },
        ],
      }),
    );
    await writeFile(join(dir, 'load.html'), '<html></html>');
    const load = await readLoadRun(dir);
    expect(load?.scenarios.map((s) => s.name)).toEqual(['get-object', 'enumerate-root']);
    const section = summaryPage(context(resultsWith(), { load })).split('id="load"')[1]!;
    for (const text of ['get-object', '812', '2437', '9.8', 'enumerate-root', '31', '120.5', '<a href="load.html">load.html</a>'])
      expect(section).toContain(text);
  });

  test('a load.json of another target is not merged: the page says so', async () => {
    const dir = await folders.make('bmc-load-other-');
    const doc = { target: 'https://10.0.0.9:443', scenarios: [{ name: 'get-object', requestsPerSecond: 812.4 }] };
    await writeFile(join(dir, 'load.json'), JSON.stringify(doc));
    const other = await readLoadRun(dir, 'https://127.0.0.1:2443');
    expect(other?.scenarios).toEqual([]);
    expect(other?.problem).toBe('load.json is of another target (https://10.0.0.9), not shown');
    expect(summaryPage(context(resultsWith(), { load: other }))).not.toContain('get-object');
    // The same target, whatever user part or path its URL carries, is merged.
    expect((await readLoadRun(dir, 'https://root@10.0.0.9/'))?.scenarios.map((s) => s.name)).toEqual(['get-object']);
  });

  test('an older load-results.json is read too; an unreadable file is said so, not fatal', async () => {
    const older = await folders.make('bmc-load-old-');
    await writeFile(
      join(older, 'load-results.json'),
      JSON.stringify({ results: [{ scenario: 'get-attr', requestsPerSecond: 100, latencyMs: { p50: 1, p99: 3 } }] }),
    );
    expect((await readLoadRun(older))?.scenarios).toEqual([
      { name: 'get-attr', requests: undefined, requestsPerSecond: 100, p50Ms: 1, p99Ms: 3 },
    ]);
    const broken = await folders.make('bmc-load-broken-');
    await writeFile(join(broken, 'load.json'), '{ truncated');
    const load = await readLoadRun(broken);
    expect(load?.problem).toBe('load.json is not valid JSON');
    expect(summaryPage(context(resultsWith(), { load }))).toContain('load.json is not valid JSON.');
    expect(await readLoadRun(await folders.make('bmc-load-none-'))).toBeUndefined();
  });
});

describe('summary.md', () => {
  const markdown = summaryMarkdown(context(results, { trend }));
  const previousSummary = process.env.GITHUB_STEP_SUMMARY;
  afterEach(() => {
    if (previousSummary === undefined) delete process.env.GITHUB_STEP_SUMMARY;
    else process.env.GITHUB_STEP_SUMMARY = previousSummary;
  });

  test('is short: counts, the FAILs with reasons, and the changes since the baseline', () => {
    expect(markdown).toMatch(/\| PASS \| FAIL \| WARN \| NOT_TESTED \| XFAIL \| XPASS \|/);
    expect(markdown).toMatch(new RegExp(`\\|\\s+${results.summary.PASS} \\|\\s+2 \\|`));
    expect(markdown).toContain('| RULE-4 | MUST  | expected 403 Forbidden, got 405');
    expect(markdown).toContain('- **Newly failing**: ENV-2 (PASS → FAIL), RULE-4 (PASS → FAIL)');
    expect(markdown).toContain('- **Newly passing**: EP-7 (FAIL → PASS)');
    expect(markdown.split('\n').length).toBeLessThan(40);
  });

  test('a reason cannot turn into a link, an image or a table border on the job page', () => {
    const line = markdown.split('\n').find((l) => l.startsWith('| ENV-2'))!;
    expect(line).not.toMatch(/(?<!\\)[[\]!]/);
    expect(line).not.toContain('<script>');
    expect(line.split(/(?<!\\)\|/)).toHaveLength(5);
  });

  test('goes to $GITHUB_STEP_SUMMARY as well when it is set', async () => {
    const dir = await folders.make('bmc-md-');
    const stepSummary = join(dir, 'step-summary.md');
    await writeFile(stepSummary, 'earlier step\n');
    process.env.GITHUB_STEP_SUMMARY = stepSummary;
    const written: Record<string, string> = {};
    await summaryMd.write(context(results, { trend, write: async (name, text) => void (written[name] = text) }));
    expect(written['summary.md']).toBe(markdown);
    expect(await readFile(stepSummary, 'utf8')).toBe(`earlier step\n${markdown}`);
  });
});

describe('an interrupted run, or one the target went away during', () => {
  const stopped = {
    ...resultsWith({ 'EP-5': { verdict: 'NOT_TESTED', reason: 'not run: the run was interrupted' } }),
    interrupted: { signal: 'SIGINT', at: '2026-01-02T03:05:00.000Z' },
    downtime: [
      { from: '2026-01-02T03:04:30.000Z', durationMs: 41_000, cause: 'connection refused', back: true },
      { from: '2026-01-02T03:04:50.000Z', durationMs: 300_000, cause: 'connection timed out', back: false },
    ],
  };

  test('summary.html and summary.md say so above the counts', () => {
    const page = summaryPage(context(stopped));
    const text = summaryMarkdown(context(stopped));
    for (const out of [page, text]) {
      expect(out).toMatch(/Interrupted by SIGINT at 2026-01-02T03:05:00.000Z/);
      expect(out).toMatch(/unreachable from \d\d:\d\d:\d\d for 41 s \(connection refused\); the run waited for it and went on/);
      expect(out).toMatch(/unreachable since \d\d:\d\d:\d\d \(waited 300 s\) \(connection timed out\); the run stopped waiting for it/);
    }
    expect(page.indexOf('Interrupted by')).toBeLessThan(page.indexOf('id="counts"'));
    expect(text.indexOf('Interrupted by')).toBeLessThan(text.indexOf('### Changes'));
  });

  test('an ordinary run has no such notice', () => {
    expect(summaryPage(context(results))).not.toContain('class="notice"');
    expect(summaryMarkdown(context(results))).not.toMatch(/Interrupted|unreachable/);
  });
});

describe('a run that planned its reads for a costly enumerate', () => {
  const tally = { count: 3, seconds: 9, enumerate: 1, list: 2, subtree: { count: 0, seconds: 0 }, areas: [], tests: [] };
  const notes = ["a whole-tree enumerate takes 3.0 s: each stateful check gets a target's budget of 10 s (--stateful-time)"];
  const planned: Results = {
    ...resultsWith(),
    treeReads: { ...tally, plan: { rootEnumerateMs: 3000, treeSnapshot: 'objects', objectSnapshotMs: 200, notes } },
  };

  test('summary.html and summary.md say what it planned, after the whole-tree reads, as the console does', () => {
    for (const out of [summaryPage(context(planned)), summaryMarkdown(context(planned))]) {
      expect(out).toMatch(/snapshots by object/);
      expect(out).toMatch(/read budget: a whole-tree enumerate takes 3\.0 s: each stateful check gets a target(&#39;|')s budget of 10 s/);
      expect(out.indexOf('read budget:')).toBeGreaterThan(out.indexOf('whole-tree reads:'));
    }
    expect(summaryPage(context(resultsWith()))).not.toContain('read budget:');
  });
});
