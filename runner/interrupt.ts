/**
 * Ctrl-C and SIGTERM during a run. The first signal stops the run cleanly: no test starts any more,
 * the test running then finishes and restores what it wrote (its cleanups; hurried if it takes
 * long), and the run writes what it has, marked interrupted, and exits 130 or 143. A second signal
 * ends the process at once.
 */
import type { Reporter, TestCase, Vitest } from 'vitest/node';
import { RESTORE_GRACE_MS, type RunLedger } from './run-channel.js';
import { releaseEarlySignals } from './early-signals.js';

export type StopSignal = 'SIGINT' | 'SIGTERM';

const EXIT_CODES: Record<StopSignal, 130 | 143> = { SIGINT: 130, SIGTERM: 143 };
const SIGNALS: StopSignal[] = ['SIGINT', 'SIGTERM'];

export class Interruption {
  signal?: StopSignal;
  at?: Date;
  private readonly stops = new Set<(reason: string) => void>();
  private readonly onSignal = (signal: NodeJS.Signals): void => {
    const received = signal as StopSignal;
    if (this.signal) {
      process.stderr.write(`${received} again: exiting at once; what the run wrote may be left on the target.\n`);
      process.exit(EXIT_CODES[received]);
    }
    this.signal = received;
    this.at = new Date();
    this.print(`${this.reason}: restoring what it wrote and closing its sessions; a second signal exits at once`);
    for (const stop of this.stops) stop(this.reason!);
  };

  constructor(private readonly print: (line: string) => void) {
    for (const s of SIGNALS) process.on(s, this.onSignal);
    releaseEarlySignals();
  }

  /** "the run was interrupted (SIGINT)", once a signal came. */
  get reason(): string | undefined {
    return this.signal && `the run was interrupted (${this.signal})`;
  }

  get exitCode(): 130 | 143 | undefined {
    return this.signal && EXIT_CODES[this.signal];
  }

  /** Runs `stop` when the first signal comes (at once if it came already). */
  onStop(stop: (reason: string) => void): void {
    if (this.reason) stop(this.reason);
    this.stops.add(stop);
  }

  dispose(): void {
    for (const s of SIGNALS) process.off(s, this.onSignal);
  }
}

/**
 * vitest's logger ends the process on SIGINT and SIGTERM (after 1 ms); during a run the signals
 * are the run's. Listeners added until the returned function is called are taken off again.
 */
export function keepSignalsFromVitest(): () => void {
  const drop = (event: string | symbol, listener: (...args: unknown[]) => void): void => {
    if (event === 'SIGINT' || event === 'SIGTERM') queueMicrotask(() => process.off(event, listener));
  };
  process.on('newListener', drop);
  return () => process.off('newListener', drop);
}

/**
 * A reporter that stops the suites on request: they start no test any more, and the test running
 * then finishes (see run-channel.ts); one still running after the grace is cancelled.
 */
export class SuiteControl implements Reporter {
  /** Tests that were still running when the grace ran out: what they wrote may be left. */
  unfinished: string[] = [];
  private vitest?: Vitest;
  private stopped = false;
  private deadline?: NodeJS.Timeout;
  private readonly running = new Map<string, string>();

  constructor(private readonly ledger: RunLedger) {}

  /** The channel the suites' worker joins. */
  get channel(): string {
    return this.ledger.channelName;
  }

  onInit(vitest: Vitest): void {
    this.vitest = vitest;
  }

  onTestCaseReady(testCase: TestCase): void {
    this.running.set(testCase.id, testCase.name);
  }

  onTestCaseResult(testCase: TestCase): void {
    this.running.delete(testCase.id);
  }

  onTestRunEnd(): void {
    clearTimeout(this.deadline);
  }

  stop(reason: string): void {
    if (this.stopped) return;
    this.stopped = true;
    this.ledger.interrupt(reason);
    this.deadline = setTimeout(() => {
      this.unfinished = [...this.running.values()];
      if (this.unfinished.length > 0) this.vitest?.cancelCurrentRun('keyboard-input').catch(() => undefined);
    }, RESTORE_GRACE_MS);
    this.deadline.unref();
  }
}
