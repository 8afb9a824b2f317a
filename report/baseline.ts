/**
 * The run a new one is compared with. Named with `report --previous DIR|FILE`; otherwise the run
 * that the new one replaced in the same folder, which `run` keeps as previous/results.json.
 */
import { existsSync, statSync } from 'node:fs';
import { mkdir, readdir, rename, rm } from 'node:fs/promises';
import { basename, dirname, join } from 'node:path';
import type { Results } from '../client/results.js';
import { UsageError } from '../client/usage-error.js';
import { samePlanAndTarget, verdictChanges, type Trend } from './changes.js';
import { readResults, RESULTS_FILE } from './results-json.js';

export const PREVIOUS_DIR = 'previous';
/** Where Allure keeps the history it carries from report to report. */
export const ALLURE_REPORT = 'allure-report';

export interface Baseline {
  trend: Trend;
  /** The baseline's Allure history folder, when it has a rendered report. */
  allureHistory?: string;
}

/** Where the outputs a new run replaces wait to be removed: hidden, and never read. */
const REPLACED_PREFIX = '.replaced-';

export interface PreparedDirectory {
  /**
   * The replaced outputs (and any left by a run that was killed) are removed in the background,
   * while the run goes on: some 2,900 Allure files took 170-360 ms. Settles when they are gone;
   * never rejects (what is left goes with the next run).
   */
  removed: Promise<void>;
}

/**
 * Before a run writes into `dir`: the replaced run's results.json is kept as previous/results.json,
 * and its other outputs go, so a run that stops half-way never leaves them looking current. The
 * Allure report stays (its history carries into the next one), and so does a sibling load run.
 * The outputs leave `dir` at once (a rename); their removal is not waited for.
 */
export async function prepareRunDirectory(dir: string, outputs: readonly string[]): Promise<PreparedDirectory> {
  await mkdir(dir, { recursive: true });
  const current = join(dir, RESULTS_FILE);
  if (existsSync(current)) {
    await mkdir(join(dir, PREVIOUS_DIR), { recursive: true });
    await rename(current, join(dir, PREVIOUS_DIR, RESULTS_FILE));
  }
  const replaced = join(dir, `${REPLACED_PREFIX}${process.pid}-${Date.now()}`);
  for (const name of outputs) {
    if (name === RESULTS_FILE || !existsSync(join(dir, name))) continue;
    await mkdir(join(replaced, dirname(name)), { recursive: true });
    await rename(join(dir, name), join(replaced, name));
  }
  const leftovers = (await readdir(dir)).filter((name) => name.startsWith(REPLACED_PREFIX)).map((name) => join(dir, name));
  const removed = Promise.all(leftovers.map((path) => rm(path, { recursive: true, force: true }))).then(
    () => undefined,
    () => undefined,
  );
  return { removed };
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
  const same = samePlanAndTarget(previous, current);
  // A kept previous/results.json has no report of its own: its history is the run folder's.
  const runDir = isDir ? path : basename(dirname(file)) === PREVIOUS_DIR ? dirname(dirname(file)) : dirname(file);
  return {
    trend: {
      source: file,
      previousStartedAt: previous.startedAt,
      changes: verdictChanges(previous, current),
      explicit,
      ...(same && { samePlanAndTarget: same }),
    },
    allureHistory: historyIn(runDir),
  };
}

function historyIn(runDir: string): string | undefined {
  const history = join(runDir, ALLURE_REPORT, 'history');
  return existsSync(history) ? history : undefined;
}
