/** --shard i/n: the same split on every machine whatever the order of the list; the parts cover it once. */
import { describe, expect, test } from 'vitest';
import { parseShard, shardOf } from '../../runner/fleet/shard.js';
import { UsageError } from '../../client/usage-error.js';

const NAMES = [
  'rack1-bmc1',
  'rack1-bmc2',
  'rack2-bmc1',
  'Lab-A',
  'lab-a',
  'bmcweb-7',
  'phosphor-10',
  'phosphor-9',
  '10.0.0.5-443',
  'z',
  'a.b_c-d',
  'x1',
];

/** A deterministic shuffle, so a failure replays. */
function shuffled<T>(items: readonly T[], seed: number): T[] {
  const out = [...items];
  let s = seed;
  for (let i = out.length - 1; i > 0; i--) {
    s = (s * 1103515245 + 12345) % 2 ** 31;
    const j = s % (i + 1);
    [out[i], out[j]] = [out[j]!, out[i]!];
  }
  return out;
}

describe('shardOf', () => {
  test.each([1, 2, 3, 4, 5, 12, 13])(
    '%i shards: the same parts for every order of the list; disjoint; together the whole list',
    (count) => {
      const entries = NAMES.map((name) => ({ name }));
      const parts = (list: Array<{ name: string }>): string[][] =>
        Array.from({ length: count }, (_, i) => shardOf(list, { index: i + 1, count }).map((e) => e.name));
      const reference = parts(entries);
      for (let seed = 1; seed <= 20; seed++) expect(parts(shuffled(entries, seed))).toEqual(reference);
      const all = reference.flat();
      expect([...all].sort()).toEqual([...NAMES].sort());
      expect(new Set(all).size).toBe(NAMES.length);
      const sizes = reference.map((p) => p.length);
      expect(Math.max(...sizes) - Math.min(...sizes)).toBeLessThanOrEqual(1);
    },
  );

  test('the order within a part does not depend on the order of entry either', () => {
    const entries = NAMES.map((name) => ({ name }));
    expect(shardOf(shuffled(entries, 7), { index: 2, count: 3 })).toEqual(shardOf(entries, { index: 2, count: 3 }));
  });
});

describe('parseShard', () => {
  test('I/N with 1 <= I <= N', () => {
    expect(parseShard('1/4')).toEqual({ index: 1, count: 4 });
    expect(parseShard('4/4')).toEqual({ index: 4, count: 4 });
  });

  test.each(['0/4', '5/4', '1/0', '1', 'a/b', '-1/2', '1/2/3', ''])('%j is refused with one sentence', (text) => {
    expect(() => parseShard(text)).toThrow(UsageError);
    expect(() => parseShard(text)).toThrow(/^--shard takes I\/N .*\.$/);
  });
});
