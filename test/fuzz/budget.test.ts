/** A fuzzing property's time limit follows the target's pace, the embedded dialects' included. */
import { describe, expect, it } from 'vitest';
import type { RunConfig } from '../../runner/config.js';
import { fuzzTimeLimitMs } from '../../suites/fuzz/fuzz-check.js';

const cfg = (over: Partial<RunConfig>): RunConfig => ({ fuzzRuns: 300, embedded: true, ...over }) as RunConfig;

describe('fuzzTimeLimitMs', () => {
  it('the fast simulator gets the 10 s floor; a dialect at its field pace gets its time per request, twice over', () => {
    expect(fuzzTimeLimitMs(cfg({}), 2)).toBe(10_000);
    expect(fuzzTimeLimitMs(cfg({ embeddedRequestMs: 0 }), 2)).toBe(10_000);
    expect(fuzzTimeLimitMs(cfg({ embeddedRequestMs: 30 }), 2)).toBe(300 * 2 * 30 * 2);
  });

  it('a target: 1.5 s a request, or its rate cap when slower', () => {
    expect(fuzzTimeLimitMs(cfg({ embedded: false, fuzzRuns: 100 }), 1)).toBe(100 * 1500 * 2);
    expect(fuzzTimeLimitMs(cfg({ embedded: false, fuzzRuns: 100, maxRequestsPerSecond: 0.5 }), 1)).toBe(100 * 2000 * 2);
  });
});
