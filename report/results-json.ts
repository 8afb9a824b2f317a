/** results.json: the verdict file every other output is rendered from. */
import { readFile } from 'node:fs/promises';
import { VERDICTS, type Results } from '../client/results.js';
import { bigintSafe } from '../client/results-types.js';
import { UsageError } from '../client/usage-error.js';
import type { ReportOutput } from './output.js';

export const RESULTS_FILE = 'results.json';

export const resultsJson: ReportOutput = {
  files: [RESULTS_FILE],
  async write(ctx) {
    await ctx.write(RESULTS_FILE, `${JSON.stringify(ctx.results, bigintSafe, 2)}\n`);
  },
};

export async function readResults(file: string): Promise<Results> {
  let text: string;
  try {
    text = await readFile(file, 'utf8');
  } catch {
    throw new UsageError(`There is no results file at ${file}; run "bmc-conformance run" first.`);
  }
  const notOne = new UsageError(`${file} is not a results.json of "bmc-conformance run": name a run's folder or its results.json.`);
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    throw notOne;
  }
  if (!isResults(parsed)) throw notOne;
  return parsed;
}

/** What every report reads of a results.json: the run's identity, the counts, and each requirement with its tests. */
function isResults(value: unknown): value is Results {
  const r = value as Partial<Results> | null;
  if (typeof r !== 'object' || r === null) return false;
  if (![r.target, r.startedAt, r.profile, r.namespace].every((s) => typeof s === 'string')) return false;
  if (typeof r.durationMs !== 'number' || typeof r.summary !== 'object' || r.summary === null || !Array.isArray(r.requirements))
    return false;
  return r.requirements.every(
    (q) => typeof q?.id === 'string' && (VERDICTS as readonly unknown[]).includes(q.verdict) && Array.isArray(q.tests),
  );
}
