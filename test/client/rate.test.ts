/** The rate limiter spaces request starts, also when the process stalled while callers waited. */
import { describe, expect, test } from 'vitest';
import { RateLimiter, type Clock } from '../../client/rate.js';

/** A clock the test moves: `tick` wakes sleepers due as time passes; `stall` moves it and wakes them only after. */
class TestClock implements Clock {
  private time = 0;
  private sleepers: Array<{ at: number; wake: () => void }> = [];
  now = () => this.time;
  sleep = (ms: number) => new Promise<void>((wake) => this.sleepers.push({ at: this.time + ms, wake }));

  async tick(ms: number): Promise<void> {
    this.time += ms;
    await this.wakeDue();
  }

  /** The process was busy for `ms`: timers due meanwhile fire only at its end, all at once. */
  async stall(ms: number): Promise<void> {
    this.time += ms;
    await this.wakeDue();
  }

  private async wakeDue(): Promise<void> {
    for (let round = 0; round < 50; round++) {
      const due = this.sleepers.filter((s) => s.at <= this.time);
      this.sleepers = this.sleepers.filter((s) => s.at > this.time);
      due.forEach((s) => s.wake());
      // Let the callers woken run on to their next sleep.
      for (let i = 0; i < 10; i++) await Promise.resolve();
      if (due.length === 0) return;
    }
  }
}

async function lettingGo(clock: TestClock, n: number, first: () => Promise<void>): Promise<number[]> {
  const limiter = new RateLimiter(10, clock);
  const times: number[] = [];
  const all = Promise.all(Array.from({ length: n }, () => limiter.acquire().then(() => void times.push(clock.now()))));
  await first();
  for (let step = 0; times.length < n && step < 200; step++) await clock.tick(10);
  await all;
  return times;
}

const gapsOf = (times: number[]) => times.slice(1).map((t, i) => t - times[i]!);

describe('RateLimiter', () => {
  test('callers go one interval apart, and no later than that', async () => {
    const clock = new TestClock();
    const times = await lettingGo(clock, 5, () => clock.tick(0));
    expect(gapsOf(times)).toEqual([100, 100, 100, 100]);
  });

  test('callers a stall woke late still go one interval apart, not all at once', async () => {
    const clock = new TestClock();
    // Every wait would have ended during the stall of two seconds.
    const times = await lettingGo(clock, 5, () => clock.stall(2_000));
    expect(
      gapsOf(times).every((g) => g >= 100),
      `let go at ${times.join(', ')}`,
    ).toBe(true);
  });
});
