/** Load results join an existing Allure results directory: one test per scenario, misses as failed steps. */
import { existsSync } from 'node:fs';
import { mkdir, mkdtemp, readdir, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, expect, test } from 'vitest';
import { runLoadCommand } from './helpers.js';

const dirs: string[] = [];
afterAll(async () => {
  for (const d of dirs) await rm(d, { recursive: true, force: true });
});

test('with allure-results present, each scenario becomes an Allure test with load.json and load.html attached', async () => {
  const out = await mkdtemp(join(tmpdir(), 'bmc-load-allure-'));
  dirs.push(out);
  await mkdir(join(out, 'allure-results'));
  const r = await runLoadCommand({ out, scenario: ['get-object', 'get-attr'], duration: 1, connections: 1, minRps: 1_000_000 });
  expect(r.exitCode).toBe(1);
  const files = await readdir(join(out, 'allure-results'));
  const results = await Promise.all(
    files.filter((f) => f.endsWith('-result.json')).map(async (f) => JSON.parse(await readFile(join(out, 'allure-results', f), 'utf8'))),
  );
  expect(results.map((x) => x.name).sort()).toEqual(['load: get-attr', 'load: get-object']);
  for (const x of results) {
    // A million requests a second over one connection cannot hold: the step and the test fail, saying why.
    expect(x.status).toBe('failed');
    expect(x.steps.some((s: { name: string; status: string }) => s.name.startsWith('rps >= 1000000') && s.status === 'failed')).toBe(true);
    for (const a of x.attachments) expect(existsSync(join(out, 'allure-results', a.source))).toBe(true);
  }
  expect(r.stdout).toMatch(/allure: {2}2 load test\(s\) added/);
});

test('without allure-results nothing is added', async () => {
  const r = await runLoadCommand({ scenario: ['get-attr'], duration: 1, connections: 1 });
  dirs.push(r.out);
  expect(existsSync(join(r.out, 'allure-results'))).toBe(false);
  expect(r.stdout).not.toMatch(/allure:/);
});
