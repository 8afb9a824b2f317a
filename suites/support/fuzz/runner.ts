/**
 * Runs one property with fast-check: numbered runs from a seed derived from the run's seed,
 * shrinking to a minimal failing case, a time limit as a safety net, and exact replay of a
 * printed case through BMC_FUZZ_PATH.
 */
import fc from 'fast-check';
import { FuzzViolation, REPLAY_VARIABLE, clip, curlLine, replayPathFor, type Sent } from './repro.js';

export interface FuzzProperty<T> {
  /** Short stable name, used in BMC_FUZZ_PATH and to derive the property's seed. */
  key: string;
  arbitrary: fc.Arbitrary<T>;
  /** Typical requests per run, for time budgets. */
  requestsPerRun: number;
  /** Throws FuzzViolation when the target breaks the rule for this value. */
  predicate: (value: T) => Promise<void>;
  /** The request(s) to print when the predicate fails with an error that names none. */
  reproOf?: (value: T) => Sent[];
}

export interface FuzzBudget {
  numRuns: number;
  /** The run's seed (`--seed`); the property's own seed is derived from it and its key. */
  runSeed: number;
  timeLimitMs: number;
  /** A fast-check path to replay; default: from BMC_FUZZ_PATH for this property's key. */
  replayPath?: string;
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
  const replayPath = budget.replayPath ?? replayPathFor(p.key);
  const property = fc.asyncProperty(p.arbitrary, async (value) => {
    try {
      await p.predicate(value);
    } catch (err) {
      if (err instanceof FuzzViolation) throw err;
      const message = err instanceof Error ? err.message : String(err);
      throw new FuzzViolation(message, p.reproOf?.(value) ?? []);
    }
  });
  const details = await fc.check(property, {
    numRuns: budget.numRuns,
    seed,
    ...(replayPath ? { path: replayPath, endOnFailure: true } : {}),
    plugins: [fc.interruptAfterTimeLimit(budget.timeLimitMs)],
  });
  const report: FuzzReport<T> = {
    key: p.key,
    runSeed: budget.runSeed,
    seed,
    numRuns: details.numRuns,
    numShrinks: details.numShrinks,
    numSkips: details.numSkips,
    interrupted: details.interrupted,
    failed: details.failed,
    replayed: replayPath,
  };
  if (!details.failed) return report;
  if (details.counterexample === null) {
    report.abort = details.interrupted
      ? `the time limit of ${Math.round(budget.timeLimitMs / 1000)} s passed before any generated case completed`
      : `too many generated cases were skipped (${details.numSkips})`;
    return report;
  }
  report.counterexample = (details.counterexample as unknown as [T])[0];
  report.counterexamplePath = details.counterexamplePath ?? undefined;
  const err = details.errorInstance;
  report.violation = err instanceof FuzzViolation ? err : new FuzzViolation(err instanceof Error ? err.message : String(err), []);
  return report;
}

/** `BMC_FUZZ_PATH=key:path` with the run's seed: the exact case again. */
export function replayHint(report: FuzzReport<unknown>): string {
  return `replay: --seed ${report.runSeed} ${REPLAY_VARIABLE}=${report.key}:${report.counterexamplePath ?? '?'}`;
}

/** Reasons are cut to one line of 400 characters in results.json: the essentials come first. */
const REASON_BUDGET = 398;

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
