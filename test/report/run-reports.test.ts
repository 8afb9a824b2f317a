/**
 * Two short runs against the embedded simulator into one folder, the second with a fault that
 * makes RULE-4 FAIL: every output shows the failure with its evidence and the change since the
 * first run, none holds the password or the session cookie, and the pages open in Chromium
 * without a console error.
 */
import { subscribe, unsubscribe } from 'node:diagnostics_channel';
import { mkdir, readdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { XMLParser } from 'fast-xml-parser';
import { chromium, type Browser, type Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, test, vi } from 'vitest';
import { reportCommand } from '../../cli/report-command.js';
import { renderAllureReport } from '../../report/allure/html.js';
import { CHROMIUM_ARGS, findChromium } from '../../report/chromium.js';
import { printSummaryPdf } from '../../report/pdf.js';
import { packageRoot } from '../../client/package-root.js';
import type { Results } from '../../client/results.js';
import { runConformance } from '../../runner/run.js';
import { temporaryFolders } from './fixture.js';
import { serveDirectory, type StaticServer } from './static-server.js';
import { testRunOptions } from '../support/run-options.js';
import { hangAfter } from '../support/hang.js';

const PASSWORD = 'Rpt-Secret-4e7b1c';
const SCREENSHOTS = join(packageRoot(), 'reports', 'screenshots');
const folders = temporaryFolders();
/** Every session cookie value the simulator handed this process (the run's own session among them). */
const sessionCookies = new Set<string>();

function collectSessionCookies(message: unknown): void {
  const headers = (message as { response?: { headers?: Buffer[] } }).response?.headers ?? [];
  for (let i = 0; i + 1 < headers.length; i += 2) {
    if (headers[i]!.toString().toLowerCase() !== 'set-cookie') continue;
    const value = /^sid=([^;]+)/.exec(headers[i + 1]!.toString())?.[1];
    if (value) sessionCookies.add(value);
  }
}

async function run(dir: string, opts: { only: Array<'auth' | 'actions' | 'envelope'>; faults: string[] }): Promise<Results> {
  const { results } = await runConformance(
    testRunOptions(dir, {
      lean: false,
      password: PASSWORD,
      seed: 7,
      ...opts,
    }),
  );
  return results;
}

/** The Allure report's id of the failed test of a requirement. */
async function failedTestUid(id: string): Promise<string> {
  const cases = join(dir, 'allure-report', 'data', 'test-cases');
  for (const name of await readdir(cases)) {
    const tc = JSON.parse(await readFile(join(cases, name), 'utf8')) as { uid: string; name: string; status: string };
    if (tc.status === 'failed' && tc.name.startsWith(`[${id}]`)) return tc.uid;
  }
  throw new Error(`no failed test of ${id} in the Allure report`);
}

async function filesUnder(dir: string): Promise<string[]> {
  const entries = await readdir(dir, { recursive: true, withFileTypes: true });
  return entries.filter((e) => e.isFile()).map((e) => join(e.parentPath, e.name));
}

let dir: string;
let results: Results;

beforeAll(async () => {
  // These runs are the project's tests, not a conformance run a CI job page should show.
  vi.stubEnv('GITHUB_STEP_SUMMARY', '');
  subscribe('undici:request:headers', collectSessionCookies);
  dir = await folders.make('bmc-reports-');
  // The same selection twice: a baseline of another selection is not compared.
  await run(dir, { only: ['auth', 'actions', 'envelope'], faults: [] });
  // Rendered after each run, as `run --html` does: the second report carries the first one's history.
  await renderAllureReport(dir);
  results = await run(dir, { only: ['auth', 'actions', 'envelope'], faults: ['post-create-405'] });
  await renderAllureReport(dir);
  if (findChromium()) await printSummaryPdf(dir);
}, hangAfter(180_000));

afterAll(async () => {
  vi.unstubAllEnvs();
  unsubscribe('undici:request:headers', collectSessionCookies);
  await folders.removeAll();
});

describe('a failing requirement in every output', () => {
  test('results.json: FAIL with the reason and the redacted exchange', async () => {
    const json = JSON.parse(await readFile(join(dir, 'results.json'), 'utf8')) as Results;
    const rule4 = json.requirements.find((r) => r.id === 'RULE-4')!;
    expect(rule4).toMatchObject({ verdict: 'FAIL', reason: expect.stringMatching(/expected 403 Forbidden, got 405/) });
    expect(rule4.tests[0]!.evidence!.at(-1)).toMatchObject({ method: 'POST', status: 405, requestHeaders: { cookie: 'sid=<redacted>' } });
    expect(json.summary.FAIL).toBe(1);
    // The file holds what the run returned.
    expect(json.requirements.map((r) => [r.id, r.verdict])).toEqual(results.requirements.map((r) => [r.id, r.verdict]));
  });

  test('junit.xml: a failure of the test case "RULE-4 <title>", its reason the message, with the change since the first run', async () => {
    const xml = await readFile(join(dir, 'junit.xml'), 'utf8');
    const doc = new XMLParser({
      ignoreAttributes: false,
      attributeNamePrefix: '@',
      isArray: (n) => ['testsuite', 'testcase', 'property'].includes(n),
    }).parse(xml);
    const cases = doc.testsuites.testsuite.flatMap((s: { testcase: unknown[] }) => s.testcase) as Array<{
      '@name': string;
      failure?: { '@message': string; '#text': string };
      properties: { property: Array<{ '@name': string; '@value': string }> };
    }>;
    const rule4 = cases.find((c) => c['@name'].startsWith('RULE-4 A POST that would create'))!;
    expect(rule4.failure?.['@message']).toMatch(/expected 403 Forbidden, got 405/);
    expect(rule4.failure?.['#text']).toContain('HTTP 405 Method Not Allowed');
    expect(rule4.properties.property).toContainEqual({ '@name': 'change', '@value': 'newly failing: PASS before, FAIL now' });
    expect(cases.filter((c) => c.failure)).toHaveLength(1);
  });

  test('Allure: failed (not broken), critical, labelled, linked to its catalogue entry, each request a step with its request and response as one text', async () => {
    const names = await readdir(join(dir, 'allure-results'));
    const all = await Promise.all(
      names.filter((n) => n.endsWith('-result.json')).map(async (n) => JSON.parse(await readFile(join(dir, 'allure-results', n), 'utf8'))),
    );
    const rule4 = all.find(
      (r) =>
        r.labels.some((l: { name: string; value: string }) => l.name === 'requirement' && l.value === 'RULE-4') && r.status !== 'passed',
    );
    expect(rule4.status).toBe('failed');
    expect(all.filter((r) => r.status === 'broken')).toEqual([]);
    expect(rule4.labels).toEqual(
      expect.arrayContaining([
        { name: 'severity', value: 'critical' },
        { name: 'area', value: 'actions' },
        { name: 'profile', value: 'destructive' },
      ]),
    );
    expect(rule4.links).toContainEqual({ url: 'catalogue.html#RULE-4', name: 'RULE-4 in the catalogue', type: 'tms' });
    expect(await readFile(join(dir, 'allure-report', 'catalogue.html'), 'utf8')).toMatch(
      /<tr id="RULE-4"><td class="id">RULE-4<\/td><td>MUST<\/td><td>A POST that would create/,
    );
    const step = rule4.steps.find((s: { name: string }) => s.name.startsWith('POST /xyz/mgmt_project/'));
    expect(step.name).toMatch(/→ 405 Method Not Allowed$/);
    const attachments = step.steps.flatMap((s: { attachments: unknown[] }) => s.attachments).concat(step.attachments) as Array<{
      name: string;
      source: string;
      type: string;
    }>;
    const text = async (name: string) => readFile(join(dir, 'allure-results', attachments.find((a) => a.name === name)!.source), 'utf8');
    expect(attachments.map((a) => a.type)).toEqual(['text/plain']);
    expect(await text('exchange')).toMatch(
      /^POST \/xyz\/mgmt_project\/\S+\n[\s\S]*cookie: sid=<redacted>[\s\S]*\n\nHTTP 405 Method Not Allowed/,
    );
    const env = await readFile(join(dir, 'allure-results', 'environment.properties'), 'utf8');
    expect(env).toMatch(/^Profile=destructive$/m);
    const trend = JSON.parse(await readFile(join(dir, 'allure-report', 'history', 'history-trend.json'), 'utf8')) as Array<{
      buildOrder: number;
      data: { failed: number };
    }>;
    // post-create-405 fails both RULE-4 tests: paths that do not exist, and existing objects and their routes.
    expect(trend.map((t) => [t.buildOrder, t.data.failed])).toEqual([
      [2, 2],
      [1, 0],
    ]);
  });

  test('summary.html and summary.md: the FAIL with its reason, newly failing since the first run', async () => {
    const page = await readFile(join(dir, 'summary.html'), 'utf8');
    expect(page).toMatch(/<tr id="RULE-4" class="row-FAIL">[\s\S]*?expected 403 Forbidden, got 405[\s\S]*?href="#evidence-RULE-4"/);
    expect(page).toContain('<li><a href="#RULE-4">RULE-4</a>: PASS → <span class="badge v-FAIL">FAIL</span></li>');
    const md = await readFile(join(dir, 'summary.md'), 'utf8');
    expect(md).toMatch(/^\| RULE-4 \| MUST {2}\| POST \/xyz\/mgmt\\_project\/.*expected 403 Forbidden, got 405/m);
    expect(md).toContain('- **Newly failing**: RULE-4 (PASS → FAIL)');
    // Only the fault moved a verdict.
    expect(md).not.toContain('Newly passing');
  });

  test('report: a newly failing requirement against a named earlier run exits 1; against the kept one it only lists it', async () => {
    const exitCode = process.exitCode;
    const printed: string[] = [];
    const stdout = vi.spyOn(process.stdout, 'write').mockImplementation((chunk) => printed.push(String(chunk)) > 0);
    try {
      await reportCommand({ in: dir, previous: join(dir, 'previous', 'results.json'), html: false, pdf: false });
      expect(process.exitCode).toBe(1);
      expect(printed).toContain('  RULE-4   PASS -> FAIL  (newly failing)\n');
      await reportCommand({ in: dir, html: false, pdf: false });
      expect(process.exitCode).toBe(0);
    } finally {
      stdout.mockRestore();
      process.exitCode = exitCode;
    }
  });
});

describe('redaction everywhere', () => {
  test('neither the password nor a session cookie value is in any file under the output folder', async () => {
    expect(sessionCookies.size).toBeGreaterThan(0);
    const files = await filesUnder(dir);
    expect(files.length).toBeGreaterThan(50);
    for (const file of files) {
      const text = (await readFile(file)).toString('latin1');
      expect(text.includes(PASSWORD), `${file} holds the password`).toBe(false);
      for (const cookie of sessionCookies) expect(text.includes(cookie), `${file} holds a session cookie`).toBe(false);
      expect(/sid=[0-9a-f]{16}/.test(text), `${file} holds a session cookie`).toBe(false);
    }
  });
});

const chromiumPath = findChromium();
// CI installs Chromium (.ci/run); elsewhere the page tests wait for it rather than fail.
describe.skipIf(!chromiumPath && !process.env.CI)('the pages in headless Chromium', () => {
  let browser: Browser;
  let server: StaticServer;

  beforeAll(async () => {
    if (!chromiumPath) throw new Error('Chromium is not installed: .ci/run installs Debian\u2019s chromium package.');
    await mkdir(SCREENSHOTS, { recursive: true });
    server = await serveDirectory(dir);
    browser = await chromium.launch({ executablePath: chromiumPath, args: CHROMIUM_ARGS.filter((a) => a !== '--headless') });
  }, hangAfter(60_000));

  afterAll(async () => {
    await browser?.close();
    await server?.close();
  });

  async function open(path: string, height = 1000): Promise<{ page: Page; errors: string[] }> {
    const page = await browser.newPage({ viewport: { width: 1400, height } });
    const errors: string[] = [];
    page.on('console', (m) => void (m.type() === 'error' && errors.push(m.text())));
    page.on('pageerror', (e) => void errors.push(String(e)));
    await page.goto(`${server.url}/${path}`, { waitUntil: 'networkidle' });
    return { page, errors };
  }

  test(
    'summary.html: the verdict table, no console error',
    async () => {
      const { page, errors } = await open('summary.html');
      const table = page.locator('#requirements');
      await expect.poll(() => table.locator('tr#RULE-4 .badge').innerText()).toBe('FAIL');
      await page.locator('#counts').screenshot({ path: join(SCREENSHOTS, 'summary-verdicts.png') });
      // The table is long: its head, and the rows around the failing requirement.
      const top = (await table.boundingBox())!;
      await page.screenshot({
        path: join(SCREENSHOTS, 'summary-requirements.png'),
        fullPage: true,
        clip: { ...top, height: Math.min(top.height, 1200) },
      });
      const row = (await table.locator('tr#RULE-4').boundingBox())!;
      await page.screenshot({
        path: join(SCREENSHOTS, 'summary-requirements-RULE-4.png'),
        fullPage: true,
        clip: { x: top.x, y: row.y - 250, width: top.width, height: row.height + 500 },
      });
      await page.locator('#evidence-RULE-4').screenshot({ path: join(SCREENSHOTS, 'summary-evidence-RULE-4.png') });
      expect(errors).toEqual([]);
      await page.close();
    },
    hangAfter(60_000),
  );

  test(
    'Allure: the failing test\u2019s step shows its request and response, no console error',
    async () => {
      // Tall enough for the whole test pane, which scrolls inside the page.
      const { page, errors } = await open(`allure-report/index.html#testresult/${await failedTestUid('RULE-4')}`, 1700);
      const step = page.locator('.step__title:visible', { hasText: '→ 405 Method Not Allowed' }).last();
      await step.click();
      await page.locator('.attachment-row:visible', { hasText: 'exchange' }).last().click();
      await expect
        .poll(() => page.locator('.test-result').innerText())
        .toMatch(/POST [\s\S]*HTTP 405 Method Not Allowed[\s\S]*"status": "error"/);
      await page.locator('.test-result').screenshot({ path: join(SCREENSHOTS, 'allure-failing-test-steps.png') });
      const link = page.locator('.test-result a', { hasText: 'RULE-4 in the catalogue' });
      expect(await link.getAttribute('href')).toBe('catalogue.html#RULE-4');
      const catalogue = await open('allure-report/catalogue.html#RULE-4');
      expect(await catalogue.page.locator('tr#RULE-4').innerText()).toMatch(/^RULE-4\tMUST\tA POST that would create/);
      await catalogue.page.close();
      errors.push(...catalogue.errors);
      const overview = await open('allure-report/index.html');
      await expect.poll(() => overview.page.locator('.widget', { hasText: 'Categories' }).innerText()).toContain('Conformance failures');
      await overview.page.screenshot({ path: join(SCREENSHOTS, 'allure-overview.png') });
      expect([...errors, ...overview.errors]).toEqual([]);
      await page.close();
      await overview.page.close();
    },
    hangAfter(60_000),
  );

  test('report --pdf printed summary.html (before the redaction check read it)', async () => {
    expect((await readFile(join(dir, 'summary.pdf'))).subarray(0, 5).toString()).toBe('%PDF-');
  });
});
