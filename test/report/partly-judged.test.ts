/**
 * "PASS, partly judged" in every output: a requirement whose verdict rests on some of its tests
 * names the tests that did not judge it, from the console to the fleet report.
 */
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { XMLParser } from 'fast-xml-parser';
import { afterAll, describe, expect, test } from 'vitest';
import { requirement } from '../../catalogue/requirements.js';
import { rollUp, summarize, type Results, type TestOutcome } from '../../client/results.js';
import { formatSummary } from '../../report/console-summary.js';
import { allureResults, CATEGORIES } from '../../report/allure/results.js';
import { junitText } from '../../report/junit-xml.js';
import { reportContext } from '../../report/outputs.js';
import { summaryPage } from '../../report/summary/html.js';
import { summaryMarkdown } from '../../report/summary/md.js';
import { acrossSentence, requirementAcross } from '../../report/fleet/counts.js';
import { fleetJunit } from '../../report/fleet/junit.js';
import { fleetMarkdown } from '../../report/fleet/md.js';
import { fleetPage } from '../../report/fleet/html.js';
import { FLEET_FORMAT, verdictsOf, type FleetMatrix } from '../../report/fleet/matrix.js';
import { toolInfo } from '../../report/tool-info.js';
import { partlyText, verdictLabel } from '../../report/partly.js';
import { applyExpectations } from '../../runner/expectations.js';
import { context, resultsWith, temporaryFolders } from './fixture.js';

const folders = temporaryFolders();
afterAll(() => folders.removeAll());

const DESTRUCTIVE = 'needs the destructive profile; this run uses safe';
const UPLOAD = '[EV-3] an uploaded version is announced by InterfacesAdded';
const PUT = '[EV-3 EP-5] a PUT shows the same on every subscriber';

/** A safe run: EV-3 (an expected failure) and EP-5 passed or warned by one test, not judged by the other. */
function safeRun(): Results {
  const outcomes: TestOutcome[] = [
    { name: UPLOAD, file: 'f', requirements: ['EV-3'], verdict: 'NOT_TESTED', reason: DESTRUCTIVE },
    {
      name: PUT,
      file: 'f',
      requirements: ['EV-3', 'EP-5'],
      verdict: 'WARN',
      perRequirement: { 'EV-3': { verdict: 'PASS' }, 'EP-5': { verdict: 'WARN', reason: 'JSON true where the spec shows 1' } },
    },
    { name: '[EP-5] a listing of a new object', file: 'f', requirements: ['EP-5'], verdict: 'NOT_TESTED', reason: DESTRUCTIVE },
  ];
  const base = resultsWith();
  const expectations = { file: 'profiles/bmcweb.json', expected: { 'EV-3': 'names the ObjectManager' }, writable: [] };
  const requirements = applyExpectations(
    base.requirements.map((r) => (r.id === 'EV-3' || r.id === 'EP-5' ? rollUp(requirement(r.id), outcomes, 'x') : r)),
    expectations,
  );
  return { ...base, requirements, summary: summarize(requirements), expectations: { file: expectations.file } };
}

const results = safeRun();

describe('a requirement judged by some of its tests', () => {
  test('keeps its verdict (a qualifier, not a count) and is no XPASS', () => {
    const ev3 = results.requirements.find((r) => r.id === 'EV-3')!;
    expect(ev3).toMatchObject({
      verdict: 'PASS',
      expected: 'names the ObjectManager',
      partly: { notJudged: [{ test: UPLOAD, reason: DESTRUCTIVE }] },
    });
    expect(results.summary.XPASS).toBe(0);
    expect(results.summary.PASS + results.summary.WARN).toBe(results.requirements.length);
  });

  test('console: one line per reason naming the requirements, the unseen expectation, no XPASS', () => {
    const text = formatSummary(results, []).join('\n');
    expect(text).toContain(
      '\nPASS, expected FAIL not seen:\n  EV-3     MUST    expected FAIL not seen, nor refuted: 1 of its 2 tests did not judge it',
    );
    expect(text).toContain(`\nPASS, partly judged (2; some of their tests were not judged):\n  EP-5 (WARN) EV-3: ${DESTRUCTIVE}\n`);
    expect(text).not.toContain('XPASS:');
    expect(text).not.toContain('update profiles/bmcweb.json');
  });

  test('summary.html: the verdict cell says partly judged and the reason names the tests not judged', () => {
    const page = summaryPage(context(results));
    const row = /<tr id="EV-3"[\s\S]*?<\/tr>/.exec(page)![0];
    expect(row).toContain('<span class="badge v-PASS">PASS</span><div class="partly">partly judged</div>');
    expect(row).toContain('1 of 2 tests not judged:');
    expect(row).toContain(`<li>${DESTRUCTIVE}: ${UPLOAD}</li>`);
    expect(page).toContain('No requirement fails; 2 partly judged.');
    // A requirement every test of which judged it reads as before.
    expect(/<tr id="EP-1"[\s\S]*?<\/tr>/.exec(page)![0]).not.toContain('partly');
  });

  test('summary.md: a table of the partly judged, the unseen expectation marked', () => {
    const md = summaryMarkdown(context(results));
    expect(md).toContain('### PASS, partly judged');
    expect(md).toMatch(
      /\| EV-3 \| PASS \(expected FAIL not seen\) \| 1 of 2 tests not judged: needs the destructive profile; this run uses safe: \\\[EV-3\\\] an uploaded/,
    );
    expect(md).toMatch(/\| EP-5 \| WARN +\| 1 of 2 tests not judged/);
    expect(md).not.toContain('XPASS (');
  });

  test('junit.xml: a "partly judged" property and the tests not judged in system-out', () => {
    const parser = new XMLParser({
      ignoreAttributes: false,
      attributeNamePrefix: '@',
      isArray: (n) => ['testsuite', 'testcase', 'property'].includes(n),
    });
    type Case = { '@name': string; 'system-out'?: string; properties: { property: Array<{ '@name': string; '@value': string }> } };
    const doc = parser.parse(junitText(context(results))) as { testsuites: { testsuite: Array<{ testcase: Case[] }> } };
    const cases = doc.testsuites.testsuite.flatMap((s) => s.testcase);
    const ev3 = cases.find((c) => c['@name'].startsWith('EV-3 '))!;
    const prop = (c: Case, name: string) => c.properties.property.find((p) => p['@name'] === name)?.['@value'];
    expect(prop(ev3, 'verdict')).toBe('PASS');
    expect(prop(ev3, 'partly judged')).toBe('1 of 2 tests not judged');
    expect(ev3['system-out']).toContain(`PASS, partly judged: 1 of 2 tests not judged: ${DESTRUCTIVE}: ${UPLOAD}`);
    expect(ev3['system-out']).toContain('PASS: expected FAIL not seen, nor refuted');
    const ep5 = cases.find((c) => c['@name'].startsWith('EP-5 '))!;
    expect(ep5['system-out']).toBe(
      `WARN: JSON true where the spec shows 1\nWARN, partly judged: 1 of 2 tests not judged: ${DESTRUCTIVE}: [EP-5] a listing of a new object`,
    );
    const ep1 = cases.find((c) => c['@name'].startsWith('EP-1 '))!;
    expect(prop(ep1, 'partly judged')).toBeUndefined();
    expect(ep1['system-out']).toBeUndefined();
  });

  test('Allure: the passing test of a partly judged requirement says so, is tagged, and has a category of its own', async () => {
    const dir = await folders.make('bmc-partly-');
    await mkdir(join(dir, 'allure-results'));
    const allure = (name: string, status: string, ids: string[]) =>
      JSON.stringify({ uuid: name, name, status, labels: ids.map((value) => ({ name: 'requirement', value })) });
    await writeFile(join(dir, 'allure-results', 'put-result.json'), allure(PUT, 'passed', ['EV-3', 'EP-5']));
    await writeFile(join(dir, 'allure-results', 'ev3-result.json'), allure('[EV-3] only EV-3', 'passed', ['EV-3']));
    await writeFile(join(dir, 'allure-results', 'ep1-result.json'), allure('[EP-1] test of EP-1', 'passed', ['EP-1']));
    const ctx = await reportContext({ dir, results, secrets: [] });
    await allureResults.write(ctx);
    const read = async (f: string) =>
      JSON.parse(await readFile(join(dir, 'allure-results', f), 'utf8')) as {
        status: string;
        statusDetails?: { message?: string };
        labels: Array<{ name: string; value: string }>;
      };
    const put = await read('put-result.json');
    // The WARN of EP-5 leads; the partly judged line follows.
    expect(put.statusDetails?.message).toBe(
      `WARN: EP-5: JSON true where the spec shows 1\npartly judged: EV-3, EP-5: other tests of them were not judged: ${DESTRUCTIVE}`,
    );
    expect(put.labels).toContainEqual({ name: 'tag', value: 'partly judged' });
    // A test that is not among EV-3's tests in results.json judged nothing of it here: no note.
    expect((await read('ev3-result.json')).statusDetails).toBeUndefined();
    expect((await read('ep1-result.json')).statusDetails).toBeUndefined();
    // Written again: the same files.
    const before = await readFile(join(dir, 'allure-results', 'put-result.json'), 'utf8');
    await allureResults.write(ctx);
    expect(await readFile(join(dir, 'allure-results', 'put-result.json'), 'utf8')).toBe(before);
    const category = CATEGORIES.find((c) => c.name.startsWith('Passed, partly judged'))!;
    expect(
      new RegExp(category.messageRegex!.replace('(?s)', ''), 's').test(`PASS, partly judged: EV-3: other tests of it were not judged: x`),
    ).toBe(true);
  });

  test('Allure: a test that passes and judged only a partly judged requirement leads with "PASS, partly judged"', async () => {
    const dir = await folders.make('bmc-partly-');
    await mkdir(join(dir, 'allure-results'));
    const only = resultsWith();
    const ev3 = results.requirements.find((r) => r.id === 'EV-3')!;
    const mine = { ...ev3, tests: [...ev3.tests, { name: '[EV-3] alone', verdict: 'PASS' as const }] };
    const run = { ...only, requirements: only.requirements.map((r) => (r.id === 'EV-3' ? mine : r)) };
    await writeFile(
      join(dir, 'allure-results', 'a-result.json'),
      JSON.stringify({ uuid: 'a', name: '[EV-3] alone', status: 'passed', labels: [{ name: 'requirement', value: 'EV-3' }] }),
    );
    await allureResults.write(await reportContext({ dir, results: run, secrets: [] }));
    const written = JSON.parse(await readFile(join(dir, 'allure-results', 'a-result.json'), 'utf8')) as {
      statusDetails?: { message?: string };
    };
    expect(written.statusDetails?.message).toBe(`PASS, partly judged: EV-3: other tests of it were not judged: ${DESTRUCTIVE}`);
  });
});

test('the tests not judged are grouped by reason; names with commas stay apart', () => {
  const notTested = (name: string, reason: string): TestOutcome => ({
    name,
    file: 'f',
    requirements: ['EP-8'],
    verdict: 'NOT_TESTED',
    reason,
  });
  const r = rollUp(
    requirement('EP-8'),
    [
      { name: 'p', file: 'f', requirements: ['EP-8'], verdict: 'PASS' },
      notTested('[EP-8] a, b', DESTRUCTIVE),
      notTested('[EP-8] c', 'no named writable holds a free string'),
      notTested('[EP-8] d', DESTRUCTIVE),
    ],
    'x',
  );
  expect(verdictLabel(r)).toBe('PASS, partly judged');
  expect(partlyText(r)).toBe(
    `3 of 4 tests not judged: ${DESTRUCTIVE}: [EP-8] a, b; [EP-8] d — no named writable holds a free string: [EP-8] c`,
  );
});

describe('the fleet report', () => {
  const target = (name: string, r: Results) => ({
    name,
    url: `https://${name}`,
    status: 'passed' as const,
    exitCode: 0,
    durationMs: 1000,
    ...verdictsOf(r),
  });
  const fleet: FleetMatrix = {
    format: FLEET_FORMAT,
    startedAt: '2026-01-02T03:04:00.000Z',
    durationMs: 2000,
    tool: toolInfo(),
    shards: [{ index: 1, count: 1 }],
    targets: [target('safe-1', results), target('whole-1', resultsWith())],
  };

  test('fleet.json keeps what was not judged; the matrix marks the cell; no XPASS is repeated', () => {
    expect(fleet.targets[0]!.partly?.['EV-3']).toBe(`1 of 2 tests not judged: ${DESTRUCTIVE}: ${UPLOAD}`);
    expect(fleet.targets[0]!.verdicts?.['EV-3']).toBe('PASS');
    expect(fleet.targets[1]!.partly).toBeUndefined();
    expect(acrossSentence(requirementAcross(fleet, 'EV-3'))).toBe('passes on every machine (partly judged on 1)');
    expect(acrossSentence(requirementAcross(fleet, 'EP-1'))).toBe('passes on every machine');
    const md = fleetMarkdown(fleet);
    expect(md).toMatch(/\| EV-3 +\| P\\\* +\| P +\| passes on every machine \(partly judged on 1\)/);
    expect(md).toContain('\\* partly judged');
    expect(md).not.toContain('XPASS on');
    const page = fleetPage(fleet);
    expect(page).toContain(`title="safe-1 EV-3: PASS, partly judged — 1 of 2 tests not judged`);
    expect(fleetJunit(fleet)).toContain(`<property name="partly judged" value="1 of 2 tests not judged: ${DESTRUCTIVE}: ${UPLOAD}"/>`);
  });
});
