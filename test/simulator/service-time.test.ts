/** The single-threaded server's queue: each request holds the server for its service time, in turn. */
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { ServiceQueue } from '../../simulator/dialects/service-time.js';

beforeEach(() => {
  vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout', 'Date'] });
});

afterEach(() => {
  vi.useRealTimers();
});

/** A queue on the fake clock, and the fake time at which each served request was released. */
function queueWithLog(): { queue: ServiceQueue; served: (name: string, ms: number) => void; log: Array<[string, number]> } {
  const start = Date.now();
  const queue = new ServiceQueue({ now: () => Date.now() });
  const log: Array<[string, number]> = [];
  const served = (name: string, ms: number): void => {
    void queue.serve(ms).then(() => log.push([name, Date.now() - start]));
  };
  return { queue, served, log };
}

describe('ServiceQueue', () => {
  it('answers a lone request after its service time', async () => {
    const { served, log } = queueWithLog();
    served('a', 30);
    await vi.advanceTimersByTimeAsync(29);
    expect(log).toEqual([]);
    await vi.advanceTimersByTimeAsync(1);
    expect(log).toEqual([['a', 30]]);
  });

  it('serves concurrent requests one at a time, in arrival order', async () => {
    const { served, log } = queueWithLog();
    served('a', 30);
    served('b', 30);
    served('c', 100);
    await vi.advanceTimersByTimeAsync(200);
    expect(log).toEqual([
      ['a', 30],
      ['b', 60],
      ['c', 160],
    ]);
  });

  it('a request arriving while another is served waits for the rest of it; an idle server starts at once', async () => {
    const { queue, served, log } = queueWithLog();
    served('a', 50);
    await vi.advanceTimersByTimeAsync(20);
    expect(queue.backlogMs()).toBe(30);
    served('b', 10);
    await vi.advanceTimersByTimeAsync(100);
    expect(queue.backlogMs()).toBe(0);
    served('c', 10);
    await vi.advanceTimersByTimeAsync(10);
    expect(log).toEqual([
      ['a', 50],
      ['b', 60],
      ['c', 130],
    ]);
  });

  it('a request of 0 ms neither waits nor holds the server', async () => {
    const { served, log } = queueWithLog();
    served('a', 40);
    served('free', 0);
    served('b', 40);
    await vi.advanceTimersByTimeAsync(0);
    expect(log).toEqual([['free', 0]]);
    await vi.advanceTimersByTimeAsync(80);
    expect(log).toEqual([
      ['free', 0],
      ['a', 40],
      ['b', 80],
    ]);
  });

  it('close releases every queued request at once and later ones do not wait', async () => {
    const { queue, served, log } = queueWithLog();
    served('a', 1_000);
    served('b', 1_000);
    await vi.advanceTimersByTimeAsync(10);
    queue.close();
    served('c', 1_000);
    await vi.advanceTimersByTimeAsync(0);
    expect(log.map(([name]) => name)).toEqual(['a', 'b', 'c']);
    expect(vi.getTimerCount()).toBe(0);
  });
});
