/**
 * Runs one property with fast-check: numbered runs from a seed derived from the run's seed,
 * shrinking to a minimal failing case, a time limit as a safety net, and exact replay of a
 * printed case through BMC_FUZZ_PATH.
 */
import fc from 'fast-check';
import { FuzzViolation, REPLAY_VARIABLE, clip, curlLine, replayCaseFor, replayKey, type ReplayCase, type Sent } from './repro.js';
import { messageOf } from '../../client/errors.js';

/** What a predicate reports a broken rule through. */
export interface Judge {
  /**
   * The target broke `requirement` for this value: throws a FuzzViolation, unless the search has
   * moved past that requirement (its violation is already found), in which case it returns and
   * the predicate goes on judging the others.
   */
  violation(requirement: string, problem: string, repro: Sent[]): void;
}

export interface FuzzProperty<T> {
  /** Short stable name, used in BMC_FUZZ_PATH and to derive the property's seed. */
  key: string;
  /** The requirements it judges; every violation names one of them. */
  requirements: readonly string[];
  arbitrary: fc.Arbitrary<T>;
  /** Typical requests per run, for time budgets. */
  requestsPerRun: number;
  /** Reports through `judge` when the target breaks a rule for this value. */
  predicate: (value: T, judge: Judge) => Promise<void>;
  /** The request(s) to print when the predicate fails with an error that names none. */
  reproOf?: (value: T) => Sent[];
  /** Cases run first in every run, whatever the seed (boundary cases), besides `numRuns` generated ones. */
  examples?: readonly T[];
}

export interface FuzzBudget {
  numRuns: number;
  /** The run's seed (`--seed`); the property's own seed is derived from it and its key. */
  runSeed: number;
  timeLimitMs: number;
  /**
   * The time limit only keeps new cases (and shrinks) from starting; the case under way finishes
   * and counts. For cases that change the target and put it back (stateful sequences).
   */
  finishRunning?: boolean;
  /** A case to replay; default: this property's case in `replayed`. */
  replay?: ReplayCase;
  /** The run's BMC_FUZZ_PATH: the case to replay, named by its property's key. */
  replayed?: string;
  /** Requirements whose violations no longer stop the search (already found, here or elsewhere in the run). */
  ignored?: ReadonlySet<string>;
}

export interface FuzzReport<T> {
  key: string;
  runSeed: number;
  seed: number;
  numRuns: number;
  numShrinks: number;
  numSkips: number;
  interrupted: boolean;
  failed: boolean;
  /** The requirements the property judges. */
  requirements: readonly string[];
  /** The replay key of a replayed case. */
  replayed?: string;
  counterexample?: T;
  counterexamplePath?: string;
  violation?: FuzzViolation;
  /** Set when the run failed without a counterexample (too many skips, nothing completed in time). */
  abort?: string;
}

/** FNV-1a of the key, mixed into the run seed: properties draw independent values. */
export function propertySeed(runSeed: number, key: string): number {
  let h = 0x811c9dc5;
  for (const ch of key) {
    h ^= ch.codePointAt(0)!;
    h = Math.imul(h, 0x01000193);
  }
  return (runSeed ^ h) | 0;
}

export async function runProperty<T>(p: FuzzProperty<T>, budget: FuzzBudget): Promise<FuzzReport<T>> {
  const seed = propertySeed(budget.runSeed, p.key);
  const replay = budget.replay ?? replayCaseFor(p.key, budget.replayed);
  // A replay narrowed to one requirement ignores the others, as the search that found it did.
  const ignored = replay?.requirement
    ? new Set(p.requirements.filter((r) => r !== replay.requirement))
    : (budget.ignored ?? new Set<string>());
  const judge: Judge = {
    violation: (requirement, problem, repro) => {
      if (!p.requirements.includes(requirement)) throw new Error(`property ${p.key} reports ${requirement}, which it does not judge`);
      if (!ignored.has(requirement)) throw new FuzzViolation(requirement, problem, repro);
    },
  };
  const property = fc.asyncProperty(p.arbitrary, async (value) => {
    try {
      await p.predicate(value, judge);
    } catch (err) {
      if (err instanceof FuzzViolation) throw err;
      // An error that names no requirement (a read that failed) is the property's first requirement's.
      const message = messageOf(err);
      const requirement = p.requirements.find((r) => !ignored.has(r));
      if (requirement === undefined) return;
      throw new FuzzViolation(requirement, message, p.reproOf?.(value) ?? []);
    }
  });
  const examples = p.examples ?? [];
  const details = await fc.check(property, {
    numRuns: budget.numRuns + examples.length,
    seed,
    ...(examples.length > 0 ? { examples: examples.map((e): [T] => [e]) } : {}),
    ...(replay ? { path: replay.path, endOnFailure: true } : {}),
    ...(budget.finishRunning
      ? { skipAllAfterTimeLimit: budget.timeLimitMs }
      : { plugins: [fc.interruptAfterTimeLimit(budget.timeLimitMs)] }),
  });
  // Past the limit fast-check skips every case it would still start: the budget ran out, nothing failed.
  const outOfTime = budget.finishRunning === true && details.failed && details.counterexample === null && details.numSkips > 0;

  const report: FuzzReport<T> = {
    key: p.key,
    runSeed: budget.runSeed,
    seed,
    numRuns: details.numRuns,
    numShrinks: details.numShrinks,
    numSkips: details.numSkips,
    interrupted: details.interrupted || outOfTime,
    failed: details.failed && !outOfTime,
    requirements: p.requirements,
    replayed: replay ? replayKey(p.key, replay.path, replay.requirement) : undefined,
  };
  if (!report.failed) return report;
  if (details.counterexample === null) {
    report.abort = details.interrupted
      ? `the time limit of ${Math.round(budget.timeLimitMs / 1000)} s passed before any generated case completed`
      : `too many generated cases were skipped (${details.numSkips})`;
    return report;
  }
  report.counterexample = (details.counterexample as unknown as [T])[0];
  report.counterexamplePath = details.counterexamplePath ?? undefined;
  const err = details.errorInstance;
  report.violation = err instanceof FuzzViolation ? err : new FuzzViolation(p.requirements[0]!, messageOf(err), []);
  return report;
}

/**
 * Searches for a violation of each requirement the property judges: once one is found (and shrunk),
 * the search starts again with that requirement set aside, until none is left or a search finds
 * nothing. Returns the reports of the searches, the failing ones first.
 */
export async function searchProperty<T>(p: FuzzProperty<T>, budget: FuzzBudget): Promise<Array<FuzzReport<T>>> {
  const reports: Array<FuzzReport<T>> = [];
  const ignored = new Set<string>(budget.ignored);
  const deadline = performance.now() + budget.timeLimitMs;
  for (;;) {
    const timeLimitMs = Math.max(1000, deadline - performance.now());
    const report = await runProperty(p, { ...budget, timeLimitMs, ignored: new Set(ignored) });
    reports.push(report);
    const found = report.violation?.requirement;
    // A replay runs one case, and a search without a new violation is the last.
    if (!report.failed || found === undefined || report.replayed || ignored.has(found)) break;
    ignored.add(found);
    if (ignored.size >= p.requirements.length || performance.now() >= deadline) break;
  }
  return reports;
}

/** What a property's searches ran, as its check observes it: the seed, the runs made and asked for, the shrinks. */
export function searchStats(reports: ReadonlyArray<FuzzReport<unknown>>, requested: number) {
  const first = reports[0]!;
  return {
    propertySeed: first.seed,
    runs: first.numRuns,
    requested,
    searches: reports.length,
    shrinks: reports.reduce((n, r) => n + r.numShrinks, 0),
    interrupted: reports.some((r) => r.interrupted),
  };
}

/**
 * `BMC_FUZZ_PATH=key[/REQ]:path` with the run's seed: the exact case again. A property judging
 * several requirements replays narrowed to the one broken, as the search that found it may have been.
 */
export function replayHint(report: FuzzReport<unknown>): string {
  const narrowed = report.requirements.length > 1 ? report.violation?.requirement : undefined;
  return `replay: --seed ${report.runSeed} ${REPLAY_VARIABLE}=${replayKey(report.key, report.counterexamplePath ?? '?', narrowed)}`;
}

/** Reasons are cut to one line of 400 characters in results.json: the essentials come first. */
export const REASON_BUDGET = 398;

/**
 * The failure message: first line "problem — curl — replay", then details. The problem is clipped
 * so that the one-line reason keeps the curl line and the replay whole whenever they fit.
 */
export function failureMessage(report: FuzzReport<unknown>, baseUrl: string): string {
  const v = report.violation!;
  const curls = v.repro.map((s) => curlLine(baseUrl, s));
  const repro = curls.length > 0 ? ` — ${curls.join(' ; ')}` : '';
  const replay = ` — ${replayHint(report)}`;
  const room = Math.max(90, REASON_BUDGET - repro.length - replay.length);
  const first = `${clip(v.problem.replace(/\s+/g, ' '), room)}${repro}${replay}`;
  const details = [
    `property ${report.key}: failed after ${report.numRuns} run(s), shrunk in ${report.numShrinks} step(s); property seed ${report.seed}`,
    `shrunk case: ${clip(fc.stringify(report.counterexample), 2000)}`,
    ...curls.map((c, i) => `curl ${i + 1}: ${c}`),
    `(curl uses $COOKIE for the session cookie, e.g. COOKIE='sid=…', and $PASSWORD for login bodies derived from the password)`,
  ];
  return [first, ...details].join('\n');
}
