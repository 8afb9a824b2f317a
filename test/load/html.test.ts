/**
 * load.html stands alone (nothing fetched at view time); every table has a header over each
 * column and no column left empty; it speaks of thresholds met only when some were given; every
 * chart names its series; and in headless Chromium, when the machine has it, it draws its charts
 * without a console error, with legends that name their series rather than show "--".
 */
import { existsSync } from 'node:fs';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { XMLParser } from 'fast-xml-parser';
import { chromium } from 'playwright-core';
import { beforeAll, describe, expect, test } from 'vitest';
import type { LoadDocument } from '../../load/load-document.js';
import { renderLoadHtml } from '../../load/report/html.js';
import { PAGE_SCRIPT } from '../../load/report/page-script.js';
import type { ThresholdResult } from '../../load/thresholds.js';
import { runLoadCommand, type LoadRun } from './helpers.js';

const CHROMIUM = '/usr/bin/chromium';
let run: LoadRun;
let html: string;

beforeAll(async () => {
  // A ramp gives the step chart, events the delivery chart, read-mix and write-mix the rest.
  run = await runLoadCommand({ scenario: ['get-object', 'events'], ramp: { from: 20, to: 60, steps: 2 }, duration: 2, subscribers: 3 });
  html = await readFile(join(run.out, 'load.html'), 'utf8');
});

interface Table {
  head: string[];
  rows: string[][];
}

type Node = Record<string, unknown>;

function text(nodes: Node[]): string {
  return nodes
    .map((n) => (typeof n['#text'] === 'string' || typeof n['#text'] === 'number' ? String(n['#text']) : text(childrenOf(n))))
    .join(' ')
    .trim();
}

function childrenOf(n: Node): Node[] {
  const key = Object.keys(n).find((k) => k !== ':@' && k !== '#text');
  return key ? (n[key] as Node[]) : [];
}

function find(nodes: Node[], tag: string): Node[] {
  return nodes.flatMap((n) => [...(tag in n ? [n] : []), ...find(childrenOf(n), tag)]);
}

/** Every <table> of the page, parsed: header cells and row cells as text. */
function tablesOf(page: string): Table[] {
  const parser = new XMLParser({ preserveOrder: true, htmlEntities: true, ignoreAttributes: false });
  return [...page.matchAll(/<table[^>]*>.*?<\/table>/gs)].map((m) => {
    const tree = parser.parse(m[0]) as Node[];
    const head = find(tree, 'th').map((th) => text(th.th as Node[]));
    const rows = find(find(tree, 'tbody'), 'tr').map((tr) => find(tr.tr as Node[], 'td').map((td) => text(td.td as Node[])));
    return { head, rows };
  });
}

/** The table that follows a section heading. */
function tableUnder(page: string, heading: string): Table {
  const at = page.indexOf(`<h2>${heading}</h2>`);
  expect(at, `a section "${heading}"`).toBeGreaterThanOrEqual(0);
  return tablesOf(page.slice(at))[0]!;
}

function expectEveryColumnHeadedAndFilled(t: Table, what: string): void {
  for (const row of t.rows) expect(row, what).toHaveLength(t.head.length);
  t.head.forEach((h, i) => {
    expect(h, `${what}: header of column ${i + 1}`).not.toBe('');
    expect(
      t.rows.some((r) => r[i] !== ''),
      `${what}: column "${h}" is empty in every row`,
    ).toBe(true);
  });
}

/** The run's document with thresholds given: one of each kind (met, missed, not evaluated). */
function withThresholds(notes: boolean): LoadDocument {
  const given: ThresholdResult[] = [
    { scope: 'get-object', scenario: 'get-object', rule: 'p99 < 250ms', actual: 12.5, pass: true },
    { scope: 'get-object', scenario: 'get-object', rule: 'rps >= 100000', actual: 40, pass: false },
    ...(notes ? [{ scope: 'list', scenario: 'list', rule: 'p99 < 1s', pass: true, note: 'scenario not run: not evaluated' }] : []),
  ];
  return { ...run.doc, thresholds: given, verdict: 'fail', failures: ['get-object: rps >= 100000 missed (actual 40)'] };
}

test('load.html is self-contained and carries the run', () => {
  expect(run.exitCode, run.stdout).toBe(0);
  // No external script, stylesheet or image: every src/href is absent or inline.
  expect(html).not.toMatch(/<(script|link|img)[^>]+(src|href)=/i);
  expect(html).not.toMatch(/https?:\/\/(?!127\.0\.0\.1)[^\s"'<]+\.(js|css)/);
  expect(html).toContain('uPlot');
  const data = /<script id="load-data" type="application\/json">(.*?)<\/script>/s.exec(html)![1]!;
  const doc = JSON.parse(data) as { results: { scenario: string; steps?: unknown[] }[] };
  expect(doc.results.map((r) => r.scenario)).toEqual(['get-object', 'events']);
  expect(doc.results[0]!.steps).toHaveLength(2);
  expect(html).not.toMatch(/sid=[0-9a-f]{16}/);
  expect(html).not.toContain('0penBmc');
});

test.skipIf(!existsSync(CHROMIUM))('headless Chromium draws every chart and logs no console error', async () => {
  const profile = await mkdtemp(join(tmpdir(), 'bmc-chromium-'));
  const browser = await chromium.launchPersistentContext(profile, {
    executablePath: CHROMIUM,
    headless: true,
    args: [
      '--no-sandbox',
      '--disable-gpu',
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-sync',
      '--no-first-run',
    ],
    viewport: { width: 1400, height: 2000 },
  });
  try {
    const page = await browser.newPage();
    const problems: string[] = [];
    page.on('console', (m) => {
      if (m.type() === 'error' || m.type() === 'warning') problems.push(`${m.type()}: ${m.text()}`);
    });
    page.on('pageerror', (e) => problems.push(`pageerror: ${e.message}`));
    const requests: string[] = [];
    page.on('request', (r) => requests.push(r.url()));
    await page.goto(pathToFileURL(join(run.out, 'load.html')).href);
    await page.waitForSelector('.uplot canvas');
    // Percentiles, throughput, latency over time, the ramp's steps and the event delivery.
    expect(await page.locator('.uplot').count()).toBe(5);
    // At rest each legend names its series, with no "--" where a value would be.
    const legends = await page
      .locator('.u-legend')
      .evaluateAll((ls) =>
        ls.map((l) =>
          [...l.querySelectorAll('.u-series')]
            .filter((s) => (s as HTMLElement).offsetParent !== null)
            .map((s) => (s as HTMLElement).innerText.trim()),
        ),
      );
    expect(legends).toHaveLength(5);
    for (const names of legends) {
      expect(names.length).toBeGreaterThan(0);
      for (const name of names) expect(name).not.toMatch(/--|^$/);
    }
    expect(legends).toContainEqual(['offered requests/s', 'p99 ms']);
    // Over the chart the values come back.
    const steps = page.locator('#chart-steps-0 .u-over');
    await steps.scrollIntoViewIfNeeded();
    const box = (await steps.boundingBox())!;
    await page.mouse.move(box.x + box.width / 2, box.y + box.height / 2);
    await expect.poll(() => page.locator('#chart-steps-0 .u-legend .u-value').first().isVisible()).toBe(true);
    expect(problems).toEqual([]);
    expect(requests.filter((u) => !u.startsWith('file:'))).toEqual([]);
  } finally {
    await browser.close();
    await rm(profile, { recursive: true, force: true });
  }
});

describe('tables and verdict', () => {
  test('every table of the page has a header over each column and no column empty in every row', () => {
    const tables = tablesOf(html).filter((t) => t.head.length > 0);
    expect(tables.length).toBeGreaterThanOrEqual(3);
    tables.forEach((t, i) => expectEveryColumnHeadedAndFilled(t, `table ${i + 1} (${t.head.join(', ')})`));
  });

  test('without thresholds the page says so and counts no threshold met', () => {
    expect(run.doc.thresholds.every((t) => t.scope === '(default)')).toBe(true);
    expect(html).not.toMatch(/threshold\(s\) met/);
    expect(html).not.toContain('<h2>Thresholds</h2>');
    expect(html).toContain('No thresholds given');
    expect(tableUnder(html, 'Failed requests').head).toEqual(['scenario', 'rule', 'actual', 'result']);
    expect(run.stdout).toMatch(/^PASS: no request failed \(no thresholds given\)$/m);
    expect(run.stdout).not.toMatch(/threshold\(s\) met/);
  });

  test('the threshold table: a result column with its header, a note column only when a row has a note', async () => {
    const plain = tableUnder(await renderLoadHtml(withThresholds(false)), 'Thresholds');
    expect(plain.head).toEqual(['scenario', 'rule', 'actual', 'result']);
    expect(plain.rows.map((r) => r[3])).toEqual(['pass', 'MISS']);
    expectEveryColumnHeadedAndFilled(plain, 'thresholds without notes');
    const noted = tableUnder(await renderLoadHtml(withThresholds(true)), 'Thresholds');
    expect(noted.head).toEqual(['scenario', 'rule', 'actual', 'note', 'result']);
    expect(noted.rows[2]).toEqual(['list', 'p99 < 1s', '', 'scenario not run: not evaluated', 'not evaluated']);
  });
});

test('every chart of the page script names every series it draws', () => {
  const charts: { id: string; series: { label?: unknown }[]; hooks?: unknown }[] = [];
  const nodes = new Map<string, { clientWidth: number }>();
  const document = {
    getElementById: (id: string) =>
      id === 'load-data' ? { textContent: JSON.stringify(run.doc) } : (nodes.get(id) ?? nodes.set(id, { clientWidth: 900 }).get(id)),
  };
  function uPlot(this: { root: { classList: { add(): void; toggle(): void } } }, opts: { title: string; series: { label?: unknown }[] }) {
    charts.push({ id: opts.title, series: opts.series, hooks: (opts as { hooks?: unknown }).hooks });
    this.root = { classList: { add: () => undefined, toggle: () => undefined } };
  }
  uPlot.join = (tables: unknown[][]) => tables[0];
  new Function('document', 'uPlot', PAGE_SCRIPT)(document, uPlot);
  // Percentiles, throughput, latency over time, the ramp's steps and the event delivery.
  expect(charts).toHaveLength(5);
  for (const c of charts) {
    for (const s of c.series) expect(typeof s.label === 'string' && s.label.trim() !== '', `${c.id}: a series without a name`).toBe(true);
    expect(c.hooks, `${c.id}: legend at rest`).toBeDefined();
  }
  const ramp = charts.find((c) => c.id.startsWith('Ramp'))!;
  expect(ramp.series.map((s) => s.label)).toEqual(['step', 'offered requests/s', 'p99 ms']);
});
