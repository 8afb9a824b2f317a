/**
 * The run a new one is compared with. Named with `report --previous DIR|FILE`; otherwise the run
 * that the new one replaced in the same folder, which `run` keeps as previous/results.json. Either
 * is compared only when comparable.ts finds it a run of the same target and selection.
 */
import { existsSync, statSync } from 'node:fs';
import { mkdir, readdir, rename, rm } from 'node:fs/promises';
import { basename, dirname, join } from 'node:path';
import type { Results } from '../client/results.js';
import { UsageError } from '../client/usage-error.js';
import { samePlanAndTarget, verdictChanges, type Trend } from './changes.js';
import { firmwareChange, whyNotComparable } from './comparable.js';
import { ALLURE_RESULTS } from './allure/results.js';
import { readResults, RESULTS_FILE } from './results-json.js';

export const PREVIOUS_DIR = 'previous';
/** Where Allure keeps the history it carries from report to report. */
export const ALLURE_REPORT = 'allure-report';
/** The kept run's Allure history, in previous/: its report goes with the run it replaced. */
const KEPT_HISTORY = 'allure-history';

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
 * Before a run writes into `dir`: the replaced run's results.json is kept as previous/results.json
 * with its Allure history beside it (previous/allure-history), and its other outputs go, its Allure
 * report too, so a run that stops half-way never leaves them looking current. A sibling load run
 * stays. An interrupted run never becomes the baseline: it goes, and the earlier baseline stays.
 * The outputs leave `dir` at once (a rename); their removal is not waited for.
 */
export async function prepareRunDirectory(dir: string, outputs: readonly string[]): Promise<PreparedDirectory> {
  await mkdir(dir, { recursive: true });
  const current = join(dir, RESULTS_FILE);
  if (await ranToItsEnd(current)) await keepAsBaseline(dir);
  const replaced = join(dir, `${REPLACED_PREFIX}${process.pid}-${Date.now()}`);
  for (const name of new Set([RESULTS_FILE, ...outputs])) {
    if (!existsSync(join(dir, name))) continue;
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

/** A results.json of a run that was not interrupted; a file that is none is no baseline either. */
async function ranToItsEnd(file: string): Promise<boolean> {
  if (!existsSync(file)) return false;
  try {
    return (await readResults(file)).interrupted === undefined;
  } catch {
    return false;
  }
}

/**
 * results.json into previous/, and the Allure history that goes with it: its rendered report's,
 * else the history it carried from its own baseline (a run without --html).
 */
async function keepAsBaseline(dir: string): Promise<void> {
  const kept = join(dir, PREVIOUS_DIR);
  await mkdir(kept, { recursive: true });
  await rename(join(dir, RESULTS_FILE), join(kept, RESULTS_FILE));
  await rm(join(kept, KEPT_HISTORY), { recursive: true, force: true });
  const history = [join(dir, ALLURE_REPORT, 'history'), join(dir, ALLURE_RESULTS, 'history')].find((h) => existsSync(h));
  if (history) await rename(history, join(kept, KEPT_HISTORY));
}

export async function findBaseline(dir: string, current: Results, named?: string): Promise<Baseline | undefined> {
  if (named !== undefined) return baselineAt(named, current, true);
  const kept = join(dir, PREVIOUS_DIR, RESULTS_FILE);
  return existsSync(kept) ? baselineAt(kept, current, false) : undefined;
}

async function baselineAt(path: string, current: Results, explicit: boolean): Promise<Baseline> {
  if (!existsSync(path)) throw new UsageError(`There is no earlier run at ${path}: name a run folder or its results.json.`);
  const file = statSync(path).isDirectory() ? join(path, RESULTS_FILE) : path;
  const previous = await readResults(file);
  const notComparable = whyNotComparable(previous, current);
  const firmware = firmwareChange(previous, current);
  const same = notComparable ? undefined : samePlanAndTarget(previous, current);
  const trend: Trend = {
    source: file,
    previousStartedAt: previous.startedAt,
    changes: notComparable ? [] : verdictChanges(previous, current),
    explicit,
    ...(notComparable && { notComparable }),
    ...(firmware && { firmware }),
    ...(same && { samePlanAndTarget: same }),
  };
  // Another target's history would mix its trend charts into this one's.
  return { trend, allureHistory: notComparable ? undefined : historyOf(file) };
}

/** A kept previous/results.json has its history beside it; a run folder, in its rendered report. */
function historyOf(file: string): string | undefined {
  const history =
    basename(dirname(file)) === PREVIOUS_DIR ? join(dirname(file), KEPT_HISTORY) : join(dirname(file), ALLURE_REPORT, 'history');
  return existsSync(history) ? history : undefined;
}
