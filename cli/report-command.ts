/** `report`: renders a run's reports again (summary.html, summary.md, junit.xml, Allure), compared with a baseline. */
import { dirname, join, resolve } from 'node:path';
import { renderAllureReport } from '../report/allure-html.js';
import { UsageError } from '../runner/usage-error.js';
import { findBaseline } from '../report/baseline.js';
import { newlyFailing } from '../report/changes.js';
import { formatSummary, formatTrend } from '../report/console-summary.js';
import { reportContext, writeReports } from '../report/outputs.js';
import { printSummaryPdf } from '../report/pdf.js';
import { readResults, RESULTS_FILE } from '../report/results-json.js';
import { mergeCommand, type MergeFlags } from './merge-command.js';

export interface ReportFlags {
  in: string;
  previous?: string;
  /** The former name of --previous. */
  baseline?: string;
  html: boolean;
  pdf: boolean;
}

export async function reportCommand(flags: ReportFlags & MergeFlags): Promise<void> {
  if (flags.merge) return mergeCommand(flags);
  if (flags.out !== undefined) throw new UsageError("--out goes with --merge; a run's reports are rendered into its --in folder.");
  const dir = resolve(flags.in);
  const results = await readResults(join(dir, RESULTS_FILE));
  const named = flags.previous ?? flags.baseline;
  const baseline = await findBaseline(dir, results, named === undefined ? undefined : resolve(named));
  // A password in the environment is blanked out of every output, should anything hold it.
  const ctx = await reportContext({ dir, results, baseline, secrets: [process.env.BMC_PASSWORD ?? ''] });
  await writeReports(ctx);
  for (const line of [...formatSummary(results, []), ...formatTrend(ctx.trend)]) process.stdout.write(`${line}\n`);
  process.stdout.write(`summary: ${join(dir, 'summary.html')}\n`);
  if (flags.html) await renderHtml(dir);
  if (flags.pdf) {
    const pdf = await printSummaryPdf(dir);
    if ('written' in pdf) process.stdout.write(`pdf: ${pdf.written}\n`);
    else process.stderr.write(`${pdf.skipped}\n`);
  }
  // Only a baseline the user named decides the exit code: the kept one is for reading.
  process.exitCode = ctx.trend?.explicit && newlyFailing(ctx.trend).length > 0 ? 1 : 0;
}

export async function renderHtml(dir: string): Promise<void> {
  const index = await renderAllureReport(dir);
  process.stdout.write(`html: ${index}\n`);
  // Allure's page loads its data by fetch: opened as a file it shows "Failed to fetch".
  process.stdout.write(`  (Allure's page must be served: npx allure open ${dirname(index)})\n`);
}
