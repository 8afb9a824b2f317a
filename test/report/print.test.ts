/**
 * summary.html on paper (summary.pdf, or the page printed): every annex figure open, the replay
 * lines of every test that did not pass, and evidence beyond PRINTED counted with the file that
 * holds it. The markup is checked as text; where Debian's Chromium is installed, the page is laid
 * out for print as report --pdf prints it, and what paper shows is read back.
 */
import { existsSync } from 'node:fs';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { chromium } from 'playwright-core';
import { afterAll, describe, expect, test } from 'vitest';
import type { Exchange } from '../../client/evidence.js';
import { replayLine } from '../../client/timeline.js';
import { CHROMIUM_ARGS } from '../../report/chromium.js';
import { printCopy } from '../../report/pdf.js';
import { PRINTED, summaryPage } from '../../report/summary/html.js';
import { displayTarget } from '../../report/target.js';
import { context, EXCHANGE, resultsWith, temporaryFolders } from './fixture.js';

const CHROMIUM = '/usr/bin/chromium';
const folders = temporaryFolders();
afterAll(() => folders.removeAll());

const at = (ms: number): string => new Date(Date.UTC(2026, 0, 2, 3, 4, 5) + ms).toISOString();
const read = (n: number): Exchange => ({
  ...EXCHANGE,
  at: at(n * 10),
  method: 'GET',
  url: `/xyz/mgmt_project/object${n}`,
  requestBody: undefined,
});
const subscription: Exchange = {
  ...EXCHANGE,
  at: at(0),
  method: 'GET',
  url: '/subscribe',
  requestHeaders: { upgrade: 'websocket', cookie: 'sid=<redacted>' },
  requestBody: '{"paths":["/xyz/mgmt_project/inventory/system"]}',
  status: 101,
  statusLine: '101 Switching Protocols',
};
const writes = Array.from({ length: 10 }, (_, i) => ({
  ...EXCHANGE,
  at: at(100 + i * 10),
  method: 'PUT',
  url: '/xyz/mgmt_project/inventory/system/attr/AssetTag',
  requestBody: `{"data":"tag-${i}"}`,
}));
const deleted: Exchange = { ...EXCHANGE, method: 'DELETE', url: '/xyz/mgmt_project/inventory/system', requestBody: undefined, status: 404 };
/** Twelve exchanges: more than summary.html shows (5) and than paper prints. */
const twelve = Array.from({ length: 12 }, (_, i) => read(i));
const events = [subscription, ...writes];

const results = resultsWith({
  'RULE-4': { verdict: 'FAIL', reason: 'expected 403 Forbidden, got 405', evidence: twelve },
  'RULE-5': { verdict: 'FAIL', reason: 'expected 403, got 404', evidence: [deleted] },
  // The events tests share one measurement: the same evidence under two requirements.
  'EV-1': { verdict: 'FAIL', reason: 'the target closed {}', evidence: events },
  'EV-4': { verdict: 'FAIL', reason: 'an event of another path', evidence: events },
});
const page = summaryPage(context(results));
const target = displayTarget(results.target);
const article = (html: string, id: string): string => {
  const from = html.indexOf(`<article id="evidence-${id}"`);
  return html.slice(from, html.indexOf('</article>', from));
};

describe('the markup', () => {
  test('report --pdf prints a copy with every <details> open and links resolved against the run folder', () => {
    const copy = printCopy(page, '/runs/latest');
    expect(page).toMatch(/<details class="replay">/);
    expect(copy).not.toMatch(/<details(?! open)/);
    expect(copy.match(/<details open/g)).toHaveLength(page.match(/<details/g)!.length);
    expect(copy).toContain('<head><base href="file:///runs/latest/">');
  });

  test('a test beyond the bound: its last exchange printed, the others counted and named with their files', () => {
    const rule4 = article(page, 'RULE-4');
    expect(rule4).toContain(`Printed: the last of its 12 exchanges; summary.html shows the last 5, results.json all 12.`);
    expect(rule4.match(/<div class="exchange no-print">/g)).toHaveLength(5 - PRINTED.exchanges);
    expect(rule4.match(/<div class="exchange">/g)).toHaveLength(PRINTED.exchanges);
    // Every replay line stays in the page; paper leaves the earliest out and says how many.
    for (const x of twelve) expect(rule4).toContain(escaped(replayLine(x, target)));
    expect(rule4).toContain(
      `# … ${12 - PRINTED.replayRequests} earlier requests left out here: the replay in summary.html holds every line`,
    );
  });

  test('evidence printed under one requirement is named under the next, not printed twice', () => {
    expect(article(page, 'EV-4')).toContain('Not printed again: the same 11 exchanges as under EV-1 above.');
    expect(article(page, 'EV-1')).not.toContain('Not printed again');
  });

  test('requirements that passed are counted for paper, not listed', () => {
    const passed = results.requirements.filter((r) => r.verdict === 'PASS');
    expect(page).toContain(
      `Not printed: the ${passed.length} requirements that passed, with their ${passed.length} tests; summary.html lists them.`,
    );
    expect(page).toContain(`<article id="evidence-${passed[0]!.id}" class="evidence no-print">`);
    expect(page).toContain('<article id="evidence-RULE-4" class="evidence">');
  });
});

describe.skipIf(!existsSync(CHROMIUM))('on paper, as Chromium lays it out', () => {
  /** The annex's text as print shows it, for the page as written and for report --pdf's copy. */
  async function printedAnnex(): Promise<{ written: string; copy: string; screen: string }> {
    const dir = await mkdtemp(join(tmpdir(), 'bmc-print-'));
    const profile = await folders.make('bmc-chromium-');
    const browser = await chromium.launchPersistentContext(profile, {
      executablePath: CHROMIUM,
      headless: true,
      args: CHROMIUM_ARGS.filter((a) => a !== '--headless'),
    });
    try {
      await writeFile(join(dir, 'summary.html'), page);
      await writeFile(join(dir, 'copy.html'), printCopy(page, dir));
      const tab = await browser.newPage();
      const annex = async (file: string, media: 'print' | 'screen'): Promise<string> => {
        await tab.emulateMedia({ media });
        await tab.goto(pathToFileURL(join(dir, file)).href);
        return tab.locator('#evidence').innerText();
      };
      return {
        written: await annex('summary.html', 'print'),
        copy: await annex('copy.html', 'print'),
        screen: await annex('summary.html', 'screen'),
      };
    } finally {
      await browser.close();
      await rm(dir, { recursive: true, force: true });
    }
  }

  test('every failing test shows its replay lines; what is cut is counted; passes and repeats are not printed', async () => {
    const { written, copy, screen } = await printedAnnex();
    for (const text of [written, copy]) {
      // The replay of each failing test: its last request, and the subscription of the events tests.
      expect(text).toContain(replayLine(deleted, target));
      expect(text).toContain(replayLine(twelve.at(-1)!, target));
      expect(text).toContain(replayLine(subscription, target));
      expect(text).toContain(replayLine(writes.at(-1)!, target));
      // Beyond the bound: counted, not shown.
      expect(text).not.toContain(replayLine(twelve[0]!, target));
      expect(text).toContain(`# … ${12 - PRINTED.replayRequests} earlier requests left out here`);
      expect(text).toContain('Printed: the last of its 12 exchanges; summary.html shows the last 5, results.json all 12.');
      expect(text).toContain('Not printed again: the same 11 exchanges as under EV-1 above.');
      expect(text).not.toContain('[EP-1] test of EP-1');
    }
    // On screen the figures stay folded and nothing of paper's notes shows.
    expect(screen).not.toContain(replayLine(deleted, target));
    expect(screen).not.toContain('Not printed');
    expect(screen).toContain('[EP-1] test of EP-1');
  });
});

function escaped(text: string): string {
  return text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;').replace(/'/g, '&#39;');
}
