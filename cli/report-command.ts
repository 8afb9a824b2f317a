/** `report`: renders a run's reports again (summary.html, summary.md, junit.xml, Allure), compared with a baseline. */
import { existsSync, statSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { renderAllureReport } from '../report/allure/html.js';
import { UsageError } from '../client/usage-error.js';
import { findBaseline } from '../report/baseline.js';
import { newlyFailing } from '../report/changes.js';
import { formatSummary, formatTrend } from '../report/console-summary.js';
import { reportContext, writeReports } from '../report/outputs.js';
import { printSummaryPdf } from '../report/pdf.js';
import { readResults, RESULTS_FILE } from '../report/results-json.js';
import { mergeCommand, type MergeFlags } from './merge-command.js';
import { DEFAULT_IN } from './command-options.js';
import { attestedReportsCurrent, describeAttestation, generateKeyPair, readSigningKey, signRun, verifyRun } from '../report/attestation.js';

export interface ReportFlags {
  in: string;
  previous?: string;
  /** The former name of --previous. */
  baseline?: string;
  html: boolean;
  pdf: boolean;
  /** Sign results.json, summary.html and junit.xml with this ed25519 private key (PEM). */
  sign?: string;
  /** Check this attestation (with --key) instead of rendering. */
  verify?: string;
  key?: string;
  /** Make a key pair PREFIX.key and PREFIX.pub, and do nothing else. */
  keygen?: string;
}

export async function reportCommand(flags: ReportFlags & MergeFlags): Promise<void> {
  checkCombination(flags);
  if (flags.keygen !== undefined) return keygen(flags.keygen);
  if (flags.verify !== undefined) return verifyAttestation(flags);
  if (flags.merge) return mergeCommand(flags);
  if (flags.out !== undefined) throw new UsageError("--out goes with --merge; a run's reports are rendered into its --in folder.");
  const dir = runFolder(flags.in);
  const results = await readResults(join(dir, RESULTS_FILE));
  // A key that is none is said before anything is rendered.
  const key = flags.sign === undefined ? undefined : await readSigningKey(flags.sign);
  const named = flags.previous ?? flags.baseline;
  const baseline = await findBaseline(dir, results, named === undefined ? undefined : resolve(named));
  // Signing alone need not render again what is already the rendering of this results.json.
  const render = key === undefined || named !== undefined || !attestedReportsCurrent(dir);
  // A password in the environment is blanked out of every output, should anything hold it.
  const ctx = await reportContext({ dir, results, baseline, secrets: [process.env.BMC_PASSWORD ?? ''] });
  if (render) await writeReports(ctx);
  for (const line of [...formatSummary(results, []), ...formatTrend(ctx.trend, results.interrupted !== undefined)])
    process.stdout.write(`${line}\n`);
  process.stdout.write(
    `summary: ${join(dir, 'summary.html')}${render ? '' : ' (already rendered from this results.json: signed as it is)'}\n`,
  );
  if (flags.html && render) await renderHtml(dir);
  if (flags.pdf) {
    const pdf = await printSummaryPdf(dir);
    if ('written' in pdf) process.stdout.write(`pdf: ${pdf.written}\n`);
    else process.stderr.write(`${pdf.skipped}\n`);
  }
  if (key !== undefined) process.stdout.write(`attestation: ${await signRun(dir, results, ctx.tool, key)}\n`);
  // Only a baseline the user named decides the exit code: the kept one is for reading.
  process.exitCode = ctx.trend?.explicit && newlyFailing(ctx.trend).length > 0 ? 1 : 0;
}

/** Flags that do nothing together: said, not silently dropped. */
function checkCombination(flags: ReportFlags & MergeFlags): void {
  if (flags.keygen !== undefined && (flags.sign ?? flags.verify ?? flags.key) !== undefined)
    throw new UsageError('--keygen only makes a key pair: sign or verify with it in a second report command.');
  if (flags.verify !== undefined && flags.sign !== undefined)
    throw new UsageError('--verify checks an attestation and --sign writes one: run them as two report commands.');
  if (flags.key !== undefined && flags.verify === undefined)
    throw new UsageError('--key goes with --verify ATTESTATION; to sign, give the private key to --sign.');
}

/** The --in folder: one sentence when it is missing or a file (a results.json named for its folder). */
function runFolder(path: string): string {
  const dir = resolve(path);
  if (!existsSync(dir)) throw new UsageError(`There is no folder ${dir}: --in takes the --out folder of a run (default ${DEFAULT_IN}).`);
  if (!statSync(dir).isDirectory())
    throw new UsageError(`${dir} is a file: --in takes a run's folder, the one that holds its results.json.`);
  return dir;
}

async function keygen(prefix: string): Promise<void> {
  const files = await generateKeyPair(prefix);
  process.stdout.write(`private key: ${files.privateKey} (keep it secret)\npublic key: ${files.publicKey} (hand it to whoever verifies)\n`);
}

/** Exit 0 when the attestation verifies and every file it names is unchanged; 1 naming what is not; 2 for a mistake. */
async function verifyAttestation(flags: ReportFlags): Promise<void> {
  if (flags.key === undefined) throw new UsageError('--verify needs --key PUBLIC_KEY_FILE (the .pub of report --keygen).');
  const dir = flags.in === DEFAULT_IN ? undefined : runFolder(flags.in);
  const outcome = await verifyRun(resolve(flags.verify!), resolve(flags.key), dir);
  if (outcome.valid) {
    for (const line of describeAttestation(outcome.statement)) process.stdout.write(`${line}\n`);
    process.exitCode = 0;
  } else {
    process.stdout.write(`altered: ${outcome.problem}\n`);
    process.exitCode = 1;
  }
}

export async function renderHtml(dir: string): Promise<void> {
  const index = await renderAllureReport(dir);
  process.stdout.write(`html: ${index}\n`);
  // Allure's page loads its data by fetch: opened as a file it shows "Failed to fetch".
  process.stdout.write(`  (Allure's page must be served: npx allure open ${dirname(index)})\n`);
}
