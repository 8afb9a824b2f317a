/**
 * The engines against the simulator on 127.0.0.1: open-loop latency counts the requests a stalled
 * target held back (coordinated omission corrected), and no run exceeds its bounds.
 */
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { BmcClient } from '../../client/http.js';
import { closedLoop } from '../../load/closed-loop.js';
import type { EngineOptions } from '../../load/engine.js';
import { openLoop } from '../../load/open-loop.js';
import { LatencyHistogram } from '../../load/histogram.js';
import { fixedSource } from '../../load/request-source.js';
import { sessionHeaders } from '../../load/session-headers.js';
import { startSimulator, type RunningSimulator } from '../../simulator/index.js';

const NS = 'mgmt_project';
const PATH = `/xyz/${NS}/inventory/system`;

async function session(sim: RunningSimulator): Promise<{ client: BmcClient; opts: (over: Partial<EngineOptions>) => EngineOptions }> {
  const client = new BmcClient({ baseUrl: sim.url, user: 'root', password: '0penBmc', insecure: true, timeoutMs: 10_000 });
  await client.login();
  const opts = (over: Partial<EngineOptions>): EngineOptions => ({
    baseUrl: sim.url,
    insecure: true,
    headers: sessionHeaders(client, NS),
    source: fixedSource({ method: 'GET', path: PATH }),
    connections: 2,
    durationS: 1,
    maxRequests: 100_000,
    timeoutMs: 10_000,
    abortErrorRate: 0.1,
    ...over,
  });
  return { client, opts };
}

/** How many of a run's samples took `ms` or more, read off its HDR histogram (to the histogram's precision). */
function samplesAtLeast(encoded: string, ms: number): number {
  const h = new LatencyHistogram(encoded);
  // The lowest percentile whose latency reaches `ms`, by bisection: the samples above it reach it too.
  let lo = 0;
  let hi = 100;
  for (let i = 0; i < 40; i++) {
    const mid = (lo + hi) / 2;
    if (h.percentileMs(mid) >= ms) hi = mid;
    else lo = mid;
  }
  return h.percentileMs(100) >= ms ? Math.round((h.count * (100 - lo)) / 100) : 0;
}

describe('a target that stalls (slow-stalls: 1 s in every 3 s)', () => {
  let sim: RunningSimulator;
  let s: Awaited<ReturnType<typeof session>>;
  beforeAll(async () => {
    sim = await startSimulator({ faults: ['slow-stalls'] });
    s = await session(sim);
  });
  afterAll(async () => {
    await s.client.close();
    await sim.close();
  });

  test('open loop records every request the stall held back; closed loop with one connection records one per stall', async () => {
    // Side by side through the same stalls; 3.5 s hold at least 1 s of stall wherever they start.
    const [open, closed] = await Promise.all([
      openLoop(s.opts({ durationS: 3.5 }), [{ rate: 40, durationS: 3.5 }]),
      closedLoop(s.opts({ connections: 1, durationS: 3.5 })),
    ]);
    expect(open.failed).toBe(0);
    expect(closed.failed).toBe(0);
    // Requests due at the start of a stall wait for all of it, measured from their due time.
    expect(open.latency.p99).toBeGreaterThan(500);
    // At 40/s about 40 of the 140 requests are due in a stall, 28 of them held 300 ms or more: over a tenth.
    expect(open.latency.p90).toBeGreaterThan(300);
    // Closed loop sends nothing while its one request waits: each stall shows as a single slow sample
    // (3.5 s meet at most two stalls), where the open loop counts every request due in it. Counted,
    // not compared as percentiles or throughput, which a busy machine moves.
    expect(samplesAtLeast(closed.histogram, 500)).toBeLessThanOrEqual(2);
    expect(samplesAtLeast(open.histogram, 500)).toBeGreaterThanOrEqual(10);
  });
});

describe('bounds', () => {
  let sim: RunningSimulator;
  let s: Awaited<ReturnType<typeof session>>;
  beforeAll(async () => {
    sim = await startSimulator();
    s = await session(sim);
  });
  afterAll(async () => {
    await s.client.close();
    await sim.close();
  });

  test('closed loop stops at its request cap, and at its duration', async () => {
    const capped = await closedLoop(s.opts({ durationS: 5, maxRequests: 150, connections: 4 }));
    expect(capped.requests).toBeLessThanOrEqual(150);
    expect(capped.requests).toBeGreaterThan(0);
    expect(capped.stoppedBy).toBe('request-cap');
    const timed = await closedLoop(s.opts({ durationS: 1, maxRequests: 1_000_000 }));
    expect(timed.stoppedBy).toBe('duration');
    // Stopped by its 1 s duration, not by the million requests (minutes away): a bound a machine
    // several times slower keeps (autocannon stops on its next one-second tick).
    expect(timed.durationS).toBeLessThan(10);
  });

  test('open loop sends exactly what its steps plan, and no more than its cap', async () => {
    const planned = await openLoop(s.opts({}), [
      { rate: 20, durationS: 0.5 },
      { rate: 40, durationS: 0.5 },
    ]);
    expect(planned.steps.map((x) => x.requests)).toEqual([10, 20]);
    expect(planned.requests).toBe(30);
    const capped = await openLoop(s.opts({ maxRequests: 7 }), [{ rate: 50, durationS: 2 }]);
    expect(capped.requests).toBe(7);
    expect(capped.stoppedBy).toBe('request-cap');
  });

  test('a run against a target that fails every request stops early on the error rate', async () => {
    const started = performance.now();
    const dead = await openLoop(s.opts({ baseUrl: 'https://127.0.0.1:1', timeoutMs: 2_000 }), [{ rate: 50, durationS: 30 }]);
    expect(dead.stoppedBy).toBe('error-rate');
    expect(dead.stopNote).toMatch(/stopped early: \d+ of \d+ requests failed/);
    expect(dead.errors).toBe(dead.requests);
    // Stopped early: the plan was 30 s.
    expect(performance.now() - started).toBeLessThan(25_000);
  });

  test('an interrupted run stops at once', async () => {
    const ctl = new AbortController();
    setTimeout(() => ctl.abort(), 300);
    const r = await closedLoop(s.opts({ durationS: 20, signal: ctl.signal }));
    expect(r.stoppedBy).toBe('interrupted');
    // Stopped at once, not after the 20 s planned.
    expect(r.durationS).toBeLessThan(15);
  });
});
