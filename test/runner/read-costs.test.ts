import { describe, expect, test } from 'vitest';
import type { RunConfig } from '../../runner/config.js';
import { COSTLY_ENUMERATE_MS, nearTheLine, objectSnapshotMs, OBJECT_READS_AT_ONCE, planReads } from '../../runner/read-costs.js';
import { DEFAULTS } from '../../runner/settings.js';

const config = (statefulTimeMs: number | undefined, treeSnapshot?: RunConfig['treeSnapshot']) =>
  ({ statefulTimeMs, treeSnapshot, fuzzRuns: DEFAULTS.simulator.fuzzRuns }) as RunConfig;

/** 55 objects listed in 5 ms, a batch of four GETs in 15 ms: 5 + 14 × 15 = 215 ms. */
const CHEAP_OBJECTS = { listMs: 5, listed: 55, batchMs: 15 };

describe('planReads', () => {
  test('a target whose whole-tree enumerate costs seconds gives each stateful check a target budget', () => {
    const cfg = config(undefined);
    const plan = planReads(cfg, 3012.4);
    expect(cfg.statefulTimeMs).toBe(DEFAULTS.url.statefulTimeMs);
    expect(cfg.rootEnumerateMs).toBe(3012);
    expect(plan.rootEnumerateMs).toBe(3012);
    expect(plan.notes).toEqual([
      `a whole-tree enumerate takes 3.0 s: each stateful check gets a target's budget of 10 s (--stateful-time)`,
      `each fuzzing property generates a target's 100 cases (--fuzz-runs)`,
    ]);
    expect(cfg.fuzzRuns).toBe(DEFAULTS.url.fuzzRuns);
  });

  test('--fuzz-runs given, or a fast target: the cases stay as they are', () => {
    const given = config(1);
    planReads(given, 3000, undefined, true);
    expect(given.fuzzRuns).toBe(DEFAULTS.simulator.fuzzRuns);
    const fast = config(undefined);
    planReads(fast, 20);
    expect(fast.fuzzRuns).toBe(DEFAULTS.simulator.fuzzRuns);
  });

  test('a fast target keeps every sequence, and a budget given stays as it is', () => {
    const fast = config(undefined);
    expect(planReads(fast, COSTLY_ENUMERATE_MS - 1).notes).toEqual([]);
    expect(fast.statefulTimeMs).toBeUndefined();
    const given = config(25_000);
    expect(planReads(given, 5000, undefined, true).notes).toEqual([]);
    expect(given.statefulTimeMs).toBe(25_000);
  });

  test('reading object by object costs the list and one batch per OBJECT_READS_AT_ONCE objects', () => {
    expect(OBJECT_READS_AT_ONCE).toBe(4);
    expect(objectSnapshotMs(CHEAP_OBJECTS)).toBe(5 + 14 * 15);
    expect(objectSnapshotMs({ listMs: 5, listed: 0, batchMs: 15 })).toBe(5);
  });

  test('a costly enumerate, objects read for at most half of it: snapshots by object, said with the estimate', () => {
    const cfg = config(25_000);
    const plan = planReads(cfg, 3000, CHEAP_OBJECTS, true);
    expect(cfg.treeSnapshot).toBe('objects');
    expect(plan).toMatchObject({ treeSnapshot: 'objects', objectSnapshotMs: 215 });
    expect(plan.notes).toEqual([
      'reading its 55 objects one by one takes about 0.2 s: whole-tree effects are read so, not by enumerate (--tree-snapshot)',
    ]);
    // Below the costly line the enumerate stays, however cheap the objects.
    expect(planReads(config(1), 430, CHEAP_OBJECTS).treeSnapshot).toBe('enumerate');
    // Exactly half still reads by object; a hair more does not.
    expect(planReads(config(1), 1000, { listMs: 0, listed: 4, batchMs: 500 }).treeSnapshot).toBe('objects');
    expect(planReads(config(1), 1000, { listMs: 1, listed: 4, batchMs: 500 }).treeSnapshot).toBe('enumerate');
  });

  test('objects dearer than half an enumerate, a cheap enumerate, or nothing measured: the enumerate', () => {
    // A server answering one request at a time: four GETs cost four times one.
    const serial = { listMs: 30, listed: 55, batchMs: 4 * 30 };
    expect(planReads(config(1), 1100, serial).treeSnapshot).toBe('enumerate');
    expect(planReads(config(undefined), 20, CHEAP_OBJECTS).treeSnapshot).toBe('enumerate');
    const plan = planReads(config(1), 3000);
    expect(plan.treeSnapshot).toBe('enumerate');
    expect(plan.objectSnapshotMs).toBeUndefined();
  });

  test('--tree-snapshot given stays as it is, whatever the costs', () => {
    const forced = config(1, 'enumerate');
    expect(planReads(forced, 3000, CHEAP_OBJECTS).treeSnapshot).toBe('enumerate');
    const objects = config(1, 'objects');
    expect(planReads(objects, 5).treeSnapshot).toBe('objects');
    expect(planReads(objects, 5).notes).toEqual([]);
  });

  test('an enumerate within a factor of two of the costly line is timed twice; far from it, once', () => {
    expect(COSTLY_ENUMERATE_MS).toBe(1000);
    for (const ms of [500, 800, 1000, 1999]) expect(nearTheLine(ms), `${ms}`).toBe(true);
    for (const ms of [2, 499, 2000, 3000]) expect(nearTheLine(ms), `${ms}`).toBe(false);
  });
});
