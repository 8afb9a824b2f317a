/**
 * The gaps between the readings of a poll: short at first, since a simulator or a fast BMC is done
 * in moments, then doubling up to `maxMs`, so that a slow one is not asked more than every `maxMs`
 * once the first second or so has passed.
 */
export function* pollGaps(maxMs: number, firstMs = 25): Generator<number, never> {
  for (let gap = firstMs; ; gap *= 2) yield Math.min(gap, maxMs);
}
