/**
 * What keeps a run trustworthy when it is interrupted or the target goes away: the signal
 * handlers, the suites' control and the ledger of what their clients met, in one object so that
 * the run calls it in a few places.
 */
import type { BmcClient } from '../client/http.js';
import type { SessionLedger } from '../client/session-ledger.js';
import type { RunConfig } from './config.js';
import { outageText, sessionLossLines } from '../client/errors.js';
import { SuiteControl } from './interrupt.js';
import { Interruption } from './signals.js';
import { RunLedger } from './run-channel.js';
import { notRunNote, type Results, type TestOutcome } from '../client/results.js';
import type { TreeReads } from '../client/tree-reads.js';

export class RunGuard {
  readonly control: SuiteControl;
  private readonly interruption: Interruption;
  private readonly ledger = new RunLedger();

  constructor(print: (line: string) => void) {
    this.control = new SuiteControl(this.ledger);
    this.interruption = new Interruption(print);
    this.interruption.onStop(() => this.control.stop(this.interruption.reason!));
  }

  /** Why a requirement without any outcome was not run, when the run was interrupted. */
  get notRunReason(): string | undefined {
    return this.interruption.reason && notRunNote(this.interruption.reason);
  }

  /** A test whose requests were abandoned was cut short: its PASS or WARN is not a verdict. */
  outcomes(outcomes: TestOutcome[]): TestOutcome[] {
    const reason = this.interruption.reason;
    if (!reason) return outcomes;
    const cut = `not judged to the end: ${reason} while this test ran`;
    return outcomes.map((o) => {
      if (!this.ledger.cutShort.has(o.name)) return o;
      const perRequirement = Object.fromEntries(
        Object.entries(o.perRequirement ?? {}).map(([id, v]) => [
          id,
          v.verdict === 'PASS' || v.verdict === 'WARN' ? { verdict: 'NOT_TESTED' as const, reason: cut } : v,
        ]),
      );
      const verdict = o.verdict === 'PASS' || o.verdict === 'WARN' ? 'NOT_TESTED' : o.verdict;
      return { ...o, verdict, reason: verdict === 'NOT_TESTED' ? cut : o.reason, perRequirement };
    });
  }

  /** The interruption and the downtime, for results.json. */
  record(): Pick<Results, 'interrupted' | 'downtime' | 'sessionsLost'> {
    const { signal, at } = this.interruption;
    const unfinished = this.control.unfinished;
    return {
      ...(signal && at && { interrupted: { signal, at: at.toISOString(), ...(unfinished.length > 0 && { unfinished }) } }),
      ...(this.ledger.outages.length > 0 && { downtime: this.ledger.outages }),
      ...(this.ledger.sessionLosses.length > 0 && { sessionsLost: this.ledger.sessionLosses }),
    };
  }

  /** The whole-tree reads of the run, by area: what they cost on this target. */
  treeReads(): TreeReads {
    return this.ledger.treeReads.summary();
  }

  /** One line per outage, and one per test that may have left what it wrote. */
  lines(): string[] {
    return [
      ...this.ledger.outages.map(
        (o) => `target unreachable ${outageText(o)} (${o.cause})${o.back ? '; the run waited and went on' : '; the run stopped waiting'}`,
      ),
      ...sessionLossLines(this.ledger.sessionLosses),
      ...this.control.unfinished.map((name) => `${name} did not finish restoring what it wrote before the run ended`),
    ];
  }

  /** Logs out the run's session (its client) and every session the suites opened and left open. */
  closeSessions(client: BmcClient, cfg: RunConfig, sessions: SessionLedger): Promise<void> {
    const { target: baseUrl, user, password, insecure, maxRequestsPerSecond } = cfg;
    return this.ledger.closeSessions(client, { baseUrl, user, password, insecure, maxRequestsPerSecond, sessions });
  }

  exitCode(verdicts: 0 | 1 | 5): 0 | 1 | 5 | 130 | 143 {
    return this.interruption.exitCode ?? verdicts;
  }

  dispose(): void {
    this.interruption.dispose();
    this.ledger.close();
  }
}
