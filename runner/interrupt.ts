/**
 * The suites' side of a Ctrl-C or SIGTERM during a run (the process side is signals.ts): vitest
 * must not end the process on the signal, and the suites stop on request, the test running then
 * finishing and restoring what it wrote (its cleanups; hurried if it takes long).
 */
import type { Reporter, TestCase, Vitest } from 'vitest/node';
import { RESTORE_GRACE_MS, type RunLedger } from './run-channel.js';

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
