/** The events suite's own logic: judging a received stream against its writes, and choosing values to write. */
import { describe, expect, test } from 'vitest';
import type { ReceivedEvent } from '../../client/subscriber.js';
import type { CheckContext } from '../../suites/harness/check.js';
import { AttrWriter, analyseStream, onDistinctObjects, percentile } from '../../suites/events/events.js';
import { sameValue } from '../../client/values.js';
import type { WritePlan } from '../../suites/harness/writable.js';

const P = '/xyz/ns/inventory/system';

/** Events as the subscriber buffers them: one PropertiesChanged of AssetTag per value. */
function stream(values: unknown[]): ReceivedEvent[] {
  return values.map((v, seq) => {
    const data = { event: 'PropertiesChanged', path: P, interface: 'xyz.ns.Inventory.Decorator.AssetTag', properties: { AssetTag: v } };
    return { at: seq, seq, data, raw: JSON.stringify(data) };
  });
}
const valueOf = (d: unknown) => (d as { properties: { AssetTag: unknown } }).properties.AssetTag;
const judge = (written: unknown[], received: unknown[]) => analyseStream(written, stream(received), valueOf);

describe('analyseStream', () => {
  const distinct = ['v1', 'v2', 'v3', 'v4', 'v5', 'v6'];

  test('the writes in order, once each: no problem, every event matched to its write', () => {
    const a = judge(distinct, distinct);
    expect(a).toMatchObject({ missing: [], extra: [], orderProblem: undefined });
    expect(a.matched.map((m) => m.write)).toEqual([0, 1, 2, 3, 4, 5]);
  });

  test('pairs swapped (events-reordered): an order problem, nothing missing or extra', () => {
    const a = judge(distinct, ['v2', 'v1', 'v4', 'v3', 'v6', 'v5']);
    expect(a.orderProblem).toMatch(/"v1"/);
    expect(a.missing).toEqual([]);
    expect(a.extra).toEqual([]);
  });

  test('every third dropped (events-dropped): missing, but no order problem', () => {
    const a = judge(distinct, ['v1', 'v2', 'v4', 'v5']);
    expect(a.missing).toEqual(['v3', 'v6']);
    expect(a.extra).toEqual([]);
    expect(a.orderProblem).toBeUndefined();
  });

  test('each pushed twice (events-duplicated): extra, but no order problem', () => {
    const a = judge(
      distinct,
      distinct.flatMap((v) => [v, v]),
    );
    expect(a.extra).toEqual(distinct);
    expect(a.missing).toEqual([]);
    expect(a.orderProblem).toBeUndefined();
  });

  test('two alternating values: a swap is still an order problem, a duplicate is not', () => {
    const written = [0, 1, 0, 1, 0, 1];
    expect(judge(written, [1, 0, 1, 0, 1, 0]).orderProblem).toBeDefined();
    const dup = judge(written, [0, 0, 1, 1, 0, 0, 1, 1, 0, 0, 1, 1]);
    expect(dup.orderProblem).toBeUndefined();
    expect(dup.extra).toHaveLength(6);
    const dropped = judge(written, [0, 1, 1, 0]);
    expect(dropped.orderProblem).toBeUndefined();
    expect(dropped.missing).toHaveLength(2);
  });

  test('a value never written is extra, not an order problem', () => {
    const a = judge(['v1', 'v2'], ['v1', 'other', 'v2']);
    expect(a.extra).toEqual(['other']);
    expect(a.orderProblem).toBeUndefined();
  });

  test('a D-Bus boolean may travel as 1/0 where it was written as true/false', () => {
    expect(judge([true, false], [1, 0])).toMatchObject({ missing: [], extra: [], orderProblem: undefined });
  });
});

describe('sameValue', () => {
  test('JSON equality, bigint = number, boolean = 0/1', () => {
    expect(sameValue(true, 1)).toBe(true);
    expect(sameValue(0, false)).toBe(true);
    expect(sameValue(true, 0)).toBe(false);
    expect(sameValue(2, true)).toBe(false);
    expect(sameValue(9007199254740993n, 9007199254740993n)).toBe(true);
    expect(sameValue(600n, 600)).toBe(true);
    expect(sameValue('1', 1)).toBe(false);
  });
});

describe('AttrWriter.nextValue', () => {
  const t = { cleanup: () => undefined } as unknown as CheckContext;
  const plan = (name: string, original: unknown, next: unknown, values?: unknown[]): WritePlan => ({
    attr: { path: P, name, values },
    original,
    next,
  });
  /** The values a writer would write in turn, simulating the successful PUTs. */
  function sequence(p: WritePlan, n: number): unknown[] {
    const w = new AttrWriter(t, p);
    const out: unknown[] = [];
    for (let i = 0; i < n; i++) {
      const v = w.nextValue();
      out.push(v);
      w.current = v;
    }
    return out;
  }
  const noRepeats = (from: unknown, values: unknown[]) => [from, ...values].every((v, i, all) => i === 0 || !sameValue(v, all[i - 1]));

  test('strings: distinct values, each unlike the one before, bounded in length', () => {
    const s = sequence(plan('AssetTag', 'ASSET-0001', 'ASSET-0001-bmcc'), 10);
    expect(new Set(s).size).toBe(10);
    expect(noRepeats('ASSET-0001', s)).toBe(true);
    expect(s.every((v) => typeof v === 'string' && v.length <= 64)).toBe(true);
  });

  test('a string left over from an earlier run is not written again as if new', () => {
    const s = sequence(plan('AssetTag', 'ASSET-bmcc1', 'ASSET-bmcc'), 3);
    expect(s).not.toContain('ASSET-bmcc1');
    expect(noRepeats('ASSET-bmcc1', s)).toBe(true);
  });

  test('declared enumeration values in turn, never repeating the current one', () => {
    const values = ['Off', 'On', 'Blink'];
    const s = sequence(plan('State', 'On', 'Off', values), 7);
    expect(s.every((v) => values.includes(v as string))).toBe(true);
    expect(noRepeats('On', s)).toBe(true);
  });

  test('a single declared value alternates with the original; no value is invented', () => {
    expect(sequence(plan('State', 'Off', 'On', ['On']), 4)).toEqual(['On', 'Off', 'On', 'Off']);
  });

  test('integers step a little above the original, so a burst of writes can all differ', () => {
    const s = sequence(plan('PowerCap', 600, 601), 6);
    expect(s).toEqual([601, 602, 603, 604, 601, 602]);
    expect(noRepeats(600, s)).toBe(true);
    expect(sequence(plan('Big', 10n, 11n), 3)).toEqual([11n, 12n, 13n]);
  });

  test('0/1 and true/false alternate between the original and the planned value', () => {
    expect(sequence(plan('Asserted', 0, 1), 3)).toEqual([1, 0, 1]);
    expect(sequence(plan('Flag', false, true), 3)).toEqual([true, false, true]);
  });
});

describe('onDistinctObjects and percentile', () => {
  test('plans on the same object, or on a path that prefixes another, are dropped', () => {
    const p = (path: string, name: string): WritePlan => ({ attr: { path, name }, original: 0, next: 1 });
    const chosen = onDistinctObjects([p('/a/led', 'X'), p('/a/led', 'Y'), p('/a/led/sub', 'Z'), p('/a/led2', 'W'), p('/a', 'V')]);
    expect(chosen.map((c) => `${c.attr.path} ${c.attr.name}`)).toEqual(['/a/led X', '/a/led2 W']);
  });

  test('nearest-rank percentile', () => {
    expect(percentile([1, 2, 3, 4], 50)).toBe(2);
    expect(percentile([5], 50)).toBe(5);
    expect(percentile([1, 2, 3, 4, 5], 100)).toBe(5);
    expect(Number.isNaN(percentile([], 50))).toBe(true);
  });
});
