/**
 * Every output of a run, each rendered from results.json by its own module: a new output is one
 * new file beside these and one line in OUTPUTS.
 */
import { mkdir, writeFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { redactText } from '../client/evidence.js';
import type { SerializedCookies } from '../client/http.js';
import type { Results } from '../client/results.js';
import { allureResults } from './allure/results.js';
import { ALLURE_REPORT, findBaseline, prepareRunDirectory, type Baseline, type PreparedDirectory } from './baseline.js';
import { ATTESTATION_FILE } from './attestation.js';
import { changesJson } from './changes-json.js';
import { junitXml } from './junit-xml.js';
import { readLoadRun } from './load-figures.js';
import type { ReportContext, ReportOutput } from './output.js';
import { SUMMARY_PDF } from './pdf.js';
import { resultsJson } from './results-json.js';
import { summaryHtml } from './summary/html.js';
import { summaryMd } from './summary/md.js';
import { displayTarget } from './target.js';
import { toolInfo } from './tool-info.js';

const OUTPUTS: readonly ReportOutput[] = [junitXml, summaryHtml, summaryMd, changesJson, allureResults];

/** Cookie values shorter than this are too common to blank out in ordinary text (e.g. `lang=en`). */
const SECRET_COOKIE_MIN_LENGTH = 8;

export interface ReportRequest {
  dir: string;
  results: Results;
  baseline?: Baseline;
  /** Strings that must appear in no output (the password, session cookie values). */
  secrets: readonly string[];
}

/**
 * Clears the outputs of the run a new one replaces (its rendered Allure report and its attestation
 * too: neither would be the new run's), keeping its results.json as the baseline.
 */
export async function prepareRun(dir: string): Promise<PreparedDirectory> {
  return prepareRunDirectory(dir, [...[resultsJson, ...OUTPUTS].flatMap((o) => o.files), SUMMARY_PDF, ALLURE_REPORT, ATTESTATION_FILE]);
}

/** After a run: results.json, and unless `lean`, every other output, compared with the run it replaced. */
export async function writeRunReports(run: Omit<ReportRequest, 'baseline'> & { lean?: boolean }): Promise<ReportContext> {
  const results = { ...run.results, target: displayTarget(run.results.target) };
  const baseline = run.lean ? undefined : await findBaseline(run.dir, results);
  const ctx = await reportContext({ ...run, results, baseline });
  await resultsJson.write(ctx);
  if (!run.lean) await writeReports(ctx);
  return ctx;
}

export async function writeReports(ctx: ReportContext): Promise<void> {
  for (const output of OUTPUTS) await output.write(ctx);
}

export async function reportContext(req: ReportRequest): Promise<ReportContext> {
  const secrets = [...req.secrets].filter((s) => s !== '');
  const redact = (text: string): string => redactText(text, secrets);
  return {
    dir: req.dir,
    results: req.results,
    trend: req.baseline?.trend,
    allureHistory: req.baseline?.allureHistory,
    load: await readLoadRun(req.dir, req.results.target),
    tool: toolInfo(),
    redact,
    async write(name, text) {
      const file = join(req.dir, name);
      await mkdir(dirname(file), { recursive: true });
      await writeFile(file, redact(text));
    },
  };
}

/** The session's cookie values, as secrets: the structured redaction of evidence is not the only guard. */
export function cookieSecrets(session: SerializedCookies | undefined): string[] {
  return (session?.cookies ?? []).map((c) => c.value ?? '').filter((v) => v.length >= SECRET_COOKIE_MIN_LENGTH);
}
