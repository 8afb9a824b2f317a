/** The nearest-rank percentile the events suite's latency record and the benchmarks share. */
import { describe, expect, test } from 'vitest';
import { percentile } from '../../client/percentile.js';

describe('percentile', () => {
  test('nearest rank: the p-th percentile is a value of the list, the smallest with p % of the list at or below it', () => {
    expect(percentile([1, 2, 3, 4], 50)).toBe(2);
    expect(percentile([1, 2, 3, 4, 5, 6, 7, 8, 9, 10], 90)).toBe(9);
    expect(percentile([5], 50)).toBe(5);
    expect(percentile([1, 2, 3, 4, 5], 100)).toBe(5);
    expect(percentile([1, 2, 3, 4, 5], 0)).toBe(1);
    expect(Number.isNaN(percentile([], 50))).toBe(true);
  });
});
