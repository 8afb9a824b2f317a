/** The pure parts of load runs: histograms, request mixes, value cycles, ramps, drift, thresholds, baselines, the capacity search. */
import { describe, expect, test } from 'vitest';
import { compareToBaseline } from '../../load/baseline.js';
import { findCapacity, type StepFigures } from '../../load/capacity/capacity.js';
import { LatencyHistogram } from '../../load/histogram.js';
import type { OpenLoopFigures } from '../../load/open-loop.js';
import type { ScenarioReport } from '../../load/report/model.js';
import { weightedSource } from '../../load/request-source.js';
import { rampSteps } from '../../load/run-load.js';
import { driftOf } from '../../load/soak.js';
import { evaluate, parseRule } from '../../load/thresholds.js';
import { ValueCycle, sameValue } from '../../load/values.js';
import { UsageError } from '../../client/usage-error.js';

describe('latency histogram', () => {
  test('keeps microseconds and survives its compressed form', () => {
    const h = new LatencyHistogram();
    for (let i = 0; i < 99; i++) h.recordMs(0.25);
    h.recordMs(40);
    const s = h.summary();
    expect(s.p50).toBeCloseTo(0.25, 3);
    expect(s.p99).toBeCloseTo(0.25, 3);
    expect(s.max).toBeCloseTo(40, 1);
    expect(s.p999).toBeLessThanOrEqual(s.max);
    const copy = new LatencyHistogram(h.encode());
    expect(copy.count).toBe(100);
    expect(copy.summary().p50).toBeCloseTo(0.25, 3);
  });
});

test('a weighted mix interleaves requests in proportion to their weights', () => {
  const src = weightedSource([
    { req: { method: 'GET', path: '/a' }, weight: 3 },
    { req: { method: 'GET', path: '/b' }, weight: 1 },
  ]);
  const seen = Array.from({ length: 8 }, () => src.next().path);
  expect(seen.filter((p) => p === '/a')).toHaveLength(6);
  // Never three /b in a row, never a run of more than three /a.
  expect(seen.join('')).not.toMatch(/(\/a){4}/);
});

describe('values to write', () => {
  test('strings are fresh every time, numbers and booleans alternate, enumerations cycle their declared values', () => {
    const s = ValueCycle.for({ path: '/p', name: 'Tag' }, 'ASSET-1') as ValueCycle;
    const values = [s.next(), s.next(), s.next()];
    expect(new Set(values).size).toBe(3);
    expect(values).not.toContain('ASSET-1');
    const b = ValueCycle.for({ path: '/p', name: 'On' }, 0) as ValueCycle;
    expect([b.next(), b.next(), b.next()]).toEqual([1, 0, 1]);
    const e = ValueCycle.for({ path: '/p', name: 'State', values: ['x.A', 'x.B', 'x.C'] }, 'x.B') as ValueCycle;
    expect([e.next(), e.next(), e.next()]).toEqual(['x.C', 'x.A', 'x.B']);
    expect(e.touched).toBe(true);
  });

  test('an enumeration without declared values is refused with the reason', () => {
    expect(ValueCycle.for({ path: '/p', name: 'State' }, 'xyz.ns.Led.Action.Off')).toMatch(/--writable/);
  });

  test('a D-Bus boolean equals its 0/1 rendering', () => {
    expect(sameValue(true, 1)).toBe(true);
    expect(sameValue(false, 1)).toBe(false);
    expect(sameValue(5n, 5)).toBe(true);
  });
});

test('a ramp goes from A to B in N steps of at least a second', () => {
  expect(rampSteps(5, 50, 10, 20).map((s) => s.rate)).toEqual([5, 10, 15, 20, 25, 30, 35, 40, 45, 50]);
  expect(rampSteps(5, 50, 10, 20)[0]!.durationS).toBe(2);
  expect(rampSteps(5, 50, 10, 3)[0]!.durationS).toBe(1);
});

test('soak drift compares the first and the last full window', () => {
  const w = (index: number, p99: number, failed = 0) => ({
    index,
    startS: index * 10,
    endS: index * 10 + 10,
    requests: 100,
    failed,
    errorRate: failed / 100,
    requestsPerSecond: 10,
    latency: { count: 100, min: 1, mean: 2, p50: 2, p90: 3, p99, p999: p99, max: p99 },
  });
  const drift = driftOf([w(0, 10), w(1, 12), w(2, 20, 5), { ...w(3, 90), endS: 32 }], 10)!;
  expect(drift.windows).toBe(3);
  expect(drift.p99ChangePct).toBe(100);
  expect(drift.errorRateChangePoints).toBe(5);
  expect(driftOf([w(0, 10)], 10)).toBeUndefined();
});

function report(scenario: string, over: Partial<ScenarioReport> = {}): ScenarioReport {
  const latency = { count: 10, min: 1, mean: 5, p50: 4, p90: 8, p99: 10, p999: 12, max: 12 };
  return {
    scenario,
    description: '',
    mode: 'closed',
    connections: 2,
    requests: 100,
    ok: 100,
    non2xx: 0,
    errors: 0,
    timeouts: 0,
    failed: 0,
    errorRate: 0,
    durationS: 1,
    requestsPerSecond: 100,
    bytes: 0,
    bytesPerSecond: 0,
    statusCodes: {},
    latency,
    curve: [],
    histogram: '',
    series: [],
    stoppedBy: 'duration',
    ...over,
  };
}

describe('thresholds', () => {
  test('units are understood and each miss is named', () => {
    expect(parseRule('x', 'event_p99 < 2s').value).toBe(2000);
    expect(parseRule('x', 'p99 < 250us').value).toBe(0.25);
    expect(parseRule('x', 'error_rate <= 1%').value).toBe(1);
    const rules = [parseRule('get-object', 'p99 < 5ms'), parseRule('*', 'rps >= 50'), parseRule('events', 'event_p99 < 2s')];
    const results = evaluate(rules, [report('get-object'), report('get-attr', { requestsPerSecond: 20 })], {});
    const misses = results.filter((r) => !r.pass).map((r) => `${r.scenario}: ${r.rule}`);
    expect(misses).toEqual(['get-object: p99 < 5ms', 'get-attr: rps >= 50']);
    expect(results.find((r) => r.scope === 'events')?.note).toMatch(/not run/);
  });

  test('a failed request fails the run unless a rule says how many may fail', () => {
    const failing = report('get-object', { failed: 3, non2xx: 3 });
    expect(evaluate([], [failing], {}).some((r) => !r.pass && r.rule === 'failed == 0')).toBe(true);
    expect(evaluate([parseRule('*', 'error_rate < 5%')], [failing], {}).every((r) => r.pass)).toBe(true);
  });

  test('a rule on a metric the run did not measure is a miss, not a silent pass', () => {
    const [r] = evaluate([parseRule('get-object', 'capacity >= 100')], [report('get-object')], {}).filter((x) => x.rule !== 'failed == 0');
    expect(r).toMatchObject({ pass: false });
    expect(r!.note).toMatch(/--find-capacity/);
  });

  test('malformed rules and unknown metrics are usage errors', () => {
    expect(() => parseRule('x', 'p99 is small')).toThrow(UsageError);
    expect(() => parseRule('x', 'p98 < 3ms')).toThrow(/unknown metric p98/);
    expect(() => parseRule('x', 'rps > 3ms')).toThrow(UsageError);
  });
});

test('a baseline regression needs more than the tolerance and, for latency, a real millisecond', () => {
  const base = [report('a', { latency: { ...report('a').latency, p99: 0.4 } }), report('b')];
  const now = [
    report('a', { latency: { ...report('a').latency, p99: 0.7 } }),
    report('b', { requestsPerSecond: 70, latency: { ...report('b').latency, p99: 30 } }),
  ];
  const changes = compareToBaseline(now, base, 20);
  expect(
    changes
      .filter((c) => c.regression)
      .map((c) => `${c.scenario} ${c.metric}`)
      .sort(),
  ).toEqual(['b p99', 'b rps']);
});

describe('capacity search', () => {
  const target =
    (capacity: number) =>
    async (rate: number): Promise<OpenLoopFigures> => {
      const p99 = rate <= capacity ? 20 : 900;
      const latency = { count: 10, min: 1, mean: 5, p50: 5, p90: 10, p99, p999: p99, max: p99 };
      return { ...report('x', { latency, requestsPerSecond: rate }), steps: [], sendLagMs: { ...latency, p99: 0.5 } } as OpenLoopFigures;
    };
  const opts = { startRate: 10, maxRate: 10_000, p99BoundMs: 250, precision: 0.05, maxBisections: 6, pauseMs: 0 };

  test('climbs by doubling, then bisects to within the precision', async () => {
    const r = await findCapacity(target(130), opts);
    expect(r.limitedBy).toBe('p99');
    expect(r.sustainableRps).toBeLessThanOrEqual(130);
    expect(r.sustainableRps).toBeGreaterThan(130 * 0.9);
    expect(r.steps.filter((s) => s.phase === 'climb').map((s) => s.rate)).toEqual([10, 20, 40, 80, 160]);
  });

  test('a slower target gets the lower answer; a fast one stops at the rate cap', async () => {
    const slow = await findCapacity(target(30), opts);
    const fast = await findCapacity(target(1e9), { ...opts, maxRate: 500 });
    expect(slow.sustainableRps).toBeLessThan(40);
    expect(fast).toMatchObject({ sustainableRps: 500, limitedBy: 'max-rate' });
  });
});

describe('capacity search, conformant criterion', () => {
  /** A target fast at every rate whose verification breaks EP-8 from `brokenAt` requests/s on. */
  const target =
    (brokenAt: number) =>
    async (rate: number): Promise<StepFigures> => {
      const latency = { count: 10, min: 1, mean: 5, p50: 5, p90: 10, p99: 20, p999: 20, max: 20 };
      const f = { ...report('x', { latency, requestsPerSecond: rate }), steps: [], sendLagMs: { ...latency, p99: 0.5 } } as OpenLoopFigures;
      return rate >= brokenAt ? { ...f, violation: { requirement: 'EP-8', problem: 'a stale read' } } : f;
    };
  const opts = { startRate: 10, maxRate: 1_000, precision: 0.05, maxBisections: 6, pauseMs: 0 };

  test('stops below the rate where a violation appears, and says which requirement broke from where', async () => {
    const r = await findCapacity(target(200), { ...opts, criterion: 'conformant' });
    expect(r.limitedBy).toBe('conformance');
    expect(r.criterion).toBe('conformant');
    expect(r.sustainableRps).toBeLessThan(200);
    expect(r.sustainableRps).toBeGreaterThanOrEqual(160);
    expect(r.brokenFrom?.requirement).toBe('EP-8');
    // The lowest failing step: the bisection brings it down from the climb's 320 towards 200.
    expect(r.brokenFrom!.rps).toBeGreaterThanOrEqual(200);
    expect(r.brokenFrom!.rps).toBeLessThan(320);
    expect(r.p99BoundMs).toBeUndefined();
  });

  test('the p99 criterion is not stopped by a violation; a clean target is not stopped by conformance', async () => {
    const byP99 = await findCapacity(target(200), { ...opts, p99BoundMs: 250 });
    expect(byP99).toMatchObject({ sustainableRps: 1_000, limitedBy: 'max-rate', criterion: 'p99' });
    expect(byP99.brokenFrom).toBeUndefined();
    const clean = await findCapacity(target(Infinity), { ...opts, criterion: 'conformant' });
    expect(clean).toMatchObject({ sustainableRps: 1_000, limitedBy: 'max-rate' });
  });

  test('with a p99 bound given, the conformant search is bounded by p99 too', async () => {
    const slow = async (rate: number): Promise<StepFigures> => {
      const f = await target(Infinity)(rate);
      return rate > 100 ? { ...f, latency: { ...f.latency, p99: 900 } } : f;
    };
    const r = await findCapacity(slow, { ...opts, criterion: 'conformant', p99BoundMs: 250 });
    expect(r.limitedBy).toBe('p99');
    expect(r.sustainableRps).toBeLessThanOrEqual(100);
  });
});
