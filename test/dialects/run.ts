/** One conformance run against the embedded simulator in a field dialect, paced for tests. */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { DialectName } from '../../simulator/index.js';
import { loadExpectations } from '../../runner/expectations.js';
import { runConformance, type RunOutcome } from '../../runner/run.js';
import { testRunOptions } from '../support/run-options.js';

export async function dialectRun(dialect: DialectName, opts: { expectations?: string; seed?: number } = {}): Promise<RunOutcome> {
  const out = await mkdtemp(join(tmpdir(), `bmc-dialect-${dialect}-`));
  try {
    return await runConformance(
      testRunOptions(out, {
        allowFactoryReset: true,
        dialect,
        // The field servers' seconds of event latency and failed-upload delay, shortened: the
        // behaviour (polled, ordered delivery; a late 400) stays.
        pacing: { eventLatencyMs: 100, uploadFailDelayMs: 300 },
        seed: opts.seed ?? 20261123,
        fuzzRuns: 60,
        expectations: opts.expectations ? await loadExpectations(opts.expectations) : undefined,
      }),
    );
  } finally {
    await rm(out, { recursive: true, force: true });
  }
}
