/**
 * The run a new one is compared with. Named with `report --previous DIR|FILE`; otherwise the run
 * that the new one replaced in the same folder, which `run` keeps as previous/results.json.
 */
import { existsSync, statSync } from 'node:fs';
import { mkdir, rename, rm } from 'node:fs/promises';
import { basename, dirname, join } from 'node:path';
import type { Results } from '../client/results.js';
import { UsageError } from '../client/usage-error.js';
import { verdictChanges, type Trend } from './changes.js';
import { readResults, RESULTS_FILE } from './results-json.js';

export const PREVIOUS_DIR = 'previous';
/** Where Allure keeps the history it carries from report to report. */
export const ALLURE_REPORT = 'allure-report';

export interface Baseline {
  trend: Trend;
  /** The baseline's Allure history folder, when it has a rendered report. */
  allureHistory?: string;
}

/**
 * Before a run writes into `dir`: the replaced run's results.json is kept as previous/results.json,
 * and its other outputs go, so a run that stops half-way never leaves them looking current. The
 * Allure report stays (its history carries into the next one), and so does a sibling load run.
 */
export async function prepareRunDirectory(dir: string, outputs: readonly string[]): Promise<void> {
  await mkdir(dir, { recursive: true });
  const current = join(dir, RESULTS_FILE);
  if (existsSync(current)) {
    await mkdir(join(dir, PREVIOUS_DIR), { recursive: true });
    await rename(current, join(dir, PREVIOUS_DIR, RESULTS_FILE));
  }
  for (const name of outputs) if (name !== RESULTS_FILE) await rm(join(dir, name), { recursive: true, force: true });
}

export async function findBaseline(dir: string, current: Results, named?: string): Promise<Baseline | undefined> {
  if (named !== undefined) return baselineAt(named, current, true);
  const kept = join(dir, PREVIOUS_DIR, RESULTS_FILE);
  return existsSync(kept) ? baselineAt(kept, current, false) : undefined;
}

async function baselineAt(path: string, current: Results, explicit: boolean): Promise<Baseline> {
  if (!existsSync(path)) throw new UsageError(`There is no earlier run at ${path}.`);
  const isDir = statSync(path).isDirectory();
  const file = isDir ? join(path, RESULTS_FILE) : path;
  const previous = await readResults(file);
  // A kept previous/results.json has no report of its own: its history is the run folder's.
  const runDir = isDir ? path : basename(dirname(file)) === PREVIOUS_DIR ? dirname(dirname(file)) : dirname(file);
  return {
    trend: { source: file, previousStartedAt: previous.startedAt, changes: verdictChanges(previous, current), explicit },
    allureHistory: historyIn(runDir),
  };
}

function historyIn(runDir: string): string | undefined {
  const history = join(runDir, ALLURE_REPORT, 'history');
  return existsSync(history) ? history : undefined;
}
