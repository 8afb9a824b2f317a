/** The events suite's own logic: choosing values to write, and the objects to write them on. */
import { describe, expect, test } from 'vitest';
import type { CheckContext } from '../../suites/harness/check.js';
import { AttrWriter } from '../../suites/events/events.js';
import { sameValue } from '../../client/values.js';
import type { WritePlan } from '../../suites/harness/writable.js';

const P = '/xyz/ns/inventory/system';

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
