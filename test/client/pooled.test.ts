import { describe, expect, test } from 'vitest';
import { pooled } from '../../client/pooled.js';

describe('pooled', () => {
  test('runs at most n at once, every item once, and gives the results in the items order', async () => {
    let running = 0;
    let most = 0;
    const seen: number[] = [];
    const items = Array.from({ length: 20 }, (_, i) => i);
    const out = await pooled(items, 3, async (i) => {
      running++;
      most = Math.max(most, running);
      seen.push(i);
      // Later items end sooner: the results must still come back in the items' order.
      await new Promise((r) => setTimeout(r, 20 - i));
      running--;
      return i * 10;
    });
    expect(out).toEqual(items.map((i) => i * 10));
    expect(most).toBe(3);
    expect([...seen].sort((a, b) => a - b)).toEqual(items);
  });

  test('no items: no call, an empty result', async () => {
    let calls = 0;
    expect(await pooled([], 4, () => Promise.resolve(++calls))).toEqual([]);
    expect(calls).toBe(0);
  });
});
