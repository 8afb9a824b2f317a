/** The event engine's priming against a fake target and a fake clock: which subscriptions go live, after how many writes, when. */
import { afterEach, beforeEach, describe, expect, test, vi } from 'vitest';
import { PRIME_ATTEMPTS, prime, type PrimeOutcome } from '../../suites/events/engine/prime.js';
import type { EventTimes } from '../../suites/events/engine/waits.js';
import { resetLatency, slowestLatency } from '../../suites/harness/pace.js';
import { FakeSocket, FakeTarget, subscription } from './fake-target.js';

const times: EventTimes = { eventTimeoutMs: 5000, quietWindowMs: 1000 };
const LATENCY = 100;

// The priming feeds the run's learned pace: put back as it was for the files that share the module.
const pace = slowestLatency();
beforeEach(() => {
  vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout', 'performance'] });
});
afterEach(() => {
  vi.useRealTimers();
  resetLatency(pace);
});

/** Runs the fake clock until the priming ends; the outcome and the fake time it took. */
async function run(p: Promise<PrimeOutcome>): Promise<PrimeOutcome & { tookMs: number }> {
  const start = performance.now();
  let outcome: PrimeOutcome | undefined;
  void p.then((o) => (outcome = o));
  while (!outcome) await vi.advanceTimersByTimeAsync(10);
  return { ...outcome, tookMs: performance.now() - start };
}

describe('prime', () => {
  test('every subscription has the first change: all live, one write, done at the latency', async () => {
    const a = subscription('a');
    const b = subscription('b');
    const target = new FakeTarget([a.socket, b.socket], LATENCY);
    const out = await run(prime(times, [a, b], { write: target.write }));
    expect(out.notLive).toEqual([]);
    expect(out.writes).toHaveLength(1);
    expect([a.liveAt, b.liveAt]).toEqual([0, 0]);
    expect(out.tookMs).toBeLessThan(LATENCY + 100);
  });

  test('a lost event gets its second chance half a window after the first arrival, not a round later', async () => {
    const a = subscription('a');
    const b = subscription('b');
    const target = new FakeTarget([a.socket, b.socket], LATENCY, (s, write) => !(s === b.socket && write === 1));
    const out = await run(prime(times, [a, b], { write: target.write }));
    expect(out.notLive).toEqual([]);
    expect(out.writes).toHaveLength(2);
    expect(target.written[1]! - target.written[0]!).toBeGreaterThanOrEqual(LATENCY + times.quietWindowMs / 2);
    expect(target.written[1]! - target.written[0]!).toBeLessThan(LATENCY + times.quietWindowMs / 2 + 100);
    expect(b.liveAt).toBe(0);
  });

  test('a filter that excludes the change while another has it: not live after two writes', async () => {
    const a = subscription('a');
    const b = subscription('b');
    const target = new FakeTarget([a.socket, b.socket], LATENCY, (s) => s === a.socket);
    const out = await run(prime(times, [a, b], { write: target.write }));
    expect(out.notLive).toEqual([b]);
    expect(out.writes).toHaveLength(2);
    // The second write's quiet window, not an event timeout.
    expect(out.tookMs).toBeLessThan(times.eventTimeoutMs);
  });

  test('nothing arrives anywhere: every round, each waited an event timeout', async () => {
    const a = subscription('a');
    const target = new FakeTarget([a.socket], LATENCY, () => false);
    const out = await run(prime(times, [a], { write: target.write }));
    expect(out.notLive).toEqual([a]);
    expect(out.writes).toHaveLength(PRIME_ATTEMPTS);
    expect(out.tookMs).toBeGreaterThanOrEqual(PRIME_ATTEMPTS * times.eventTimeoutMs);
  });

  test('a socket the target closed ends the priming after its round', async () => {
    const a = subscription('a');
    const target = new FakeTarget([a.socket], LATENCY, () => false);
    setTimeout(() => a.socket.shut(1008, 'bad filter'), 50);
    const out = await run(prime(times, [a], { write: target.write }));
    expect(out.notLive).toEqual([a]);
    expect(out.writes).toHaveLength(1);
    expect(out.tookMs).toBeLessThan(times.eventTimeoutMs);
  });

  test('the time budget is asked before each further write: spent, the priming is cut', async () => {
    const a = subscription('a');
    const target = new FakeTarget([a.socket], LATENCY, () => false);
    const out = await run(prime(times, [a], { write: target.write, budget: () => false }));
    expect(out).toMatchObject({ notLive: [a], cut: true });
    expect(out.writes).toHaveLength(1);
  });

  test('a bystander that has the change shows the target signalled it: the wait shrinks to a window', async () => {
    const a = subscription('a');
    const bystander = new FakeSocket();
    const target = new FakeTarget([a.socket, bystander], LATENCY, (s) => s === bystander);
    const out = await run(prime(times, [a], { write: target.write, bystanders: [bystander] }));
    expect(out.notLive).toEqual([a]);
    expect(out.writes).toHaveLength(2);
    expect(out.tookMs).toBeLessThan(times.eventTimeoutMs);
  });

  test('a write that does not take ends the priming: nothing to wait for', async () => {
    const a = subscription('a');
    const out = await run(prime(times, [a], { write: async () => undefined }));
    expect(out).toMatchObject({ notLive: [a], writes: [] });
  });

  test('a subscription live already is not primed again', async () => {
    const a = { ...subscription('a'), liveAt: 3 };
    const write = vi.fn();
    const out = await run(prime(times, [a], { write }));
    expect(out.notLive).toEqual([]);
    expect(write).not.toHaveBeenCalled();
  });
});
