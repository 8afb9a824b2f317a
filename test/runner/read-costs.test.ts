import { describe, expect, test } from 'vitest';
import type { RunConfig } from '../../runner/config.js';
import { COSTLY_ENUMERATE_MS, planReads } from '../../runner/read-costs.js';
import { DEFAULTS } from '../../runner/settings.js';

const config = (statefulTimeMs: number | undefined) => ({ statefulTimeMs }) as RunConfig;

describe('planReads', () => {
  test('a target whose whole-tree enumerate costs seconds gives each stateful check a target budget', () => {
    const cfg = config(undefined);
    const plan = planReads(cfg, 3012.4);
    expect(cfg.statefulTimeMs).toBe(DEFAULTS.url.statefulTimeMs);
    expect(plan.rootEnumerateMs).toBe(3012);
    expect(plan.notes).toEqual([
      `a whole-tree enumerate takes 3.0 s: each stateful check gets a target's budget of 10 s (--stateful-time)`,
    ]);
  });

  test('a fast target keeps every sequence, and a budget given stays as it is', () => {
    const fast = config(undefined);
    expect(planReads(fast, COSTLY_ENUMERATE_MS - 1).notes).toEqual([]);
    expect(fast.statefulTimeMs).toBeUndefined();
    const given = config(25_000);
    expect(planReads(given, 5000).notes).toEqual([]);
    expect(given.statefulTimeMs).toBe(25_000);
  });
});
