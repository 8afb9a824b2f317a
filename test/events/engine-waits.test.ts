/** The event engine's waits and its words for a subscription, against fake sockets and a fake clock. */
import { afterEach, beforeEach, describe, expect, test, vi } from 'vitest';
import { closedBy, matching, neverLive, recent } from '../../suites/events/engine/subscription.js';
import { collectTogether, waitUntil, type EventTimes } from '../../suites/events/engine/waits.js';
import { FakeSocket, subscription } from './fake-target.js';

const times: EventTimes = { eventTimeoutMs: 5000, quietWindowMs: 1000 };

beforeEach(() => {
  vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout', 'performance'] });
});
afterEach(() => {
  vi.useRealTimers();
});

/** Runs the fake clock until `p` settles; its value and the fake time it took. */
async function run<T>(p: Promise<T>): Promise<{ value: T; tookMs: number }> {
  const start = performance.now();
  let done: { value: T } | undefined;
  void p.then((value) => (done = { value }));
  while (!done) await vi.advanceTimersByTimeAsync(10);
  return { value: done.value, tookMs: performance.now() - start };
}

describe('waitUntil', () => {
  test('ends at the message that makes it hold, not at its deadline', async () => {
    const s = new FakeSocket();
    setTimeout(() => s.push({ n: 1 }), 300);
    const out = await run(
      waitUntil(
        () => s.events.length > 0,
        () => performance.now() + 10_000,
        [s],
      ),
    );
    expect(out.value).toBe(true);
    expect(out.tookMs).toBeLessThan(400);
  });

  test('says false at its deadline, re-read on each look: a deadline that moves is kept', async () => {
    const s = new FakeSocket();
    const start = performance.now();
    let deadline = start + 5000;
    // An event elsewhere shows the target signalled: the deadline shrinks to a window after it.
    setTimeout(() => (deadline = performance.now() + 1000), 200);
    const out = await run(
      waitUntil(
        () => false,
        () => deadline,
        [s],
      ),
    );
    expect(out.value).toBe(false);
    expect(out.tookMs).toBeGreaterThanOrEqual(1200);
    expect(out.tookMs).toBeLessThan(1300);
  });
});

describe('collectTogether', () => {
  test('once one subscription has its count, the others get one quiet window more, not an event timeout', async () => {
    const a = subscription('a');
    const b = subscription('b');
    setTimeout(() => a.socket.push({ n: 1 }), 100);
    const out = await run(
      collectTogether(times, [
        { subscription: a, pred: () => true, count: 1, from: 0 },
        { subscription: b, pred: () => true, count: 1, from: 0 },
      ]),
    );
    expect(out.tookMs).toBeGreaterThanOrEqual(100 + times.quietWindowMs);
    expect(out.tookMs).toBeLessThan(times.eventTimeoutMs);
  });

  test('none has its count: each waits its event timeout, then the window', async () => {
    const a = subscription('a');
    const out = await run(collectTogether(times, [{ subscription: a, pred: () => true, count: 1, from: 0 }]));
    expect(out.tookMs).toBeGreaterThanOrEqual(times.eventTimeoutMs + times.quietWindowMs);
  });
});

describe('a subscription in words', () => {
  test('what arrived, the last few; why it never went live; how the target closed it', () => {
    const s = subscription('/a');
    expect(recent(s.socket)).toBe('nothing arrived');
    for (let i = 0; i < 8; i++) s.socket.push({ n: i });
    expect(recent(s.socket)).toMatch(/^8 message\(s\) arrived \(last 6\): #2 \{"n":2\}/);
    expect(neverLive(s)).toMatch(/^\/a \(filter \{"paths":\["\/a"\]\}\) never delivered the change it admits; 8 message/);
    expect(closedBy(s)).toBeUndefined();
    s.socket.shut(1008, 'bad filter');
    expect(neverLive(s)).toBe('the target closed /a (filter {"paths":["/a"]}) with code 1008 "bad filter"');
  });

  test('matching: a predicate that throws matches nothing', () => {
    const s = subscription('/a');
    s.socket.push({ n: 1 });
    s.socket.push(null);
    expect(matching(s.socket, (d) => (d as { n: number }).n === 1).map((e) => e.seq)).toEqual([0]);
  });
});
