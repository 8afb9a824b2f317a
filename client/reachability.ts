/**
 * Waiting out a target that went away (a reboot after Reset, a restart, a cable): a client and its
 * forks share one of these, so that requests failing together wait together, each outage is
 * reported once, and after a wait in vain nobody waits again.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import type { Outage } from './errors.js';

/** Between two probes of a target that is away. */
const PROBE_INTERVAL_MS = 1_000;

export class Reachability {
  private waiting?: Promise<Outage>;
  /** The outage the client stopped waiting for: the target never came back. */
  gaveUp?: Outage;

  constructor(
    private readonly waitMs: number,
    private readonly report: (outage: Outage) => void,
  ) {}

  get waits(): boolean {
    return this.waitMs > 0;
  }

  /** Probes until the target answers or the wait (counted from `from`) runs out. */
  waitOut(from: Date, cause: string, answers: () => Promise<boolean>): Promise<Outage> {
    this.waiting ??= this.poll(from, cause, answers).finally(() => {
      this.waiting = undefined;
    });
    return this.waiting;
  }

  private async poll(from: Date, cause: string, answers: () => Promise<boolean>): Promise<Outage> {
    const deadline = from.getTime() + this.waitMs;
    let back = false;
    while (!back && Date.now() < deadline) {
      await sleep(Math.min(PROBE_INTERVAL_MS, deadline - Date.now()));
      back = await answers();
    }
    const outage: Outage = { from: from.toISOString(), durationMs: Date.now() - from.getTime(), cause, back };
    if (!back) this.gaveUp = outage;
    this.report(outage);
    return outage;
  }
}
