/** results.json: the verdict file every other output is rendered from. */
import { readFile } from 'node:fs/promises';
import type { Results } from '../client/results.js';
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
  let parsed: Partial<Results>;
  try {
    parsed = JSON.parse(text) as Partial<Results>;
  } catch {
    throw new UsageError(`${file} is not a results.json file.`);
  }
  if (!Array.isArray(parsed.requirements) || typeof parsed.summary !== 'object')
    throw new UsageError(`${file} is not a results.json file.`);
  return parsed as Results;
}
