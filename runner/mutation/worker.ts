/**
 * A process of the mutation self-test: takes one fault at a time from its parent (IPC), runs the
 * whole conformance run against its own in-process simulator with that fault, and answers with
 * the verdict of every requirement. Start-up (Node, modules, vitest) is paid once per process.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { runConformance } from '../run.js';
import { closeLeanRuns } from '../vitest/vitest-run.js';
import type { Verdict } from '../../client/results.js';
import type { Area } from '../../catalogue/requirements.js';
import { messageOf } from '../../client/errors.js';

export interface WorkerJob {
  /** Faults of one run; none for the clean simulator. */
  faults: string[];
  /** The areas to run; all when absent. */
  only?: Area[];
  /** Only the tests naming these requirements; all tests of the areas when absent. */
  requirements?: string[];
  seed: number;
  fuzzRuns: number;
  eventTimeoutMs: number;
  quietWindowMs: number;
  eventWrites: number;
}

export interface WorkerAnswer {
  faults: string[];
  /** `bare`: failing tests of the requirement that carry no evidence (no exchange, no subscription). */
  verdicts?: Record<string, { verdict: Verdict; reason?: string; bare?: number }>;
  exitCode?: number;
  error?: string;
  seconds: number;
}

/** Command sequences per stateful property: a few, a whole run per fault must stay short. */
const STATEFUL_RUNS = 4;

async function runJob(job: WorkerJob): Promise<WorkerAnswer> {
  const started = Date.now();
  const out = await mkdtemp(join(tmpdir(), 'bmc-mutation-'));
  try {
    const outcome = await runConformance({
      user: 'root',
      password: '0penBmc',
      namespace: 'mgmt_project',
      insecure: true,
      out,
      allowFactoryReset: true,
      writable: [],
      faults: job.faults,
      ...(job.only && { only: job.only }),
      ...(job.requirements && { requirements: job.requirements }),
      seed: job.seed,
      fuzzRuns: job.fuzzRuns,
      statefulRuns: STATEFUL_RUNS,
      eventTimeoutMs: job.eventTimeoutMs,
      quietWindowMs: job.quietWindowMs,
      eventWrites: job.eventWrites,
      lean: true,
      print: () => {},
    });
    const verdicts = Object.fromEntries(
      outcome.results.requirements.map((r) => {
        const bare = r.tests.filter((t) => t.verdict === 'FAIL' && (t.evidence ?? []).length === 0).length;
        return [r.id, { verdict: r.verdict, reason: r.reason, ...(bare > 0 && { bare }) }];
      }),
    );
    return { faults: job.faults, verdicts, exitCode: outcome.exitCode, seconds: (Date.now() - started) / 1000 };
  } catch (err) {
    return { faults: job.faults, error: messageOf(err), seconds: (Date.now() - started) / 1000 };
  } finally {
    await rm(out, { recursive: true, force: true });
  }
}

process.on('message', (job: WorkerJob) => {
  void runJob(job).then((answer) => process.send?.(answer));
});
process.on('disconnect', () => void closeLeanRuns().finally(() => process.exit(0)));
