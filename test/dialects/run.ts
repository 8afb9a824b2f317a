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
        // behaviour (polled, ordered delivery; a late 400) stays. No time per request: at the
        // field server's pace, one request at a time, a run takes minutes and no verdict depends on the server's pace.
        pacing: { eventLatencyMs: 100, uploadFailDelayMs: 300, requestMs: 0 },
        seed: opts.seed ?? 20261123,
        fuzzRuns: 60,
        expectations: opts.expectations ? await loadExpectations(opts.expectations) : undefined,
      }),
    );
  } finally {
    await rm(out, { recursive: true, force: true });
  }
}
