/**
 * A fleet target's row, from how its child run ended: its verdicts when it wrote a fresh
 * results.json (exit 0 or 1), otherwise the sentence that says why not. The child's output is kept
 * beside its results as run.log, redacted.
 */
import { headline } from '../../client/headline.js';
import { existsSync } from 'node:fs';
import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { redactText } from '../../client/evidence.js';
import { verdictsOf, type FleetTarget } from '../../report/fleet/matrix.js';
import { readResults, RESULTS_FILE } from '../../report/results-json.js';
import { NOTHING_JUDGED_EXIT } from '../../client/results.js';
import { displayTarget } from '../../report/target.js';
import type { ChildResult } from './fleet.js';
import type { FleetEntry } from './targets-file.js';

export const RUN_LOG = 'run.log';
/** results.json gives its start to the millisecond; the child's clock is the same machine's. */
const CLOCK_SLACK_MS = 1_000;

export async function targetOutcome(
  entry: FleetEntry,
  result: ChildResult,
  fleetDir: string,
  secrets: readonly string[],
): Promise<FleetTarget> {
  const dir = join(fleetDir, entry.name);
  const redact = (text: string): string => redactText(text, secrets);
  const base = {
    name: entry.name,
    ...(entry.platform && { platform: entry.platform }),
    url: displayTarget(entry.url),
    exitCode: result.code,
    durationMs: result.durationMs,
  };
  if (result.startedAt === 0) return { ...base, status: 'interrupted', message: 'not started: the fleet was interrupted' };
  await mkdir(dir, { recursive: true });
  await writeFile(join(dir, RUN_LOG), redact(`${result.stdout}${result.stderr ? `\n--- stderr ---\n${result.stderr}` : ''}`));
  const sentence = redact(firstLine(result.spawnError ?? result.stderr));
  if (result.code === 0 || result.code === 1 || result.code === NOTHING_JUDGED_EXIT) {
    const results = await freshResults(join(dir, RESULTS_FILE), result.startedAt);
    const status = result.code === 0 ? 'passed' : result.code === 1 ? 'failed' : 'not judged';
    const message = status === 'not judged' ? 'every requirement is NOT_TESTED' : undefined;
    if (results) return { ...base, status, dir: entry.name, ...verdictsOf(results), ...(message && { message }) };
    return { ...base, status: 'error', dir: entry.name, message: `the run exited ${result.code} without writing ${RESULTS_FILE}` };
  }
  if (result.code === 2) {
    // The target answered and refused the credentials: not a network matter, and said so.
    const status = /^Login as .* was refused/.test(sentence) ? 'login refused' : 'unreachable';
    return { ...base, status, dir: entry.name, message: sentence || 'the run could not start (exit 2)' };
  }
  const how = result.signal ? `signal ${result.signal}` : result.code === null ? 'no exit code' : `exit code ${result.code}`;
  if (result.interrupted)
    return { ...base, status: 'interrupted', dir: entry.name, message: `stopped by the fleet's interruption (${how})` };
  return {
    ...base,
    status: 'error',
    dir: entry.name,
    message: `the run ended with ${how} and no verdicts${sentence ? `: ${sentence}` : ''}`,
  };
}

/** A target whose run was never started (e.g. its password variable is not set). */
export function notRun(entry: FleetEntry, message: string): FleetTarget {
  return {
    name: entry.name,
    ...(entry.platform && { platform: entry.platform }),
    url: displayTarget(entry.url),
    status: 'error',
    exitCode: null,
    durationMs: 0,
    message,
  };
}

/** Only a results.json this run wrote: an earlier fleet's may still sit in the folder. */
async function freshResults(file: string, startedAt: number): Promise<Awaited<ReturnType<typeof readResults>> | undefined> {
  if (!existsSync(file)) return undefined;
  try {
    const results = await readResults(file);
    return Date.parse(results.startedAt) >= startedAt - CLOCK_SLACK_MS ? results : undefined;
  } catch {
    return undefined;
  }
}

function firstLine(text: string): string {
  const line =
    text
      .split('\n')
      .map((l) => l.trim())
      .find((l) => l !== '') ?? '';
  return headline(line, 300);
}
