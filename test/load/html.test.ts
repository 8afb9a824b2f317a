/**
 * load.html stands alone (nothing fetched at view time) and, in headless Chromium when the machine
 * has it, draws its charts without a console error.
 */
import { existsSync } from 'node:fs';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { chromium } from 'playwright-core';
import { beforeAll, expect, test } from 'vitest';
import { runLoadCommand, type LoadRun } from './helpers.js';

const CHROMIUM = '/usr/bin/chromium';
let run: LoadRun;
let html: string;

beforeAll(async () => {
  // A ramp gives the step chart, events the delivery chart, read-mix and write-mix the rest.
  run = await runLoadCommand({ scenario: ['get-object', 'events'], ramp: { from: 20, to: 60, steps: 2 }, duration: 2, subscribers: 3 });
  html = await readFile(join(run.out, 'load.html'), 'utf8');
});

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
    expect(problems).toEqual([]);
    expect(requests.filter((u) => !u.startsWith('file:'))).toEqual([]);
  } finally {
    await browser.close();
    await rm(profile, { recursive: true, force: true });
  }
});
