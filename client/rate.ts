/**
 * Request spacing: at most `perSecond` request starts per second, shared by every request that
 * uses the same limiter. Spacing (not bursts) keeps small BMC CPUs from seeing spikes.
 */
import { setTimeout as sleep } from 'node:timers/promises';

/** The limiter's clock: the real one, or a test's. */
export interface Clock {
  now(): number;
  sleep(ms: number): Promise<unknown>;
}

const REAL: Clock = { now: () => performance.now(), sleep: (ms) => sleep(ms) };

export class RateLimiter {
  private readonly intervalMs: number;
  /** When the last caller was let go. */
  private last = Number.NEGATIVE_INFINITY;
  /** Callers go one after another: each waits for the one before it. */
  private turn: Promise<void> = Promise.resolve();

  constructor(
    readonly perSecond: number,
    private readonly clock: Clock = REAL,
  ) {
    if (!(perSecond > 0)) throw new RangeError('maxRequestsPerSecond must be a positive number.');
    this.intervalMs = 1000 / perSecond;
  }

  /**
   * Resolves when the caller may start its request: a full interval after the caller before it
   * was let go. The interval is measured when each is let go, not booked ahead, so callers that
   * a stalled process woke late still go one interval apart instead of all at once.
   */
  acquire(): Promise<void> {
    const mine = this.turn.then(async () => {
      const wait = this.last + this.intervalMs - this.clock.now();
      if (wait > 0) await this.clock.sleep(wait);
      this.last = this.clock.now();
    });
    this.turn = mine;
    return mine;
  }
}
