/**
 * When the output directory holds Allure results (a `run` wrote them there), the load run joins
 * them: one Allure test per scenario, failed when one of its thresholds was missed, with load.json
 * and load.html attached, so the conformance report and the load figures are read in one place.
 */
import { randomUUID } from 'node:crypto';
import { existsSync } from 'node:fs';
import { copyFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { LoadDocument } from './load-document.js';
import { describeMiss } from './thresholds.js';

/** Writes the results; returns how many tests were added (0 when there is no allure-results directory). */
export async function attachToAllure(outDir: string, doc: LoadDocument, files: { json: string; html: string }): Promise<number> {
  const dir = join(outDir, 'allure-results');
  if (!existsSync(dir)) return 0;
  const stamp = randomUUID();
  const json = `${stamp}-load-attachment.json`;
  const html = `${stamp}-load-attachment.html`;
  await Promise.all([copyFile(files.json, join(dir, json)), copyFile(files.html, join(dir, html))]);
  const start = Date.parse(doc.startedAt);
  const stop = start + Math.round(doc.durationS * 1000);
  for (const r of doc.results) {
    const mine = doc.thresholds.filter((t) => t.scenario === r.scenario);
    const misses = mine.filter((t) => !t.pass);
    const l = r.latency;
    const result = {
      uuid: randomUUID(),
      historyId: `load:${r.scenario}`,
      name: `load: ${r.scenario}`,
      fullName: `load:${r.scenario}`,
      status: misses.length > 0 ? 'failed' : 'passed',
      statusDetails: misses.length > 0 ? { message: misses.map(describeMiss).join('\n') } : {},
      stage: 'finished',
      description: `${r.description}. ${r.requests} requests, ${r.requestsPerSecond.toFixed(1)} req/s, p50 ${l.p50} ms, p99 ${l.p99} ms, p99.9 ${l.p999} ms, max ${l.max} ms, ${r.failed} failed.`,
      start,
      stop,
      labels: [
        { name: 'parentSuite', value: 'load' },
        { name: 'suite', value: r.scenario },
        { name: 'feature', value: 'load' },
      ],
      links: [],
      parameters: [
        { name: 'target', value: doc.target },
        { name: 'mode', value: r.mode },
      ],
      steps: mine.map((t) => ({
        name: `${t.rule}${t.actual === undefined ? '' : ` (actual ${t.actual})`}`,
        status: !t.pass ? 'failed' : t.note ? 'skipped' : 'passed',
        statusDetails: t.note ? { message: t.note } : {},
        stage: 'finished',
        steps: [],
        attachments: [],
        parameters: [],
        start,
        stop,
      })),
      attachments: [
        { name: 'load.json', type: 'application/json', source: json },
        { name: 'load.html', type: 'text/html', source: html },
      ],
    };
    await writeFile(join(dir, `${result.uuid}-result.json`), JSON.stringify(result));
  }
  return doc.results.length;
}
