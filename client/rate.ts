/**
 * Request spacing: at most `perSecond` request starts per second, shared by every request that
 * uses the same limiter. Spacing (not bursts) keeps small BMC CPUs from seeing spikes.
 */
import { setTimeout as sleep } from 'node:timers/promises';

export class RateLimiter {
  private readonly intervalMs: number;
  private nextSlot = 0;

  constructor(readonly perSecond: number) {
    if (!(perSecond > 0)) throw new RangeError('maxRequestsPerSecond must be a positive number.');
    this.intervalMs = 1000 / perSecond;
  }

  /** Resolves when the caller may start its request. */
  async acquire(): Promise<void> {
    const now = performance.now();
    const slot = Math.max(now, this.nextSlot);
    this.nextSlot = slot + this.intervalMs;
    const wait = slot - now;
    if (wait > 0) await sleep(wait);
  }
}
