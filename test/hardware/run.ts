/** A conformance run against a simulator started as a target of its own (the hardware path). */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { runConformance, type RunOptions, type RunOutcome } from '../../runner/run.js';
import { startSimulator, type SimulatorOptions } from '../../simulator/index.js';
import { testRunOptions } from '../support/run-options.js';

/** `inspect` reads the run's output folder before it is removed. */
export async function runAgainst(
  sim: SimulatorOptions,
  opts: Partial<RunOptions> = {},
  inspect?: (out: string) => Promise<void>,
): Promise<RunOutcome> {
  const target = await startSimulator({ log: () => {}, ...sim });
  const out = await mkdtemp(join(tmpdir(), 'bmc-hardware-'));
  try {
    const outcome = await runConformance(
      testRunOptions(out, {
        target: target.url,
        seed: 20261123,
        // What a lab's profile for a fast target would set: the hardware defaults wait for seconds.
        timeoutMs: 30_000,
        eventTimeoutMs: 3_000,
        quietWindowMs: 1_000,
        // Enough fuzzed writes to show the fuzz area uses the writables found and restores them;
        // finding the dialects' deviations is test/dialects' (60 runs, shrinking each finding).
        fuzzRuns: 15,
        // One sequence per stateful check: enough to show it finds its writables and restores them
        // (test/stateful judges the area itself); with hardware-like windows each costs seconds.
        statefulRuns: 1,
        ...opts,
      }),
    );
    await inspect?.(out);
    return outcome;
  } finally {
    await target.close();
    await rm(out, { recursive: true, force: true });
  }
}

export function notTested(outcome: RunOutcome): string[] {
  return outcome.results.requirements.filter((r) => r.verdict === 'NOT_TESTED').map((r) => `${r.id}: ${r.reason ?? ''}`);
}
