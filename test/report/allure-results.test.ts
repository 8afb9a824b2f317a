import { existsSync } from 'node:fs';
import { mkdir, readdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, describe, expect, test } from 'vitest';
import { allureResults, CATEGORIES } from '../../report/allure/results.js';
import { reportContext } from '../../report/outputs.js';
import { resultsWith, temporaryFolders } from './fixture.js';

const folders = temporaryFolders();
afterAll(() => folders.removeAll());

const SECRET = 'Allure-Secret-31d9';

const results = {
  ...resultsWith({
    'RULE-4': { verdict: 'FAIL', reason: 'got 405' },
    'EP-6': { verdict: 'XFAIL', reason: 'lists too much', expected: 'known platform bug' },
    'EP-7': { verdict: 'WARN', reason: 'JSON true where the spec shows 1' },
    'EP-5': { verdict: 'NOT_TESTED', reason: 'needs the destructive profile' },
    'EP-9': { verdict: 'XPASS', reason: 'expected to fail (500 on PUT) but now PASS; update p.json' },
  }),
  target: 'https://root:hunter2@bmc.example',
  fingerprint: { server: 'phosphor-rest', firmware: '2.14.0 ÿ=:' },
};

/** What allure-vitest writes for one test: its name, status and requirement labels. */
function vitestResult(id: string, status: string, message?: string): string {
  return JSON.stringify({
    uuid: id,
    name: `[${id}] test of ${id}`,
    status,
    ...(message && { statusDetails: { message } }),
    labels: [
      { name: 'requirement', value: id },
      { name: 'suite', value: 'x' },
    ],
  });
}

async function runFolder(history?: string): Promise<string> {
  const dir = await folders.make('bmc-allure-');
  const results = join(dir, 'allure-results');
  await mkdir(results, { recursive: true });
  const files: Record<string, string> = {
    'a-result.json': vitestResult('RULE-4', 'failed', 'RULE-4: got 405'),
    'b-result.json': vitestResult('EP-6', 'failed', 'EP-6: lists too much'),
    'c-result.json': vitestResult('EP-7', 'passed'),
    'd-result.json': vitestResult('EP-5', 'skipped'),
    'e-result.json': vitestResult('EP-9', 'passed'),
    'f-result.json': vitestResult('EP-1', 'passed'),
    'g-attachment.txt': `POST /login\n\n{"data":["root","${SECRET}"]}`,
  };
  for (const [name, text] of Object.entries(files)) await writeFile(join(results, name), text);
  if (history) {
    await mkdir(join(dir, 'allure-report', 'history'), { recursive: true });
    await writeFile(join(dir, 'allure-report', 'history', 'history-trend.json'), history);
  }
  return dir;
}

async function written(dir: string, name: string): Promise<string> {
  return readFile(join(dir, 'allure-results', name), 'utf8');
}

const statusOf = async (dir: string, file: string) =>
  JSON.parse(await written(dir, file)) as { status: string; statusDetails?: { message?: string } };

describe('Allure results completed after the run', () => {
  test('an expected deviation is skipped as XFAIL, a warning and an XPASS say so, a test not run says why', async () => {
    const dir = await runFolder();
    await allureResults.write(await reportContext({ dir, results, secrets: [] }));
    expect(await statusOf(dir, 'a-result.json')).toMatchObject({ status: 'failed', statusDetails: { message: 'RULE-4: got 405' } });
    expect(await statusOf(dir, 'b-result.json')).toMatchObject({
      status: 'skipped',
      statusDetails: { message: 'XFAIL: expected deviation: EP-6 (known platform bug)\n\nEP-6: lists too much' },
    });
    expect(await statusOf(dir, 'c-result.json')).toMatchObject({
      status: 'passed',
      statusDetails: { message: 'WARN: EP-7: JSON true where the spec shows 1' },
    });
    expect(await statusOf(dir, 'd-result.json')).toMatchObject({
      status: 'skipped',
      statusDetails: { message: 'NOT_TESTED: needs the destructive profile' },
    });
    expect((await statusOf(dir, 'e-result.json')).statusDetails?.message).toMatch(/^XPASS: EP-9: expected to fail/);
    expect((await statusOf(dir, 'f-result.json')).statusDetails).toBeUndefined();
  });

  test('each annotation matches exactly one category, and writing again changes nothing', async () => {
    const dir = await runFolder();
    const ctx = await reportContext({ dir, results, secrets: [] });
    await allureResults.write(ctx);
    const first = await Promise.all(['a', 'b', 'c', 'd', 'e'].map((x) => written(dir, `${x}-result.json`)));
    await allureResults.write(ctx);
    expect(await Promise.all(['a', 'b', 'c', 'd', 'e'].map((x) => written(dir, `${x}-result.json`)))).toEqual(first);
    const categories = JSON.parse(await written(dir, 'categories.json')) as typeof CATEGORIES;
    const matches = (r: { status: string; statusDetails?: { message?: string } }) =>
      categories.filter(
        (c) =>
          c.matchedStatuses.includes(r.status) &&
          (!c.messageRegex || new RegExp(c.messageRegex.replace('(?s)', ''), 's').test(r.statusDetails?.message ?? '')),
      );
    expect(first.map((t) => matches(JSON.parse(t)).map((c) => c.name))).toEqual([
      ['Conformance failures'],
      ['Expected deviations (XFAIL)'],
      ['Warnings (deviations from what the spec shows)'],
      ['Not tested'],
      ['Expected failures that now pass (XPASS)'],
    ]);
  });

  test('environment names the target without its user information, the fingerprint, profile, seed and tool', async () => {
    const dir = await runFolder();
    await allureResults.write(await reportContext({ dir, results, secrets: [] }));
    const env = await written(dir, 'environment.properties');
    expect(env).toContain('Target=https\\://bmc.example\n');
    expect(env).not.toContain('hunter2');
    expect(env).toContain('Server=phosphor-rest\n');
    expect(env).toContain('Firmware=2.14.0\\ \\u00ff\\=\\:\n');
    expect(env).toMatch(/^Profile=safe$/m);
    expect(env).toMatch(/^Seed=42$/m);
    expect(env).toMatch(/^Tool=bmc-conformance\\ \d+\.\d+\.\d+$/m);
  });

  test('the baseline report\u2019s history is carried once and numbers the build after it', async () => {
    const dir = await runFolder(
      JSON.stringify([
        { buildOrder: 7, data: {} },
        { buildOrder: 6, data: {} },
      ]),
    );
    const ctx = await reportContext({
      dir,
      results,
      secrets: [],
      baseline: {
        trend: { source: 's', previousStartedAt: 't', changes: [], explicit: false },
        allureHistory: join(dir, 'allure-report', 'history'),
      },
    });
    await allureResults.write(ctx);
    expect(JSON.parse(await written(dir, 'history/history-trend.json'))).toHaveLength(2);
    expect(JSON.parse(await written(dir, 'executor.json'))).toMatchObject({
      buildOrder: 8,
      reportName: 'Conformance of https://bmc.example',
    });
    // Rendering again must not count this run twice: the history already carried stays.
    await writeFile(
      join(dir, 'allure-report', 'history', 'history-trend.json'),
      JSON.stringify([{ buildOrder: 8 }, { buildOrder: 7 }, { buildOrder: 6 }]),
    );
    await allureResults.write(ctx);
    expect(JSON.parse(await written(dir, 'history/history-trend.json'))).toHaveLength(2);
    expect(JSON.parse(await written(dir, 'executor.json')).buildOrder).toBe(8);
  });

  test('no secret is left in any file of the results, whoever wrote it', async () => {
    const dir = await runFolder();
    await allureResults.write(await reportContext({ dir, results, secrets: [SECRET] }));
    for (const name of await readdir(join(dir, 'allure-results'))) expect(await written(dir, name), name).not.toContain(SECRET);
    expect(await written(dir, 'g-attachment.txt')).toBe('POST /login\n\n{"data":["root","***"]}');
  });

  test('a run without Allure results gets none', async () => {
    const dir = await folders.make('bmc-allure-lean-');
    await allureResults.write(await reportContext({ dir, results, secrets: [] }));
    expect(existsSync(join(dir, 'allure-results'))).toBe(false);
  });
});
