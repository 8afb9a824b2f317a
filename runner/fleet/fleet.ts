/**
 * Runs the targets of a fleet, each as a `bmc-conformance run` child process of its own, at most
 * `concurrency` at once.
 *
 * Child processes rather than runConformance in this process: a run keeps process-wide state (the
 * session ledger that the leave-no-trace check counts, vitest's workers and exit code, the secrets
 * it redacts), so runs side by side in one process would count each other's sessions; a crash or
 * a hung target takes down only its own child; a signal can be passed to each run as if it had been
 * started alone. The password reaches a child in its environment, never its argv (ps shows argv).
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { JobSignals } from '../signals.js';
import { pooled } from '../../client/pooled.js';

export interface ChildJob {
  name: string;
  args: string[];
  env: NodeJS.ProcessEnv;
}

export interface ChildResult {
  name: string;
  code: number | null;
  signal: NodeJS.Signals | null;
  /** Epoch ms when the child started (0 when it never did). */
  startedAt: number;
  durationMs: number;
  /** Output of the child, the last OUTPUT_LIMIT characters of each stream. */
  stdout: string;
  stderr: string;
  /** Not started, or stopped, because the fleet was interrupted. */
  interrupted: boolean;
  /** The child could not be started at all. */
  spawnError?: string;
}

export interface FleetRunOptions<J extends ChildJob = ChildJob> {
  /** The CLI entry (dist/cli/main.js) the children run. */
  cli: string;
  concurrency: number;
  /** A child process started (not called for one that never did). */
  onStart?: (job: J) => void;
  onFinish?: (result: ChildResult) => void | Promise<void>;
}

/** Bounds memory on a chatty run; the tail holds the summary and the error sentence. */
const OUTPUT_LIMIT = 1 << 20;

export async function runChildren<J extends ChildJob>(
  jobs: readonly J[],
  opts: FleetRunOptions<J>,
): Promise<{ results: ChildResult[]; interruptedBy?: NodeJS.Signals }> {
  const running = new Set<ChildProcess>();
  // Each run gets every signal as if started alone (a second one exits it at once); the fleet stops
  // starting new ones and waits for them.
  const forward = (signal: NodeJS.Signals): void => {
    for (const child of running) child.kill(signal);
  };
  const signals = new JobSignals({ first: forward, again: forward });
  const run = async (job: J): Promise<ChildResult> => {
    const result: ChildResult = signals.signal
      ? { name: job.name, code: null, signal: null, startedAt: 0, durationMs: 0, stdout: '', stderr: '', interrupted: true }
      : await runChild(job, opts.cli, running, () => signals.signal !== undefined, opts.onStart);
    await opts.onFinish?.(result);
    return result;
  };
  let results: ChildResult[];
  try {
    results = await pooled(jobs, Math.max(1, opts.concurrency), run);
  } finally {
    signals.dispose();
  }
  return { results, ...(signals.signal && { interruptedBy: signals.signal }) };
}

function runChild<J extends ChildJob>(
  job: J,
  cli: string,
  running: Set<ChildProcess>,
  interrupted: () => boolean,
  onStart?: (job: J) => void,
): Promise<ChildResult> {
  const startedAt = Date.now();
  return new Promise((resolve) => {
    // A process group of its own: a terminal's Ctrl-C reaches the whole foreground group, and a run
    // that got it from the terminal and again from the fleet would take the second as "exit at once",
    // skipping its restore. The fleet passes each signal on once.
    const child = spawn(process.execPath, [cli, ...job.args], { env: job.env, stdio: ['ignore', 'pipe', 'pipe'], detached: true });
    running.add(child);
    child.once('spawn', () => onStart?.(job));
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d: Buffer) => (stdout = (stdout + d.toString()).slice(-OUTPUT_LIMIT)));
    child.stderr.on('data', (d: Buffer) => (stderr = (stderr + d.toString()).slice(-OUTPUT_LIMIT)));
    let spawnError: string | undefined;
    const done = (code: number | null, signal: NodeJS.Signals | null): void => {
      running.delete(child);
      resolve({
        name: job.name,
        code,
        signal,
        startedAt,
        durationMs: Date.now() - startedAt,
        stdout,
        stderr,
        interrupted: interrupted(),
        ...(spawnError && { spawnError }),
      });
    };
    child.on('error', (err) => {
      spawnError = err.message;
      done(null, null);
    });
    child.on('close', done);
  });
}
