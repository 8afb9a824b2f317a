/**
 * What a person watching a load sees while it runs and at its end: the capacity search's step and
 * the time it may still take, on the status line of a terminal or as lines in a log; the verdict
 * line, which speaks of thresholds only when some were given.
 */
import { describe, expect, test } from 'vitest';
import { findCapacity, maxCapacitySteps, type StepStart } from '../../load/capacity/capacity.js';
import type { LoadDocument } from '../../load/load-document.js';
import type { OpenLoopFigures } from '../../load/open-loop.js';
import type { ScenarioReport } from '../../load/report/model.js';
import { ProgressLine, capacityStepText, isCi, verdictLine } from '../../load/terminal.js';
import type { ThresholdResult } from '../../load/thresholds.js';

/** A target that holds p99 at 20 ms up to `capacity` requests/s and 900 ms above. */
const target =
  (capacity: number, each?: () => void) =>
  async (rate: number): Promise<OpenLoopFigures> => {
    each?.();
    const p99 = rate <= capacity ? 20 : 900;
    const latency = { count: 10, min: 1, mean: 5, p50: 5, p90: 10, p99, p999: p99, max: p99 };
    return {
      requests: rate,
      failed: 0,
      requestsPerSecond: rate,
      latency,
      steps: [],
      sendLagMs: { ...latency, p99: 0.5 },
    } as unknown as OpenLoopFigures;
  };
const opts = { startRate: 10, maxRate: 10_000, p99BoundMs: 250, precision: 0.05, maxBisections: 6, pauseMs: 0 };

describe('capacity search progress', () => {
  test('each step is announced once, in order, within a bound that holds and only shrinks', async () => {
    const seen: StepStart[] = [];
    const r = await findCapacity(target(130), { ...opts, onStep: (s) => seen.push(s) });
    expect(seen.map((s) => s.index)).toEqual(r.steps.map((_, i) => i + 1));
    expect(seen.map((s) => s.rate)).toEqual(r.steps.map((s) => s.rate));
    expect(seen[0]!.bound).toBe(maxCapacitySteps(opts));
    for (const [i, s] of seen.entries()) {
      expect(s.index).toBeLessThanOrEqual(s.bound);
      if (i > 0) expect(s.bound).toBeLessThanOrEqual(seen[i - 1]!.bound);
    }
    // Once the climb failed, the bound is the steps taken and the bisections left.
    const climb = r.steps.filter((s) => s.phase === 'climb').length;
    expect(seen.find((s) => s.phase === 'bisect')!.bound).toBe(climb + opts.maxBisections);
  });

  test('the bound of a climb that reaches the rate cap', () => {
    // 10, 20, 40, 80, 100: five climbs, then at most six bisections.
    expect(maxCapacitySteps({ startRate: 10, maxRate: 100, maxBisections: 6 })).toBe(11);
    expect(maxCapacitySteps({ startRate: 100, maxRate: 100, maxBisections: 4 })).toBe(5);
  });

  test('interrupted, the search ends after the step under way and says so', async () => {
    const ctl = new AbortController();
    let calls = 0;
    const seen: StepStart[] = [];
    const r = await findCapacity(
      target(1e9, () => {
        if (++calls === 3) ctl.abort();
      }),
      { ...opts, signal: ctl.signal, onStep: (s) => seen.push(s) },
    );
    expect(r.limitedBy).toBe('interrupted');
    expect(calls).toBe(3);
    expect(seen).toHaveLength(3);
    // The cut step proves nothing: the answer is the last step that ran to its end.
    expect(r.steps.map((s) => [s.rate, s.sustained, s.interrupted ?? false])).toEqual([
      [10, true, false],
      [20, true, false],
      [40, false, true],
    ]);
    expect(r.sustainableRps).toBe(20);
  });

  test('the step reads as "step 3 of ≤8: 400 req/s" with the time left', () => {
    expect(capacityStepText({ index: 3, bound: 8, phase: 'climb', rate: 400, leftS: 52 })).toBe(
      'capacity step 3 of ≤8: 400 req/s, ~52 s left at most',
    );
    expect(capacityStepText({ index: 1, bound: 8, phase: 'climb', rate: 5, leftS: 610 })).toMatch(/~11 min left at most$/);
  });
});

describe('progress line', () => {
  const sink = (isTTY: boolean) => {
    const chunks: string[] = [];
    return { chunks, out: { isTTY, columns: 200, write: (s: string) => chunks.push(s) > 0 } };
  };
  const second = { elapsedS: 1, requests: 100, failed: 0, lastSecondRps: 100, p99: 3 };

  test('on a terminal: one status line rewritten in place, the step before the figures', () => {
    const { chunks, out } = sink(true);
    const line = new ProgressLine(out, {});
    line.capacityStep('get-object', 'capacity step 3 of ≤8: 400 req/s, ~52 s left at most');
    line.update('get-object', second, 3);
    expect(chunks.every((c) => c.startsWith('\r') && c.endsWith('\x1b[K') && !c.includes('\n'))).toBe(true);
    expect(chunks[1]).toMatch(/get-object +capacity step 3 of ≤8: 400 req\/s, ~52 s left at most · +1\/3 s/);
    line.clear();
    expect(chunks.at(-1)).toBe('\r\x1b[K');
  });

  test('in a log, or on a terminal under CI: plain lines, one per step', () => {
    for (const [isTTY, env] of [
      [false, {}],
      [true, { CI: 'true' }],
    ] as const) {
      const { chunks, out } = sink(isTTY);
      const line = new ProgressLine(out, env);
      line.capacityStep('get-object', 'capacity step 1 of ≤8: 50 req/s, ~60 s left at most');
      line.capacityStep('get-object', 'capacity step 2 of ≤8: 100 req/s, ~56 s left at most');
      expect(chunks).toEqual([
        '  get-object: capacity step 1 of ≤8: 50 req/s, ~60 s left at most\n',
        '  get-object: capacity step 2 of ≤8: 100 req/s, ~56 s left at most\n',
      ]);
      line.clear();
      expect(chunks).toHaveLength(2);
    }
  });

  test('CI is set unless empty, false or 0', () => {
    expect([{ CI: 'true' }, { CI: '1' }, { CI: 'woodpecker' }].map((e) => isCi(e))).toEqual([true, true, true]);
    expect([{}, { CI: '' }, { CI: 'false' }, { CI: '0' }].map((e) => isCi(e))).toEqual([false, false, false, false]);
  });
});

describe('verdict line', () => {
  const result = { scenario: 'get-object', stoppedBy: 'duration' } as ScenarioReport;
  const doc = (over: Partial<LoadDocument>): LoadDocument =>
    ({
      results: [result],
      thresholds: [],
      failures: [],
      verdict: 'pass',
      settings: { scenarios: ['get-object'] },
      ...over,
    }) as unknown as LoadDocument;
  const implicit: ThresholdResult = { scope: '(default)', scenario: 'get-object', rule: 'failed == 0', actual: 0, pass: true };
  const given: ThresholdResult = { scope: 'get-object', scenario: 'get-object', rule: 'p99 < 250ms', actual: 3, pass: true };

  test('without thresholds it says none were given, and counts no implicit rule as one met', () => {
    const line = verdictLine(doc({ thresholds: [implicit] }));
    expect(line).toBe('PASS: no request failed (no thresholds given)');
    expect(line).not.toMatch(/threshold\(s\) met/);
  });

  test('with thresholds it counts those given', () => {
    expect(verdictLine(doc({ thresholds: [implicit, given] }))).toBe('PASS: 1 threshold(s) met');
  });

  test('an interrupted run is neither a pass nor a fail', () => {
    const line = verdictLine(
      doc({
        verdict: 'interrupted',
        interrupted: { signal: 'SIGTERM', at: '2026-01-01T00:00:00Z' },
        results: [{ ...result, stoppedBy: 'interrupted' }],
        settings: { scenarios: ['get-object', 'get-attr'] } as LoadDocument['settings'],
      }),
    );
    expect(line).toBe('INTERRUPTED (SIGTERM): partial results of 1 of 2 scenario(s), 1 cut short');
  });
});
